//! Writing to stdout without panicking when the reader has gone away.
//!
//! `println!` panics on a closed pipe (`svbench report DIR | head -1`);
//! [`outln!`] and [`out!`] return the error instead, and `main` ends quietly
//! with exit 0 on a broken pipe, as other command-line tools do.

use std::fmt;
use std::io::{self, Write};

/// `println!` that returns an `io::Result` instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::out::write_out(format_args!($($arg)*), true)
    };
}

/// `print!` that returns an `io::Result` instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write_out(format_args!($($arg)*), false)
    };
}

pub(crate) use {out, outln};

/// Writes `args` (and a newline) to stdout and flushes.
pub fn write_out(args: fmt::Arguments<'_>, newline: bool) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_fmt(args)?;
    if newline {
        stdout.write_all(b"\n")?;
    }
    stdout.flush()
}

/// Whether an error is, or was caused by, writing to a closed pipe.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
