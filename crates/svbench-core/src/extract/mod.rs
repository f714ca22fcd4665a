//! The shared JSON answer extractor (E1 §2): text selection, reasoning
//! stripping, candidate objects and selection, in `v1` and `upstream` modes.
//!
//! Environments build their field rules on top of it:
//!
//! - `v1` (E1 §2.3 steps 1–5): [`v1_text`] picks the final assistant
//!   message's content, then [`extract_v1`] (or [`extract_v1_with`] for a
//!   custom predicate) strips `<think>` blocks, collects candidate objects
//!   (whole text, fenced blocks, balanced braces; strict JSON from
//!   [`crate::json::strict`]) and returns the last one whose top level has the
//!   required key.
//! - `upstream` (E1 §2.1, §2.2 steps 1–4): [`upstream_text`] reads the last
//!   element, then [`extract_upstream`] reproduces upstream's first-success
//!   chain with the Python `json.loads` dialect of [`crate::json::python`].
//!   [`upstream_fence`] and [`upstream_brace_span`] expose the individual
//!   steps for environments whose upstream chains differ (E2 §3.3).
//!
//! Nothing here panics on any input, and typical short answers are parsed
//! without copying the text.

mod text;
mod think;
mod upstream;
mod v1;

pub use text::{
    check_content, completion_text, upstream_text, v1_text, TextFailure, MAX_CONTENT_BYTES,
};
pub use think::strip_reasoning;
pub use upstream::{
    extract_upstream, upstream_brace_span, upstream_fence, UpstreamExtraction, UpstreamSource,
};
pub use v1::{
    brace_spans, extract_v1, extract_v1_with, fenced_blocks, select_candidate, CandidateSource,
    CandidateSpan, ExtractFailure, Selected, MAX_BRACE_RESTARTS,
};

/// Which parser dialect to use; follows the reward profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParseMode {
    /// The corrected project parser (default).
    V1,
    /// Upstream's parser, quirks included.
    Upstream,
}
