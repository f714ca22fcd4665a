//! The shared JSON answer extractor (E1 §2): text selection, reasoning
//! stripping, candidate objects and selection, in `v1` and `upstream` modes.

/// Which parser dialect to use; follows the reward profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParseMode {
    /// The corrected project parser (default).
    V1,
    /// Upstream's parser, quirks included.
    Upstream,
}
