//! An mbox read one message at a time from any [`BufRead`], so that what a
//! mailbox costs in memory is its largest message (at most
//! `max_message_bytes`, the rest of a larger one is counted and dropped),
//! not the file: 60 MB of bare `From ` lines held as messages and reports
//! took 3.8 GB.
//!
//! Messages start at lines beginning `From ` (the line itself is not part
//! of the message); text before the first is ignored; `>From ` lines (any
//! number of `>`) lose one `>`, as `mail-parser` reads them. After
//! `max_mbox_messages` messages the reader ends with
//! [`MboxError::TooManyMessages`].
//!
//! ```
//! use svbench_mail::{EmailLimits, MboxItem, MboxReader};
//!
//! let mbox = b"From a\nSubject: one\n\nhi\nFrom b\nSubject: two\n\n>From here\n";
//! let items: Vec<_> = MboxReader::new(&mbox[..], &EmailLimits::default())
//!     .map(Result::unwrap)
//!     .collect();
//! assert_eq!(items[1], MboxItem::Message(b"Subject: two\n\nFrom here\n".to_vec()));
//! ```

use std::io::{BufRead, Read};

use super::EmailLimits;

/// Bytes read at a time: a line longer than this is read in pieces.
const CHUNK: u64 = 64 << 10;

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
                self.in_separator = self.line.starts_with(b"From ");
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

    #[test]
    fn reads_as_mail_parser_does() {
        let mbox = b"preamble\nFrom a@b Mon\nSubject: 1\n\nbody\n>From x\n>>From y\n>Fromage\n\
                     From \nFrom c\nlast";
        let limits = EmailLimits::default();
        let ours: Vec<Vec<u8>> = items(mbox, &limits)
            .into_iter()
            .map(|i| match i {
                Ok(MboxItem::Message(m)) => m,
                other => panic!("{other:?}"),
            })
            .collect();
        let theirs: Vec<Vec<u8>> = mail_parser::mailbox::mbox::MessageIterator::new(&mbox[..])
            .map(|m| m.unwrap().contents().to_vec())
            .collect();
        assert_eq!(ours, theirs);
        assert_eq!(ours.len(), 3);
        assert_eq!(ours[1], b"");
    }

    #[test]
    fn a_large_message_is_counted_not_kept() {
        let limits = EmailLimits {
            max_message_bytes: 100,
            ..EmailLimits::default()
        };
        let mut mbox = b"From a\n".to_vec();
        mbox.extend(std::iter::repeat_n(b'x', 300_000));
        mbox.extend_from_slice(b"\nFrom b\nSubject: ok\n");
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
        let mut long_from = b"From ".to_vec();
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
        let mbox = b"From \n".repeat(1_000_000);
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
