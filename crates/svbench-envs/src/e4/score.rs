//! The one scoring entry point of E4: parse in the profile's mode, ground
//! the evidence, compute the profile's reward, and build the record parts.

use crate::e4::report::record::{E4Compat, E4EvidenceItem, E4EvidenceRecord, E4Parsed};
use svbench_core::env_record::ParseStatusRecord;
use svbench_core::record::CompatFields;
use svbench_core::{Completion, ParseOutcome, ParseRecord, RewardBreakdown};

use svbench_core::deadline::{Deadline, TimeBudgetExceeded};

use super::grounding::{ground, EvidenceLimits, GoldFacts, Grounding, GroundingRules, MatchRule};
use super::parse::{parse_completion, UpstreamFields};
use super::reward::{
    evidence_as_written_within, score_upstream, score_v1, triage_call, triage_gold, E4Rewards,
    Profile,
};
use super::{GoldSource, GoldSpan, Label};

/// What the scorer needs to know about the row.
#[derive(Debug, Clone, Copy)]
pub struct ScoreInput<'a> {
    /// The rendered email (`question`).
    pub question: &'a str,
    /// Gold label.
    pub gold: Label,
    /// Gold spans (`meta.spans`).
    pub spans: &'a [GoldSpan],
    /// `meta.gold_source`.
    pub gold_source: GoldSource,
    /// `meta.upstream_indicators` (empty when absent), for
    /// `evidence_as_written`.
    pub upstream_indicators: &'a [String],
}

/// Row facts the scorer does not know, passed in for the record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowFacts {
    /// `meta.family`.
    pub family: Option<String>,
    /// `meta.phishing_type`.
    pub phishing_type: Option<String>,
    /// `meta.difficulty`.
    pub difficulty: Option<String>,
    /// `meta.ambiguous`.
    pub ambiguous: bool,
    /// `meta.render_version`.
    pub render_version: u32,
}

/// What the upstream profile adds to a score.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamDetails {
    /// What upstream's parser read.
    pub fields: UpstreamFields,
    /// Upstream's evidence function as written.
    pub evidence_as_written: f64,
}

/// One scored answer.
#[derive(Debug, Clone, PartialEq)]
pub struct E4Score {
    /// Gold label.
    pub gold: Label,
    /// Where the gold spans come from.
    pub gold_source: GoldSource,
    /// The parse outcome of the profile's parser.
    pub outcome: ParseOutcome<Label>,
    /// The grounded evidence.
    pub grounding: Grounding,
    /// The reward.
    pub reward: RewardBreakdown,
    /// `(utility, cost)` of the label under `v1`; `None` without a label
    /// or under `upstream`.
    pub utility_cost: Option<(f64, f64)>,
    /// Upstream profile only.
    pub upstream: Option<UpstreamDetails>,
}

/// Scores one completion against a row. `v1` matches quotes with
/// [`MatchRule::ContentWords`]; `upstream` keeps [`MatchRule::Overlap`], so
/// its records stay as they were.
///
/// # Errors
/// [`TimeBudgetExceeded`] once `deadline` has passed (checked inside the
/// grounding's loops).
pub fn score(
    rewards: &E4Rewards,
    limits: &EvidenceLimits,
    completion: &Completion,
    input: &ScoreInput<'_>,
    deadline: Deadline,
) -> Result<E4Score, TimeBudgetExceeded> {
    let parsed = parse_completion(completion, rewards.parse_mode(), limits);
    deadline.check()?;
    let gold = GoldFacts {
        label: input.gold,
        spans: input.spans,
        source: input.gold_source,
    };
    let rules = GroundingRules {
        limits: *limits,
        rule: match rewards.profile {
            Profile::V1(_) => MatchRule::ContentWords,
            Profile::Upstream => MatchRule::Overlap,
        },
        deadline,
    };
    let grounding = ground(input.question, &parsed.evidence, gold, &rules)?;
    let (reward, utility_cost, upstream) = match &rewards.profile {
        Profile::V1(p) => {
            let reward = score_v1(p, &parsed.outcome, input.gold, grounding.f1);
            let utility_cost = parsed.outcome.label().map(|&l| {
                let m = p.matrix();
                let (call, class) = (triage_call(l), triage_gold(input.gold));
                (m.utility(call, class), m.cost(call, class))
            });
            (reward, utility_cost, None)
        }
        Profile::Upstream => {
            let fields = parsed.upstream.clone().unwrap_or_else(|| {
                // The upstream parser always fills these; an empty set scores 0.
                UpstreamFields {
                    label: None,
                    confidence: 0.0,
                    format: false,
                    format_reason: Some("no_label"),
                    evidence: Vec::new(),
                }
            });
            let as_written = evidence_as_written_within(
                input.gold,
                &fields.evidence,
                input.question,
                input.upstream_indicators,
                &deadline,
            )?;
            let reward = score_upstream(
                &parsed.outcome,
                input.gold,
                as_written,
                rewards.evidence_mode(),
            );
            let details = UpstreamDetails {
                fields,
                evidence_as_written: as_written,
            };
            (reward, None, Some(details))
        }
    };
    Ok(E4Score {
        gold: input.gold,
        gold_source: input.gold_source,
        outcome: parsed.outcome,
        grounding,
        reward,
        utility_cost,
        upstream,
    })
}

impl E4Score {
    /// The `parse` object of a result record.
    pub fn parse_record(&self) -> ParseRecord {
        self.outcome.record()
    }

    /// The label and confidence read.
    fn label_confidence(&self) -> (Option<Label>, Option<f64>) {
        match &self.outcome {
            ParseOutcome::Invalid { .. } => (None, None),
            ParseOutcome::LabelOnly { label, .. } => (Some(*label), None),
            ParseOutcome::Valid {
                label, confidence, ..
            } => (Some(*label), Some(*confidence)),
        }
    }

    /// The `parsed` object (E4 §9).
    pub fn parsed(&self, row: &RowFacts) -> E4Parsed {
        let (label, confidence) = self.label_confidence();
        let g = &self.grounding;
        let items = g
            .items
            .iter()
            .map(|i| E4EvidenceItem {
                text: i.text.clone(),
                status: i.status.as_str().to_string(),
                start: i.span.map(|s| s.0),
                end: i.span.map(|s| s.1),
                matched_gold: i.matched_gold.clone(),
            })
            .collect();
        E4Parsed {
            gold: self.gold.as_str().to_string(),
            ambiguous: row.ambiguous,
            family: row.family.clone(),
            phishing_type: row.phishing_type.clone(),
            difficulty: row.difficulty.clone(),
            gold_source: self.gold_source.as_str().to_string(),
            parse: Some(self.parse_record()),
            label: label.map(|l| l.as_str().to_string()),
            confidence,
            utility: self.utility_cost.map(|u| u.0),
            cost: self.utility_cost.map(|u| u.1),
            evidence: E4EvidenceRecord {
                items,
                precision: g.precision,
                recall: g.recall,
                f1: g.f1,
                applicable: g.applicable,
                recalled_categories: g.recalled_categories.clone(),
            },
            render_version: row.render_version,
            upstream_parse: self.upstream.as_ref().map(|u| ParseStatusRecord {
                status: if u.fields.label.is_some() {
                    "valid"
                } else {
                    "invalid"
                }
                .to_string(),
                reason: u.fields.format_reason.map(str::to_string),
            }),
            evidence_as_written: self.upstream.as_ref().map(|u| u.evidence_as_written),
        }
    }

    /// Upstream compatibility fields `predicted_label` and `confidence`
    /// (as E1).
    pub fn compat(&self) -> CompatFields {
        let (label, confidence) = self.label_confidence();
        CompatFields::of(E4Compat {
            predicted_label: label.map_or("", Label::as_str).to_string(),
            confidence,
        })
    }
}

#[cfg(test)]
mod tests;
