//! E2's scoreboard: pooled micro F1 over findings with its interval, per
//! fixture type, clean passes and patches, and upstream's averaged F1.

use std::collections::BTreeSet;
use std::fmt::Write;

use serde::ser::Error as _;
use svbench_core::scoreboard::{is_entry_of, to_entry, BoardEntry, E2Entry, E2EntryUpstream};

use super::summary::{E2Metrics, E2Summary};

use svbench_report::markup::table_cell;
use svbench_report::scoreboard::{ci, num, opt, reward, typed, EntryHead, EnvBoard};

/// E2's board.
#[derive(Debug, Clone, Copy, Default)]
pub struct E2Board;

impl EnvBoard for E2Board {
    fn entry(&self, head: &EntryHead<'_>) -> Result<BoardEntry, serde_json::Error> {
        let s = head.summary;
        let Some(m) = s.metrics_as::<E2Metrics>() else {
            return Err(serde_json::Error::custom("the summary has no E2 metrics"));
        };
        let e2 = s.extension::<E2Summary>("e2");
        let mut common = head.common(&["micro_f1"]);
        if let Some(ci) = e2.as_ref().and_then(|e| e.ci95.as_ref()) {
            common
                .ci95
                .insert("f1_weighted".to_string(), ci.f1_weighted);
            if let Some(p) = ci.patch_success_rate {
                common.ci95.insert("patch_success".to_string(), p);
            }
        }
        let micro_f1_by_lang = e2
            .iter()
            .flat_map(|e| &e.by_lang)
            .map(|(lang, g)| (lang.clone(), g.micro.unweighted.f1))
            .collect();
        to_entry(&E2Entry {
            baseline: head.baseline.clone(),
            model: s.model.clone(),
            dataset: head.dataset.clone(),
            n: s.n_examples,
            micro_f1: head.value("micro_f1"),
            micro_precision: head.value("micro_precision"),
            micro_recall: head.value("micro_recall"),
            micro_f1_by_lang,
            clean_pass_rate: head.value("clean_pass_rate"),
            // Upstream writes 0 when no patch was provided: undefined.
            patch_success: (m.patch.patch_provided_rate > 0.0)
                .then_some(m.patch.patch_success_rate),
            run_id: s.run_id.clone(),
            upstream_compat: E2EntryUpstream {
                f1_weighted: m.finding_quality.f1_weighted,
                f1_weighted_positive_only: m.finding_quality.f1_weighted_positive_only,
                clean_pass_rate: m.episode.clean_pass_rate,
                false_positive_rate_on_clean: m.episode.false_positive_rate_on_clean,
            },
            common,
        })
    }

    fn holds(&self, entry: &BoardEntry) -> bool {
        is_entry_of::<E2Entry>(entry)
    }

    fn entry_schema(&self) -> serde_json::Value {
        schemars::schema_for!(E2Entry).to_value()
    }

    fn table(&self, out: &mut String, board: &[BoardEntry]) {
        let entries: Vec<E2Entry> = board.iter().filter_map(typed).collect();
        let langs: BTreeSet<&String> = entries
            .iter()
            .flat_map(|x| x.micro_f1_by_lang.keys())
            .collect();
        let lang_cols: String = langs.iter().map(|l| format!(" micro_f1 {l} |")).collect();
        let lang_rule: String = langs.iter().map(|_| "---:|").collect();
        let _ = writeln!(
        out,
        "| baseline | model | dataset | n | micro_f1 | micro_f1 95 % CI | micro_precision | micro_recall |{lang_cols} clean_pass_rate | patch_success | mean reward (range) | parse fail | errors | f1_weighted (upstream-compatible) | run_id |\n|---|---|---|---:|---:|---|---:|---:|{lang_rule}---:|---:|---|---:|---:|---:|---|"
    );
        for x in &entries {
            let by_lang: String = langs
                .iter()
                .map(|l| format!(" {} |", opt(x.micro_f1_by_lang.get(*l).copied().flatten())))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} |{by_lang} {} | {} | {} | {} | {} | {} | `{}` |",
                table_cell(&x.baseline),
                table_cell(&x.model),
                table_cell(&x.dataset),
                x.n,
                opt(x.micro_f1),
                ci(&x.common, "micro_f1"),
                opt(x.micro_precision),
                opt(x.micro_recall),
                opt(x.clean_pass_rate),
                opt(x.patch_success),
                reward(&x.common),
                opt(x.common.parse_failure_rate),
                opt(x.common.error_rate),
                num(x.upstream_compat.f1_weighted),
                table_cell(&x.run_id)
            );
        }
        let _ = writeln!(
        out,
        "\n`micro_f1`: {} `f1_weighted (upstream-compatible)` is upstream's averaged per-record F1: a clean item correctly answered `[]` counts 0 and Terraform's `opa/` labels are dropped, so it understates correct runs. `n/a`: undefined (zero denominator).",
        super::headline::E2_MICRO_F1
    );
    }
}
