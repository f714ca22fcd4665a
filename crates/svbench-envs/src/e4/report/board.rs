//! E4's scoreboard: F1, strict recall and evidence F1 with their
//! intervals, the rates a triage reader weighs against them, and the
//! oracle marked as an upper bound.

use std::fmt::Write;

use serde::ser::Error as _;
use svbench_core::scoreboard::{is_entry_of, to_entry, BoardEntry, E4Entry};

use super::summary::E4Metrics;

use svbench_report::markup::table_cell;
use svbench_report::scoreboard::{ci, opt, reward, typed, EntryHead, EnvBoard};

/// E4's board.
#[derive(Debug, Clone, Copy, Default)]
pub struct E4Board;

impl EnvBoard for E4Board {
    fn entry(&self, head: &EntryHead<'_>) -> Result<BoardEntry, serde_json::Error> {
        let s = head.summary;
        let Some(m) = s.metrics_as::<E4Metrics>() else {
            return Err(serde_json::Error::custom("the summary has no E4 metrics"));
        };
        let a = &m.all;
        to_entry(&E4Entry {
            baseline: head.baseline.clone(),
            model: s.model.clone(),
            dataset: head.dataset.clone(),
            n: s.n_examples,
            policy_label: svbench_report::headline::policy_label(
                s.metadata.baseline_type.as_deref(),
            ),
            f1: head.value("f1"),
            precision: a.precision,
            recall_strict: head.value("recall_strict"),
            fpr: a.fpr,
            accuracy: head.value("accuracy"),
            evidence_f1: head.value("evidence_f1"),
            ece: head.value("ece"),
            abstain_rate: a.abstention.abstain_rate,
            expected_cost_v1: a.cost.expected_cost_v1,
            run_id: s.run_id.clone(),
            common: head.common(&["f1", "accuracy", "evidence_f1"]),
        })
    }

    fn holds(&self, entry: &BoardEntry) -> bool {
        is_entry_of::<E4Entry>(entry)
    }

    fn entry_schema(&self) -> serde_json::Value {
        schemars::schema_for!(E4Entry).to_value()
    }

    /// An oracle run's baseline cell says it is an upper bound.
    fn table(&self, out: &mut String, board: &[BoardEntry]) {
        out.push_str("| baseline | model | dataset | n | f1 | f1 95 % CI | precision | recall_strict | fpr | accuracy | accuracy 95 % CI | evidence_f1 | evidence_f1 95 % CI | ece | abstain_rate | expected_cost_v1 | mean reward (range) | parse fail | errors | run_id |\n|---|---|---|---:|---:|---|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---|---:|---:|---|\n");
        let mut oracle = false;
        for x in board.iter().filter_map(typed::<E4Entry>) {
            let baseline = match &x.policy_label {
                Some(label) => {
                    oracle = true;
                    format!("{} — **{}**", table_cell(&x.baseline), table_cell(label))
                }
                None => table_cell(&x.baseline),
            };
            let _ = writeln!(
                out,
                "| {baseline} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | `{}` |",
                table_cell(&x.model),
                table_cell(&x.dataset),
                x.n,
                opt(x.f1),
                ci(&x.common, "f1"),
                opt(x.precision),
                opt(x.recall_strict),
                opt(x.fpr),
                opt(x.accuracy),
                ci(&x.common, "accuracy"),
                opt(x.evidence_f1),
                ci(&x.common, "evidence_f1"),
                opt(x.ece),
                opt(x.abstain_rate),
                opt(x.expected_cost_v1),
                reward(&x.common),
                opt(x.common.parse_failure_rate),
                opt(x.common.error_rate),
                table_cell(&x.run_id)
            );
        }
        let _ = writeln!(
            out,
            "\n`f1`: {} `recall_strict`: {} `evidence_f1`: {} `expected_cost_v1`: mean v1 triage cost per email, an invalid answer charged as a missed phishing email (lower is better). `n/a`: undefined (zero denominator).",
            super::headline::E4_F1,
            super::headline::E4_RECALL_STRICT,
            super::headline::E4_EVIDENCE_F1
        );
        if oracle {
            let _ = writeln!(
                out,
                "\n**{}**: the run answers with the gold label and the gold evidence. It bounds what a perfect answer scores; it is not a baseline.",
                svbench_core::ORACLE_LABEL
            );
        }
    }
}
