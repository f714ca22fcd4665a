//! The unified-diff appliers: the strict v1 pipeline (`apply_patch`: apply,
//! re-parse, preservation check) and the upstream profile's lenient
//! GNU-`patch`-style applier with its JSON op lists.
//!
//! Input: a first byte `t` for Terraform (anything else: Kubernetes YAML),
//! then the original file, a NUL byte, and the patch text.
//!
//! Invariants: no panic; the output of a diff is bounded by its inputs
//! (every output line comes from the original or from a `+` line of the
//! patch, so it is at most `original + patch` bytes, plus one newline);
//! a lenient JSON op list's output stays under [`crate::json_patch::bound`];
//! `applied` carries the patched text and every failure carries a reason and
//! no text; an applied patch's text reads back as the file type when the
//! original did.

use svbench_scan::patch::{apply_patch, json_patch, lenient, PatchStatus};
use svbench_scan::scan::FileType;

/// One input: type byte, original, NUL, patch.
pub fn run(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let (original, patch) = crate::split_nul(rest);
    let (Some(original), Some(patch)) = (crate::utf8(original), crate::utf8(patch)) else {
        return;
    };
    let (file_type, name) = if kind == b't' {
        (FileType::Tf, "main.tf")
    } else {
        (FileType::K8s, "manifest.yaml")
    };
    let diff_bound = original.len() + patch.len() + 1;

    // The strict pipeline, on diffs only (JSON Patches are the other target's).
    if json_patch::detect(patch).is_none() {
        let outcome = apply_patch(name, original, patch, file_type);
        crate::json_patch::check_outcome(&outcome, file_type, original);
        if let Some(text) = &outcome.patched {
            assert!(
                text.len() <= diff_bound,
                "a {}-byte diff on a {}-byte file gave {} bytes",
                patch.len(),
                original.len(),
                text.len()
            );
        }
    }

    // The lenient path.
    match lenient::apply_upstream(original, patch) {
        Ok(text) => {
            let json_ops = svbench_scan::patch::strip_fence(patch)
                .trim_start()
                .starts_with('[');
            let bound = if json_ops {
                crate::json_patch::bound(original)
            } else {
                diff_bound
            };
            assert!(
                text.len() <= bound,
                "lenient: a {}-byte patch on a {}-byte file gave {} bytes (bound {bound})",
                patch.len(),
                original.len(),
                text.len()
            );
        }
        Err(f) => assert!(
            f.status != PatchStatus::Applied && !f.reason.is_empty(),
            "lenient failure without status or reason: {f:?}"
        ),
    }
}
