//! `t-echo`'s report plugin: accuracy (the word repeated) with its
//! interval, a bar plot of the outcomes, its own sections, sample grading,
//! compare metric and scoreboard.

use std::fmt::Write;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use svbench_core::env_record::lenient;
use svbench_core::reward::ProfileBounds;
use svbench_core::scoreboard::{is_entry_of, to_entry, BoardEntry, EntryCommon};
use svbench_core::summary::{HeadlineMetric, Summary};
use svbench_report::headline::metric;
use svbench_report::html::{typed, Outcome, SampleView};
use svbench_report::markdown::fo;
use svbench_report::markup::table_cell;
use svbench_report::plots::bars::{grouped_bars, Series};
use svbench_report::plots::Plot;
use svbench_report::plugin::{
    EnvReport, EnvSchemas, EnvSections, EnvSummary, FinishContext, RecordKeys, Resample, ENV_STATS,
};
use svbench_report::read::{RecordView, RunInfo};
use svbench_report::scoreboard::{ci, opt, reward, typed as typed_entry, EntryHead, EnvBoard};

use super::{EchoCompat, EchoParsed};

/// Definition of `accuracy`.
pub const ACCURACY: &str = "Answers that repeat the word exactly / scored samples.";

/// The plugin.
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoReport;

/// The plugin as the registry holds it.
pub static REPORT: EchoReport = EchoReport;

/// The record fields the plugin reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EchoFields {
    /// `parsed`, when it reads as t-echo's.
    pub parsed: Option<EchoParsed>,
}

svbench_report::env_fields!(EchoFields {
    "parsed" => parsed: lenient::Opt<EchoParsed>,
});

/// `metrics`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EchoMetrics {
    /// Scored samples with a word to repeat.
    pub n: u64,
    /// Of them, answers that repeated it.
    pub echoed: u64,
    /// `echoed / n`; null without a sample.
    pub accuracy: Option<f64>,
}

/// Whether each metric record repeated its word.
#[derive(Debug, Default)]
pub struct EchoAcc {
    echoed: Vec<bool>,
    resample: (u64, u64),
}

impl Resample for EchoAcc {
    fn clear(&mut self) {
        self.resample = (0, 0);
    }
    fn add(&mut self, item: usize) {
        self.resample.0 += u64::from(self.echoed[item]);
        self.resample.1 += 1;
    }
    fn stats(&self) -> [f64; ENV_STATS] {
        let mut out = [f64::NAN; ENV_STATS];
        if self.resample.1 > 0 {
            out[0] = self.resample.0 as f64 / self.resample.1 as f64;
        }
        out
    }
}

/// Whether a record's answer is its word; `None` without a word.
fn echoed(answer: &Value, parsed: Option<&EchoParsed>) -> Option<bool> {
    let word = answer.as_str()?;
    Some(parsed.and_then(|p| p.text.as_deref()) == Some(word))
}

impl EnvSections for EchoReport {
    fn schemas(&self) -> EnvSchemas {
        EnvSchemas {
            metrics: Some(EnvSchemas::of::<EchoMetrics>()),
            parsed: Some(EnvSchemas::of::<EchoParsed>()),
            compat: Some(EnvSchemas::of::<EchoCompat>()),
            ..EnvSchemas::default()
        }
    }

    fn markdown(&self, out: &mut String, summary: &Summary) {
        match summary.metrics_as::<EchoMetrics>() {
            Some(m) => {
                let _ = write!(
                    out,
                    "## Echo\n\n| metric | value |\n|---|---:|\n| samples | {} |\n| echoed | {} |\n| accuracy | {} |\n\n`accuracy`: {ACCURACY}\n\n",
                    m.n,
                    m.echoed,
                    fo(m.accuracy)
                );
            }
            None => out.push_str("## Echo\n\nThe summary has no t-echo metrics.\n\n"),
        }
    }

    fn grading_name(&self) -> &'static str {
        "t-echo"
    }

    fn grade(&self, v: &SampleView<'_>) -> Outcome {
        let answer: Value = typed(v.answer).unwrap_or(Value::Null);
        let parsed: Option<EchoParsed> = typed(v.parsed);
        match echoed(&answer, parsed.as_ref()) {
            None => Outcome::Invalid,
            Some(true) => Outcome::Correct,
            Some(false) => Outcome::Wrong,
        }
    }

    fn legend(&self) -> &'static str {
        "Outcomes: error — the sample errored; invalid — no answer, or no word to repeat; \
         correct — the answer is the word; wrong — any other answer."
    }

    fn component_bounds(&self) -> ProfileBounds {
        &[("v1", &[("exact", [0.0, 1.0])])]
    }

    fn board(&self) -> Option<&dyn EnvBoard> {
        Some(&EchoBoard)
    }

    fn compare_metrics(&self) -> &'static [&'static str] {
        &["accuracy"]
    }
}

impl EnvReport for EchoReport {
    type Fields = EchoFields;
    type Sample = Option<bool>;
    type Acc = EchoAcc;
    type PlotData = ();

    fn reduce(&self, r: RecordView<EchoFields>, _errored: bool) -> Option<bool> {
        echoed(&r.answer, r.env.parsed.as_ref())
    }

    fn start(&self, _info: &RunInfo, _profile: Option<&str>) -> EchoAcc {
        EchoAcc::default()
    }

    fn push(&self, acc: &mut EchoAcc, sample: Option<bool>, _keys: RecordKeys<'_>) -> bool {
        acc.echoed.push(sample.unwrap_or(false));
        sample.is_some()
    }

    fn finish(&self, acc: EchoAcc, ctx: &mut FinishContext<'_>) -> (EnvSummary, ()) {
        let n = acc.echoed.len() as u64;
        let echoed = acc.echoed.iter().filter(|e| **e).count() as u64;
        let accuracy = (n > 0).then(|| echoed as f64 / n as f64);
        let ci = ctx.intervals.map(|iv| iv[0]);
        let headline: Vec<HeadlineMetric> = vec![metric("accuracy", accuracy, ci, ACCURACY)];
        let metrics = EchoMetrics {
            n,
            echoed,
            accuracy,
        };
        (EnvSummary::new(&metrics).headline(headline), ())
    }

    fn plots(&self, _data: &(), summary: &Summary) -> Vec<Plot> {
        let m = summary.metrics_as::<EchoMetrics>().unwrap_or_default();
        let categories = ["echoed".to_string(), "not echoed".to_string()];
        vec![grouped_bars(
            "outcomes",
            "Outcomes",
            "samples",
            &categories,
            &[Series {
                label: "samples",
                values: vec![m.echoed as f64, (m.n - m.echoed) as f64],
            }],
            0,
            "No sample.",
        )]
    }

    fn compare_record(
        &self,
        _info: &RunInfo,
        r: &RecordView<EchoFields>,
        add: &mut dyn FnMut(&str, f64),
    ) {
        if let Some(e) = echoed(&r.answer, r.env.parsed.as_ref()) {
            add("accuracy", f64::from(u8::from(e)));
        }
    }
}

/// A scoreboard entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EchoEntry {
    /// `baseline_name`, else the model.
    pub baseline: String,
    /// `--model` as given.
    pub model: String,
    /// Dataset spec.
    pub dataset: String,
    /// Result records.
    pub n: u64,
    /// Headline `accuracy`.
    pub accuracy: Option<f64>,
    /// Run id.
    pub run_id: String,
    /// Validity, provenance and intervals.
    #[serde(flatten)]
    pub common: EntryCommon,
}

/// The scoreboard.
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoBoard;

impl EnvBoard for EchoBoard {
    fn entry(&self, head: &EntryHead<'_>) -> Result<BoardEntry, serde_json::Error> {
        let s = head.summary;
        to_entry(&EchoEntry {
            baseline: head.baseline.clone(),
            model: s.model.clone(),
            dataset: head.dataset.clone(),
            n: s.n_examples,
            accuracy: head.value("accuracy"),
            run_id: s.run_id.clone(),
            common: head.common(&["accuracy"]),
        })
    }

    fn holds(&self, entry: &BoardEntry) -> bool {
        is_entry_of::<EchoEntry>(entry)
    }

    fn table(&self, out: &mut String, board: &[BoardEntry]) {
        out.push_str("| baseline | model | n | accuracy | accuracy 95 % CI | mean reward (range) | run_id |\n|---|---|---:|---:|---|---|---|\n");
        for x in board.iter().filter_map(typed_entry::<EchoEntry>) {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | `{}` |",
                table_cell(&x.baseline),
                table_cell(&x.model),
                x.n,
                opt(x.accuracy),
                ci(&x.common, "accuracy"),
                reward(&x.common),
                table_cell(&x.run_id)
            );
        }
        let _ = writeln!(out, "\n`accuracy`: {ACCURACY}");
    }

    fn entry_schema(&self) -> Value {
        schemars::schema_for!(EchoEntry).to_value()
    }
}
