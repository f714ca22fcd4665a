//! The checks behind svbench's fuzz targets (docs/fuzzing.md).
//!
//! Each module is one target: `run(data)` feeds the bytes to one surface and
//! panics when an invariant breaks. A panic, an abort, a stack overflow, an
//! input slower than `-timeout` or a process over `-rss_limit_mb` is a crash
//! for libFuzzer. `fuzz_targets/<name>.rs` only wraps these functions.

pub mod api_body;
pub mod dataset_rows;
pub mod e2_score;
pub mod e4_score;
pub mod email;
pub mod episodes;
pub mod extract;
pub mod hcl;
pub mod html_attrs;
pub mod json_patch;
pub mod mbox;
pub mod patch_diff;
pub mod scan;
pub mod yaml;
pub mod yaml_docs;

/// The one `svbench_api::Service` the request targets share (building it
/// loads the registry's environments once per process).
pub fn service() -> &'static svbench_api::Service {
    static SERVICE: std::sync::OnceLock<svbench_api::Service> = std::sync::OnceLock::new();
    SERVICE.get_or_init(svbench_api::Service::new)
}

/// The input as text, or `None` when it is not UTF-8 (the surfaces that
/// take `&str` never see such bytes).
#[must_use]
pub fn utf8(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Splits `data` at its first NUL byte: `(before, after)`; no NUL gives
/// `(data, "")`.
#[must_use]
pub fn split_nul(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}

/// Splits `text` at its first newline: `(first line, rest)`.
#[must_use]
pub fn split_line(text: &str) -> (&str, &str) {
    text.split_once('\n').unwrap_or((text, ""))
}

/// Asserts that `range` is a valid, char-aligned slice of `text`.
pub fn assert_span(text: &str, range: &std::ops::Range<usize>, what: &str) {
    assert!(
        range.start <= range.end && text.get(range.clone()).is_some(),
        "{what}: span {range:?} is not a char-aligned slice of a {}-byte text",
        text.len()
    );
}

/// The 1-based line count of `text` as line numbers can name them: `\n`,
/// `\r\n` and a lone `\r` each end a line (YAML's line breaks), a final
/// line without newline counts, and one past the end is allowed for "at end
/// of input" positions.
#[must_use]
pub fn max_line(text: &str) -> usize {
    max_line_bytes(text.as_bytes())
}

/// [`max_line`] of raw bytes.
#[must_use]
pub fn max_line_bytes(data: &[u8]) -> usize {
    let lone_cr = data
        .iter()
        .enumerate()
        .filter(|(i, b)| **b == b'\r' && data.get(i + 1) != Some(&b'\n'))
        .count();
    data.iter().filter(|b| **b == b'\n').count() + lone_cr + 2
}
