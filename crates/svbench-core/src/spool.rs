//! Dataset rows kept on disk while a run needs them.
//!
//! A loader copies each row's text into an anonymous temporary file (removed
//! by the OS when the process ends) and keeps 16 bytes per row in memory;
//! rows are read back one at a time as samples are dispatched. A 1,000,000-row
//! run therefore holds 16 MB of row state instead of the rows, and the spool
//! cannot change under the run the way the source file could.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::Mutex;

/// Where one row lives in the spool, and its line in the source.
#[derive(Debug, Clone, Copy)]
struct Span {
    offset: u64,
    len: u32,
    line: u32,
}

/// Appends rows to a new spool.
#[derive(Debug)]
pub struct SpoolWriter {
    out: BufWriter<File>,
    spans: Vec<Span>,
    offset: u64,
}

/// Rows written by a [`SpoolWriter`], read back by position.
#[derive(Debug)]
pub struct Spool {
    file: Mutex<File>,
    spans: Vec<Span>,
}

fn too_big(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{what} does not fit a dataset spool"),
    )
}

impl SpoolWriter {
    /// A writer backed by a new anonymous temporary file.
    pub fn new() -> io::Result<Self> {
        Ok(Self {
            out: BufWriter::with_capacity(1 << 16, tempfile::tempfile()?),
            spans: Vec::new(),
            offset: 0,
        })
    }

    /// Appends one row's text, remembering its 1-based source line.
    pub fn push(&mut self, text: &str, line: usize) -> io::Result<()> {
        let len = u32::try_from(text.len()).map_err(|_| too_big("a row over 4 GiB"))?;
        let line = u32::try_from(line).map_err(|_| too_big("line numbers over 2^32"))?;
        self.out.write_all(text.as_bytes())?;
        self.spans.push(Span {
            offset: self.offset,
            len,
            line,
        });
        self.offset += u64::from(len);
        Ok(())
    }

    /// Rows written so far.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether no row was written.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Flushes and switches to reading.
    pub fn finish(self) -> io::Result<Spool> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        let mut spans = self.spans;
        spans.shrink_to_fit();
        Ok(Spool {
            file: Mutex::new(file),
            spans,
        })
    }
}

impl Spool {
    /// Rows kept.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the spool is empty.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The 1-based source line of row `i`.
    ///
    /// # Panics
    /// When `i` is out of range.
    pub fn line(&self, i: usize) -> usize {
        self.spans[i].line as usize
    }

    /// The text of row `i`.
    ///
    /// # Panics
    /// When `i` is out of range.
    pub fn read(&self, i: usize) -> io::Result<String> {
        let span = self.spans[i];
        let mut buf = vec![0u8; span.len as usize];
        {
            // A poisoned lock only means another reader panicked; the file
            // position is set before every read, so the handle is still good.
            let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
            file.seek(SeekFrom::Start(span.offset))?;
            file.read_exact(&mut buf)?;
        }
        String::from_utf8(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back_in_any_order() {
        let mut w = SpoolWriter::new().unwrap();
        w.push("{\"a\":1}", 1).unwrap();
        w.push("", 3).unwrap();
        w.push("{\"b\":\"é\"}", 7).unwrap();
        assert_eq!(w.len(), 3);
        let s = w.finish().unwrap();
        assert_eq!(s.read(2).unwrap(), "{\"b\":\"é\"}");
        assert_eq!(s.read(0).unwrap(), "{\"a\":1}");
        assert_eq!(s.read(1).unwrap(), "");
        assert_eq!((s.line(0), s.line(1), s.line(2)), (1, 3, 7));
    }
}
