//! E4's report plugin: a record is reduced to its row ([`E4Sample`]: gold,
//! call, grouping keys, evidence counts) on the parsing thread, never kept
//! whole, and finished into E4's metrics with E4's own intervals.

use crate::e4::report::record::{E4Fields, E4Parsed};
use crate::e4::report::summary::{E4Metrics, E4UpstreamMetrics};
use serde::Deserialize;
use serde_json::Value;
use svbench_core::metrics::mean;
use svbench_core::summary::Summary;

use super::{cost_matrix, e4_report_with_ci, sample, Call, E4Input, E4Sample, Gold};
use svbench_core::reward::ProfileBounds;
use svbench_report::build::rate;
use svbench_report::html::{text, typed, Outcome, SampleView};
use svbench_report::plots::Plot;
use svbench_report::plugin::{
    EnvReport, EnvSchemas, EnvSections, EnvSummary, FinishContext, NoStats, RecordKeys, Resample,
};
use svbench_report::read::{RecordView, RunInfo};
use svbench_report::scoreboard::EnvBoard;

/// E4's report plugin.
#[derive(Debug, Clone, Copy, Default)]
pub struct E4Report;

/// The plugin as the registry holds it.
pub static REPORT: E4Report = E4Report;

/// `[min, max]` of E4's reward components by profile (weights are
/// configurable; these bounds are not): upstream's
/// `reward_phishing_asymmetric_cost` is −1 for a missed phish.
pub const COMPONENT_BOUNDS: ProfileBounds = &[
    (
        "v1",
        &[
            ("utility", [0.0, 1.0]),
            ("calibration", [0.0, 1.0]),
            ("evidence", [0.0, 1.0]),
            ("format", [0.0, 1.0]),
        ],
    ),
    (
        "upstream",
        &[
            ("reward_accuracy", [0.0, 1.0]),
            ("format_reward", [0.0, 1.0]),
            ("reward_calibration", [0.0, 1.0]),
            ("reward_phishing_asymmetric_cost", [-1.0, 1.0]),
            ("reward_evidence_alignment", [0.0, 1.0]),
            ("evidence_as_written", [0.0, 1.0]),
        ],
    ),
];

/// E4's accumulator: the rows with their example units, and the errored
/// records of phishing emails (misses of the strict recall).
#[derive(Debug, Default)]
pub struct E4Acc {
    input: E4Input,
    last_example: Option<[u64; 2]>,
    errored_phishing: u64,
}

/// E4 draws its intervals itself ([`super::ci::ci95`]).
impl Resample for E4Acc {
    fn clear(&mut self) {}
    fn add(&mut self, _item: usize) {}
    fn stats(&self) -> [f64; svbench_report::plugin::ENV_STATS] {
        NoStats.stats()
    }
}

/// E4's `parsed` object of a sample (an object with a `render_version`).
fn parsed_of(sample: &SampleView<'_>) -> Option<E4Parsed> {
    let v: Value = typed(sample.parsed)?;
    v.get("render_version")?;
    E4Parsed::deserialize(&v).ok()
}

impl EnvSections for E4Report {
    fn schemas(&self) -> EnvSchemas {
        EnvSchemas {
            metrics: Some(EnvSchemas::of::<E4Metrics>()),
            upstream_compat: Some(EnvSchemas::of::<E4UpstreamMetrics>()),
            extensions: Vec::new(),
            parsed: Some(EnvSchemas::of::<E4Parsed>()),
            compat: Some(EnvSchemas::of::<crate::e4::report::record::E4Compat>()),
        }
    }

    fn component_bounds(&self) -> ProfileBounds {
        COMPONENT_BOUNDS
    }

    fn board(&self) -> Option<&dyn EnvBoard> {
        Some(&super::board::E4Board)
    }

    fn markdown(&self, out: &mut String, summary: &Summary) {
        let upstream = summary.upstream_compat_as::<E4UpstreamMetrics>();
        match summary.metrics_as::<E4Metrics>() {
            Some(m) => super::markdown::sections(out, &m, upstream.as_ref()),
            None => out.push_str("## Metrics\n\nThe summary has no E4 metrics.\n\n"),
        }
    }

    /// E4 reads the label from the run's metadata.
    fn policy_label(&self, summary: &Summary) -> Option<String> {
        svbench_report::headline::policy_label(summary.metadata.baseline_type.as_deref())
    }

    fn grading_name(&self) -> &'static str {
        "e4"
    }

    /// The label against the gold one, Abstain being right on ambiguous
    /// emails.
    fn grade(&self, v: &SampleView<'_>) -> Outcome {
        let parsed = parsed_of(v);
        // The compatibility fields count only where `parsed` falls short.
        let complete = parsed
            .as_ref()
            .is_some_and(|p| p.label.is_some() && p.confidence.is_some());
        let [predicted_label, confidence] = match complete {
            true => [None, None],
            false => v.others(["predicted_label", "confidence"]),
        };
        let view = RecordView {
            answer: typed(v.answer).unwrap_or(Value::Null),
            parse: typed(v.parse),
            env: E4Fields {
                info: None,
                parsed,
                predicted_label: typed(predicted_label),
                confidence: typed(confidence),
            },
            ..RecordView::default()
        };
        match sample(&view) {
            None => Outcome::Invalid,
            Some(s) if s.call == Call::Invalid => Outcome::Invalid,
            Some(s) if s.call.correct(s.gold) => Outcome::Correct,
            Some(s) if s.call == Call::Abstain && s.gold != Gold::Abstain => Outcome::Abstain,
            Some(_) => Outcome::Wrong,
        }
    }

    fn legend(&self) -> &'static str {
        "Outcomes: error — the sample errored (no reward); invalid — parse status invalid or \
         no_answer, or no usable label or gold label; correct — the parsed label equals the \
         gold label (Abstain on an ambiguous email included); abstain — Abstain on a \
         clear-cut email; wrong — any other label (label-only answers included)."
    }

    fn predicted_label(&self, v: &SampleView<'_>) -> Option<(String, Option<f64>)> {
        let (label, conf) = match parsed_of(v) {
            Some(p) => (p.label.unwrap_or_default(), p.confidence),
            None => (text(v.others(["predicted_label"])[0]), None),
        };
        Some((label, conf.or_else(|| typed(v.others(["confidence"])[0]))))
    }

    /// The email cut into highlighted segments, when the sample has a
    /// string `question`.
    fn sample_extra(&self, v: &SampleView<'_>) -> Option<(&'static str, String)> {
        let parsed = parsed_of(v)?;
        let question: String = typed(v.question)?;
        let info: Value = typed(v.info).unwrap_or(Value::Null);
        let spans = info
            .pointer("/meta/spans")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let segments = super::highlight::segments(&question, &parsed, spans);
        Some(("email_evidence", serde_json::to_string(&segments).ok()?))
    }

    fn compare_metrics(&self) -> &'static [&'static str] {
        &["accuracy", "cost", "evidence_f1"]
    }

    fn metrics_caption(
        &self,
        _summary: &Summary,
        _metrics: &mut [(String, String)],
    ) -> &'static str {
        "Metrics (invalid answers counted; null where undefined)"
    }
}

impl EnvReport for E4Report {
    type Fields = E4Fields;
    type Sample = Option<E4Sample>;
    type Acc = E4Acc;
    /// The rows (the calibration plot draws them).
    type PlotData = Vec<E4Sample>;

    fn reduce(&self, r: RecordView<E4Fields>, _errored: bool) -> Option<E4Sample> {
        sample(&r)
    }

    fn start(&self, _info: &RunInfo, _profile: Option<&str>) -> E4Acc {
        E4Acc::default()
    }

    fn errored(&self, acc: &mut E4Acc, sample: &Option<E4Sample>) {
        let gold = sample.as_ref().map(|s| s.gold);
        acc.errored_phishing += u64::from(gold == Some(Gold::Phishing));
    }

    fn push(&self, acc: &mut E4Acc, sample: Option<E4Sample>, keys: RecordKeys<'_>) -> bool {
        let Some(s) = sample else {
            return false;
        };
        let same = keys.example.is_some() && keys.example == acc.last_example;
        acc.input.push(s, same);
        acc.last_example = keys.example;
        true
    }

    fn unusable_gold(&self, n: u64) -> String {
        format!("{n} scored record(s) have no Phishing/Legitimate/Abstain gold label and are not in the E4 metrics")
    }

    fn finish(&self, acc: E4Acc, ctx: &mut FinishContext<'_>) -> (EnvSummary, Vec<E4Sample>) {
        let input = acc.input;
        let matrix = cost_matrix(
            ctx.profile,
            &ctx.info.reward_params,
            ctx.info.env_provenance.get("cost_matrix_v1"),
        );
        let ci = super::ci::ci95(&input.samples, &input.units, ctx.bootstrap);
        let mut rep = e4_report_with_ci(&input, matrix, ci);
        // Unfiltered means, so that an overflow is named in the warnings.
        rep.metrics.reward = mean(ctx.rewards);
        rep.metrics.components = ctx
            .components
            .iter()
            .map(|(k, v)| (k.clone(), mean(v)))
            .collect();
        // Errored emails enter as empty answers: a phishing one is a miss.
        let gold_phishing = &rep.metrics.all.confusion.phishing;
        let all_phishing = gold_phishing.phishing
            + gold_phishing.legitimate
            + gold_phishing.abstain
            + gold_phishing.invalid;
        ctx.validity.strict.insert(
            "recall_strict".to_string(),
            rate(gold_phishing.phishing, all_phishing + acc.errored_phishing),
        );
        super::guard::guard_metrics(&mut rep.metrics, ctx.warnings);
        super::guard::guard_upstream(&mut rep.upstream, ctx.warnings);
        let summary = EnvSummary::new(&rep.metrics)
            .upstream_compat(&rep.upstream)
            .headline(super::headline::e4(&rep.metrics));
        (summary, input.samples)
    }

    fn plots(&self, samples: &Vec<E4Sample>, summary: &Summary) -> Vec<Plot> {
        match summary.metrics_as::<E4Metrics>() {
            Some(m) => super::plots::plots(samples, &m),
            None => Vec::new(),
        }
    }

    /// Per example, the report's definitions: label equals gold, v1 cost
    /// (invalid charged cost_fn), evidence where scored.
    fn compare_record(
        &self,
        info: &RunInfo,
        r: &RecordView<E4Fields>,
        add: &mut dyn FnMut(&str, f64),
    ) {
        let matrix = cost_matrix(
            info.reward_profile.as_deref(),
            &info.reward_params,
            info.env_provenance.get("cost_matrix_v1"),
        )
        .0;
        if let Some(s) = sample(r) {
            add("accuracy", f64::from(u8::from(s.call.correct(s.gold))));
            add("cost", super::compute::v1_cost(&s, &matrix));
            if let Some(e) = &s.evidence {
                add("evidence_f1", e.f1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_reduced_to_samples_not_kept_whole() {
        // Many records, each with a large question: what is kept per record
        // is its sample (a few fields), never the record (a 200,000-record
        // E4 report once held every record).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let question = "q".repeat(64 << 10);
        let lines: String = (0..400)
            .map(|i| {
                let gold = ["Phishing", "Legitimate", "Abstain"][i % 3];
                format!(
                    "{}\n",
                    serde_json::json!({"example_id": format!("e{i}"), "index": i,
                        "answer": gold, "question": question, "reward": 1.0,
                        "parse": {"status": "valid", "reason": null, "format_ok": true}})
                )
            })
            .collect();
        std::fs::write(&path, lines).unwrap();
        let (lr, samples) = svbench_report::read::lean::read_lean(&path, false, &REPORT).unwrap();
        assert_eq!(lr.len(), 400);
        assert_eq!(samples.len(), 400);
        for (p, s) in samples.iter().enumerate() {
            let gold = s.as_ref().map(|s| s.gold.name());
            assert_eq!(gold, Some(["Phishing", "Legitimate", "Abstain"][p % 3]));
        }
        // The type itself says a record is not kept: a row of a few fields.
        assert!(std::mem::size_of::<Option<E4Sample>>() < 512);
    }

    #[test]
    fn the_compatibility_fields_grade_what_parsed_does_not_say() {
        let grade =
            |line: &str| E4Report.grade(&SampleView::read(line.as_bytes()).expect("a record"));
        let valid = r#""parse": {"status": "valid", "reason": null, "format_ok": true}"#;
        let upstream = format!(
            r#"{{"answer": "Phishing", {valid}, "predicted_label": "Phishing", "confidence": 0.9}}"#
        );
        assert_eq!(grade(&upstream), Outcome::Correct);
        let wrong = upstream.replace(
            r#""predicted_label": "Phishing""#,
            r#""predicted_label": "Legitimate""#,
        );
        assert_eq!(grade(&wrong), Outcome::Wrong);
        let none = format!(r#"{{"answer": "Phishing", {valid}}}"#);
        assert_eq!(grade(&none), Outcome::Invalid);
    }
}
