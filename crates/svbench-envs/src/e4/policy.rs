//! E4's builtin policies (spec §6): `indicators`, the extractor with a
//! scoring rule, and `oracle`, the upper bound. Both answer in the model's
//! JSON format, so their answers go through the same parser and rewards.

use serde_json::{json, Value};
use svbench_core::record::SampleError;
use svbench_core::Example;

use svbench_mail::{
    extract, render, Email, EmailLimits, Finding, IndicatorSet, Polarity as IndicatorPolarity,
};

use super::env::E4Env;
use super::grounding::is_relevant;
use super::reward::{decision_thresholds, Profile, V1Params};
use super::row::{email_of_row, gold_facts, normalize_gold};
use crate::kit::policy::SingleShot;
use crate::kit::reward::V1Constants;
use crate::policy::internal;

/// The row's `meta`, if any.
fn meta_of(example: &Example) -> Option<Value> {
    example.info_value().get("meta").cloned()
}

fn reference_error(example: &Example, message: String) -> SampleError {
    internal(format!("example {}: {message}", example.id))
}

/// `builtin:oracle`: the gold label with confidence 1.0 and the texts of
/// the relevant gold spans (an upper bound, never a baseline).
#[derive(Debug, Clone, Copy, Default)]
pub struct E4OraclePolicy;

impl SingleShot for E4OraclePolicy {
    const NAME: &'static str = "oracle";
    const ORACLE: bool = true;

    fn answer_text(&self, example: &Example) -> Result<String, SampleError> {
        let gold =
            normalize_gold(&example.answer).map_err(|e| reference_error(example, e.to_string()))?;
        let meta = meta_of(example);
        let facts = gold_facts(meta.as_ref(), &example.question)
            .map_err(|e| reference_error(example, e.to_string()))?;
        let evidence: Vec<&str> = facts
            .spans
            .iter()
            .filter(|s| is_relevant(gold, s))
            .map(|s| s.text.as_str())
            .collect();
        let answer = json!({"label": gold.as_str(), "confidence": 1.0, "evidence": evidence});
        Ok(answer.to_string())
    }
}

/// Most evidence items `builtin:indicators` quotes.
const INDICATOR_EVIDENCE_ITEMS: usize = 5;

/// `builtin:indicators`: runs the extractor on the row's email, adds the
/// weights of the distinct categories found (benign ones count against),
/// turns the sum into a belief with a logistic, and decides with the
/// thresholds of the `v1` cost matrix. Constants are data
/// (`indicators.toml`, the reward config).
#[derive(Debug, Clone)]
pub struct IndicatorsPolicy {
    /// Below: Legitimate; above `upper`: Phishing; between: Abstain.
    lower: f64,
    upper: f64,
    limits: EmailLimits,
}

impl IndicatorsPolicy {
    /// The policy for a configured E4: its rendering limits and the `v1`
    /// thresholds (the built-in `v1` constants under another profile).
    pub fn new(env: &E4Env) -> Self {
        let params = match &env.rewards.profile {
            Profile::V1(p) => *p,
            Profile::Upstream => V1Params::builtin(),
        };
        let (lower, upper) = decision_thresholds(&params);
        Self {
            lower,
            upper,
            limits: env.args.limits(),
        }
    }

    /// The answer for one email, as JSON text.
    pub fn answer(&self, email: &Email) -> String {
        let set = IndicatorSet::builtin();
        let rendered = render(email, &self.limits);
        let findings = extract(email, &rendered, set);
        let weight = |c: &str| set.weight(c).unwrap_or(0.0);
        let mut categories: Vec<&str> = findings.iter().map(|f| f.category).collect();
        categories.sort_unstable();
        categories.dedup();
        let s: f64 = categories.iter().map(|c| weight(c)).sum();
        let p = 1.0 / (1.0 + (-(s - set.offset())).exp());
        let (label, confidence, wanted) = if p < self.lower {
            ("Legitimate", 1.0 - p, Some(IndicatorPolarity::Benign))
        } else if p > self.upper {
            ("Phishing", p, Some(IndicatorPolarity::Phish))
        } else {
            ("Abstain", 0.5, None)
        };
        let mut cited: Vec<&Finding> = findings
            .iter()
            .filter(|f| wanted.is_none_or(|w| f.polarity == w))
            .collect();
        // Highest weight first; position breaks ties (the sort is stable).
        cited.sort_by(|a, b| {
            weight(b.category)
                .abs()
                .total_cmp(&weight(a.category).abs())
        });
        let mut evidence: Vec<&str> = Vec::new();
        for f in cited {
            if evidence.len() == INDICATOR_EVIDENCE_ITEMS {
                break;
            }
            if !evidence.contains(&f.text.as_str()) {
                evidence.push(&f.text);
            }
        }
        json!({"label": label, "confidence": confidence, "evidence": evidence}).to_string()
    }
}

impl SingleShot for IndicatorsPolicy {
    const NAME: &'static str = "indicators";
    const ORACLE: bool = false;

    fn answer_text(&self, example: &Example) -> Result<String, SampleError> {
        let info = example.info_value();
        let email = info
            .get("email")
            .ok_or_else(|| reference_error(example, "the row has no `email`".into()))?;
        let email = email_of_row(email, &self.limits)
            .map_err(|e| reference_error(example, e.to_string()))?;
        Ok(self.answer(&email))
    }
}
