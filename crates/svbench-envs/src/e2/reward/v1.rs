//! Profile `v1` (spec E2 §5.2, the default): detection over distinct
//! normalised ids weighted by catalogue severity, a patch component that only
//! counts verified fixes, and format credit for strictly valid answers.
//!
//! What it defeats: repeated ids (sets), spam (each false positive costs its
//! catalogue weight, whatever severity the answer states), inventing findings
//! on clean items (detection 0), unverified or destructive patches (0 unless
//! `applied`, which includes the preservation check) and silence (no answer
//! scores 0, unlike an empty list).

use std::collections::BTreeSet;

use svbench_core::RewardBreakdown;
use svbench_scan::patch::{PatchOutcome, PatchStatus};

use super::{Detection, SeverityLookup, V1Params};
use crate::e2::{E2Parse, NormalizedId, Oracle, Tool};

/// The components of the `v1` profile and their weights, in order.
#[must_use]
pub fn weights(p: &V1Params) -> [(&'static str, f64); 3] {
    [
        ("detection", 1.0),
        ("patch", p.w_patch),
        ("format", p.w_format),
    ]
}

/// What the patch pipeline (spec E2 §4) made of the answer's patch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PatchEvaluation {
    /// The answer has no patch (absent, null or empty): status `none`.
    #[default]
    NotGiven,
    /// The patch did not reach `applied`.
    Failed {
        /// The §4 status: `malformed`, `target_mismatch`, `apply_failed`,
        /// `unsupported`, `reparse_failed`, `preservation_failed` or
        /// `too_large`.
        status: String,
    },
    /// Applied, re-parsed and preserving; both texts scanned natively with
    /// the oracle's analyzers and settings.
    Applied {
        /// B: full ids `tool/rule` found in the original.
        before: BTreeSet<String>,
        /// Q: full ids found in the patched text.
        after: BTreeSet<String>,
    },
}

impl PatchEvaluation {
    /// Reads an [`apply_patch`](svbench_scan::patch::apply_patch) outcome.
    /// `before` is B, the native findings of the original; `scan` gives the
    /// native findings (full ids) of a text, and runs only on an applied
    /// patch's result.
    pub fn from_outcome(
        outcome: &PatchOutcome,
        before: BTreeSet<String>,
        scan: impl FnOnce(&str) -> BTreeSet<String>,
    ) -> Self {
        let failed = |status: &str| PatchEvaluation::Failed {
            status: status.to_string(),
        };
        match (outcome.status, &outcome.patched) {
            (PatchStatus::None, _) => PatchEvaluation::NotGiven,
            (PatchStatus::Applied, Some(patched)) => PatchEvaluation::Applied {
                before,
                after: scan(patched),
            },
            // An applied outcome always carries its text; without one there
            // is nothing verified to credit.
            (PatchStatus::Applied, None) => failed("apply_failed"),
            (PatchStatus::Malformed, _) => failed("malformed"),
            (PatchStatus::TargetMismatch, _) => failed("target_mismatch"),
            (PatchStatus::ApplyFailed, _) => failed("apply_failed"),
            (PatchStatus::Unsupported, _) => failed("unsupported"),
            (PatchStatus::ReparseFailed, _) => failed("reparse_failed"),
            (PatchStatus::PreservationFailed, _) => failed("preservation_failed"),
            (PatchStatus::TooLarge, _) => failed("too_large"),
        }
    }

    /// The §4 status name (`none`, `applied` or the failure).
    #[must_use]
    pub fn status(&self) -> &str {
        match self {
            PatchEvaluation::NotGiven => "none",
            PatchEvaluation::Failed { status } => status,
            PatchEvaluation::Applied { .. } => "applied",
        }
    }
}

/// An answer as the `v1` profile needs it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct V1Answer {
    /// The predicted ids after normalisation (spec E2 §3.4), in order,
    /// duplicates kept (the profile deduplicates).
    pub ids: Vec<NormalizedId>,
    /// Strictly valid (spec E2 §3.1).
    pub format_ok: bool,
    /// The patch result.
    pub patch: PatchEvaluation,
}

impl V1Answer {
    /// Builds the answer of a v1 parse outcome with the id normaliser (the
    /// catalogue's `normalize`) and the patch result; `None` when nothing was
    /// answered (invalid or no answer), which scores 0 everywhere.
    pub fn from_parse(
        parse: &E2Parse,
        normalize: impl Fn(&str) -> NormalizedId,
        patch: PatchEvaluation,
    ) -> Option<Self> {
        match parse {
            E2Parse::Valid {
                answer, format_ok, ..
            } => Some(Self {
                ids: answer.violations.iter().map(|v| normalize(&v.id)).collect(),
                format_ok: *format_ok,
                patch,
            }),
            E2Parse::Invalid { .. } | E2Parse::NoAnswer => None,
        }
    }
}

/// The patch component with the quantities behind it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PatchScore {
    /// Σ w of fixable oracle findings gone after the patch, over Σ_O w.
    pub fixed: f64,
    /// Σ w of findings the patch introduced.
    pub new: f64,
    /// max(0, fixed − new_finding_factor · new); 0 unless applied.
    pub value: f64,
}

/// The `v1` breakdown with the details behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct V1Score {
    /// Components `detection`, `patch`, `format` and the total.
    pub breakdown: RewardBreakdown,
    /// Weighted counts over the sets O and P (all 0 without an answer).
    pub detection: Detection,
    /// The item is clean (O empty): detection is 1 iff P is empty.
    pub clean: bool,
    /// The patch component.
    pub patch: PatchScore,
}

/// A full id `namespace/rule` as a resolved id; `None` for an unknown namespace.
fn resolve_full_id(id: &str) -> Option<NormalizedId> {
    let (tool, rule) = id.split_once('/')?;
    Some(NormalizedId::Resolved {
        tool: Tool::parse(tool)?,
        rule: rule.to_string(),
    })
}

/// Full ids of labelled namespaces, as a set.
fn labelled_set<'a>(
    ids: impl IntoIterator<Item = &'a str>,
    namespaces: &BTreeSet<Tool>,
) -> BTreeSet<NormalizedId> {
    ids.into_iter()
        .filter_map(resolve_full_id)
        .filter(|id| in_labelled(id, namespaces))
        .collect()
}

fn in_labelled(id: &NormalizedId, namespaces: &BTreeSet<Tool>) -> bool {
    match id {
        NormalizedId::Resolved { tool, .. } => namespaces.contains(tool),
        NormalizedId::Unresolved(_) => false,
    }
}

/// Scores one episode under the `v1` profile.
///
/// `answer` is `None` for an invalid answer or no answer (everything 0).
/// `severity` looks up catalogue severities; ids it does not know, and
/// unresolved ids, weigh `weight_med`. Dataset and predicted severities are
/// never used.
#[must_use]
pub fn score_v1(
    params: &V1Params,
    oracle: &Oracle,
    answer: Option<&V1Answer>,
    severity: SeverityLookup<'_>,
) -> V1Score {
    let w = |id: &NormalizedId| match id {
        NormalizedId::Resolved { tool, rule } => {
            severity(*tool, rule).map_or(params.weight_med, |s| params.severity_weight(s))
        }
        NormalizedId::Unresolved(_) => params.weight_med,
    };
    let sum = |ids: &mut dyn Iterator<Item = &NormalizedId>| ids.map(w).sum::<f64>();

    let o = labelled_set(
        oracle.violations.iter().map(|v| v.id.as_str()),
        &oracle.namespaces,
    );
    let clean = o.is_empty();

    let (detection_value, detection, patch, format) = match answer {
        None => (0.0, Detection::default(), PatchScore::default(), 0.0),
        Some(answer) => {
            // Resolved ids of namespaces the item did not label are ignored;
            // unresolved ids stay (false positives at med).
            let p: BTreeSet<NormalizedId> = answer
                .ids
                .iter()
                .filter(|id| {
                    matches!(id, NormalizedId::Unresolved(_)) || in_labelled(id, &oracle.namespaces)
                })
                .cloned()
                .collect();
            let detection = Detection::from_weights(
                sum(&mut p.intersection(&o)),
                sum(&mut p.difference(&o)),
                sum(&mut o.difference(&p)),
            );
            let value = if clean {
                if p.is_empty() {
                    1.0
                } else {
                    0.0
                }
            } else {
                detection.f1
            };
            let patch = match &answer.patch {
                PatchEvaluation::Applied { before, after } => {
                    let b = labelled_set(before.iter().map(String::as_str), &oracle.namespaces);
                    let q = labelled_set(after.iter().map(String::as_str), &oracle.namespaces);
                    let total_o = sum(&mut o.iter());
                    let fixed = if total_o > 0.0 {
                        sum(&mut o.iter().filter(|id| b.contains(*id) && !q.contains(*id)))
                            / total_o
                    } else {
                        0.0
                    };
                    let new = sum(&mut q.difference(&b));
                    PatchScore {
                        fixed,
                        new,
                        value: (fixed - params.new_finding_factor * new).max(0.0),
                    }
                }
                PatchEvaluation::NotGiven | PatchEvaluation::Failed { .. } => PatchScore::default(),
            };
            let format = if answer.format_ok { 1.0 } else { 0.0 };
            (value, detection, patch, format)
        }
    };

    let breakdown = RewardBreakdown::from_weights(
        "v1",
        &weights(params),
        [detection_value, patch.value, format],
    );
    V1Score {
        breakdown,
        detection,
        clean,
        patch,
    }
}
