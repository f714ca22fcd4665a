//! Small text helpers shared by the analyzers.

/// `text` cut to at most `max` bytes at a character boundary.
pub(crate) fn cut_at_char(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
