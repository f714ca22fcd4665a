//! `run_manifest.json` (harness §5.4): one run's identity, budgets and
//! artifacts in the shape of upstream `bench/schemas/run_manifest.schema.json`.
//!
//! Every value is observed — copied from `metadata.json`, computed from
//! `results.jsonl` or hashed from the written files — never typed by hand.
//! Only `notes` and `budget_group` are free text.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// File name of the run manifest.
pub const MANIFEST_FILE: &str = "run_manifest.json";

/// `git_sha` of a binary built without git (e.g. from a source tarball).
pub const GIT_SHA_UNKNOWN: &str = "unknown";

/// `model_revision_or_digest` when no response reported a model or
/// fingerprint.
pub const REVISION_UNREPORTED: &str = "unreported";

/// The hosted-only fields, all required non-empty when `platform_mode` is
/// `hosted`.
pub const HOSTED_FIELDS: [&str; 5] = [
    "prime_run_id",
    "team",
    "compute_profile",
    "platform_image",
    "adapter_id",
];

/// `run_manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend(
    "if" = {
        "properties": { "platform_mode": { "const": "hosted" } },
        "required": ["platform_mode"]
    },
    "then" = {
        "required": ["prime_run_id", "team", "compute_profile", "platform_image", "adapter_id"],
        "properties": {
            "prime_run_id": { "type": "string", "minLength": 1 },
            "team": { "type": "string", "minLength": 1 },
            "compute_profile": { "type": "string", "minLength": 1 },
            "platform_image": { "type": "string", "minLength": 1 },
            "adapter_id": { "type": "string", "minLength": 1 }
        }
    }
))]
pub struct RunManifest {
    /// Run id.
    #[schemars(regex(pattern = r"^[A-Za-z0-9._-]{1,128}$"))]
    pub run_id: String,
    /// Full commit of the svbench source built (40 hex), or `unknown` for a
    /// build without git.
    #[schemars(regex(pattern = r"^([0-9a-f]{40}|[0-9a-f]{64}|unknown)$"))]
    pub git_sha: String,
    /// Run start, `YYYY-MM-DDTHH:MM:SSZ`.
    #[schemars(regex(pattern = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"))]
    pub timestamp_utc: String,
    /// Canonical environment name.
    #[schemars(length(min = 1))]
    pub environment_id: String,
    /// Environment crate version.
    #[schemars(length(min = 1))]
    pub environment_version: String,
    /// Dataset spec as given (`embedded`, a path, `synthetic:SEED:N`).
    #[schemars(length(min = 1))]
    pub dataset_id: String,
    /// `sha256:` + canonical hash of the loaded split.
    #[schemars(regex(pattern = r"^sha256:[0-9a-f]{64}$"))]
    pub dataset_revision: String,
    /// Split (`all` if rows carry none).
    #[schemars(length(min = 1))]
    pub split: String,
    /// Effective model: the id sent to the endpoint (policy for builtins).
    #[schemars(length(min = 1))]
    pub model_id: String,
    /// Response `model` and `system_fingerprint` as observed
    /// (`model+fingerprint`, distinct values sorted and joined by `;`),
    /// `unreported` if no response carried them; for builtins
    /// `builtin:<policy>+svbench-<version>`.
    #[schemars(length(min = 1))]
    pub model_revision_or_digest: String,
    /// Exactly what was sent to the endpoint (from `metadata.json`).
    pub sampling_params: BTreeMap<String, Value>,
    /// `<alias>:<profile>`, e.g. `e1:v1`.
    #[schemars(regex(pattern = r"^[a-z0-9-]+:[A-Za-z0-9._-]+$"))]
    pub reward_config_id: String,
    /// `sha256:` hash of the effective reward config (canonical JSON).
    #[schemars(regex(pattern = r"^sha256:[0-9a-f]{64}$"))]
    pub reward_config_hash: String,
    /// Run seed.
    pub seed: u64,
    /// Where the run executed (`local` for every svbench run).
    pub platform_mode: PlatformMode,
    /// Training algorithm (`none` for evaluations).
    pub trainer: Trainer,
    /// Training steps (0 for evaluations).
    pub max_steps: u64,
    /// SHA-256 of the evaluated model's whole training config, where the
    /// run recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_config_sha256: Option<String>,
    /// SHA-256 of its training budget (the config without how it learns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_budget_sha256: Option<String>,
    /// Samples per example.
    pub rollouts_per_example: u64,
    /// Token limit per model call.
    pub max_tokens: u64,
    /// Model calls per sample.
    pub max_turns: u64,
    /// Tool calls per sample.
    pub tool_budget: u64,
    /// Files the run read: the dataset, and where given the reward config,
    /// system prompt and replay source.
    pub input_artifacts: Vec<ArtifactRef>,
    /// Files the run wrote, relative to the manifest.
    pub output_artifacts: Vec<ArtifactRef>,
    /// `summary.json`, relative to the manifest.
    #[schemars(length(min = 1))]
    pub metrics_summary_path: String,
    /// `results.jsonl`, relative to the manifest.
    #[schemars(length(min = 1))]
    pub results_jsonl_path: String,
    /// `metadata.json`, relative to the manifest.
    #[schemars(length(min = 1))]
    pub metadata_json_path: String,
    /// `--notes` (free text; `""` without).
    pub notes: String,
    /// How rewards are computed, from the reward profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward_source: Option<RewardSource>,
    /// `--budget-group` (free text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_group: Option<String>,
    /// Hosted only: platform run id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prime_run_id: Option<String>,
    /// Hosted only: team.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Hosted only: compute profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_profile: Option<String>,
    /// Hosted only: platform image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform_image: Option<String>,
    /// Hosted only: adapter id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter_id: Option<String>,
}

impl RunManifest {
    /// The hosted-field rule: with `platform_mode` `hosted`, every field of
    /// [`HOSTED_FIELDS`] must be present and non-empty. Returns one message
    /// per violation.
    pub fn hosted_problems(&self) -> Vec<String> {
        if self.platform_mode != PlatformMode::Hosted {
            return Vec::new();
        }
        let values = [
            &self.prime_run_id,
            &self.team,
            &self.compute_profile,
            &self.platform_image,
            &self.adapter_id,
        ];
        HOSTED_FIELDS
            .iter()
            .zip(values)
            .filter(|(_, v)| v.as_deref().is_none_or(|s| s.trim().is_empty()))
            .map(|(name, _)| format!("platform_mode is hosted but `{name}` is missing or empty"))
            .collect()
    }
}

/// A file the run read or wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactRef {
    /// What the file is: `dataset`, `reward_config`, `system_prompt`,
    /// `replay_source` (inputs); `results`, `metadata`, `summary`, `report`
    /// (outputs).
    #[schemars(length(min = 1))]
    pub role: String,
    /// Inputs: the path or spec as given on the command line. Outputs:
    /// relative to the manifest.
    #[schemars(length(min = 1))]
    pub path: String,
    /// SHA-256 (lowercase hex) of the file's bytes; for a dataset without a
    /// file (embedded or generated) the canonical hash of the loaded split,
    /// as in `dataset_revision`.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
}

/// Where a run executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PlatformMode {
    /// On this machine (every svbench run).
    Local,
    /// On a hosted platform.
    Hosted,
    /// Locally, standing in for a hosted run.
    FallbackHosted,
}

/// The training algorithm of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Trainer {
    /// An evaluation, no training.
    None,
    /// GRPO.
    Grpo,
    /// GDPO.
    Gdpo,
    /// Distillation.
    Distillation,
    /// Anything else.
    Other,
}

/// How the rewards of a run are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RewardSource {
    /// By executing checks (parsers, analyzers, tests).
    Executable,
    /// By an LLM judge.
    LlmJudge,
    /// Both.
    Hybrid,
    /// Anything else.
    Other,
}
