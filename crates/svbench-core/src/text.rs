//! Small text helpers shared by the analyzers and the mail parser.

/// `text` cut to at most `max` bytes at a character boundary.
///
/// ```
/// use svbench_core::text::cut_at_char;
///
/// assert_eq!(cut_at_char("héllo", 2), "h");
/// assert_eq!(cut_at_char("héllo", 3), "hé");
/// assert_eq!(cut_at_char("abc", 10), "abc");
/// ```
#[must_use]
pub fn cut_at_char(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
