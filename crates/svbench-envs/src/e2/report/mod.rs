//! E2 metrics (spec E2 §6): the upstream-named blocks and
//! `severity_breakdown` ([`upstream`]) and the svbench extensions
//! ([`extensions`]), recomputed from `results.jsonl` alone.

pub mod board;
pub mod extensions;
pub mod guard;
pub mod headline;
pub mod markdown;
pub mod plots;
pub mod plugin;
pub mod record;
pub mod summary;
pub mod upstream;

use std::collections::BTreeMap;

use crate::e2::report::summary::{E2Ci95, E2LangGroup, E2Metrics, E2SeverityCounts, E2Summary};

use crate::e2::report::record::E2Fields;
use extensions::ExtensionsAcc;
use svbench_report::read::RecordView;
pub use upstream::RecordContribution;
use upstream::{fixture_type, UpstreamAcc};

/// Accumulates every E2 metric over the scored records of one profile.
#[derive(Debug, Clone, Default)]
pub struct E2Input {
    all: UpstreamAcc,
    ext: ExtensionsAcc,
    by_lang: BTreeMap<&'static str, (u64, UpstreamAcc, ExtensionsAcc)>,
}

/// Bootstrap intervals of `micro_f1`, `f1_weighted` and
/// `patch_success_rate` (each `None` when not finite).
pub type E2Intervals = (Option<[f64; 2]>, Option<[f64; 2]>, Option<[f64; 2]>);

/// What the summary takes from E2.
#[derive(Debug, Clone)]
pub struct E2Report {
    /// `metrics`.
    pub metrics: E2Metrics,
    /// Top-level `severity_breakdown`.
    pub severity_breakdown: BTreeMap<String, E2SeverityCounts>,
    /// Top-level `e2`.
    pub e2: E2Summary,
}

impl E2Input {
    /// Adds one scored record; returns what it contributes to the
    /// bootstrap of the headline metrics.
    pub fn add(&mut self, r: &RecordView<E2Fields>) -> RecordContribution {
        let mut c = self.all.add(r);
        c.micro = self.ext.add(r);
        let (n, up, ext) = self.by_lang.entry(fixture_type(r)).or_default();
        *n += 1;
        up.add(r);
        ext.add(r);
        c
    }

    /// The finished metrics. `ci95` holds the bootstrap intervals of
    /// `micro_f1`, `f1_weighted` and `patch_success_rate` (`None` without a
    /// scored record); `policy_label` names an oracle run.
    pub fn finish(&self, ci95: Option<E2Intervals>, policy_label: Option<String>) -> E2Report {
        E2Report {
            metrics: self.all.metrics(),
            severity_breakdown: self.all.severity_breakdown(),
            e2: E2Summary {
                micro: self.ext.micro.micro(),
                per_rule: self.ext.per_rule(),
                v1: self.ext.v1(),
                upstream: self.ext.upstream(),
                by_lang: self
                    .by_lang
                    .iter()
                    .map(|(lang, (n, up, ext))| {
                        (
                            lang.to_string(),
                            E2LangGroup {
                                n: *n,
                                metrics: up.metrics(),
                                micro: ext.micro.micro(),
                            },
                        )
                    })
                    .collect(),
                ci95: ci95.and_then(|(micro, f1, patch)| {
                    Some(E2Ci95 {
                        micro_f1: micro,
                        f1_weighted: f1?,
                        patch_success_rate: patch,
                    })
                }),
                policy_label,
            },
        }
    }
}
