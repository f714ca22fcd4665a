//! Lines of a JSONL file read with a bounded buffer: a line longer than the
//! limit is an error naming its number as soon as the limit is passed, so a
//! 500 MB single-line row costs at most the limit in memory, never the line.

use std::io::BufRead;

/// The largest row a dataset file may hold, in bytes of one line without
/// its newline: 16 MiB. The largest rows svbench generates or imports are
/// a few kilobytes (an E4 email with its spans); 16 MiB leaves room for any
/// real row while a hostile one is refused after reading that much.
pub const MAX_ROW_BYTES: usize = 16 << 20;

/// Why a line could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Line `line` (1-based) is longer than `limit` bytes.
    #[error(
        "line {line} is longer than the maximum row size of {} ({limit} bytes); a dataset row \
         is one line of JSON — split the data or shorten the row",
        human_bytes(*limit)
    )]
    TooLong {
        /// 1-based line number.
        line: usize,
        /// The limit in bytes.
        limit: usize,
    },
}

impl LineError {
    /// The line the error is about, when it is about one.
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::TooLong { line, .. } => Some(*line),
            Self::Io(_) => None,
        }
    }
}

/// `16 MiB`, `1 KiB`, `12 bytes`.
fn human_bytes(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// Reads lines of at most `limit` bytes each (without the newline).
#[derive(Debug)]
pub struct BoundedLines<R> {
    reader: R,
    limit: usize,
    line: usize,
}

impl<R: BufRead> BoundedLines<R> {
    /// Lines of `reader`, each at most `limit` bytes.
    pub fn new(reader: R, limit: usize) -> Self {
        Self {
            reader,
            limit,
            line: 0,
        }
    }

    /// Lines read so far.
    pub fn line(&self) -> usize {
        self.line
    }

    /// Reads the next line into `buf` (cleared first), with its `\n` when it
    /// has one, and returns its 1-based number; `None` at the end. A line
    /// over the limit is [`LineError::TooLong`] once `limit` bytes of it are
    /// read: `buf` never grows past `limit` + 1 bytes.
    ///
    /// # Errors
    /// [`LineError`].
    pub fn next_into(&mut self, buf: &mut Vec<u8>) -> Result<Option<usize>, LineError> {
        buf.clear();
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                if buf.is_empty() {
                    return Ok(None);
                }
                self.line += 1;
                return Ok(Some(self.line));
            }
            let (take, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            let content = buf.len() + take - usize::from(done);
            if content > self.limit {
                self.line += 1;
                return Err(LineError::TooLong {
                    line: self.line,
                    limit: self.limit,
                });
            }
            buf.extend_from_slice(&available[..take]);
            self.reader.consume(take);
            if done {
                self.line += 1;
                return Ok(Some(self.line));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[u8], limit: usize) -> Result<Vec<(usize, Vec<u8>)>, LineError> {
        // A tiny buffer, so lines span many refills.
        let mut r = BoundedLines::new(std::io::BufReader::with_capacity(3, text), limit);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        while let Some(n) = r.next_into(&mut buf)? {
            out.push((n, buf.clone()));
        }
        Ok(out)
    }

    #[test]
    fn lines_keep_their_newline_and_number() {
        let got = lines(b"ab\n\ncdef\nlast", 4).unwrap();
        assert_eq!(
            got,
            vec![
                (1, b"ab\n".to_vec()),
                (2, b"\n".to_vec()),
                (3, b"cdef\n".to_vec()),
                (4, b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn a_line_over_the_limit_is_named_after_reading_only_the_limit() {
        let mut text = b"ok\n".repeat(1000);
        text.extend(std::iter::repeat_n(b'x', 100_000));
        text.extend(b"\nok\n");
        let mut r = BoundedLines::new(std::io::BufReader::with_capacity(64, &text[..]), 1024);
        let mut buf = Vec::new();
        for _ in 0..1000 {
            r.next_into(&mut buf).unwrap();
        }
        let e = r.next_into(&mut buf).unwrap_err();
        assert!(
            matches!(
                e,
                LineError::TooLong {
                    line: 1001,
                    limit: 1024
                }
            ),
            "{e}"
        );
        assert!(buf.len() <= 1024 + 64, "buffered {} bytes", buf.len());
        assert!(e.to_string().contains("1 KiB"), "{e}");
        assert!(lines(&[b'y'; 16], 15).is_err());
        assert_eq!(lines(&[b'y'; 15], 15).unwrap().len(), 1);
    }
}
