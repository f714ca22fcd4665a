//! E2's report plugin: a record is kept whole (E2's metrics read its
//! findings and patches; its datasets hold hundreds of items) and finished
//! into E2's metrics, with intervals of `micro_f1`, `f1_weighted` and the
//! patch success rate from the shared bootstrap.

use crate::e2::report::record::{E2Parsed, RuleFinding};
use svbench_core::summary::Summary;

use super::summary::{E2Metrics, E2Summary};

use super::extensions::micro_f1;
use super::guard::guard_e2;
use super::upstream::{fixture_type, normalise, predicted_entries, record_scores};
use super::E2Input;
use crate::e2::report::record::E2Fields;
use svbench_core::reward::ProfileBounds;
use svbench_report::build::rate;
use svbench_report::html::{text, typed, Outcome, SampleView};
use svbench_report::plots::Plot;
use svbench_report::plugin::{
    EnvReport, EnvSchemas, EnvSections, EnvSummary, FinishContext, RecordKeys, Resample, ENV_STATS,
};
use svbench_report::read::{RecordView, RunInfo};
use svbench_report::scoreboard::EnvBoard;

/// E2's report plugin.
#[derive(Debug, Clone, Copy, Default)]
pub struct E2Report;

/// The plugin as the registry holds it.
pub static REPORT: E2Report = E2Report;

/// `[min, max]` of E2's reward components by profile (weights are
/// configurable; these bounds are not): upstream's
/// `reward_config_auditing` is clamped to `[0, 2]`.
pub const COMPONENT_BOUNDS: ProfileBounds = &[
    (
        "v1",
        &[
            ("detection", [0.0, 1.0]),
            ("patch", [0.0, 1.0]),
            ("format", [0.0, 1.0]),
        ],
    ),
    (
        "upstream",
        &[
            ("reward_config_auditing", [0.0, 2.0]),
            ("format_reward", [0.0, 1.0]),
            ("tool_observation_reward", [0.0, 1.0]),
        ],
    ),
];

/// What an E2 record contributes to a bootstrap resample.
#[derive(Debug, Clone, Copy)]
struct Item {
    /// Per-record upstream `f1_weighted`, NaN if none.
    f1_weighted: f64,
    /// The record provided a patch.
    patch_provided: bool,
    /// The provided patch applied.
    patch_applied: bool,
    /// Finding counts `[tp, fp, fn]` on the v1 sets (pooled for `micro_f1`).
    micro: [u32; 3],
}

/// Sums of one resample.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    f1_sum: f64,
    f1_n: u64,
    provided: u64,
    applied: u64,
    micro: [u64; 3],
}

/// E2's accumulator: the metrics input and each metric record's bootstrap
/// item.
#[derive(Debug, Default)]
pub struct E2Acc {
    input: E2Input,
    items: Vec<Item>,
    sums: Sums,
}

impl Resample for E2Acc {
    fn clear(&mut self) {
        self.sums = Sums::default();
    }

    fn add(&mut self, item: usize) {
        let it = self.items[item];
        let s = &mut self.sums;
        if !it.f1_weighted.is_nan() {
            s.f1_sum += it.f1_weighted;
            s.f1_n += 1;
        }
        for (m, c) in s.micro.iter_mut().zip(it.micro) {
            *m += u64::from(c);
        }
        s.provided += u64::from(it.patch_provided);
        s.applied += u64::from(it.patch_applied);
    }

    /// `[f1_weighted, patch_success_rate, micro_f1]`: a resample without
    /// a finding has no micro F1 (NaN), one without a provided patch a
    /// success rate of 0.
    fn stats(&self) -> [f64; ENV_STATS] {
        let s = &self.sums;
        let mean = if s.f1_n == 0 {
            f64::NAN
        } else {
            s.f1_sum / s.f1_n as f64
        };
        let success = if s.provided == 0 {
            0.0
        } else {
            s.applied as f64 / s.provided as f64
        };
        let [tp, fp, fn_] = s.micro.map(|c| c as f64);
        let mut out = [f64::NAN; ENV_STATS];
        out[..3].copy_from_slice(&[mean, success, micro_f1(tp, fp, fn_).unwrap_or(f64::NAN)]);
        out
    }
}

/// The scored findings equal the oracle's — `parsed.detection.<profile>`
/// has no false positive and no false negative; without that block, the
/// id sets of `parsed.prediction` and `parsed.oracle` are equal.
fn exact(parsed: Option<&E2Parsed>, profile: &str) -> bool {
    let Some(parsed) = parsed else { return false };
    let detection = match profile {
        "" | "v1" => parsed.detection.v1.as_ref(),
        "upstream" => parsed.detection.upstream.as_ref(),
        _ => None,
    };
    if let Some(d) = detection {
        return d.fp == 0.0 && d.fn_ == 0.0;
    }
    let ids = |list: &[RuleFinding]| -> std::collections::BTreeSet<String> {
        list.iter().map(|e| e.id.clone()).collect()
    };
    ids(&parsed.prediction) == ids(&parsed.oracle)
}

impl EnvSections for E2Report {
    fn schemas(&self) -> EnvSchemas {
        use std::collections::BTreeMap;
        type Breakdown = BTreeMap<String, super::summary::E2SeverityCounts>;
        EnvSchemas {
            metrics: Some(EnvSchemas::of::<E2Metrics>()),
            upstream_compat: None,
            extensions: vec![
                ("severity_breakdown", EnvSchemas::of::<Breakdown>()),
                ("e2", EnvSchemas::of::<E2Summary>()),
            ],
            parsed: Some(EnvSchemas::of::<E2Parsed>()),
            compat: Some(EnvSchemas::of::<super::record::E2Compat>()),
        }
    }

    fn component_bounds(&self) -> ProfileBounds {
        COMPONENT_BOUNDS
    }

    fn board(&self) -> Option<&dyn EnvBoard> {
        Some(&super::board::E2Board)
    }

    fn markdown(&self, out: &mut String, summary: &Summary) {
        match (
            summary.metrics_as::<E2Metrics>(),
            summary.extension::<E2Summary>("e2"),
        ) {
            (Some(m), Some(x)) => super::markdown::sections(out, summary, &m, &x),
            _ => out.push_str("## Metrics\n\nThe summary has E2 metrics but no `e2` object.\n\n"),
        }
    }

    /// E2 records the label in its summary.
    fn policy_label(&self, summary: &Summary) -> Option<String> {
        summary
            .extension::<E2Summary>("e2")
            .and_then(|e| e.policy_label)
    }

    /// E2's strict value is of upstream's averaged F1: it is shown with the
    /// upstream-compatible fields.
    fn strict_in_validity(&self) -> bool {
        false
    }

    fn grading_name(&self) -> &'static str {
        "e2"
    }

    fn grade(&self, v: &SampleView<'_>) -> Outcome {
        let parsed: Option<E2Parsed> = typed(v.parsed);
        if exact(parsed.as_ref(), &text(v.reward_profile)) {
            Outcome::Correct
        } else {
            Outcome::Wrong
        }
    }

    fn legend(&self) -> &'static str {
        "Outcomes: error — the sample errored (no reward); invalid — parse status invalid or \
         no_answer; correct — the scored findings equal the oracle's exactly \
         (parsed.detection.<profile> has no false positive and no false negative, else the \
         id sets of parsed.prediction and parsed.oracle are equal; a clean config answered \
         with no finding is correct); wrong — any other scored sample."
    }

    fn compare_metrics(&self) -> &'static [&'static str] {
        &[
            "f1_weighted",
            "f1_unweighted",
            "patch_applied",
            "clean_pass",
        ]
    }

    fn metrics_caption(
        &self,
        _summary: &Summary,
        _metrics: &mut [(String, String)],
    ) -> &'static str {
        "Upstream-compatible metrics (upstream definitions: a clean item answered [] scores \
         F1 0 and Terraform's opa/ labels are dropped; read the headline)"
    }
}

impl EnvReport for E2Report {
    type Fields = E2Fields;
    type Sample = Option<Box<RecordView<E2Fields>>>;
    type Acc = E2Acc;
    /// E2's plots draw the summary alone.
    type PlotData = ();

    fn reduce(&self, r: RecordView<E2Fields>, errored: bool) -> Option<Box<RecordView<E2Fields>>> {
        (!errored).then(|| Box::new(r))
    }

    fn start(&self, _info: &RunInfo, _profile: Option<&str>) -> E2Acc {
        E2Acc::default()
    }

    fn push(
        &self,
        acc: &mut E2Acc,
        sample: Option<Box<RecordView<E2Fields>>>,
        _keys: RecordKeys<'_>,
    ) -> bool {
        let item = match sample {
            Some(r) => {
                let c = acc.input.add(&r);
                Item {
                    f1_weighted: c.f1_weighted,
                    patch_provided: c.patch_provided,
                    patch_applied: c.patch_applied,
                    micro: c.micro.unwrap_or_default(),
                }
            }
            None => Item {
                f1_weighted: f64::NAN,
                patch_provided: false,
                patch_applied: false,
                micro: [0; 3],
            },
        };
        acc.items.push(item);
        true
    }

    fn finish(&self, acc: E2Acc, ctx: &mut FinishContext<'_>) -> (EnvSummary, ()) {
        let records = acc.items.len() as u64;
        let label = svbench_report::headline::policy_label(ctx.info.baseline_type.as_deref());
        let finite = |r: [f64; 2]| r.iter().all(|x| x.is_finite()).then_some(r);
        let ci = (records > 0).then(|| match ctx.intervals {
            Some(iv) => (finite(iv[2]), finite(iv[0]), finite(iv[1])),
            None => (None, None, None),
        });
        let mut rep = acc.input.finish(ci, label);
        // Errored samples enter as empty predictions: F1 0 each.
        let f1 = rep.metrics.finding_quality.f1_weighted;
        ctx.validity.strict.insert(
            "f1_weighted_strict".to_string(),
            rate(records, records + ctx.counts.errored).map(|share| f1 * share),
        );
        guard_e2(&mut rep.metrics, ctx.warnings);
        let summary = EnvSummary::new(&rep.metrics)
            .headline(super::headline::e2(&rep.e2))
            .upstream_extension("severity_breakdown", &rep.severity_breakdown)
            .extension("e2", &rep.e2);
        (summary, ())
    }

    fn plots(&self, _data: &(), summary: &Summary) -> Vec<Plot> {
        match (
            summary.extension::<E2Summary>("e2"),
            summary.metrics_as::<E2Metrics>(),
        ) {
            (Some(e2), Some(m)) => super::plots::plots(summary, &e2, &m),
            _ => Vec::new(),
        }
    }

    /// Upstream-way F1s, patch applied, clean pass (clean records only).
    fn compare_record(
        &self,
        _info: &RunInfo,
        r: &RecordView<E2Fields>,
        add: &mut dyn FnMut(&str, f64),
    ) {
        let ft = fixture_type(r);
        let oracle = normalise(r.env.oracle_violations.iter().flatten(), ft);
        let predicted = normalise(&predicted_entries(r), ft);
        let (w, u) = record_scores(&oracle, &predicted);
        add("f1_weighted", w.f1);
        add("f1_unweighted", u.f1);
        add("patch_applied", f64::from(u8::from(r.env.patch_applied)));
        if oracle.map.is_empty() {
            add("clean_pass", f64::from(u8::from(predicted.map.is_empty())));
        }
    }
}
