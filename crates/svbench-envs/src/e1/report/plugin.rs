//! E1's report plugin: a record is reduced to its outcome (a packed code
//! and the stated confidence), grouped by `meta.source` and
//! `meta.scenario`, and finished into E1's metrics.

use serde::Deserialize;
use serde_json::Value;
use svbench_core::cost::Decision;
use svbench_core::summary::Summary;
use svbench_core::ParseStatus;

use super::ci::{to_ci95, E1Classes};
use super::compute::v1_decision;
use super::guard::{guard_e1, guard_e1_summary, guard_e1_upstream};
use super::outcome::{classify, status_of, E1Sample, Prediction};
use super::record::{E1Fields, E1Parsed};
use super::summary::{E1Metrics, E1Summary, E1UpstreamMetrics};
use super::{cost_matrix, e1_report_with_ci, E1Input};
use svbench_core::reward::ProfileBounds;
use svbench_report::build::rate;
use svbench_report::html::{text, typed, Outcome, SampleView};
use svbench_report::markdown::NA;
use svbench_report::plots::Plot;
use svbench_report::plugin::{
    EnvReport, EnvSchemas, EnvSections, EnvSummary, FinishContext, RecordKeys, Resample, ENV_STATS,
};
use svbench_report::read::{RecordView, RunInfo};
use svbench_report::scoreboard::EnvBoard;

/// E1's report plugin.
#[derive(Debug, Clone, Copy, Default)]
pub struct E1Report;

/// The plugin as the registry holds it.
pub static REPORT: E1Report = E1Report;

/// `[min, max]` of E1's reward components by profile (weights are
/// configurable; these bounds are not): `v1` utility is 1 − cost/cost_fn
/// with every cost in `[0, cost_fn]`; upstream's `reward_asymmetric_cost` is
/// −1 for a missed attack.
pub const COMPONENT_BOUNDS: ProfileBounds = &[
    (
        "v1",
        &[
            ("utility", [0.0, 1.0]),
            ("calibration", [0.0, 1.0]),
            ("format", [0.0, 1.0]),
        ],
    ),
    (
        "upstream",
        &[
            ("reward_accuracy", [0.0, 1.0]),
            ("format_reward", [0.0, 1.0]),
            ("reward_calibration", [0.0, 1.0]),
            ("reward_asymmetric_cost", [-1.0, 1.0]),
        ],
    ),
];

/// A record's outcome, packed: no outcome (errored), an unusable gold
/// label, or `SAMPLE + prediction | gold << 2 | label_only << 3` with the
/// stated confidence beside it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct E1Code {
    code: u8,
    confidence: f64,
}

const NONE: u8 = 0;
const UNUSABLE: u8 = 1;
const SAMPLE: u8 = 2;

impl E1Code {
    /// Packs an outcome (`None`: errored; `Some(None)`: unusable gold).
    #[must_use]
    pub fn pack(e1: Option<Option<E1Sample>>) -> Self {
        let (code, confidence) = match e1 {
            None => (NONE, 0.0),
            Some(None) => (UNUSABLE, 0.0),
            Some(Some(s)) => {
                let p = match s.prediction {
                    Prediction::Malicious => 0,
                    Prediction::Benign => 1,
                    Prediction::Abstain => 2,
                    Prediction::Invalid => 3,
                };
                let bits = p | u8::from(s.gold_malicious) << 2 | u8::from(s.label_only) << 3;
                (SAMPLE + bits, s.confidence)
            }
        };
        E1Code { code, confidence }
    }

    /// The outcome packed.
    #[must_use]
    pub fn unpack(self) -> Option<Option<E1Sample>> {
        match self.code {
            NONE => None,
            UNUSABLE => Some(None),
            c => {
                let bits = c - SAMPLE;
                let prediction = match bits & 3 {
                    0 => Prediction::Malicious,
                    1 => Prediction::Benign,
                    2 => Prediction::Abstain,
                    _ => Prediction::Invalid,
                };
                Some(Some(E1Sample {
                    prediction,
                    confidence: self.confidence,
                    gold_malicious: bits & 4 != 0,
                    label_only: bits & 8 != 0,
                }))
            }
        }
    }
}

/// No bootstrap class.
const NO_CLASS: u32 = u32::MAX;

/// E1's accumulator: the samples with their groups, and each metric
/// record's bootstrap class.
#[derive(Debug, Default)]
pub struct E1Acc {
    input: E1Input,
    classes: E1Classes,
    class: Vec<u32>,
    counts: Vec<u32>,
}

impl Resample for E1Acc {
    fn clear(&mut self) {
        self.counts.clear();
        self.counts.resize(self.classes.len(), 0);
    }

    fn add(&mut self, item: usize) {
        let class = self.class[item];
        if class != NO_CLASS {
            self.counts[class as usize] += 1;
        }
    }

    fn stats(&self) -> [f64; ENV_STATS] {
        let mut out = [f64::NAN; ENV_STATS];
        out[..4].copy_from_slice(&self.classes.stats(&self.counts));
        out
    }
}

/// E1's `parsed` object of a sample (an object with a `label`).
fn parsed_of(sample: &SampleView<'_>) -> Option<E1Parsed> {
    let v: Value = typed(sample.parsed)?;
    v.get("label")?;
    E1Parsed::deserialize(&v).ok()
}

impl EnvSections for E1Report {
    fn schemas(&self) -> EnvSchemas {
        EnvSchemas {
            metrics: Some(EnvSchemas::of::<E1Metrics>()),
            upstream_compat: Some(EnvSchemas::of::<E1UpstreamMetrics>()),
            extensions: vec![("e1", EnvSchemas::of::<E1Summary>())],
            parsed: Some(EnvSchemas::of::<E1Parsed>()),
            compat: Some(EnvSchemas::of::<super::record::E1Compat>()),
        }
    }

    fn component_bounds(&self) -> ProfileBounds {
        COMPONENT_BOUNDS
    }

    fn board(&self) -> Option<&dyn EnvBoard> {
        Some(&super::board::E1Board)
    }

    fn markdown(&self, out: &mut String, summary: &Summary) {
        match (
            summary.metrics_as::<E1Metrics>(),
            summary.upstream_compat_as::<E1UpstreamMetrics>(),
            summary.extension::<E1Summary>("e1"),
        ) {
            (Some(m), Some(u), Some(e1)) => {
                super::markdown::sections(out, &m, &u, &e1);
            }
            _ => out.push_str("## Metrics\n\nThe summary has no complete E1 metrics.\n\n"),
        }
    }

    fn grading_name(&self) -> &'static str {
        "e1"
    }

    /// The decided label (Malicious/Benign) against the gold answer.
    fn grade(&self, v: &SampleView<'_>) -> Outcome {
        let parse = typed(v.parse);
        let parsed = parsed_of(v);
        // The compatibility fields count only where `parsed` falls short.
        let complete = parse.is_some()
            && parsed.as_ref().is_some_and(|p| {
                p.confidence.is_some() && super::outcome::standard_label(Some(&p.label)).is_some()
            });
        let [predicted_label, confidence] = match complete {
            true => [None, None],
            false => v.others(["predicted_label", "confidence"]),
        };
        let view = RecordView {
            answer: typed(v.answer).unwrap_or(Value::Null),
            parse,
            env: E1Fields {
                info: None,
                parsed,
                predicted_label: typed(predicted_label),
                confidence: typed(confidence),
            },
            ..RecordView::default()
        };
        match classify(&view) {
            // A gold label that is not Malicious/Benign cannot be graded.
            Err(_) => Outcome::Invalid,
            Ok(s) => match s.prediction {
                Prediction::Invalid => Outcome::Invalid,
                Prediction::Abstain => Outcome::Abstain,
                Prediction::Malicious | Prediction::Benign => {
                    if (s.prediction == Prediction::Malicious) == s.gold_malicious {
                        Outcome::Correct
                    } else {
                        Outcome::Wrong
                    }
                }
            },
        }
    }

    fn legend(&self) -> &'static str {
        "Outcomes: error — the sample errored (no reward); invalid — parse status invalid or \
         no_answer, no usable label, or a gold label that is not Malicious/Benign; abstain — \
         the parsed label is Abstain; correct / wrong — the decided label (Malicious/Benign) \
         equals / differs from the gold answer (label-only answers included)."
    }

    fn predicted_label(&self, v: &SampleView<'_>) -> Option<(String, Option<f64>)> {
        let (label, conf) = match parsed_of(v) {
            Some(p) => (p.label, p.confidence),
            None => (text(v.others(["predicted_label"])[0]), None),
        };
        Some((label, conf.or_else(|| typed(v.others(["confidence"])[0]))))
    }

    fn compare_metrics(&self) -> &'static [&'static str] {
        &["accuracy", "cost"]
    }

    /// Upstream's schema wants numbers here; an undefined one reads n/a.
    fn metrics_caption(&self, summary: &Summary, metrics: &mut [(String, String)]) -> &'static str {
        let undefined = summary
            .extension::<E1Summary>("e1")
            .map(|e| e.undefined)
            .unwrap_or_default();
        for (k, v) in metrics {
            let leaf = k.rsplit('.').next().unwrap_or(k);
            if undefined.iter().any(|u| u == leaf) {
                *v = NA.to_string();
            }
        }
        "Metrics (upstream names; invalid answers and abstentions counted)"
    }
}

impl EnvReport for E1Report {
    type Fields = E1Fields;
    type Sample = E1Code;
    type Acc = E1Acc;
    /// The samples (the calibration and confidence plots draw them).
    type PlotData = Vec<E1Sample>;

    /// Without a `parse` object the compatibility fields decide.
    fn status_without_parse(&self, r: &RecordView<E1Fields>) -> ParseStatus {
        status_of(r)
    }

    fn groups(&self, r: &RecordView<E1Fields>) -> [Option<String>; 2] {
        r.env.groups()
    }

    fn reduce(&self, r: RecordView<E1Fields>, errored: bool) -> E1Code {
        E1Code::pack((!errored).then(|| classify(&r).ok()))
    }

    fn start(&self, _info: &RunInfo, _profile: Option<&str>) -> E1Acc {
        E1Acc::default()
    }

    fn push(&self, acc: &mut E1Acc, sample: E1Code, keys: RecordKeys<'_>) -> bool {
        match sample.unpack() {
            Some(Some(s)) => {
                acc.class.push(acc.classes.class_of(&s));
                let [source, scenario] = keys.groups;
                acc.input.push_sample(s, source, scenario);
                true
            }
            _ => {
                acc.class.push(NO_CLASS);
                false
            }
        }
    }

    fn unusable_gold(&self, n: u64) -> String {
        format!("{n} scored record(s) have no Malicious/Benign gold answer and are not in the E1 metrics")
    }

    fn finish(&self, acc: E1Acc, ctx: &mut FinishContext<'_>) -> (EnvSummary, Vec<E1Sample>) {
        let input = acc.input;
        let matrix = cost_matrix(
            ctx.profile,
            &ctx.info.reward_params,
            ctx.info.env_provenance.get("cost_matrix_v1"),
        );
        let ci = ctx
            .intervals
            .map(|iv| to_ci95([iv[0], iv[1], iv[2], iv[3]]))
            .filter(|_| !input.samples.is_empty());
        let mut rep = e1_report_with_ci(&input, matrix, ci);
        let t = rep.tally;
        ctx.validity.strict.insert(
            "accuracy_strict".to_string(),
            rate(t.tp + t.tn, t.all() + ctx.counts.errored),
        );
        guard_e1(&mut rep.metrics, "metrics", ctx.warnings);
        guard_e1_upstream(&mut rep.upstream, ctx.warnings);
        guard_e1_summary(&mut rep.e1, ctx.warnings);
        let headline = super::headline::e1(&rep.metrics, &rep.e1);
        let summary = EnvSummary::new(&rep.metrics)
            .upstream_compat(&rep.upstream)
            .headline(headline)
            .extension("e1", &rep.e1);
        (summary, input.samples)
    }

    fn plots(&self, samples: &Vec<E1Sample>, summary: &Summary) -> Vec<Plot> {
        match (
            summary.extension::<E1Summary>("e1"),
            summary.metrics_as::<E1Metrics>(),
        ) {
            (Some(e1), Some(m)) => super::plots::plots(samples, &e1, &m),
            _ => Vec::new(),
        }
    }

    /// Per example, the report's `accuracy` (abstentions and invalid
    /// answers are not correct) and the v1 cost.
    fn compare_record(
        &self,
        info: &RunInfo,
        r: &RecordView<E1Fields>,
        add: &mut dyn FnMut(&str, f64),
    ) {
        let matrix = cost_matrix(
            info.reward_profile.as_deref(),
            &info.reward_params,
            info.env_provenance.get("cost_matrix_v1"),
        )
        .0;
        if let Ok(s) = classify(r) {
            let decision = v1_decision(&s);
            let correct = decision == Decision::Correct && s.prediction != Prediction::Abstain;
            add("accuracy", f64::from(u8::from(correct)));
            add("cost", matrix.cost(decision));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        assert_eq!(E1Code::pack(None).unpack(), None);
        assert_eq!(E1Code::pack(Some(None)).unpack(), Some(None));
        for gold in [false, true] {
            let mut samples = vec![
                E1Sample::decided(true, gold, 0.7),
                E1Sample::decided(false, gold, 0.1),
                E1Sample::abstain(gold),
                E1Sample::invalid(gold),
            ];
            let mut label_only = E1Sample::decided(false, gold, 0.0);
            label_only.label_only = true;
            samples.push(label_only);
            for s in samples {
                assert_eq!(E1Code::pack(Some(Some(s))).unpack(), Some(Some(s)));
            }
        }
    }

    fn grade_line(line: &str) -> Outcome {
        E1Report.grade(&SampleView::read(line.as_bytes()).expect("a record"))
    }

    #[test]
    fn the_compatibility_fields_grade_what_parsed_does_not_say() {
        let valid = r#""parse": {"status": "valid", "reason": null, "format_ok": true}"#;
        // An upstream-style record: only the compatibility fields.
        let upstream = format!(
            r#"{{"answer": "Malicious", {valid}, "predicted_label": "Malicious", "confidence": 0.9}}"#
        );
        assert_eq!(grade_line(&upstream), Outcome::Correct);
        let wrong = upstream.replace(
            r#""predicted_label": "Malicious""#,
            r#""predicted_label": "Benign""#,
        );
        assert_eq!(grade_line(&wrong), Outcome::Wrong);
        // A complete `parsed` decides; the compatibility label is not read.
        let parsed = format!(
            r#"{{"answer": "Malicious", {valid}, "parsed": {{"label": "Malicious", "confidence": 0.8}}, "predicted_label": "Benign"}}"#
        );
        assert_eq!(grade_line(&parsed), Outcome::Correct);
        // A label `parsed` does not know falls back to the compatibility one.
        let odd = format!(
            r#"{{"answer": "Benign", {valid}, "parsed": {{"label": "maybe", "confidence": 0.8}}, "predicted_label": "Benign"}}"#
        );
        assert_eq!(grade_line(&odd), Outcome::Correct);
        let none = format!(r#"{{"answer": "Benign", {valid}}}"#);
        assert_eq!(grade_line(&none), Outcome::Invalid);
    }
}
