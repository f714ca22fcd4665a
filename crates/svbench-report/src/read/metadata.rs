//! `metadata.json`, read tolerantly: svbench writes every field of
//! [`RunMetadata`]; upstream runs and older files hold a subset. `--strict`
//! requires the full svbench shape.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use svbench_core::record::{RunMetadata, RunStatus};

use crate::error::ReportError;

/// The run facts the report uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunInfo {
    /// Canonical environment name (aliases resolved).
    pub environment: String,
    /// Environment version.
    pub env_version: Option<String>,
    /// `--model` as given.
    pub model: String,
    /// Id sent to the endpoint (policy for builtins).
    pub effective_model: Option<String>,
    /// Dataset spec.
    pub dataset: Option<String>,
    /// `sha256:<dataset_sha256>`.
    pub dataset_revision: Option<String>,
    /// Run id (the directory name when metadata has none).
    pub run_id: String,
    /// Short commit of the svbench source built.
    pub git_commit: Option<String>,
    /// Run seed.
    pub seed: Option<u64>,
    /// Free label.
    pub baseline_name: Option<String>,
    /// Builtin policy.
    pub baseline_type: Option<String>,
    /// `--system-prompt-file`.
    pub system_prompt_file: Option<String>,
    /// `--few-shot`: worked examples before every prompt (`None`: zero-shot).
    pub few_shot: Option<u64>,
    /// Run status.
    pub status: Option<RunStatus>,
    /// Why the run aborted.
    pub abort_reason: Option<String>,
    /// RFC 3339 start.
    pub started_at: Option<String>,
    /// RFC 3339 end.
    pub finished_at: Option<String>,
    /// Split.
    pub split: Option<String>,
    /// Canonical hash of the loaded split.
    pub dataset_sha256: Option<String>,
    /// Canonical hash of the selection.
    pub selected_sha256: Option<String>,
    /// Reward profile of the run.
    pub reward_profile: Option<String>,
    /// Reward config hash.
    pub reward_config_hash: Option<String>,
    /// Effective profile constants.
    pub reward_params: BTreeMap<String, Value>,
    /// `env_provenance`: what the environment recorded about itself (E1's
    /// and E4's `cost_matrix_v1`, analyzer versions, …).
    pub env_provenance: BTreeMap<String, Value>,
    /// `reward_weights`: component → weight of the run's profile (empty when
    /// unrecorded).
    pub reward_weights: BTreeMap<String, f64>,
    /// svbench version that ran the evaluation.
    pub svbench_version: Option<String>,
    /// Distinct examples selected.
    pub num_examples: Option<u64>,
    /// Samples per example.
    pub rollouts_per_example: Option<u64>,
}

/// Resolves an environment name or alias to its canonical name; unknown
/// names are returned unchanged with `false`.
pub fn canonical_environment(name: &str) -> (String, bool) {
    match svbench_core::identity::lookup_loose(name) {
        Some(id) => (id.name.to_string(), true),
        None => (name.to_string(), false),
    }
}

/// Reads and interprets `metadata.json`.
pub fn read_metadata(path: &Path, run_dir: &Path, strict: bool) -> Result<RunInfo, ReportError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ReportError::MissingMetadata {
                path: path.to_path_buf(),
            })
        }
        Err(source) => {
            return Err(ReportError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| ReportError::Metadata {
        path: path.to_path_buf(),
        message: format!("not valid JSON: {e}"),
    })?;
    let Value::Object(map) = &value else {
        return Err(ReportError::Metadata {
            path: path.to_path_buf(),
            message: "expected a JSON object".to_string(),
        });
    };
    if strict {
        serde_json::from_value::<RunMetadata>(value.clone()).map_err(|e| ReportError::Strict {
            message: format!(
                "{}: not a complete svbench metadata.json: {e}",
                path.display()
            ),
        })?;
    }
    let s = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_string);
    let u = |key: &str| map.get(key).and_then(Value::as_u64);
    let Some(env_name) = s("environment") else {
        return Err(ReportError::Metadata {
            path: path.to_path_buf(),
            message: "no `environment` field".to_string(),
        });
    };
    // Whether the name is known is the caller's to say: the report knows
    // the registered environments through its plugin lookup.
    let (environment, _) = canonical_environment(&env_name);
    let run_id = s("run_id").unwrap_or_else(|| {
        run_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let status = map
        .get("status")
        .and_then(|v| serde_json::from_value::<RunStatus>(v.clone()).ok());
    let reward_params = match map.get("reward_params") {
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => BTreeMap::new(),
    };
    let env_provenance = match map.get("env_provenance") {
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => BTreeMap::new(),
    };
    let reward_weights = match map.get("reward_weights") {
        Some(Value::Object(m)) => m
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
            .collect(),
        _ => BTreeMap::new(),
    };
    let rollouts = u("rollouts_per_example").or_else(|| {
        map.get("selection")
            .and_then(|s| s.get("rollouts_per_example"))
            .and_then(Value::as_u64)
    });
    Ok(RunInfo {
        environment,
        env_version: s("env_version"),
        model: s("model").unwrap_or_default(),
        effective_model: s("effective_model"),
        dataset: s("dataset"),
        dataset_revision: s("dataset_revision"),
        run_id,
        git_commit: s("git_commit").or_else(|| s("git_sha")),
        seed: u("seed"),
        baseline_name: s("baseline_name"),
        baseline_type: s("baseline_type"),
        system_prompt_file: s("system_prompt_file"),
        few_shot: map
            .get("few_shot")
            .and_then(|f| f.get("k"))
            .and_then(Value::as_u64)
            .filter(|k| *k > 0),
        status,
        abort_reason: s("abort_reason"),
        started_at: s("started_at"),
        finished_at: s("finished_at"),
        split: s("split"),
        dataset_sha256: s("dataset_sha256"),
        selected_sha256: s("selected_sha256"),
        reward_profile: s("reward_profile"),
        reward_config_hash: s("reward_config_hash"),
        reward_params,
        env_provenance,
        reward_weights,
        svbench_version: s("svbench_version"),
        num_examples: u("num_examples"),
        rollouts_per_example: rollouts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve() {
        assert_eq!(
            canonical_environment("e1"),
            (svbench_core::identity::NETWORK_LOGS.name.to_string(), true)
        );
        assert_eq!(
            canonical_environment("Network-Logs"),
            (svbench_core::identity::NETWORK_LOGS.name.to_string(), true)
        );
        assert_eq!(canonical_environment("x"), ("x".to_string(), false));
    }
}
