//! The RFC 6902 JSON Patch applier on YAML documents (with its YAML
//! emitter), through the strict v1 pipeline `apply_patch`.
//!
//! Input: a first byte `t` for Terraform (anything else: Kubernetes YAML),
//! then the original file, a NUL byte, and the patch text (a JSON array of
//! operations; other text is left to the `patch_diff` target).
//!
//! Invariants: no panic; the patched text is bounded ([`bound`]: no input
//! may make the applier allocate without bound — the `copy`-doubling attack
//! of issue 13 grows the document 2^n); `applied` carries text that reads
//! back, failures carry a reason and no text; it never applies to Terraform.

use svbench_scan::patch::{
    apply_patch, json_patch, max_patched_bytes, yaml_emit, PatchOutcome, PatchStatus,
};
use svbench_scan::scan::FileType;
use svbench_scan::{parse_documents, Limits};

/// Largest patched text the appliers may return for `original`:
/// `svbench_scan::patch::max_patched_bytes` of the original as they emit it
/// (YAML documents re-emitted, or pretty JSON for the lenient op lists),
/// or of its raw text when that is longer.
#[must_use]
pub fn bound(original: &str) -> usize {
    let docs: Option<Vec<serde_json::Value>> = parse_documents(original, &Limits::default())
        .into_iter()
        .map(|d| d.result.ok().and_then(|n| n.to_json().ok()))
        .collect();
    let yaml = docs.map_or(0, |d| yaml_emit::emit_documents(&d).len());
    let json = serde_json::from_str::<serde_json::Value>(original)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .map_or(0, |s| s.len() + 1);
    max_patched_bytes(original.len().max(yaml).max(json))
}

/// One input: type byte, original, NUL, patch.
pub fn run(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let (original, patch) = crate::split_nul(rest);
    let (Some(original), Some(patch)) = (crate::utf8(original), crate::utf8(patch)) else {
        return;
    };
    if json_patch::detect(patch).is_none() {
        return;
    }
    let file_type = if kind == b't' {
        FileType::Tf
    } else {
        FileType::K8s
    };
    let outcome = apply_patch("manifest.yaml", original, patch, file_type);
    check_outcome(&outcome, file_type, original);
    if file_type == FileType::Tf {
        assert!(
            outcome.status != PatchStatus::Applied,
            "a JSON Patch applied to Terraform"
        );
    }
    if let Some(text) = &outcome.patched {
        let limit = bound(original);
        assert!(
            text.len() <= limit,
            "a {}-byte JSON Patch on a {}-byte file gave {} bytes (bound {limit})",
            patch.len(),
            original.len(),
            text.len()
        );
    }
}

/// The outcome's shape: text exactly when applied, a reason exactly when
/// failed, and applied text that reads back when the original did.
pub fn check_outcome(outcome: &PatchOutcome, file_type: FileType, original: &str) {
    match outcome.status {
        PatchStatus::Applied => {
            let text = outcome
                .patched
                .as_deref()
                .expect("applied without patched text");
            assert!(outcome.reason.is_none(), "applied with a reason");
            if reads(original, file_type) {
                assert!(
                    reads(text, file_type),
                    "applied text does not read back as {file_type:?}"
                );
            }
        }
        PatchStatus::None => assert!(outcome.patched.is_none()),
        _ => {
            assert!(outcome.patched.is_none(), "failure with patched text");
            assert!(
                outcome.reason.as_deref().is_some_and(|r| !r.is_empty()),
                "failure {:?} without a reason",
                outcome.status
            );
        }
    }
}

/// Whether `text` reads as a file of `file_type` (every YAML document, or
/// the Terraform module).
fn reads(text: &str, file_type: FileType) -> bool {
    match file_type {
        FileType::K8s => parse_documents(text, &Limits::default())
            .iter()
            .all(|d| d.result.is_ok()),
        FileType::Tf => svbench_scan::terraform::parse_module(text).is_ok(),
    }
}
