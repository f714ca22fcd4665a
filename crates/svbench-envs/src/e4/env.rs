//! The E4 environment: one path from a completion to a recorded score.

use serde::Deserialize;
use serde_json::Value;
use svbench_core::record::EnvPart;
use svbench_core::reward_config::RewardConfigError;
use svbench_core::{Completion, Example, Message};

use super::args::E4Args;
use super::grounding::EvidenceLimits;
use super::prompt::{initial_messages, system_prompt, CostTable, EvidenceRules};
use super::reward::{E4Rewards, Profile};
use super::row::{gold_facts, normalize_gold, RowError};
use super::score::{score, E4Score, RowFacts, ScoreInput};
use crate::environment::{
    Budgets, Deadline, EnvKind, Environment, ScoreError, ScoredAnswer, TimeBudgetExceeded,
};

/// Why a row could not be scored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowScoreError {
    /// The row's reference (gold label, `meta`) is unusable.
    #[error(transparent)]
    Reference(#[from] RowError),
    /// The deadline passed while scoring.
    #[error(transparent)]
    TimeBudget(#[from] TimeBudgetExceeded),
}

/// E4 configured with its arguments and a reward profile (which also fixes
/// the parser mode).
#[derive(Debug, Clone)]
pub struct E4Env {
    /// Active reward profile and constants.
    pub rewards: E4Rewards,
    /// The environment's arguments.
    pub args: E4Args,
    /// The system prompt sent with every example.
    pub system_prompt: String,
}

/// The row metadata scoring reads (`meta`; the `email` is not needed).
#[derive(Debug, Default, Deserialize)]
struct Info {
    #[serde(default)]
    meta: Option<Value>,
}

impl E4Env {
    /// E4 with a reward profile name, an optional override file `(text,
    /// origin)` and its arguments.
    pub fn new(
        profile: &str,
        overrides: Option<(&str, &str)>,
        args: E4Args,
    ) -> Result<Self, RewardConfigError> {
        let rewards = E4Rewards::load(profile, overrides)?;
        Ok(Self::with_rewards(rewards, args))
    }

    /// E4 with already-loaded rewards.
    pub fn with_rewards(rewards: E4Rewards, args: E4Args) -> Self {
        let system_prompt = default_prompt(&rewards, &args);
        Self {
            rewards,
            args,
            system_prompt,
        }
    }

    /// Replaces the system prompt (`--system-prompt-file`).
    pub fn set_system_prompt(&mut self, prompt: String) {
        self.system_prompt = prompt;
    }

    /// The evidence limits of the arguments.
    pub fn evidence_limits(&self) -> EvidenceLimits {
        EvidenceLimits {
            max_items: self.args.evidence_max_items,
            min_chars: self.args.evidence_min_chars,
            max_chars: self.args.evidence_max_chars,
        }
    }

    /// Scores a completion against a row given as question, gold answer and
    /// `meta`. Errors name what is wrong with the reference.
    ///
    /// # Errors
    /// [`RowScoreError::Reference`] naming what is wrong with the reference
    /// (never [`RowScoreError::TimeBudget`]: there is no deadline).
    pub fn score_row(
        &self,
        question: &str,
        answer: &Value,
        meta: Option<&Value>,
        completion: &Completion,
    ) -> Result<(E4Score, RowFacts), RowScoreError> {
        self.score_row_within(question, answer, meta, completion, Deadline::NONE)
    }

    /// [`E4Env::score_row`] that stops once `deadline` has passed (checked
    /// inside grounding's loops over the question, the items and the spans).
    ///
    /// # Errors
    /// [`RowScoreError::Reference`] naming what is wrong with the reference,
    /// or [`RowScoreError::TimeBudget`].
    pub fn score_row_within(
        &self,
        question: &str,
        answer: &Value,
        meta: Option<&Value>,
        completion: &Completion,
        deadline: Deadline,
    ) -> Result<(E4Score, RowFacts), RowScoreError> {
        deadline.check()?;
        let gold = normalize_gold(answer)?;
        let facts = gold_facts(meta, question)?;
        deadline.check()?;
        let upstream_indicators: Vec<String> = meta
            .and_then(|m| m.get("upstream_indicators"))
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let input = ScoreInput {
            question,
            gold,
            spans: &facts.spans,
            gold_source: facts.gold_source,
            upstream_indicators: &upstream_indicators,
        };
        let scored = score(
            &self.rewards,
            &self.evidence_limits(),
            completion,
            &input,
            deadline,
        )?;
        Ok((scored, row_facts(meta)))
    }
}

/// The v1 costs the prompt shows, when `show_cost_table` asks for them.
fn default_prompt(rewards: &E4Rewards, args: &E4Args) -> String {
    let rules = EvidenceRules {
        max_items: args.evidence_max_items,
        min_chars: args.evidence_min_chars,
        max_chars: args.evidence_max_chars,
    };
    let costs = match &rewards.profile {
        Profile::V1(p) if args.show_cost_table => Some(CostTable {
            missed_phishing: p.costs.cost_fn,
            false_alarm: p.costs.cost_fp,
            abstain: p.costs.cost_abstain,
            ambiguous_phishing: p.cost_amb_phishing,
            ambiguous_legitimate: p.cost_amb_legitimate,
        }),
        _ => None,
    };
    system_prompt(&rules, costs.as_ref())
}

/// Generator metadata recorded with every score.
fn row_facts(meta: Option<&Value>) -> RowFacts {
    let text = |key: &str| {
        meta.and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    RowFacts {
        family: text("family"),
        phishing_type: text("phishing_type"),
        difficulty: text("difficulty"),
        ambiguous: meta
            .and_then(|m| m.get("ambiguous"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
        render_version: meta
            .and_then(|m| m.get("render_version"))
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(svbench_mail::RENDER_VERSION),
    }
}

impl Environment for E4Env {
    fn name(&self) -> &'static str {
        super::NAME
    }

    fn version(&self) -> &'static str {
        super::VERSION
    }

    fn kind(&self) -> EnvKind {
        EnvKind::SingleTurn
    }

    fn default_budgets(&self) -> Budgets {
        Budgets {
            max_turns: 1,
            tool_budget: 0,
        }
    }

    fn initial_messages(&self, example: &Example) -> Vec<Message> {
        initial_messages(&self.system_prompt, &example.question)
    }

    fn score(
        &self,
        example: &Example,
        completion: &Completion,
    ) -> Result<ScoredAnswer, ScoreError> {
        self.score_within(example, completion, Deadline::NONE)
    }

    /// Scoring with cooperative deadline checks: reading the row's gold,
    /// normalising the question, finding each quote, choosing its
    /// occurrence and matching it against the spans.
    fn score_within(
        &self,
        example: &Example,
        completion: &Completion,
        deadline: Deadline,
    ) -> Result<ScoredAnswer, ScoreError> {
        deadline
            .check()
            .map_err(|e| ScoreError::time_budget(&example.id, e))?;
        let info: Info = serde_json::from_str(example.info.get()).unwrap_or_default();
        let (s, facts) = self
            .score_row_within(
                &example.question,
                &example.answer,
                info.meta.as_ref(),
                completion,
                deadline,
            )
            .map_err(|e| match e {
                RowScoreError::Reference(e) => ScoreError::reference(&example.id, e.to_string()),
                RowScoreError::TimeBudget(exceeded) => {
                    ScoreError::time_budget(&example.id, exceeded)
                }
            })?;
        Ok(ScoredAnswer {
            parse: s.parse_record(),
            parsed: Some(EnvPart::of(s.parsed(&facts))),
            compat: s.compat(),
            reward: s.reward,
        })
    }
}
