//! Upstream's lenient patch path (spec E2 §5.1, profile `upstream`): what
//! upstream's reward did with a model's patch, reproduced in process.
//!
//! Upstream handed the patch text to GNU `patch` (2.7) against a temporary
//! copy of the file, or, for text starting with `[`, applied a small JSON op
//! list when the original was JSON. [`apply_upstream`] emulates both; the
//! strict v1 pipeline ([`super::apply_patch`]) is unaffected.
//!
//! **Unified diffs, as GNU `patch` reads and applies them** (behaviours
//! checked against GNU patch 2.7.6):
//! - Anything outside hunks is skipped: `---`/`+++`/`diff`/`index` headers
//!   (paths are never checked), prose, blank lines. A patch without any
//!   `@@ -l[,s] +l[,s] @@` header fails ("only garbage").
//! - A hunk body is read by its declared counts; lines after a complete body
//!   are garbage. A body cut short by the end of the text is completed with
//!   up to 3 empty context lines ("assume blank lines got chopped"); any
//!   other shortfall is malformed.
//! - Hunks directly following each other form one file section; anything in
//!   between (a blank line, a header, prose) starts a new section, which GNU
//!   applies to the result of the previous one from the top of the file.
//! - Lines compare byte-exactly, line terminator included: `\r` is part of a
//!   line (a CRLF file needs a CRLF patch, as GNU reports "different line
//!   endings"), and a `\ No newline at end of file` marker must agree with
//!   the file.
//! - Location (GNU `locate_hunk`): first guess = stated line + the offset of
//!   the previous hunk of the section; candidates at offsets 0, +1, −1, +2,
//!   −2, … over the whole file after the previous hunk. Fuzz 0, then 1, then
//!   2 (never more than the hunk's context): with fuzz f, up to f leading
//!   and f trailing context lines are not compared. When one side has less
//!   context than the other, GNU takes the hunk for one at the file's start
//!   (stated at line ≤ 1) or end, and the short side's shortfall counts
//!   against the fuzz. Ignored context lines keep the file's text; trailing
//!   ones may hang past the end of the file.
//! - Every hunk must apply, else the whole patch fails (GNU's exit 1); no
//!   reverse-patch detection (GNU's batch default is "no").
//! - Pure insertions (`-l,0`) go after line l, shifted by the offset (at
//!   the end when l is past it).
//!
//! **JSON op lists** (text starting with `[`): applied only when the original
//! parses as JSON, never to YAML or HCL. Ops `add`, `replace`, `remove` with
//! a `/`-separated path (`~1`, `~0` unescaped; a leading `/` optional):
//! missing intermediate objects are created, `replace` of a missing key adds
//! it, removing a missing key or index is a no-op; any other op fails. The
//! result is serialised as pretty JSON (2-space indent, key order kept,
//! final newline). An empty list `[]` applies as a no-op.
//!
//! **Bounds** (not upstream's: GNU `patch` and Python had only the
//! machine's limits): at most [`super::MAX_OPS`] JSON ops; no op may place a
//! value deeper than [`MAX_JSON_DEPTH`] (a path of many missing keys
//! creates that many nested objects, whose pretty-printed indentation grows
//! with the square of the depth); the serialised result may not pass
//! [`super::max_patched_bytes`] of the original and is written through a
//! writer that stops there; and the diff sections together may not copy
//! more than [`super::WORK_FACTOR`] times that bound (each section re-reads
//! the whole file). Past a bound the patch fails with status `too_large`.
//!
//! **Fences**: one Markdown fence around the whole text is removed first
//! ([`strip_fence`], as the v1 path does). For a diff this is what GNU's
//! garbage skipping did anyway; for a fenced JSON op list it is slightly
//! more lenient than upstream, which would have passed the fenced text to
//! `patch` and failed.

use serde_json::{Map, Value};

use super::diff::{parse_hunk, preview, BodyLine, CountRule, Hunk};
use super::{
    max_patched_bytes, strip_fence, PatchFailure, PatchStatus, PatchStop, MAX_OPS, MAX_PATCH_BYTES,
    WORK_FACTOR,
};
use crate::Deadline;

/// Relocation offsets tried between two deadline checks.
const DEADLINE_EVERY: isize = 4096;
/// GNU `patch`'s default maximum fuzz.
pub const MAX_FUZZ: usize = 2;
/// Most line comparisons spent locating the hunks of one patch.
const SEARCH_BUDGET: usize = 50_000_000;
/// Deepest nesting a JSON op may create: serde_json's own reading limit,
/// so the result still reads back as JSON, and recursion over it (drop,
/// serialisation) stays far from the stack's end.
pub const MAX_JSON_DEPTH: usize = 128;

fn fail(status: PatchStatus, reason: impl Into<String>) -> PatchFailure {
    PatchFailure::new(status, reason)
}

/// Applies `patch` to `original` the way upstream's reward did (module
/// docs) and returns the patched text. No preservation or re-parse check.
///
/// # Errors
/// A [`PatchFailure`] with a short reason: status `none` for an empty (or
/// whitespace-only) patch, `malformed` for text that is not a usable patch,
/// `unsupported` for a JSON op list on a non-JSON file, `apply_failed` when
/// a hunk or op does not apply.
pub fn apply_upstream(original: &str, patch: &str) -> Result<String, PatchFailure> {
    apply_upstream_within(original, patch, &Deadline::NONE).map_err(PatchStop::into_failure)
}

/// [`apply_upstream`] that stops by `deadline`, checked before each file
/// section, each hunk and each fuzz level of a hunk's search, and before
/// each JSON op.
///
/// # Errors
/// As [`apply_upstream`]; [`PatchStop::TimeBudget`] when `deadline` passed.
pub fn apply_upstream_within(
    original: &str,
    patch: &str,
    deadline: &Deadline,
) -> Result<String, PatchStop> {
    let text = strip_fence(patch);
    if text.trim().is_empty() {
        return Err(fail(PatchStatus::None, "empty patch").into());
    }
    if text.len() > MAX_PATCH_BYTES {
        return Err(fail(
            PatchStatus::Malformed,
            format!(
                "patch is {} bytes, more than the limit of {MAX_PATCH_BYTES}",
                text.len()
            ),
        )
        .into());
    }
    if text.trim_start().starts_with('[') {
        return apply_json_ops(original, text.trim(), deadline);
    }
    let mut budget = SEARCH_BUDGET;
    let max_work = max_patched_bytes(original.len()).saturating_mul(WORK_FACTOR);
    let mut work = 0usize;
    let mut current = original.to_owned();
    for (i, section) in parse_sections(text)?.iter().enumerate() {
        deadline.check()?;
        work = work.saturating_add(current.len());
        if work > max_work {
            return Err(fail(
                PatchStatus::TooLarge,
                format!(
                    "file section {}: applying the sections would copy more than {max_work} bytes of text in all (each section re-reads the whole file)",
                    i + 1
                ),
            )
            .into());
        }
        current = apply_section(&current, section, &mut budget, deadline)?;
    }
    Ok(current)
}

// ------------------------------------------------------------ unified diff

/// Splits the patch into file sections of hunks (module docs), skipping
/// everything that is not a hunk.
fn parse_sections(patch: &str) -> Result<Vec<Vec<Hunk>>, PatchFailure> {
    // Lines are kept verbatim, `\r` included: GNU compares it.
    let mut lines: Vec<&str> = patch.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let is_header = |l: &&str| l.starts_with("@@ -");
    let mut sections = Vec::new();
    let mut current = Vec::new();
    let mut number = 0usize;
    let mut i = 0usize;
    while i < lines.len() {
        if !is_header(&lines[i]) {
            i += 1;
            continue;
        }
        number += 1;
        let (hunk, end) = parse_hunk(&lines, i, number, CountRule::Gnu)?;
        current.push(hunk);
        i = end;
        if !lines.get(i).is_some_and(is_header) {
            sections.push(std::mem::take(&mut current));
        }
    }
    if sections.is_empty() {
        return Err(fail(
            PatchStatus::Malformed,
            "only garbage: no hunk header `@@ -l[,s] +l[,s] @@` found",
        ));
    }
    Ok(sections)
}

/// A line of the file: its text (with any `\r`) and whether `\n` ends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Line<'a> {
    text: &'a str,
    newline: bool,
}

fn split_raw(text: &str) -> Vec<Line<'_>> {
    let mut lines: Vec<Line<'_>> = text
        .split('\n')
        .map(|text| Line {
            text,
            newline: true,
        })
        .collect();
    // The piece after the last `\n`: empty, or a last line without newline.
    if let Some(last) = lines.pop() {
        if !last.text.is_empty() {
            lines.push(Line {
                text: last.text,
                newline: false,
            });
        }
    }
    lines
}

/// Applies one file section's hunks to `text`, in order.
fn apply_section(
    text: &str,
    hunks: &[Hunk],
    budget: &mut usize,
    deadline: &Deadline,
) -> Result<String, PatchStop> {
    let lines = split_raw(text);
    let mut out: Vec<Line<'_>> = Vec::with_capacity(lines.len() + 16);
    let mut next = 0usize; // first file line not yet copied (GNU's last_frozen_line)
    let mut in_offset = 0isize;
    for hunk in hunks {
        deadline.check()?;
        let at = locate(hunk, &lines, next, in_offset, budget, deadline)?;
        if !hunk.old_lines().is_empty() {
            in_offset = to_isize(at) + 1 - to_isize(hunk.old_start);
        }
        // A hunk matched by fuzz alone may be placed past the file's end
        // (or before the previous hunk): nothing to apply there.
        let Some(skipped) = lines.get(next..at) else {
            return Err(fail(
                PatchStatus::ApplyFailed,
                format!(
                    "hunk {}: placed at line {} of a {}-line file",
                    hunk.number,
                    at + 1,
                    lines.len()
                ),
            )
            .into());
        };
        out.extend_from_slice(skipped);
        let mut pos = at;
        for (line, no_newline) in &hunk.body {
            match line {
                BodyLine::Context(_) => {
                    // The file's own text: fuzz may have ignored this line,
                    // and a trailing ignored one may lie past the end.
                    if let Some(l) = lines.get(pos) {
                        out.push(*l);
                    }
                    pos += 1;
                }
                BodyLine::Remove(_) => pos += 1,
                BodyLine::Add(s) => out.push(Line {
                    text: s,
                    newline: !no_newline,
                }),
            }
        }
        next = pos.min(lines.len());
    }
    out.extend_from_slice(&lines[next..]);
    let mut patched = String::with_capacity(text.len() + 64);
    let n = out.len();
    for (i, l) in out.iter().enumerate() {
        patched.push_str(l.text);
        // A line that lost its place as the last one gets a newline again.
        if l.newline || i + 1 < n {
            patched.push('\n');
        }
    }
    Ok(patched)
}

fn to_isize(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

/// Where a hunk's old block starts (0-based file line), or for a pure
/// insertion the index it is inserted before.
fn locate(
    hunk: &Hunk,
    lines: &[Line<'_>],
    next: usize,
    in_offset: isize,
    budget: &mut usize,
    deadline: &Deadline,
) -> Result<usize, PatchStop> {
    let h = hunk.number;
    let old: Vec<Line<'_>> = hunk
        .old_lines()
        .into_iter()
        .map(|(text, no_newline)| Line {
            text,
            newline: !no_newline,
        })
        .collect();
    if old.is_empty() {
        // `-l,0`: GNU appends after line l (its first guess is l + 1); a
        // line past the end appends at the end.
        let at = to_isize(hunk.old_start) + in_offset;
        return match usize::try_from(at) {
            Ok(at) if at >= next => Ok(at.min(lines.len())),
            _ => Err(fail(
                PatchStatus::ApplyFailed,
                format!("hunk {h}: inserts after line {at}, before the end of the previous hunk"),
            )
            .into()),
        };
    }
    let (prefix, suffix) = context_sizes(hunk);
    let context = prefix.max(suffix);
    let max_fuzz = MAX_FUZZ.min(context);
    let search = Search {
        deadline,
        lines,
        old: &old,
        min_where: to_isize(next) + 1,
        first_guess: to_isize(hunk.old_start) + in_offset,
        stated_at_start: hunk.old_start <= 1,
    };
    for fuzz in 0..=max_fuzz {
        deadline.check()?;
        let prefix_fuzz = to_isize(fuzz + prefix) - to_isize(context);
        let suffix_fuzz = to_isize(fuzz + suffix) - to_isize(context);
        if let Some(at) = search.run(prefix_fuzz, suffix_fuzz, budget) {
            return Ok(at);
        }
        deadline.check()?;
        if *budget == 0 {
            return Err(fail(
                PatchStatus::ApplyFailed,
                format!("hunk {h}: locating it exceeded the work limit"),
            )
            .into());
        }
    }
    let crlf_file = lines.iter().any(|l| l.text.ends_with('\r'));
    let crlf_patch = old.iter().any(|l| l.text.ends_with('\r'));
    let endings = if crlf_file == crlf_patch {
        ""
    } else {
        " (different line endings)"
    };
    Err(fail(
        PatchStatus::ApplyFailed,
        format!(
            "hunk {h} (patch line {}): its {} context/removed line(s) match nowhere after file line {next}, even with fuzz {max_fuzz}{endings} (first: {})",
            hunk.header_line,
            old.len(),
            preview(old[0].text)
        ),
    ).into())
}

/// Leading and trailing context lines of a hunk (all of them for a hunk
/// without changes).
fn context_sizes(hunk: &Hunk) -> (usize, usize) {
    let is_context = |(l, _): &&(BodyLine, bool)| matches!(l, BodyLine::Context(_));
    let prefix = hunk.body.iter().take_while(is_context).count();
    let suffix = hunk.body.iter().rev().take_while(is_context).count();
    (prefix, suffix)
}

/// One hunk's search state, in GNU's 1-based line numbers.
struct Search<'a> {
    /// Read every [`DEADLINE_EVERY`] offsets; a passed deadline ends the
    /// search as "not found", and the caller reports the time budget.
    deadline: &'a Deadline,
    lines: &'a [Line<'a>],
    old: &'a [Line<'a>],
    /// The first line the block may start at (after the previous hunk).
    min_where: isize,
    /// Stated line plus the offset of the previous hunk.
    first_guess: isize,
    /// The hunk claims to start at line 1 (or 0).
    stated_at_start: bool,
}

impl Search<'_> {
    /// GNU `locate_hunk` at one fuzz level: the 0-based start, if any.
    fn run(&self, prefix_fuzz: isize, suffix_fuzz: isize, budget: &mut usize) -> Option<usize> {
        let n = to_isize(self.lines.len());
        let pat = to_isize(self.old.len());
        let found = |w: isize| usize::try_from(w - 1).ok();
        if prefix_fuzz < 0 && self.stated_at_start {
            // Less leading than trailing context: only the start of the
            // file can match (the whole file if both sides are short).
            if suffix_fuzz < 0 && pat != n {
                return None;
            }
            let fits = self.min_where <= 1 && pat - suffix_fuzz.max(0) <= n;
            return (fits && self.matches(1, 0, suffix_fuzz.max(0), budget))
                .then(|| found(1))
                .flatten();
        }
        if suffix_fuzz < 0 {
            // Less trailing than leading context: only the end can match.
            let w = n - pat + 1;
            let prefix_fuzz = prefix_fuzz.max(0);
            return (w >= self.min_where && self.matches(w, prefix_fuzz, 0, budget))
                .then(|| found(w))
                .flatten();
        }
        let prefix_fuzz = prefix_fuzz.max(0);
        let max_where = n - (pat - suffix_fuzz) + 1;
        let max_pos = max_where - self.first_guess;
        let max_neg = self.first_guess - self.min_where;
        for offset in 0..=max_pos.max(max_neg) {
            if *budget == 0 || (offset % DEADLINE_EVERY == 0 && self.deadline.expired()) {
                return None;
            }
            if offset <= max_pos
                && self.matches(self.first_guess + offset, prefix_fuzz, suffix_fuzz, budget)
            {
                return found(self.first_guess + offset);
            }
            if offset > 0
                && offset <= max_neg
                && self.matches(self.first_guess - offset, prefix_fuzz, suffix_fuzz, budget)
            {
                return found(self.first_guess - offset);
            }
        }
        None
    }

    /// The old block, minus `prefix_fuzz` leading and `suffix_fuzz` trailing
    /// lines, equals the file from 1-based line `w`.
    fn matches(
        &self,
        w: isize,
        prefix_fuzz: isize,
        suffix_fuzz: isize,
        budget: &mut usize,
    ) -> bool {
        if w < 1 || w < self.min_where {
            return false;
        }
        let (Ok(start), Ok(pf), Ok(sf)) = (
            usize::try_from(w - 1),
            usize::try_from(prefix_fuzz),
            usize::try_from(suffix_fuzz),
        ) else {
            return false;
        };
        let end = self.old.len().saturating_sub(sf);
        (pf..end).all(|k| {
            *budget = budget.saturating_sub(1);
            self.lines.get(start + k) == Some(&self.old[k])
        })
    }
}

// --------------------------------------------------------- JSON op lists

/// Applies a JSON op list to a JSON original (module docs).
fn apply_json_ops(original: &str, text: &str, deadline: &Deadline) -> Result<String, PatchStop> {
    let Ok(mut doc) = serde_json::from_str::<Value>(original) else {
        return Err(fail(
            PatchStatus::Unsupported,
            "a JSON op list applies only to a JSON file, and this file is not JSON",
        )
        .into());
    };
    let ops: Vec<Value> = serde_json::from_str(text).map_err(|e| {
        fail(
            PatchStatus::Malformed,
            format!("text starting with `[` is not a JSON array: {e}"),
        )
    })?;
    if ops.len() > MAX_OPS {
        return Err(fail(
            PatchStatus::TooLarge,
            format!(
                "the op list has {} ops, more than the limit of {MAX_OPS}",
                ops.len()
            ),
        )
        .into());
    }
    for (i, op) in ops.iter().enumerate() {
        deadline.check()?;
        let Some(op) = op.as_object() else {
            return Err(fail(PatchStatus::Malformed, format!("op {i} is not an object")).into());
        };
        let field = |name: &str| op.get(name).and_then(Value::as_str);
        let (Some(kind), Some(path)) = (field("op"), field("path")) else {
            return Err(fail(
                PatchStatus::Malformed,
                format!("op {i} lacks a string `op` or `path`"),
            )
            .into());
        };
        let tokens = path_tokens(path);
        match kind {
            "add" | "replace" => {
                let Some(value) = op.get("value") else {
                    return Err(fail(
                        PatchStatus::Malformed,
                        format!("op {i} ({kind} {path:?}) has no `value`"),
                    )
                    .into());
                };
                // Checked before `set` builds anything: missing keys on the
                // path become nested objects.
                let depth = tokens.len().saturating_add(json_depth(value));
                if depth > MAX_JSON_DEPTH {
                    return Err(fail(
                        PatchStatus::TooLarge,
                        format!("op {i} ({kind}): the value would nest {depth} levels deep, more than the limit of {MAX_JSON_DEPTH}"),
                    ).into());
                }
                set(&mut doc, &tokens, value.clone(), kind == "add").map_err(|why| {
                    fail(
                        PatchStatus::ApplyFailed,
                        format!("op {i} ({kind} {path:?}): {why}"),
                    )
                })?;
            }
            "remove" => remove(&mut doc, &tokens).map_err(|why| {
                fail(
                    PatchStatus::ApplyFailed,
                    format!("op {i} (remove {path:?}): {why}"),
                )
            })?,
            other => {
                return Err(fail(
                    PatchStatus::ApplyFailed,
                    format!(
                        "op {i}: {other:?} is not one of upstream's ops (add, replace, remove)"
                    ),
                )
                .into())
            }
        }
    }
    let max_bytes = max_patched_bytes(original.len());
    let mut out = Bounded {
        bytes: Vec::new(),
        max: max_bytes,
        exceeded: false,
    };
    if let Err(e) = serde_json::to_writer_pretty(&mut out, &doc) {
        return Err(if out.exceeded {
            fail(
                PatchStatus::TooLarge,
                format!("the patched file would be more than {max_bytes} bytes (twice the original plus 256 KiB)"),
            )
        } else {
            fail(PatchStatus::ApplyFailed, format!("cannot serialise: {e}"))
        }
        .into());
    }
    let mut out = String::from_utf8(out.bytes)
        .map_err(|e| fail(PatchStatus::ApplyFailed, format!("cannot serialise: {e}")))?;
    out.push('\n');
    Ok(out)
}

/// A buffer that refuses to grow past `max` bytes.
struct Bounded {
    bytes: Vec<u8>,
    max: usize,
    exceeded: bool,
}

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > self.max {
            self.exceeded = true;
            return Err(std::io::Error::other("size bound reached"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Nesting depth of a value: 0 for a scalar, 1 for a flat collection.
fn json_depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(json_depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(json_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// `/a/b~1c` → `["a", "b/c"]`; the leading `/` is optional; `""` is the
/// whole document.
fn path_tokens(path: &str) -> Vec<String> {
    if path.is_empty() {
        return Vec::new();
    }
    let path = path.strip_prefix('/').unwrap_or(path);
    path.split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

fn index_of(token: &str, len: usize) -> Option<usize> {
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok().filter(|i| *i < len)
}

/// Sets `tokens` to `value`, creating missing intermediate objects.
fn set(doc: &mut Value, tokens: &[String], value: Value, insert: bool) -> Result<(), String> {
    let Some((last, parents)) = tokens.split_last() else {
        *doc = value;
        return Ok(());
    };
    let mut target = doc;
    for token in parents {
        target = match target {
            Value::Object(map) => map
                .entry(token.clone())
                .or_insert_with(|| Value::Object(Map::new())),
            Value::Array(items) => {
                let len = items.len();
                let i = index_of(token, len)
                    .ok_or_else(|| format!("no index {token:?} in an array of {len}"))?;
                &mut items[i]
            }
            _ => {
                return Err(format!(
                    "{token:?} is below a value that is not a container"
                ))
            }
        };
    }
    match target {
        Value::Object(map) => {
            map.insert(last.clone(), value);
        }
        Value::Array(items) => {
            let len = items.len();
            if last == "-" || (insert && last.parse::<usize>().ok() == Some(len)) {
                items.push(value);
            } else {
                let i = index_of(last, len)
                    .ok_or_else(|| format!("no index {last:?} in an array of {len}"))?;
                if insert {
                    items.insert(i, value);
                } else {
                    items[i] = value;
                }
            }
        }
        _ => return Err(format!("{last:?} is below a value that is not a container")),
    }
    Ok(())
}

/// Removes `tokens`; a missing key or index (at any depth) is a no-op.
fn remove(doc: &mut Value, tokens: &[String]) -> Result<(), String> {
    let Some((last, parents)) = tokens.split_last() else {
        return Err("cannot remove the whole document".into());
    };
    let mut target = doc;
    for token in parents {
        let child = match target {
            Value::Object(map) => map.get_mut(token),
            Value::Array(items) => {
                let len = items.len();
                index_of(token, len).and_then(|i| items.get_mut(i))
            }
            _ => None,
        };
        match child {
            Some(c) => target = c,
            None => return Ok(()),
        }
    }
    match target {
        Value::Object(map) => {
            map.shift_remove(last);
        }
        Value::Array(items) => {
            if let Some(i) = index_of(last, items.len()) {
                items.remove(i);
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Expected results were checked against GNU patch 2.7.6 on the same
    //! inputs (`patch FILE < DIFF`).

    use super::*;

    /// `line1\n` … `lineN\n`.
    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line{i}\n")).collect()
    }

    /// `numbered(n)` with line `at` replaced by `with`.
    fn numbered_with(n: usize, at: usize, with: &str) -> String {
        (1..=n)
            .map(|i| {
                if i == at {
                    format!("{with}\n")
                } else {
                    format!("line{i}\n")
                }
            })
            .collect()
    }

    fn applied(original: &str, patch: &str) -> String {
        match apply_upstream(original, patch) {
            Ok(text) => text,
            Err(f) => panic!("expected to apply, got {:?}: {}", f.status, f.reason),
        }
    }

    fn failed(original: &str, patch: &str) -> PatchFailure {
        match apply_upstream(original, patch) {
            Ok(text) => panic!("expected a failure, got:\n{text}"),
            Err(f) => f,
        }
    }

    /// Line 10 replaced by `LINE10`, with 3 context lines each side, whose
    /// context lines 7 and 13 (and 8, 12 for `two`) are replaced by junk.
    fn hunk_10(lead: &[&str; 3], trail: &[&str; 3]) -> String {
        format!(
            "@@ -7,7 +7,7 @@\n {}\n {}\n {}\n-line10\n+LINE10\n {}\n {}\n {}\n",
            lead[0], lead[1], lead[2], trail[0], trail[1], trail[2]
        )
    }

    const LEAD: [&str; 3] = ["line7", "line8", "line9"];
    const TRAIL: [&str; 3] = ["line11", "line12", "line13"];

    #[test]
    fn exact_apply_at_the_stated_line() {
        let out = applied(&numbered(20), &hunk_10(&LEAD, &TRAIL));
        assert_eq!(out, numbered_with(20, 10, "LINE10"));
    }

    #[test]
    fn headers_of_any_file_and_prose_around_hunks_are_ignored() {
        let patch = format!(
            "Here is the fix:\ndiff --git a/other.yaml b/other.yaml\nindex 123..456\n--- a/other.yaml\n+++ b/elsewhere.yaml\n{}thanks\n",
            hunk_10(&LEAD, &TRAIL)
        );
        assert_eq!(
            applied(&numbered(20), &patch),
            numbered_with(20, 10, "LINE10")
        );
        // /dev/null headers are not target checks either.
        let patch = format!("--- /dev/null\n+++ b/x\n{}", hunk_10(&LEAD, &TRAIL));
        assert_eq!(
            applied(&numbered(20), &patch),
            numbered_with(20, 10, "LINE10")
        );
    }

    #[test]
    fn a_hunk_is_relocated_to_the_nearest_offset() {
        // Stated at line 2, found at 10 (offset 8).
        let patch = "@@ -2,3 +2,3 @@\n line9\n-line10\n+LINE10\n line11\n";
        assert_eq!(
            applied(&numbered(20), patch),
            numbered_with(20, 10, "LINE10")
        );
        // `x` at lines 3 and 15: stated 12 → the nearer one (15, offset +3)
        // wins over line 3 (offset −9); stated 8 → line 3 (−5) over 15 (+7).
        let file: String = (1..=20)
            .map(|i| {
                if i == 3 || i == 15 {
                    "x\n".to_owned()
                } else {
                    format!("line{i}\n")
                }
            })
            .collect();
        let out = applied(&file, "@@ -12 +12 @@\n-x\n+X\n");
        assert!(out.contains("line2\nx\nline4") && out.contains("line14\nX\nline16"));
        let out = applied(&file, "@@ -8 +8 @@\n-x\n+X\n");
        assert!(out.contains("line2\nX\nline4") && out.contains("line14\nx\nline16"));
        // Equal distance: the positive offset is tried first.
        let out = applied(&file, "@@ -9 +9 @@\n-x\n+X\n");
        assert!(out.contains("line14\nX\nline16"), "{out}");
    }

    #[test]
    fn fuzz_1_ignores_one_leading_or_trailing_context_line() {
        let want = numbered_with(20, 10, "LINE10");
        let lead = applied(&numbered(20), &hunk_10(&["junk", "line8", "line9"], &TRAIL));
        assert_eq!(lead, want, "fuzz 1 leading");
        let trail = applied(
            &numbered(20),
            &hunk_10(&LEAD, &["line11", "line12", "junk"]),
        );
        assert_eq!(trail, want, "fuzz 1 trailing");
        let both = applied(
            &numbered(20),
            &hunk_10(&["junk", "line8", "line9"], &["line11", "line12", "junk"]),
        );
        assert_eq!(both, want, "fuzz 1 both ends");
    }

    #[test]
    fn fuzz_2_ignores_two_context_lines_at_each_end_and_keeps_the_files_text() {
        let want = numbered_with(20, 10, "LINE10");
        let lead = applied(&numbered(20), &hunk_10(&["junk", "junk", "line9"], &TRAIL));
        assert_eq!(
            lead, want,
            "fuzz 2 leading (ignored lines keep line7, line8)"
        );
        let trail = applied(&numbered(20), &hunk_10(&LEAD, &["line11", "junk", "junk"]));
        assert_eq!(trail, want, "fuzz 2 trailing");
        // Fuzz and an offset together: stated at 2, found at 7.
        let moved = hunk_10(&["junk", "junk", "line9"], &TRAIL)
            .replace("@@ -7,7 +7,7 @@", "@@ -2,7 +2,7 @@");
        assert_eq!(applied(&numbered(20), &moved), want);
    }

    #[test]
    fn fuzz_3_fails() {
        let f = failed(&numbered(20), &hunk_10(&["junk", "junk", "junk"], &TRAIL));
        assert_eq!(f.status, PatchStatus::ApplyFailed);
        assert!(
            f.reason.contains("hunk 1") && f.reason.contains("fuzz 2"),
            "{}",
            f.reason
        );
        let f = failed(&numbered(20), &hunk_10(&LEAD, &["junk", "junk", "junk"]));
        assert_eq!(f.status, PatchStatus::ApplyFailed);
        // Fuzz never reaches removed lines.
        let f = failed(
            &numbered(20),
            "@@ -9,3 +9,3 @@\n line9\n-nope\n+LINE10\n line11\n",
        );
        assert_eq!(f.status, PatchStatus::ApplyFailed);
    }

    #[test]
    fn asymmetric_context_anchors_to_the_file_end_until_fuzz_2() {
        // 3 leading, 1 trailing context line, stated at 5, really at 7:
        // GNU tries the end of the file at fuzz 0 and 1, relocates at fuzz 2.
        let patch = "@@ -5,5 +5,5 @@\n line7\n line8\n line9\n-line10\n+LINE10\n line11\n";
        assert_eq!(
            applied(&numbered(20), patch),
            numbered_with(20, 10, "LINE10")
        );
        // Stated at line 1 with no leading context: anchored to the start
        // at fuzz 0; with 2 trailing lines it is free again at fuzz 2.
        let patch = "@@ -1,3 +1,3 @@\n-line10\n+LINE10\n line11\n line12\n";
        assert_eq!(
            applied(&numbered(20), patch),
            numbered_with(20, 10, "LINE10")
        );
        // Stated elsewhere, short leading context relocates at fuzz 0.
        let patch = "@@ -5,3 +5,3 @@\n-line10\n+LINE10\n line11\n line12\n";
        assert_eq!(
            applied(&numbered(20), patch),
            numbered_with(20, 10, "LINE10")
        );
    }

    #[test]
    fn one_failing_hunk_fails_the_whole_patch() {
        let patch = "@@ -2,3 +2,3 @@\n line1\n-line2\n+LINE2\n line3\n@@ -9,3 +9,3 @@\n line9\n-nope\n+LINE10\n line11\n";
        let f = failed(&numbered(20), patch);
        assert_eq!(f.status, PatchStatus::ApplyFailed);
        assert!(f.reason.starts_with("hunk 2"), "{}", f.reason);
    }

    #[test]
    fn hunks_apply_in_order_and_later_ones_search_after_earlier_ones() {
        // Two hunks of one section, offsets carried: both stated 3 lines
        // early.
        let patch = "@@ -1,3 +1,3 @@\n line4\n-line5\n+LINE5\n line6\n@@ -12,3 +12,3 @@\n line15\n-line16\n+LINE16\n line17\n";
        let out = applied(&numbered(20), patch);
        assert_eq!(
            out,
            numbered_with(20, 5, "LINE5").replace("line16\n", "LINE16\n")
        );
        // In one section a hunk cannot go back before the previous one.
        let patch = "@@ -12,3 +12,3 @@\n line15\n-line16\n+LINE16\n line17\n@@ -1,3 +1,3 @@\n line4\n-line5\n+LINE5\n line6\n";
        assert_eq!(
            failed(&numbered(20), patch).status,
            PatchStatus::ApplyFailed
        );
        // Anything between the hunks starts a new section, applied to the
        // result from the top again (as GNU does).
        let patch = "@@ -12,3 +12,3 @@\n line15\n-line16\n+LINE16\n line17\n\n@@ -1,3 +1,3 @@\n line4\n-line5\n+LINE5\n line6\n";
        let out = applied(&numbered(20), patch);
        assert_eq!(
            out,
            numbered_with(20, 5, "LINE5").replace("line16\n", "LINE16\n")
        );
    }

    #[test]
    fn body_lines_beyond_the_declared_counts_are_garbage() {
        // Declares 2 old / 2 new lines: the third body line is skipped.
        let patch = "@@ -9,2 +9,2 @@\n line9\n-line10\n+LINE10\n+dropped\n";
        let out = applied(&numbered(20), patch);
        assert!(!out.contains("dropped"));
        assert_eq!(out, numbered_with(20, 10, "LINE10"));
    }

    #[test]
    fn a_body_cut_short_by_the_end_gets_up_to_3_blank_context_lines() {
        // Declares 3/3 but holds 2/2: one blank context line is assumed,
        // which does not match line11 and is fuzzed away.
        let patch = "@@ -9,3 +9,3 @@\n line9\n-line10\n+LINE10\n";
        assert_eq!(
            applied(&numbered(20), patch),
            numbered_with(20, 10, "LINE10")
        );
        // Four missing lines are malformed; a missing `+` line too.
        let patch = "@@ -9,6 +9,6 @@\n line9\n-line10\n+LINE10\n";
        assert_eq!(failed(&numbered(20), patch).status, PatchStatus::Malformed);
        let patch = "@@ -9,2 +9,3 @@\n line9\n-line10\n+LINE10\n";
        assert_eq!(failed(&numbered(20), patch).status, PatchStatus::Malformed);
        // A cut-short body followed by another hunk is malformed.
        let patch = "@@ -9,3 +9,3 @@\n line9\n-line10\n+LINE10\n@@ -15 +15 @@\n-line15\n+LINE15\n";
        assert_eq!(failed(&numbered(20), patch).status, PatchStatus::Malformed);
    }

    #[test]
    fn only_garbage_and_bad_headers_fail() {
        let f = failed(&numbered(3), "please pin the image\n--- a/x\n+++ b/x\n");
        assert_eq!(f.status, PatchStatus::Malformed);
        assert!(f.reason.contains("only garbage"), "{}", f.reason);
        let f = failed(&numbered(3), "@@ -x +1 @@\n-line1\n+LINE1\n");
        assert_eq!(f.status, PatchStatus::Malformed);
    }

    #[test]
    fn pure_insertions_go_after_the_stated_line() {
        let out = applied(&numbered(3), "@@ -2,0 +3 @@\n+new\n");
        assert_eq!(out, "line1\nline2\nnew\nline3\n");
        let out = applied(&numbered(3), "@@ -0,0 +1 @@\n+first\n");
        assert_eq!(out, "first\nline1\nline2\nline3\n");
        // Past the end: appended (GNU copies up to the end, then adds).
        let out = applied(&numbered(3), "@@ -9,0 +10 @@\n+late\n");
        assert_eq!(out, "line1\nline2\nline3\nlate\n");
    }

    #[test]
    fn crlf_lines_compare_with_their_carriage_return() {
        let crlf = numbered(20).replace('\n', "\r\n");
        // An LF patch does not match a CRLF file (GNU: "different line
        // endings").
        let lf_patch = "@@ -9,3 +9,3 @@\n line9\n-line10\n+LINE10\n line11\n";
        let f = failed(&crlf, lf_patch);
        assert_eq!(f.status, PatchStatus::ApplyFailed);
        assert!(f.reason.contains("different line endings"), "{}", f.reason);
        // A CRLF patch applies to it and the added line keeps its CRLF.
        let crlf_patch = lf_patch.replace('\n', "\r\n");
        let out = applied(&crlf, &crlf_patch);
        assert_eq!(out, numbered_with(20, 10, "LINE10").replace('\n', "\r\n"));
        // … and not to an LF file.
        assert_eq!(
            failed(&numbered(20), &crlf_patch).status,
            PatchStatus::ApplyFailed
        );
    }

    #[test]
    fn no_newline_markers_must_agree_with_the_file() {
        let file = "a\nb\nc";
        let patch = "@@ -2,2 +2,2 @@\n b\n-c\n\\ No newline at end of file\n+C\n\\ No newline at end of file\n";
        assert_eq!(applied(file, patch), "a\nb\nC");
        // Adding the missing newline.
        let patch = "@@ -2,2 +2,2 @@\n b\n-c\n\\ No newline at end of file\n+C\n";
        assert_eq!(applied(file, patch), "a\nb\nC\n");
        // The marker claims no newline but the file has one: no match.
        let patch = "@@ -2,2 +2,2 @@\n b\n-c\n\\ No newline at end of file\n+C\n";
        assert_eq!(failed("a\nb\nc\n", patch).status, PatchStatus::ApplyFailed);
        // A context line without marker against a last line without
        // newline: GNU needs fuzz 2 (the trailing side is short) and
        // appends after it with a newline.
        let patch = "@@ -2,2 +2,3 @@\n b\n c\n+d\n";
        assert_eq!(applied(file, patch), "a\nb\nc\nd\n");
    }

    #[test]
    fn empty_and_fenced_patches() {
        for empty in ["", "  \n\t\n", "```diff\n\n```"] {
            let f = failed("a\n", empty);
            assert_eq!(f.status, PatchStatus::None, "{empty:?}");
        }
        let fenced = format!("```diff\n{}```", hunk_10(&LEAD, &TRAIL));
        assert_eq!(
            applied(&numbered(20), &fenced),
            numbered_with(20, 10, "LINE10")
        );
    }

    #[test]
    fn json_ops_apply_to_a_json_original() {
        let original =
            r#"{"kind": "Pod", "spec": {"containers": [{"name": "c", "image": "nginx"}]}, "x": 1}"#;
        let ops = r#"[
            {"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:1.27.0"},
            {"op": "add", "path": "/metadata/labels/app", "value": "web"},
            {"op": "replace", "path": "spec/hostNetwork", "value": false},
            {"op": "remove", "path": "/x"},
            {"op": "remove", "path": "/missing/deeper"},
            {"op": "remove", "path": "/spec/absent"}
        ]"#;
        let out = applied(original, ops);
        let value: Value = serde_json::from_str(&out).expect("JSON out");
        assert_eq!(
            value,
            serde_json::json!({"kind": "Pod",
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27.0"}], "hostNetwork": false},
                "metadata": {"labels": {"app": "web"}}})
        );
        assert!(out.starts_with("{\n  \"kind\": \"Pod\""), "{out}");
        assert!(out.ends_with("}\n"));
        // An empty list applies (re-serialised, unchanged values).
        let out = applied(original, "[]");
        assert_eq!(
            serde_json::from_str::<Value>(&out).expect("json"),
            serde_json::from_str::<Value>(original).expect("json")
        );
        // Ops outside the subset, bad members and bad JSON fail.
        let f = failed(original, r#"[{"op": "move", "from": "/x", "path": "/y"}]"#);
        assert_eq!(f.status, PatchStatus::ApplyFailed);
        let f = failed(original, r#"[{"op": "add", "path": "/y"}]"#);
        assert_eq!(f.status, PatchStatus::Malformed);
        let f = failed(original, "[not json");
        assert_eq!(f.status, PatchStatus::Malformed);
        let f = failed(original, r#"[{"op": "add", "path": "/x/y", "value": 1}]"#);
        assert_eq!(f.status, PatchStatus::ApplyFailed, "{}", f.reason);
    }

    #[test]
    fn a_json_op_list_on_yaml_or_hcl_fails() {
        let ops =
            r#"[{"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:1.27.0"}]"#;
        for original in [
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n",
            "resource \"aws_s3_bucket\" \"b\" {\n  acl = \"private\"\n}\n",
        ] {
            let f = failed(original, ops);
            assert_eq!(f.status, PatchStatus::Unsupported);
            assert!(f.reason.contains("not JSON"), "{}", f.reason);
        }
    }

    #[test]
    fn json_ops_cannot_nest_without_bound() {
        // Issue 13: a path of many missing keys built that many nested
        // objects; 4,000 levels overflowed the stack, and the pretty
        // printed size grew with the square of the depth.
        let deep = format!(
            r#"[{{"op": "add", "path": "{}", "value": 1}}]"#,
            "/a".repeat(4_000)
        );
        let f = failed("{}", &deep);
        assert_eq!(f.status, PatchStatus::TooLarge, "{}", f.reason);
        assert!(f.reason.contains("levels deep"), "{}", f.reason);
        // The limit counts the value's own depth too.
        let value = (0..100).fold("1".to_owned(), |v, _| format!("[{v}]"));
        let nested = format!(
            r#"[{{"op": "add", "path": "{}", "value": {value}}}]"#,
            "/a".repeat(40)
        );
        assert_eq!(failed("{}", &nested).status, PatchStatus::TooLarge);
        // Up to the limit it applies.
        let ok = format!(
            r#"[{{"op": "add", "path": "{}", "value": 1}}]"#,
            "/a".repeat(MAX_JSON_DEPTH)
        );
        assert!(applied("{}", &ok).contains("\"a\""));
    }

    #[test]
    fn json_op_output_and_count_are_bounded() {
        // 120 levels deep, each value line indented ~240 spaces: 5,000
        // small items emit over 1 MiB from a 10 KB patch.
        let items = vec!["0"; 5_000].join(",");
        let wide = format!(
            r#"[{{"op": "add", "path": "{}", "value": [{items}]}}]"#,
            "/a".repeat(120)
        );
        let f = failed("{}", &wide);
        assert_eq!(f.status, PatchStatus::TooLarge, "{}", f.reason);
        assert!(f.reason.contains("bytes"), "{}", f.reason);
        let ops = vec![r#"{"op": "remove", "path": "/x"}"#; MAX_OPS + 1].join(",");
        let f = failed("{}", &format!("[{ops}]"));
        assert_eq!(f.status, PatchStatus::TooLarge, "{}", f.reason);
    }

    #[test]
    fn many_sections_cannot_copy_the_file_without_bound() {
        // Each section (hunks separated by anything) re-reads the whole
        // file: 40,000 one-line insertions separated by blank lines over a
        // 100 KB file would copy 4 GB.
        let file = numbered(10_000);
        let patch = "@@ -0,0 +1 @@\n+x\n\n".repeat(40_000);
        let f = failed(&file, &patch);
        assert_eq!(f.status, PatchStatus::TooLarge, "{}", f.reason);
        // A handful of sections apply as GNU applies them.
        let out = applied(&file, &"@@ -0,0 +1 @@\n+x\n\n".repeat(5));
        assert!(out.starts_with("x\nx\nx\nx\nx\nline1\n"));
    }
}
