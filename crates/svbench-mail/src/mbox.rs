//! An mbox read one message at a time from any [`BufRead`], so that what a
//! mailbox costs in memory is its largest message (at most
//! `max_message_bytes`, the rest of a larger one is counted and dropped),
//! not the file: 60 MB of bare `From ` lines held as messages and reports
//! took 3.8 GB.
//!
//! Messages start at separator lines ([`is_mbox_separator`]: `From `, a
//! sender and a date, as mail tools write them; the line itself is not
//! part of the message). A body line `From the desk of …` or an obsolete
//! header `From  : …` does not start a message: splitting at every line
//! that begins `From ` cut such messages in two. Text before the first
//! separator is ignored; `>From ` lines (any number of `>`) lose one `>`.
//! After `max_mbox_messages` messages the reader ends with
//! [`MboxError::TooManyMessages`].
//!
//! ```
//! use svbench_mail::{EmailLimits, MboxItem, MboxReader};
//!
//! let mbox = b"From a@b.example Mon Jan  1 00:00:00 2024\nSubject: one\n\nhi\n\
//!              From the desk of Ana\n\n\
//!              From b@b.example Mon Jan  1 00:00:00 2024\nSubject: two\n\n>From here\n";
//! let items: Vec<_> = MboxReader::new(&mbox[..], &EmailLimits::default())
//!     .map(Result::unwrap)
//!     .collect();
//! assert_eq!(items.len(), 2);
//! assert_eq!(items[1], MboxItem::Message(b"Subject: two\n\nFrom here\n".to_vec()));
//! ```

use std::io::{BufRead, Read};

use super::EmailLimits;

/// Bytes read at a time: a line longer than this is read in pieces.
const CHUNK: u64 = 64 << 10;

/// Bytes of a line looked at for a separator's sender and date.
const SEPARATOR_SCAN: usize = 1024;

/// Whether `line` is an mbox separator: `From ` at the start, a sender
/// token (an address, `-`, `MAILER-DAEMON`) and then a date with a time of
/// day and a four-digit year, in any of the orders mail tools write
/// (`From ana@example.com Tue Mar  4 09:12:44 2025`, `From - Mon, 3 Mar
/// 2025 09:12:44 +0000`). Only the first bytes of a long line are read.
#[must_use]
pub fn is_mbox_separator(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"From ") else {
        return false;
    };
    let rest = &rest[..rest.len().min(SEPARATOR_SCAN)];
    // One line: the words of the next one are not this one's date.
    let rest = rest.split(|&b| b == b'\n').next().unwrap_or_default();
    let mut words = rest
        .split(u8::is_ascii_whitespace)
        .filter(|w| !w.is_empty());
    // The sender comes right after `From `, never after more spaces.
    if rest.first().is_none_or(u8::is_ascii_whitespace) || words.next().is_none() {
        return false;
    }
    let (mut time, mut year) = (false, false);
    for word in words {
        // An ISO date-time is one word: `2025-03-04T09:12:44Z`.
        let iso_time = word.splitn(2, |&b| b == b'T').nth(1);
        time |= is_time(word) || iso_time.is_some_and(is_time);
        year |= is_year(word);
    }
    time && year
}

/// `9:12`, `09:12`, `09:12:44` (anything may follow the minutes).
fn is_time(word: &[u8]) -> bool {
    let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
    (1..=2).contains(&digits)
        && word.get(digits) == Some(&b':')
        && word
            .get(digits + 1..digits + 3)
            .is_some_and(|m| m.iter().all(u8::is_ascii_digit))
}

/// A four-digit year alone (`2025`, `2025,`) or starting an ISO date.
fn is_year(word: &[u8]) -> bool {
    let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
    digits == 4 && matches!(word.get(4), None | Some(b',' | b'-'))
}

/// One message of a mailbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MboxItem {
    /// The message's bytes.
    Message(Vec<u8>),
    /// A message larger than `max_message_bytes`, not kept.
    TooLarge {
        /// Its size in bytes.
        size: u64,
        /// The limit.
        limit: usize,
    },
}

/// Why reading a mailbox stopped.
#[derive(Debug, thiserror::Error)]
pub enum MboxError {
    /// The reader failed.
    #[error("reading the mailbox: {0}")]
    Io(#[from] std::io::Error),
    /// More messages than `max_mbox_messages`.
    #[error(
        "the mailbox has more than {limit} messages (max_mbox_messages); the rest was not scanned"
    )]
    TooManyMessages {
        /// The limit.
        limit: usize,
    },
}

/// Messages of an mbox, one at a time (see the module).
#[derive(Debug)]
pub struct MboxReader<R> {
    reader: R,
    max_message_bytes: usize,
    max_messages: usize,
    line: Vec<u8>,
    /// The next read starts a line.
    at_line_start: bool,
    /// The rest of the current line belongs to a `From ` separator.
    in_separator: bool,
    /// A `From ` line was seen: a message is open.
    open: bool,
    current: Vec<u8>,
    size: u64,
    messages: usize,
    done: bool,
}

impl<R: BufRead> MboxReader<R> {
    /// Reads `reader` within `limits` (`max_message_bytes`,
    /// `max_mbox_messages`).
    pub fn new(reader: R, limits: &EmailLimits) -> Self {
        MboxReader {
            reader,
            max_message_bytes: limits.max_message_bytes,
            max_messages: limits.max_mbox_messages,
            line: Vec::new(),
            at_line_start: true,
            in_separator: false,
            open: false,
            current: Vec::new(),
            size: 0,
            messages: 0,
            done: false,
        }
    }

    /// Messages yielded so far.
    pub fn messages(&self) -> usize {
        self.messages
    }

    /// Closes the open message, if any.
    fn close(&mut self) -> Option<Result<MboxItem, MboxError>> {
        if !self.open {
            return None;
        }
        self.open = false;
        self.messages += 1;
        if self.messages > self.max_messages {
            self.done = true;
            return Some(Err(MboxError::TooManyMessages {
                limit: self.max_messages,
            }));
        }
        let bytes = std::mem::take(&mut self.current);
        let size = std::mem::take(&mut self.size);
        Some(Ok(if size > self.max_message_bytes as u64 {
            MboxItem::TooLarge {
                size,
                limit: self.max_message_bytes,
            }
        } else {
            MboxItem::Message(bytes)
        }))
    }

    /// Adds a piece of the open message, keeping it only within the limit.
    fn append(&mut self, starts_line: bool) {
        let line = &self.line;
        let mut content: &[u8] = line;
        if starts_line && line.first() == Some(&b'>') {
            let quotes = line.iter().take_while(|&&b| b == b'>').count();
            if line[quotes..].starts_with(b"From ") {
                content = &line[1..];
            }
        }
        self.size += content.len() as u64;
        if self.size <= self.max_message_bytes as u64 {
            self.current.extend_from_slice(content);
        } else if !self.current.is_empty() {
            self.current = Vec::new();
        }
    }
}

impl<R: BufRead> Iterator for MboxReader<R> {
    type Item = Result<MboxItem, MboxError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        loop {
            self.line.clear();
            let read = (&mut self.reader)
                .take(CHUNK)
                .read_until(b'\n', &mut self.line);
            let n = match read {
                Ok(n) => n,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e.into()));
                }
            };
            if n == 0 {
                self.done = true;
                return self.close();
            }
            let starts_line = self.at_line_start;
            self.at_line_start = self.line.last() == Some(&b'\n');
            if starts_line {
                self.in_separator = is_mbox_separator(&self.line);
                if self.in_separator {
                    let previous = self.close();
                    if self.done {
                        return previous;
                    }
                    self.open = true;
                    if previous.is_some() {
                        return previous;
                    }
                    continue;
                }
            }
            if self.in_separator || !self.open {
                continue;
            }
            self.append(starts_line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(mbox: &[u8], limits: &EmailLimits) -> Vec<Result<MboxItem, String>> {
        MboxReader::new(mbox, limits)
            .map(|r| r.map_err(|e| e.to_string()))
            .collect()
    }

    fn messages(mbox: &[u8]) -> Vec<String> {
        items(mbox, &EmailLimits::default())
            .into_iter()
            .map(|i| match i {
                Ok(MboxItem::Message(m)) => String::from_utf8(m).unwrap(),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn separators_need_a_sender_and_a_date() {
        let cases: [(&str, bool); 15] = [
            ("From ana@example.com Tue Mar  4 09:12:44 2025\n", true),
            ("From ana@example.com  Tue Mar  4 09:12:44 2025\r\n", true),
            ("From - Mon Jan 01 00:00:00 2024\n", true),
            ("From MAILER-DAEMON Fri Jul  8 12:08:34 2011\n", true),
            ("From 1790@xxx Sat Jan 04 10:02:03 +0000 2025\n", true),
            (
                "From ana@example.com Mon, 3 Mar 2025 09:12:44 +0000\n",
                true,
            ),
            ("From ana@example.com 2025-03-04T09:12:44Z\n", true),
            ("From the desk of Ana Ortiz\n", false),
            ("From  : Northwind Bank <alerts@northwind.example>\n", false),
            ("From: Ana <ana@example.com>\n", false),
            ("From \n", false),
            ("From a\n", false),
            ("From our team: the 2025 plan\n", false),
            (">From ana@example.com Tue Mar  4 09:12:44 2025\n", false),
            ("From the desk\n09:12 2025\n", false),
        ];
        for (line, want) in cases {
            assert_eq!(is_mbox_separator(line.as_bytes()), want, "{line:?}");
        }
    }

    #[test]
    fn only_separator_lines_split() {
        let mbox = "preamble\n\
            From a@b.example Tue Mar  4 09:12:44 2025\n\
            From  : Ana <ana@b.example>\nSubject: 1\n\n\
            Dear team,\nFrom the desk of the director: thanks.\n\n\
            From the desk of Ana\n>From x\n>>From y\n>Fromage\n\n\
            From b@b.example Tue Mar  4 10:00:00 2025\nSubject: 2\n\nlast";
        let got = messages(mbox.as_bytes());
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].starts_with("From  : Ana"), "{}", got[0]);
        assert!(
            got[0].ends_with("From the desk of Ana\nFrom x\n>From y\n>Fromage\n\n"),
            "{}",
            got[0]
        );
        assert_eq!(got[1], "Subject: 2\n\nlast");
        // Two separators in a row: an empty message between them.
        let two = "From a@b.example Tue Mar  4 09:12:44 2025\n\
                   From a@b.example Tue Mar  4 09:12:45 2025\nSubject: s\n";
        assert_eq!(messages(two.as_bytes()), ["", "Subject: s\n"]);
    }

    #[test]
    fn a_large_message_is_counted_not_kept() {
        let limits = EmailLimits {
            max_message_bytes: 100,
            ..EmailLimits::default()
        };
        let mut mbox = b"From a@b.example Tue Mar  4 09:12:44 2025\n".to_vec();
        mbox.extend(std::iter::repeat_n(b'x', 300_000));
        mbox.extend_from_slice(b"\nFrom b@b.example Tue Mar  4 09:12:44 2025\nSubject: ok\n");
        let got = items(&mbox, &limits);
        assert_eq!(
            got[0],
            Ok(MboxItem::TooLarge {
                size: 300_001,
                limit: 100
            })
        );
        assert_eq!(got[1], Ok(MboxItem::Message(b"Subject: ok\n".to_vec())));
        // A separator line longer than a read is still one separator.
        let mut long_from = b"From a@b.example Tue Mar  4 09:12:44 2025 ".to_vec();
        long_from.extend(std::iter::repeat_n(b'f', 200_000));
        long_from.extend_from_slice(b"\nSubject: s\n");
        assert_eq!(
            items(&long_from, &EmailLimits::default()),
            [Ok(MboxItem::Message(b"Subject: s\n".to_vec()))]
        );
    }

    #[test]
    fn many_messages_stop_at_the_limit() {
        let limits = EmailLimits {
            max_mbox_messages: 1_000,
            ..EmailLimits::default()
        };
        let mbox = b"From - Tue Mar  4 09:12:44 2025\n".repeat(100_000);
        let mut reader = MboxReader::new(&mbox[..], &limits);
        let mut n = 0;
        let mut last = None;
        for item in &mut reader {
            match item {
                Ok(MboxItem::Message(m)) => {
                    assert!(m.is_empty());
                    n += 1;
                }
                other => last = Some(other),
            }
        }
        assert_eq!(n, 1_000);
        assert!(matches!(
            last,
            Some(Err(MboxError::TooManyMessages { limit: 1_000 }))
        ));
        assert_eq!(reader.messages(), 1_001);
    }
}
