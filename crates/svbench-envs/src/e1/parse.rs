//! E1 answer parsing (E1 §2): label + confidence from a completion, in the
//! `v1` and `upstream` modes, on top of the shared extractor.
//!
//! OWNED BY THE EXTRACTOR WORK: replace this scaffold.

use svbench_core::extract::ParseMode;
use svbench_core::{Completion, ParseOutcome};

use super::Label;

/// Parses an E1 answer. Never panics.
pub fn parse_completion(completion: &Completion, mode: ParseMode) -> ParseOutcome<Label> {
    let _ = (completion, mode);
    unimplemented!("E1 parser not built yet")
}
