//! Where things are in a rendering (version 1): the value of each header
//! line and the body, as byte ranges of the rendered text.

use std::ops::Range;

/// The header names rendering writes, in its order.
const HEADERS: [&str; 7] = [
    "From",
    "Reply-To",
    "To",
    "Date",
    "Subject",
    "Authentication-Results",
    "Attachments",
];

/// A rendered text and its parts.
pub(super) struct Doc<'a> {
    pub text: &'a str,
    /// Value ranges, indexed like `HEADERS`.
    values: [Option<Range<usize>>; 7],
    /// The body, after the blank line.
    pub body: Range<usize>,
}

impl<'a> Doc<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let mut values: [Option<Range<usize>>; 7] = Default::default();
        let mut pos = 0usize;
        // Header lines never hold a newline and never are empty, so the
        // first empty line ends them (rendering always writes one).
        while pos < text.len() {
            let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
            let line = &text[pos..line_end];
            if line.is_empty() {
                pos = line_end + 1;
                break;
            }
            if let Some((name, _)) = line.split_once(": ") {
                if let Some(i) = HEADERS.iter().position(|h| *h == name) {
                    if values[i].is_none() {
                        values[i] = Some(pos + name.len() + 2..line_end);
                    }
                }
            }
            pos = line_end + 1;
        }
        let body_start = pos.min(text.len());
        Self {
            text,
            values,
            body: body_start..text.len(),
        }
    }

    /// The byte range of a header line's value.
    pub(super) fn header(&self, name: &str) -> Option<Range<usize>> {
        let i = HEADERS.iter().position(|h| *h == name)?;
        self.values[i].clone()
    }

    /// The text of a range (empty when out of bounds).
    pub(super) fn slice(&self, range: &Range<usize>) -> &'a str {
        self.text.get(range.clone()).unwrap_or("")
    }

    /// Where `needle` occurs within `range`, as an absolute byte range.
    pub(super) fn find_in(&self, range: &Range<usize>, needle: &str) -> Option<Range<usize>> {
        if needle.is_empty() {
            return None;
        }
        let hay = self.slice(range);
        hay.find(needle)
            .map(|i| range.start + i..range.start + i + needle.len())
    }
}
