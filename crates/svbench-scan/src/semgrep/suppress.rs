//! `nosemgrep` comments: the in-file way to silence a semgrep finding.
//!
//! Semgrep reads these from the raw text, not from the YAML tree, so this
//! does too: a `#` that starts a comment (at the start of a line or after
//! whitespace) followed somewhere by `nosemgrep` (any case). Optional ids
//! follow a colon, separated by commas or whitespace
//! (`# nosemgrep: hostpid-pod, hostipc-pod`); without ids every rule is
//! silenced. The comment counts on the finding's first line, or on the line
//! before when that line holds nothing but the comment — semgrep's
//! previous-line form, which keeps a trailing comment from leaking onto the
//! next line's finding.

use super::rule::Rule;

/// The lines of one file, for looking up comments by 1-based line.
pub(crate) struct Comments<'t> {
    lines: Vec<&'t str>,
}

impl<'t> Comments<'t> {
    /// Indexes the lines of `text` (the whole file).
    pub(crate) fn new(text: &'t str) -> Comments<'t> {
        Comments {
            lines: text.split('\n').map(|l| l.trim_end_matches('\r')).collect(),
        }
    }

    /// Whether a comment silences `rule` reported at `line`.
    pub(crate) fn suppresses(&self, rule: Rule, line: usize) -> bool {
        let on_line = self
            .line(line)
            .and_then(comment)
            .is_some_and(|c| silences(c, rule));
        let before = line
            .checked_sub(1)
            .and_then(|l| self.line(l))
            .filter(|l| l.trim_start().starts_with('#'))
            .and_then(comment)
            .is_some_and(|c| silences(c, rule));
        on_line || before
    }

    fn line(&self, line: usize) -> Option<&'t str> {
        self.lines.get(line.checked_sub(1)?).copied()
    }
}

/// The text after the `#` that starts the line's comment, if there is one.
/// Quotes are not tracked, as in semgrep's own text-level search.
fn comment(line: &str) -> Option<&str> {
    let mut previous = None;
    for (at, c) in line.char_indices() {
        if c == '#' && previous.is_none_or(char::is_whitespace) {
            return Some(&line[at + 1..]);
        }
        previous = Some(c);
    }
    None
}

/// Whether the comment text holds a `nosemgrep` directive covering `rule`.
fn silences(comment: &str, rule: Rule) -> bool {
    const WORD: &str = "nosemgrep";
    let Some(at) = comment.to_ascii_lowercase().find(WORD) else {
        return false;
    };
    // ASCII lowercasing keeps byte offsets, so `at` indexes `comment` too.
    let rest = &comment[at + WORD.len()..];
    let Some(ids) = rest.strip_prefix(':') else {
        return true;
    };
    let mut ids = ids
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|id| !id.is_empty())
        .peekable();
    ids.peek().is_none() || ids.any(|id| rule.is_named_by(id))
}
