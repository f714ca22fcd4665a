//! The E1 environment: one path from a completion to a recorded score.

use crate::e1::report::record::{E1Compat, E1Parsed};
use svbench_core::extract::ParseMode;
use svbench_core::record::{CompatFields, EnvPart};
use svbench_core::reward_config::RewardConfigError;
use svbench_core::{Completion, Message, ParseOutcome, ParseRecord, RewardBreakdown};

use super::parse::parse_completion;
use super::prompt::{initial_messages, system_prompt};
use super::reward::E1Rewards;
use super::{Gold, Label};

/// E1 configured with a reward profile (which also fixes the parser mode).
#[derive(Debug, Clone)]
pub struct E1Env {
    /// Active reward profile and constants.
    pub rewards: E1Rewards,
    /// Parser mode, following the profile.
    pub mode: ParseMode,
    /// The system prompt sent with every example.
    pub system_prompt: String,
}

/// Everything recorded about one scored answer.
#[derive(Debug, Clone)]
pub struct E1Score {
    /// Parse outcome.
    pub outcome: ParseOutcome<Label>,
    /// Reward with every component.
    pub reward: RewardBreakdown,
}

impl E1Score {
    /// The `parse` object of a result record.
    pub fn parse_record(&self) -> ParseRecord {
        self.outcome.record()
    }

    /// The `parsed` object: `{label, confidence, rationale, format_ok}`, `None` when invalid.
    pub fn parsed(&self) -> Option<E1Parsed> {
        match &self.outcome {
            ParseOutcome::Invalid { .. } => None,
            ParseOutcome::LabelOnly { label, .. } => Some(E1Parsed {
                label: label.as_str().to_string(),
                confidence: None,
                rationale: None,
                format_ok: false,
            }),
            ParseOutcome::Valid {
                label,
                confidence,
                format_ok,
                rationale,
                ..
            } => Some(E1Parsed {
                label: label.as_str().to_string(),
                confidence: Some(*confidence),
                rationale: rationale.clone(),
                format_ok: *format_ok,
            }),
        }
    }

    /// Upstream compatibility fields `predicted_label` and `confidence`.
    pub fn compat(&self) -> E1Compat {
        let (label, confidence) = match &self.outcome {
            ParseOutcome::Invalid { .. } => ("", None),
            ParseOutcome::LabelOnly { label, .. } => (label.as_str(), None),
            ParseOutcome::Valid {
                label, confidence, ..
            } => (label.as_str(), Some(*confidence)),
        };
        E1Compat {
            predicted_label: label.to_string(),
            confidence,
        }
    }
}

impl E1Env {
    /// E1 with a reward profile name and an optional override file `(text, origin)`.
    pub fn new(profile: &str, overrides: Option<(&str, &str)>) -> Result<Self, RewardConfigError> {
        let rewards = E1Rewards::load(profile, overrides)?;
        Ok(Self::with_rewards(rewards))
    }

    /// E1 with already-loaded rewards.
    pub fn with_rewards(rewards: E1Rewards) -> Self {
        let mode = match rewards.name() {
            "upstream" => ParseMode::Upstream,
            _ => ParseMode::V1,
        };
        let system_prompt = system_prompt(&rewards);
        Self {
            rewards,
            mode,
            system_prompt,
        }
    }

    /// Replaces the system prompt (`--system-prompt-file`).
    pub fn set_system_prompt(&mut self, prompt: String) {
        self.system_prompt = prompt;
    }

    /// The messages of the first (and only) call.
    pub fn initial_messages(&self, question: &str) -> Vec<Message> {
        initial_messages(&self.system_prompt, question)
    }

    /// Parses and scores a completion against the gold label.
    pub fn score(&self, completion: &Completion, gold: Gold) -> E1Score {
        let outcome = parse_completion(completion, self.mode);
        let reward = self.rewards.score(&outcome, gold);
        E1Score { outcome, reward }
    }
}

impl crate::environment::Environment for E1Env {
    fn name(&self) -> &'static str {
        super::NAME
    }

    fn version(&self) -> &'static str {
        super::VERSION
    }

    fn kind(&self) -> crate::environment::EnvKind {
        crate::environment::EnvKind::SingleTurn
    }

    fn default_budgets(&self) -> crate::environment::Budgets {
        crate::environment::Budgets {
            max_turns: 1,
            tool_budget: 0,
        }
    }

    fn initial_messages(&self, example: &svbench_core::Example) -> Vec<Message> {
        E1Env::initial_messages(self, &example.question)
    }

    fn score(
        &self,
        example: &svbench_core::Example,
        completion: &Completion,
    ) -> Result<crate::environment::ScoredAnswer, crate::environment::ScoreError> {
        let gold = super::dataset::normalize_gold(&example.answer)
            .map_err(|e| crate::environment::ScoreError::reference(&example.id, e.to_string()))?;
        let s = E1Env::score(self, completion, gold);
        Ok(crate::environment::ScoredAnswer {
            parse: s.parse_record(),
            parsed: s.parsed().map(EnvPart::of),
            compat: CompatFields::of(s.compat()),
            reward: s.reward,
        })
    }
}
