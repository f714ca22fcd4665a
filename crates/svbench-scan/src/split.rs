//! Input checks and the document split of kube-linter's reader.

use crate::{Limits, YamlError};

/// One YAML document of a file, as cut by [`split_documents`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocumentSource<'a> {
    /// Index among the file's documents that hold at least one line that is
    /// neither blank nor a comment, from 0.
    pub doc_index: usize,
    /// 1-based line of the file where `text` begins.
    pub first_line: usize,
    /// The document's text (the lines between separators, separators excluded).
    pub text: &'a str,
}

/// Checks raw file bytes and returns them as text: the size limit, UTF-8
/// validity and the absence of control characters (binary input) are checked
/// here, and a leading UTF-8 byte-order mark is dropped.
///
/// # Errors
/// [`YamlError::InputTooLarge`], [`YamlError::InvalidUtf8`] or
/// [`YamlError::ControlCharacter`].
pub fn decode_input<'a>(bytes: &'a [u8], limits: &Limits) -> Result<&'a str, YamlError> {
    if bytes.len() > limits.max_input_bytes {
        return Err(YamlError::InputTooLarge {
            size: bytes.len(),
            limit: limits.max_input_bytes,
        });
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let offset = e.valid_up_to();
            let line = 1 + bytes[..offset].iter().filter(|b| **b == b'\n').count();
            return Err(YamlError::InvalidUtf8 { line, offset });
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    check_characters(text, 1)?;
    Ok(text)
}

/// Rejects characters outside YAML's printable set (C0 controls other than
/// tab, LF and CR; DEL; C1 controls other than NEL; surrogates cannot occur in
/// `str`; U+FFFE/U+FFFF).
pub(crate) fn check_characters(text: &str, first_line: usize) -> Result<(), YamlError> {
    let bad = |c: char| {
        matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}')
            || (('\u{80}'..='\u{9f}').contains(&c) && c != '\u{85}')
            || c == '\u{fffe}'
            || c == '\u{ffff}'
    };
    match text.char_indices().find(|(_, c)| bad(*c)) {
        None => Ok(()),
        Some((i, c)) => Err(YamlError::ControlCharacter {
            line: first_line + text.as_bytes()[..i].iter().filter(|b| **b == b'\n').count(),
            code: u32::from(c),
        }),
    }
}

/// Splits a file into YAML documents exactly as kube-linter's reader does.
///
/// A line that starts with `---` followed only by whitespace or a `#` comment
/// ends a document (the separator line belongs to no document). Any other text
/// after `---` is a syntax error for the rest of the file: the documents before
/// it are yielded, then one `Err(YamlError::Separator)`, and nothing after it
/// is read. Documents whose lines are all blank or comments are skipped and
/// take no `doc_index`.
///
/// The iterator borrows the text and allocates nothing per document, so a huge
/// file of many documents costs no memory beyond the document being used.
#[must_use]
pub fn split_documents(text: &str) -> SplitDocuments<'_> {
    SplitDocuments {
        text,
        offset: 0,
        line_no: 0,
        doc_index: 0,
        done: false,
    }
}

/// Iterator over the documents of a file; see [`split_documents`].
#[derive(Debug, Clone)]
pub struct SplitDocuments<'a> {
    text: &'a str,
    offset: usize,
    line_no: usize,
    doc_index: usize,
    done: bool,
}

impl<'a> SplitDocuments<'a> {
    fn document(&mut self, start: usize, end: usize, first_line: usize) -> DocumentSource<'a> {
        let doc = DocumentSource {
            doc_index: self.doc_index,
            first_line,
            text: &self.text[start..end],
        };
        self.doc_index += 1;
        doc
    }
}

impl<'a> Iterator for SplitDocuments<'a> {
    type Item = Result<DocumentSource<'a>, YamlError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let text = self.text;
        let mut start = self.offset;
        let mut start_line = self.line_no + 1;
        let mut has_content = false;
        for line in text[self.offset..].split_inclusive('\n') {
            self.line_no += 1;
            let line_start = self.offset;
            self.offset += line.len();
            if let Some(rest) = line.strip_prefix("---") {
                let trimmed = rest.trim();
                if !trimmed.is_empty() && !trimmed.starts_with('#') {
                    let error = YamlError::Separator {
                        line: self.line_no,
                        text: trimmed.chars().take(80).collect(),
                    };
                    if has_content {
                        // Yield the document first; the error comes next.
                        self.offset = line_start;
                        self.line_no -= 1;
                        return Some(Ok(self.document(start, line_start, start_line)));
                    }
                    self.done = true;
                    return Some(Err(error));
                }
                if has_content {
                    return Some(Ok(self.document(start, line_start, start_line)));
                }
                start = self.offset;
                start_line = self.line_no + 1;
                continue;
            }
            let trimmed = line.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                has_content = true;
            }
        }
        self.done = true;
        has_content.then(|| Ok(self.document(start, text.len(), start_line)))
    }
}
