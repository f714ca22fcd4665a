//! Patch application and verification (spec E2 §4): a model's patch is
//! applied in memory to a copy of the workspace file, re-parsed and checked
//! for semantic preservation before anything re-scans it.
//!
//! Two formats are accepted ([`PatchKind`]): a strict unified diff
//! ([`diff`], §4.1) and an RFC 6902 JSON Patch on the YAML documents
//! ([`json_patch`], §4.2, re-serialised by [`yaml_emit`]). Whatever the
//! format, the result goes through [`preserve`] (§4.3). The `upstream`
//! reward profile's lenient GNU-`patch`-style path (§5.1) is [`lenient`]. Every failure is a
//! [`PatchStatus`] with a human reason; nothing here panics on input or runs
//! an external program.
//!
//! ```
//! use svbench_scan::patch::{apply_patch, PatchStatus};
//! use svbench_scan::scan::FileType;
//!
//! let original = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n";
//! let patch = "@@ -8 +8 @@\n-    image: nginx\n+    image: nginx:1.27.0\n";
//! let outcome = apply_patch("pod.yaml", original, patch, FileType::K8s);
//! assert_eq!(outcome.status, PatchStatus::Applied);
//! assert!(outcome.patched.unwrap().contains("nginx:1.27.0"));
//! ```

pub mod diff;
pub mod json_patch;
pub mod lenient;
pub mod preserve;
pub mod yaml_emit;

use serde::Serialize;

use crate::scan::FileType;
use crate::{Deadline, Limits, NodeBudget, TimeBudgetExceeded};

/// Largest patch text accepted, in bytes (after fence removal).
pub const MAX_PATCH_BYTES: usize = 1 << 20;

/// Most operations one JSON Patch (or upstream JSON op list) may hold. A
/// real fix is a handful of operations; a thousand is far beyond any, and
/// with the size bounds below it caps the work one patch can ask for.
pub const MAX_OPS: usize = 1_000;

/// What a patched file may grow by, beyond twice the original, in bytes.
/// The bound is `2 × original + 256 KiB` (the original measured as the
/// appliers emit it, but at most twice its text: a JSON Patch's emission
/// expands aliases): a fix adds a few lines, so this never refuses one,
/// while a patch that duplicates content (JSON Patch `copy` of a parent
/// into its child, repeated, doubles the document each time) is stopped
/// after a few operations instead of exhausting memory. (At 1 MiB the
/// doubling patch took ~19 ms to be refused; 256 KiB keeps that under 10.)
pub const GROWTH_BYTES: usize = 1 << 18;

/// What a patched file's documents may grow by, beyond twice the
/// original's, in JSON values (nodes). Held in memory each node costs
/// about a hundred bytes, far more than its emitted text, so nodes are
/// bounded on their own: 16,384 extra nodes are a megabyte or two.
pub const GROWTH_NODES: usize = 1 << 14;

/// How many times the size bound the operations of one patch may place in
/// total (bytes of the values they add, copy, move or replace), so that a
/// patch that copies a large value and removes it again, over and over,
/// cannot make the applier work without bound either.
pub const WORK_FACTOR: usize = 16;

/// The most bytes a patched file may have, for an original of
/// `original_bytes` (see [`GROWTH_BYTES`]).
#[must_use]
pub fn max_patched_bytes(original_bytes: usize) -> usize {
    original_bytes
        .saturating_mul(2)
        .saturating_add(GROWTH_BYTES)
}

/// What happened to a patch (spec E2 §4 outcome statuses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PatchStatus {
    /// No patch: empty or whitespace-only text (or a JSON Patch with no
    /// operations).
    None,
    /// The text is not a well-formed patch of the detected kind (bad hunk
    /// header, counts that disagree with the body, missing JSON Patch
    /// members, bad pointer syntax, too large).
    Malformed,
    /// The patch names another file, `/dev/null` (creation or deletion), a
    /// path outside the workspace, or several files.
    TargetMismatch,
    /// Well-formed, but it does not apply to this file (context not found or
    /// ambiguous, overlapping hunks, JSON Patch target missing, failed `test`).
    ApplyFailed,
    /// The patch kind cannot be used on this file type (JSON Patch on
    /// Terraform).
    Unsupported,
    /// The patched file no longer parses (YAML syntax, HCL syntax).
    ReparseFailed,
    /// The patched file parses but changes what it means beyond a fix
    /// (objects, containers, images, suppressions, semantic cores,
    /// Terraform blocks).
    PreservationFailed,
    /// Applying the patch would exceed a size bound: more than [`MAX_OPS`]
    /// operations, a result larger than [`max_patched_bytes`] or with too
    /// many nodes, or nested deeper than the YAML reader accepts. Checked
    /// before each operation's result is built, so nothing large is ever
    /// allocated.
    TooLarge,
    /// Applied and verified: [`PatchOutcome::patched`] holds the new text.
    Applied,
}

/// Which format the patch text was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PatchKind {
    /// A unified diff (§4.1).
    UnifiedDiff,
    /// An RFC 6902 JSON Patch (§4.2).
    JsonPatch,
}

/// The result of [`apply_patch`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PatchOutcome {
    /// The outcome status.
    pub status: PatchStatus,
    /// The detected format; `None` when there was no patch.
    pub kind: Option<PatchKind>,
    /// Why the patch failed (which hunk, line, op or path, and what was
    /// violated); `None` when applied or absent.
    pub reason: Option<String>,
    /// The patched file text, only when [`PatchStatus::Applied`].
    pub patched: Option<String>,
}

/// A failed step: the status to report and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchFailure {
    /// One of the failure statuses.
    pub status: PatchStatus,
    /// Human explanation.
    pub reason: String,
}

impl PatchFailure {
    /// A failure with `status` and `reason`.
    #[must_use]
    pub fn new(status: PatchStatus, reason: impl Into<String>) -> PatchFailure {
        PatchFailure {
            status,
            reason: reason.into(),
        }
    }
}

/// Why an applier stopped: the patch failed, or the time budget of the work
/// it belongs to ran out (no verdict on the patch then).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchStop {
    /// The patch failed (a status and a reason).
    Failed(PatchFailure),
    /// The [`Deadline`] passed inside the applier.
    TimeBudget(TimeBudgetExceeded),
}

impl From<PatchFailure> for PatchStop {
    fn from(f: PatchFailure) -> Self {
        PatchStop::Failed(f)
    }
}

impl From<TimeBudgetExceeded> for PatchStop {
    fn from(e: TimeBudgetExceeded) -> Self {
        PatchStop::TimeBudget(e)
    }
}

impl PatchStop {
    /// The failure, for callers without a deadline ([`Deadline::NONE`]
    /// never passes; should one have, it reads as a failed apply).
    #[must_use]
    pub fn into_failure(self) -> PatchFailure {
        match self {
            PatchStop::Failed(f) => f,
            PatchStop::TimeBudget(e) => PatchFailure::new(PatchStatus::ApplyFailed, e.to_string()),
        }
    }
}

/// The patch's status when a node budget ran out while reading the
/// `which` file's documents (`original` or `patched`).
fn budget_failure(which: &str, nodes: &NodeBudget) -> PatchFailure {
    PatchFailure::new(
        PatchStatus::TooLarge,
        format!(
            "reading the {which} file's documents would build more than {} YAML nodes in all (its node budget)",
            nodes.limit()
        ),
    )
}

/// Applies `patch_text` to `original` (the workspace file `workspace_name`,
/// of type `file_type`), then re-parses and checks preservation (§4.3).
/// Every read of the original's documents draws from one node budget
/// ([`Limits::file_nodes`] of its size), every read of the patched file's
/// from another (of the original's and the patch's sizes together).
#[must_use]
pub fn apply_patch(
    workspace_name: &str,
    original: &str,
    patch_text: &str,
    file_type: FileType,
) -> PatchOutcome {
    let limits = Limits::default();
    let original_nodes = NodeBudget::for_input(&limits, original.len());
    let patched_nodes = NodeBudget::for_input(&limits, original.len() + patch_text.len());
    match apply_patch_within(
        workspace_name,
        original,
        patch_text,
        file_type,
        &Deadline::NONE,
        &original_nodes,
        &patched_nodes,
    ) {
        Ok(outcome) => outcome,
        Err(e) => outcome_of(PatchStatus::ApplyFailed, None, e.to_string()),
    }
}

/// [`apply_patch`] that stops by `deadline` (checked between steps and
/// inside the appliers' loops) and whose YAML reads draw from node budgets
/// that may be shared with the rest of one request: the original's
/// documents (read by a JSON Patch and by the preservation check) from
/// `original_nodes`, the patched file's from `patched_nodes`. A budget
/// that runs out makes the patch `too_large` (the caller tells which one
/// ran out by [`NodeBudget::exceeded`]).
///
/// # Errors
/// [`TimeBudgetExceeded`] when `deadline` passed before the outcome was known.
pub fn apply_patch_within(
    workspace_name: &str,
    original: &str,
    patch_text: &str,
    file_type: FileType,
    deadline: &Deadline,
    original_nodes: &NodeBudget,
    patched_nodes: &NodeBudget,
) -> Result<PatchOutcome, TimeBudgetExceeded> {
    let text = strip_fence(patch_text);
    if text.trim().is_empty() {
        return Ok(outcome(PatchStatus::None, None, None, None));
    }
    if text.len() > MAX_PATCH_BYTES {
        return Ok(outcome(
            PatchStatus::Malformed,
            None,
            Some(format!(
                "patch is {} bytes, more than the limit of {MAX_PATCH_BYTES}",
                text.len()
            )),
            None,
        ));
    }
    deadline.check()?;
    let (kind, result) = match json_patch::detect(text) {
        Some(ops) => {
            if ops.is_empty() {
                return Ok(outcome(
                    PatchStatus::None,
                    Some(PatchKind::JsonPatch),
                    Some("JSON Patch with no operations".to_owned()),
                    None,
                ));
            }
            (
                PatchKind::JsonPatch,
                json_patch::apply_within(original, &ops, file_type, deadline, original_nodes),
            )
        }
        None => (
            PatchKind::UnifiedDiff,
            diff::apply_within(workspace_name, original, text, deadline),
        ),
    };
    let patched = match result {
        Ok(p) => p,
        Err(PatchStop::Failed(f)) => {
            return Ok(outcome(f.status, Some(kind), Some(f.reason), None))
        }
        Err(PatchStop::TimeBudget(e)) => return Err(e),
    };
    deadline.check()?;
    Ok(
        match preserve::check_within(
            original,
            &patched,
            file_type,
            deadline,
            original_nodes,
            patched_nodes,
        ) {
            Ok(()) => outcome(PatchStatus::Applied, Some(kind), None, Some(patched)),
            Err(PatchStop::Failed(f)) => outcome(f.status, Some(kind), Some(f.reason), None),
            Err(PatchStop::TimeBudget(e)) => return Err(e),
        },
    )
}

fn outcome_of(status: PatchStatus, kind: Option<PatchKind>, reason: String) -> PatchOutcome {
    outcome(status, kind, Some(reason), None)
}

fn outcome(
    status: PatchStatus,
    kind: Option<PatchKind>,
    reason: Option<String>,
    patched: Option<String>,
) -> PatchOutcome {
    PatchOutcome {
        status,
        kind,
        reason,
        patched,
    }
}

/// Removes one surrounding Markdown code fence (```` ```lang ... ``` ````),
/// if the whole text is one fenced block. The text inside is returned
/// verbatim (its lines may start with spaces that matter to a diff).
#[must_use]
pub fn strip_fence(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return text;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return text;
    };
    // The opening line is the fence plus an optional language tag.
    let Some(nl) = body.find('\n') else {
        return text;
    };
    let tag = &body[..nl];
    if tag.contains('`') || tag.trim().contains(' ') {
        return text;
    }
    let inner = &body[nl + 1..];
    // Drop the indentation-free closing fence line's leading newline only:
    // a body ending in spaces before the fence is kept as written.
    inner.strip_suffix('\n').unwrap_or(inner)
}
