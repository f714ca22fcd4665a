//! E1's scoreboard: accuracy and F1 with their intervals, calibration,
//! abstention and the upstream cost-weighted accuracy.

use serde::ser::Error as _;
use std::fmt::Write;

use svbench_core::scoreboard::{is_entry_of, to_entry, BoardEntry, E1Entry};

use super::summary::{E1Metrics, E1Summary};

use svbench_report::markup::table_cell;
use svbench_report::scoreboard::typed;
use svbench_report::scoreboard::{ci, opt, reward, EntryHead, EnvBoard};

/// E1's board.
#[derive(Debug, Clone, Copy, Default)]
pub struct E1Board;

impl EnvBoard for E1Board {
    fn entry(&self, head: &EntryHead<'_>) -> Result<BoardEntry, serde_json::Error> {
        let s = head.summary;
        let Some(m) = s.metrics_as::<E1Metrics>() else {
            return Err(serde_json::Error::custom("the summary has no E1 metrics"));
        };
        let undefined = s
            .extension::<E1Summary>("e1")
            .map(|e| e.undefined)
            .unwrap_or_default();
        let cwa = (!undefined.iter().any(|u| u == "cost_weighted_accuracy"))
            .then_some(m.cost.cost_weighted_accuracy);
        to_entry(&E1Entry {
            baseline: head.baseline.clone(),
            model: s.model.clone(),
            dataset: head.dataset.clone(),
            n: s.n_examples,
            accuracy: head.value("accuracy"),
            accuracy_non_abstained: head.value("accuracy_non_abstained"),
            f1: head.value("f1"),
            ece: head.value("ece"),
            abstain_rate: head.value("abstain_rate"),
            cost_weighted_accuracy: cwa,
            run_id: s.run_id.clone(),
            common: head.common(&["accuracy", "f1"]),
        })
    }

    fn holds(&self, entry: &BoardEntry) -> bool {
        is_entry_of::<E1Entry>(entry)
    }

    fn entry_schema(&self) -> serde_json::Value {
        schemars::schema_for!(E1Entry).to_value()
    }

    fn table(&self, out: &mut String, board: &[BoardEntry]) {
        out.push_str("| baseline | model | dataset | n | accuracy | accuracy 95 % CI | accuracy_non_abstained | f1 | f1 95 % CI | ece | abstain_rate | cost_weighted_accuracy | mean reward (range) | parse fail | errors | run_id |\n|---|---|---|---:|---:|---|---:|---:|---|---:|---:|---:|---|---:|---:|---|\n");
        for x in board.iter().filter_map(typed::<E1Entry>) {
            let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | `{}` |",
                    table_cell(&x.baseline),
                    table_cell(&x.model),
                    table_cell(&x.dataset),
                    x.n,
                    opt(x.accuracy),
                    ci(&x.common, "accuracy"),
                    opt(x.accuracy_non_abstained),
                    opt(x.f1),
                    ci(&x.common, "f1"),
                    opt(x.ece),
                    opt(x.abstain_rate),
                    opt(x.cost_weighted_accuracy),
                    reward(&x.common),
                    opt(x.common.parse_failure_rate),
                    opt(x.common.error_rate),
                    table_cell(&x.run_id)
                );
        }
        let _ = writeln!(
            out,
            "\n`accuracy`: {} `accuracy_non_abstained`: {} `n/a`: undefined (zero denominator).",
            super::headline::E1_ACCURACY,
            super::headline::E1_ACCURACY_NON_ABSTAINED
        );
    }
}
