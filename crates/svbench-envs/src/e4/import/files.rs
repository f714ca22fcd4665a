//! Which files of a mail folder are messages: folders are walked, every
//! file is read (at most one past the message limit) and sniffed, so that a
//! message saved without an `.eml` extension is taken and a README, an
//! image or an empty file is skipped with its reason, never imported.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use svbench_mail::{is_mbox_separator, EmailLimits};

use super::ImportError;

/// Bytes looked at for NUL bytes (binary files).
const BINARY_SNIFF_BYTES: usize = 8 << 10;
/// Header lines looked at for a message header.
const HEADER_SNIFF_LINES: usize = 200;
/// Names listed per reason in a summary; the rest is counted.
pub(crate) const LISTED: usize = 5;

/// Header names that only an email's header block has: a `Key: value`
/// text file (notes, YAML) has none of them.
const MESSAGE_HEADERS: [&str; 14] = [
    "from",
    "to",
    "cc",
    "subject",
    "date",
    "message-id",
    "received",
    "return-path",
    "reply-to",
    "sender",
    "mime-version",
    "content-type",
    "delivered-to",
    "dkim-signature",
];

/// Why a file or mailbox message was not imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SkipReason {
    /// No bytes, or only whitespace.
    Empty,
    /// A mailbox message with no bytes (two separators in a row).
    EmptyMessage,
    /// NUL bytes: an image, archive or document, not a message.
    Binary,
    /// No `Name: value` header block with a message header.
    NotAMessage,
    /// Larger than the message limit.
    TooLarge,
    /// The file could not be read.
    Unreadable,
    /// A mailbox with no `From ` separator line.
    NoMessages,
}

impl SkipReason {
    /// The reason as summaries and errors say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Empty => "empty file",
            Self::EmptyMessage => "empty message",
            Self::Binary => "binary file",
            Self::NotAMessage => "not a message (no header block)",
            Self::TooLarge => "larger than the message limit",
            Self::Unreadable => "unreadable",
            Self::NoMessages => "no message (no mbox `From ` separator line)",
        }
    }
}

impl SkipReason {
    /// The reason after a count (`2 binary`, `1 empty`).
    pub fn counted(self) -> &'static str {
        match self {
            Self::Empty | Self::EmptyMessage => "empty",
            Self::Binary => "binary",
            Self::NotAMessage => "not a message",
            Self::TooLarge => "too large",
            Self::Unreadable => "unreadable",
            Self::NoMessages => "no message",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One input that was not imported: a file, or a mailbox message `PATH#N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The file, or `PATH#N` for a mailbox message.
    pub source: String,
    /// Why.
    pub reason: SkipReason,
    /// More detail (the limit passed, the I/O error), if any.
    pub detail: Option<String>,
}

/// A file to read: named on the command line, or met in a folder walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub path: PathBuf,
    /// Named on the command line, or an `.eml` file of a folder: it is
    /// meant to be a message, so a bad one is invalid, not skipped.
    pub meant: bool,
}

/// Every file under the inputs, folders walked recursively in path order.
pub(crate) fn walk(inputs: &[PathBuf]) -> Result<Vec<Candidate>, ImportError> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            walk_dir(input, &mut out)?;
        } else {
            out.push(Candidate {
                path: input.clone(),
                meant: true,
            });
        }
    }
    Ok(out)
}

fn walk_dir(dir: &Path, out: &mut Vec<Candidate>) -> Result<(), ImportError> {
    let io = |source| ImportError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()).map_err(io))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk_dir(&path, out)?;
        } else if path.is_file() {
            let meant = has_extension(&path, "eml");
            out.push(Candidate { path, meant });
        }
    }
    Ok(())
}

/// Whether `path` ends in `.ext` (any case).
pub(crate) fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .is_some_and(|x| x.eq_ignore_ascii_case(ext))
}

/// Reads at most one byte past `limits.max_message_bytes`: a larger file
/// is reported as such without being read whole.
pub(crate) fn read_message_file(
    path: &Path,
    limits: &EmailLimits,
) -> Result<Vec<u8>, std::io::Error> {
    let cap = u64::try_from(limits.max_message_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(cap)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether `bytes` look like one message: not empty, not binary, and a
/// header block (`Name: value` lines up to the first blank line) with at
/// least one header only messages have. A leading mbox `From ` line and a
/// byte-order mark are allowed. Parsing is the caller's next step.
///
/// # Errors
/// The [`SkipReason`] of what is not a message.
pub fn sniff(bytes: &[u8], limits: &EmailLimits) -> Result<(), SkipReason> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(SkipReason::Empty);
    }
    if bytes.len() > limits.max_message_bytes {
        return Err(SkipReason::TooLarge);
    }
    if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Err(SkipReason::Binary);
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut lines = text.split(|&b| b == b'\n').peekable();
    if lines.peek().is_some_and(|l| is_mbox_separator(l)) {
        lines.next();
    }
    let mut message_header = false;
    for (i, line) in lines.take(HEADER_SNIFF_LINES).enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            break;
        }
        if i > 0 && matches!(line[0], b' ' | b'\t') {
            continue; // a folded header's continuation
        }
        let Some(name) = header_name(line) else {
            return Err(SkipReason::NotAMessage);
        };
        message_header |= MESSAGE_HEADERS
            .iter()
            .any(|h| h.as_bytes().eq_ignore_ascii_case(name));
    }
    if message_header {
        Ok(())
    } else {
        Err(SkipReason::NotAMessage)
    }
}

/// The field name of a `Name: value` line (RFC 5322 field names, with the
/// obsolete spaces before the colon allowed).
fn header_name(line: &[u8]) -> Option<&[u8]> {
    let colon = line.iter().position(|&b| b == b':')?;
    let name = line[..colon].trim_ascii_end();
    (!name.is_empty() && name.iter().all(|&b| (33..=126).contains(&b) && b != b':')).then_some(name)
}

/// A leading mbox `From ` line removed, so that a message saved with its
/// mailbox separator parses as the message alone.
pub(crate) fn strip_separator(bytes: &[u8]) -> &[u8] {
    if is_mbox_separator(bytes) {
        match bytes.iter().position(|&b| b == b'\n') {
            Some(end) => &bytes[end + 1..],
            None => &[],
        }
    } else {
        bytes
    }
}

/// `skipped 3 files: 1 empty (c.eml), 2 not a message (a.txt, b.txt)`: counts per reason, at most [`LISTED`] names each.
/// `what` names one skipped input and several (`("file", "files")`).
pub fn summary(what: (&str, &str), skipped: &[Skipped]) -> Option<String> {
    if skipped.is_empty() {
        return None;
    }
    let mut by_reason: BTreeMap<SkipReason, Vec<&str>> = BTreeMap::new();
    for s in skipped {
        by_reason.entry(s.reason).or_default().push(&s.source);
    }
    let parts: Vec<String> = by_reason
        .iter()
        .map(|(reason, sources)| {
            format!(
                "{} {} ({})",
                sources.len(),
                reason.counted(),
                bounded(sources)
            )
        })
        .collect();
    let noun = if skipped.len() == 1 { what.0 } else { what.1 };
    Some(format!(
        "skipped {} {noun}: {}",
        skipped.len(),
        parts.join(", ")
    ))
}

/// At most [`LISTED`] items joined by `, `, then `… and N more`.
pub(crate) fn bounded<S: AsRef<str>>(items: &[S]) -> String {
    let mut shown: Vec<&str> = items.iter().take(LISTED).map(AsRef::as_ref).collect();
    let more = items.len().saturating_sub(LISTED);
    let more_text = format!("… and {more} more");
    if more > 0 {
        shown.push(&more_text);
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_takes_messages_and_names_what_is_not_one() {
        let limits = EmailLimits::default();
        let cases: [(&[u8], Result<(), SkipReason>); 12] = [
            (b"From: a@b.example\r\nSubject: x\r\n\r\nhi", Ok(())),
            (b"Received: from x\n\tby y\nTo: a@b.test\n\nbody", Ok(())),
            // Obsolete syntax: spaces before the colon.
            (b"From  : Ana <ana@b.test>\nSubject : x\n\nhi", Ok(())),
            (
                b"From ana@b.test Tue Mar  4 09:12:44 2025\nSubject: x\n\nhi",
                Ok(()),
            ),
            (b"\xEF\xBB\xBFSubject: x\n\nhi", Ok(())),
            (b"", Err(SkipReason::Empty)),
            (b" \r\n\n", Err(SkipReason::Empty)),
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Err(SkipReason::Binary)),
            (b"Shopping list\nmilk\n", Err(SkipReason::NotAMessage)),
            // `Key: value` text without a message header.
            (
                b"Note: call Ana\nWhen: Friday\n",
                Err(SkipReason::NotAMessage),
            ),
            (b"\nSubject: x\n", Err(SkipReason::NotAMessage)),
            (
                b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n",
                Err(SkipReason::NotAMessage),
            ),
        ];
        for (bytes, want) in cases {
            assert_eq!(
                sniff(bytes, &limits),
                want,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        let small = EmailLimits {
            max_message_bytes: 8,
            ..EmailLimits::default()
        };
        assert_eq!(
            sniff(b"Subject: long one\n\n", &small),
            Err(SkipReason::TooLarge)
        );
    }

    const FILES: (&str, &str) = ("file", "files");

    #[test]
    fn summaries_group_by_reason_and_bound_the_list() {
        let s = |source: &str, reason| Skipped {
            source: source.into(),
            reason,
            detail: None,
        };
        let skipped = [
            s("a.txt", SkipReason::NotAMessage),
            s("b.bin", SkipReason::Binary),
            s("c.eml", SkipReason::Empty),
        ];
        assert_eq!(
            summary(FILES, &skipped).unwrap(),
            "skipped 3 files: 1 empty (c.eml), 1 binary (b.bin), 1 not a message (a.txt)"
        );
        let many: Vec<Skipped> = (0..8)
            .map(|i| s(&format!("{i}.eml"), SkipReason::Empty))
            .collect();
        assert_eq!(
            summary(FILES, &many).unwrap(),
            "skipped 8 files: 8 empty (0.eml, 1.eml, 2.eml, 3.eml, 4.eml, … and 3 more)"
        );
        assert_eq!(summary(FILES, &[]), None);
    }
}
