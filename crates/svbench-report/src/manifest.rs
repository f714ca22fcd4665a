//! `run_manifest.json` (harness §5.4), generated from the run's artifacts
//! alone: `metadata.json`, `results.jsonl` and the files the report just
//! wrote. Nothing is typed by hand; a value the artifacts do not hold is a
//! gap, and a run with gaps (e.g. an upstream run) gets no manifest.
//!
//! Also the validator behind `svbench manifest validate`: the generated
//! JSON Schema plus the hosted-field rule.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};
use svbench_core::identity::EnvIdentity;
use svbench_core::manifest::{
    ArtifactRef, PlatformMode, RewardSource, RunManifest, Trainer, GIT_SHA_UNKNOWN,
    REVISION_UNREPORTED,
};

use crate::read::{LeanRun, LoadedRun};

pub use svbench_core::manifest::MANIFEST_FILE;

/// A file the report wrote, listed in `output_artifacts`.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenFile {
    /// `summary`, `report`, ….
    pub role: &'static str,
    /// Where it was written.
    pub path: PathBuf,
    /// SHA-256 of the bytes written.
    pub sha256: String,
}

/// Fields of the manifest the run's artifacts do not provide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestGaps {
    /// One entry per missing or unusable value.
    pub missing: Vec<String>,
}

impl std::fmt::Display for ManifestGaps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "metadata.json lacks what the run manifest needs: {}",
            self.missing.join(", ")
        )
    }
}

/// Builds the manifest of `run`, to be written into `manifest_dir`, from
/// the run's `metadata.json` (`metadata`, its bytes hashed as
/// `metadata_sha256`), its records and the files the report wrote
/// (`written`; the one with role `summary` becomes `metrics_summary_path`).
/// `identity` is the run's environment as the registry names it (its short
/// id prefixes `reward_config_id`); without one the run gets no manifest.
pub fn build_manifest(
    run: &LeanRun,
    identity: Option<&EnvIdentity>,
    metadata: &Map<String, Value>,
    metadata_sha256: &str,
    manifest_dir: &Path,
    written: &[WrittenFile],
) -> Result<RunManifest, ManifestGaps> {
    let mut missing = Vec::new();
    let s = |key: &str| {
        metadata
            .get(key)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let u = |key: &str| metadata.get(key).and_then(Value::as_u64);
    let need_s = |key: &str, missing: &mut Vec<String>| {
        s(key).unwrap_or_else(|| {
            missing.push(key.to_string());
            String::new()
        })
    };
    let timestamp_utc = need_s("timestamp", &mut missing);
    let environment_version = need_s("env_version", &mut missing);
    let dataset_id = need_s("dataset", &mut missing);
    let dataset_revision = need_s("dataset_revision", &mut missing);
    let split = need_s("split", &mut missing);
    let model_id = need_s("effective_model", &mut missing);
    let reward_profile = need_s("reward_profile", &mut missing);
    let reward_config_hash = need_s("reward_config_hash", &mut missing);
    let need_u = |key: &str, missing: &mut Vec<String>| {
        u(key).unwrap_or_else(|| {
            missing.push(key.to_string());
            0
        })
    };
    let seed = need_u("seed", &mut missing);
    let max_tokens = need_u("max_tokens", &mut missing);
    let max_turns = need_u("max_turns", &mut missing);
    let tool_budget = need_u("tool_budget", &mut missing);
    let rollouts_per_example = run.info.rollouts_per_example.unwrap_or_else(|| {
        missing.push("rollouts_per_example".to_string());
        0
    });
    let sampling_params = match metadata.get("sampling_params") {
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => {
            missing.push("sampling_params".to_string());
            Default::default()
        }
    };
    if identity.is_none() {
        missing.push(format!(
            "a known environment (got `{}`)",
            run.info.environment
        ));
    }
    let model_revision_or_digest = match s("baseline_type") {
        Some(policy) => match s("svbench_version") {
            Some(v) => format!("builtin:{policy}+svbench-{v}"),
            None => {
                missing.push("svbench_version".to_string());
                String::new()
            }
        },
        None => join_revisions(run.records.revisions.iter().map(String::as_str).collect()),
    };
    let summary = written.iter().find(|w| w.role == "summary");
    if summary.is_none() {
        missing.push("summary.json (the run has no record)".to_string());
    }
    if !missing.is_empty() {
        return Err(ManifestGaps { missing });
    }

    let rel = |p: &Path| relative_path(p, manifest_dir);
    let results_path = run.dir.join("results.jsonl");
    let metadata_path = run.dir.join("metadata.json");
    let mut output_artifacts = Vec::new();
    if run.records.file_present {
        output_artifacts.push(ArtifactRef {
            role: "results".into(),
            path: rel(&results_path),
            sha256: run.records.sha256.clone(),
        });
    }
    output_artifacts.push(ArtifactRef {
        role: "metadata".into(),
        path: rel(&metadata_path),
        sha256: metadata_sha256.to_string(),
    });
    output_artifacts.extend(written.iter().map(|w| ArtifactRef {
        role: w.role.into(),
        path: rel(&w.path),
        sha256: w.sha256.clone(),
    }));

    Ok(RunManifest {
        run_id: run.info.run_id.clone(),
        git_sha: s("git_sha").unwrap_or_else(|| GIT_SHA_UNKNOWN.to_string()),
        timestamp_utc,
        environment_id: run.info.environment.clone(),
        environment_version,
        dataset_id,
        dataset_revision,
        split,
        model_id,
        model_revision_or_digest,
        sampling_params,
        reward_config_id: format!("{}:{reward_profile}", identity.map_or("", |id| id.short)),
        reward_config_hash,
        seed,
        platform_mode: PlatformMode::Local,
        trainer: metadata
            .get("trainer")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or(Trainer::None),
        max_steps: u("max_steps").unwrap_or(0),
        training_config_sha256: s("training_config_sha256"),
        training_budget_sha256: s("training_budget_sha256"),
        rollouts_per_example,
        max_tokens,
        max_turns,
        tool_budget,
        input_artifacts: input_artifacts(metadata),
        output_artifacts,
        metrics_summary_path: summary.map(|w| rel(&w.path)).unwrap_or_default(),
        results_jsonl_path: rel(&results_path),
        metadata_json_path: rel(&metadata_path),
        notes: s("notes").unwrap_or_default(),
        // Executable checks in every profile, or (E5, E6) a safety judge
        // whose kind depends on its configuration: left out, not guessed.
        reward_source: identity
            .filter(|id| id.executable_reward)
            .map(|_| RewardSource::Executable),
        budget_group: s("budget_group"),
        prime_run_id: None,
        team: None,
        compute_profile: None,
        platform_image: None,
        adapter_id: None,
    })
}

/// The manifest as written: pretty JSON with a trailing newline.
pub fn manifest_json(manifest: &RunManifest) -> String {
    let mut s = serde_json::to_string_pretty(manifest).expect("a manifest serialises");
    s.push('\n');
    s
}

/// Distinct `model+fingerprint` values of the responses the run received,
/// sorted and joined by `;`; `unreported` when no response carried either.
pub fn observed_revision(run: &LoadedRun) -> String {
    let nonempty = |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).map(str::to_string);
    let mut seen = BTreeSet::new();
    for req in run.records.records.iter().flat_map(|r| &r.requests) {
        if let Some(token) = revision_token(
            nonempty(&req.response_model),
            nonempty(&req.system_fingerprint),
        ) {
            seen.insert(token);
        }
    }
    join_revisions(seen.iter().map(String::as_str).collect())
}

/// The revision token of one response: `model+fingerprint`, the model
/// alone, or `unreported+fingerprint`; `None` when it carried neither.
pub fn revision_token(model: Option<String>, fingerprint: Option<String>) -> Option<String> {
    match (model, fingerprint) {
        (Some(m), Some(f)) => Some(format!("{m}+{f}")),
        (Some(m), None) => Some(m),
        (None, Some(f)) => Some(format!("{REVISION_UNREPORTED}+{f}")),
        (None, None) => None,
    }
}

fn join_revisions(seen: BTreeSet<&str>) -> String {
    if seen.is_empty() {
        REVISION_UNREPORTED.to_string()
    } else {
        seen.into_iter().collect::<Vec<_>>().join(";")
    }
}

/// The files the run read, as `metadata.json` records them.
fn input_artifacts(metadata: &Map<String, Value>) -> Vec<ArtifactRef> {
    let s = |key: &str| {
        metadata
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let hex = |v: String| v.strip_prefix("sha256:").map(str::to_string).unwrap_or(v);
    let mut out = Vec::new();
    if let (Some(path), Some(sha)) = (
        s("dataset"),
        s("dataset_file_sha256").or_else(|| s("dataset_sha256")),
    ) {
        out.push(ArtifactRef {
            role: "dataset".into(),
            path,
            sha256: hex(sha),
        });
    }
    if let (Some(path), Some(sha)) = (s("system_prompt_file"), s("system_prompt_sha256")) {
        out.push(ArtifactRef {
            role: "system_prompt".into(),
            path,
            sha256: hex(sha),
        });
    }
    for (key, role) in [
        ("reward_config_file", "reward_config"),
        ("replay_source", "replay_source"),
    ] {
        let file = metadata.get(key);
        let field = |k: &str| {
            file.and_then(|f| f.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        if let (Some(path), Some(sha)) = (field("path"), field("sha256")) {
            out.push(ArtifactRef {
                role: role.into(),
                path,
                sha256: hex(sha),
            });
        }
    }
    out
}

/// `target` relative to directory `base`, with `/` separators; the
/// absolute path when no relative one can be formed.
pub fn relative_path(target: &Path, base: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).ok();
    let (Some(t), Some(b)) = (
        target
            .parent()
            .and_then(abs)
            .map(|d| d.join(target.file_name().unwrap_or_default())),
        abs(base),
    ) else {
        return target.display().to_string();
    };
    let tc: Vec<Component> = t.components().collect();
    let bc: Vec<Component> = b.components().collect();
    let common = tc.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return t.display().to_string();
    }
    let mut parts: Vec<String> = vec!["..".to_string(); bc.len() - common];
    parts.extend(
        tc[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Checks a parsed `run_manifest.json` against the generated schema and the
/// hosted-field rule. Returns the problems found, empty when valid.
pub fn validate_manifest(instance: &Value) -> Vec<String> {
    let schema = crate::schema::schema("manifest", &[]).expect("the manifest schema exists");
    let validator = match jsonschema::validator_for(&schema) {
        Ok(v) => v,
        Err(e) => {
            return vec![format!(
                "internal: the manifest schema does not compile: {e}"
            )]
        }
    };
    let mut problems: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| {
            let at = e.instance_path.to_string();
            format!("{}: {e}", if at.is_empty() { "/" } else { &at })
        })
        .collect();
    if problems.is_empty() {
        // The schema encodes the hosted rule too; this is the typed check.
        match serde_json::from_value::<RunManifest>(instance.clone()) {
            Ok(m) => problems.extend(m.hosted_problems()),
            Err(e) => problems.push(format!("not a run manifest: {e}")),
        }
    }
    problems
}

/// Reads and validates a manifest file: unreadable files and invalid JSON
/// are problems too.
pub fn validate_manifest_file(path: &Path) -> Vec<String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return vec![format!("cannot read: {e}")],
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) => validate_manifest(&v),
        Err(e) => vec![format!("not valid JSON: {e}")],
    }
}
