//! Strict unified diff (spec E2 §4.1): optional headers naming the workspace
//! file, hunks whose declared counts equal their bodies, old blocks matched
//! byte-exactly at the stated line or, failing that, at their unique
//! occurrence in the file; no fuzz, no external `patch` binary.

use super::{PatchFailure, PatchStatus, PatchStop};
use crate::Deadline;

/// Most hunks one patch may hold.
pub const MAX_HUNKS: usize = 10_000;
/// Largest line number or count a hunk header may declare.
pub const MAX_HUNK_NUMBER: usize = 10_000_000;
/// Relocation candidates tried between two deadline checks.
const DEADLINE_EVERY: usize = 4096;
/// Most line comparisons spent searching for relocated hunks.
const SEARCH_BUDGET: usize = 50_000_000;

/// One line of a hunk body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BodyLine {
    Context(String),
    Remove(String),
    Add(String),
}

/// One parsed hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hunk {
    /// 1-based index of the hunk in the patch, for messages.
    pub(super) number: usize,
    /// 1-based patch line of the `@@` header.
    pub(super) header_line: usize,
    pub(super) old_start: usize,
    /// Body lines, each with its "no newline at end of file" flag (set by a
    /// `\` marker line right after it).
    pub(super) body: Vec<(BodyLine, bool)>,
}

/// How [`parse_hunk`] treats a body that disagrees with its declared counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CountRule {
    /// §4.1: the body must hold exactly the declared lines.
    Exact,
    /// GNU `patch` (§5.1 upstream path): lines after a complete body are
    /// left to the caller (garbage or the next hunk), and a body cut short
    /// by the end of the patch is completed with up to 3 empty context
    /// lines ("assume blank lines got chopped").
    Gnu,
}

/// Most empty context lines GNU `patch` appends to a body cut short by the
/// end of the patch text.
const GNU_CHOPPED_BLANKS: usize = 3;

impl Hunk {
    /// Context and removed lines, with their no-newline flags.
    pub(super) fn old_lines(&self) -> Vec<(&str, bool)> {
        self.body
            .iter()
            .filter_map(|(l, nonl)| match l {
                BodyLine::Context(s) | BodyLine::Remove(s) => Some((s.as_str(), *nonl)),
                BodyLine::Add(_) => None,
            })
            .collect()
    }
}

/// A line of the original: content and its terminator (`\n`, `\r\n` or
/// nothing for a last line without newline).
struct FileLine<'a> {
    content: &'a str,
    eol: &'a str,
}

fn fail(status: PatchStatus, reason: impl Into<String>) -> PatchFailure {
    PatchFailure::new(status, reason)
}

/// Applies a unified diff to `original`, the workspace file `workspace_name`.
///
/// # Errors
/// [`PatchFailure`] with `malformed`, `target_mismatch` or `apply_failed`.
pub fn apply(workspace_name: &str, original: &str, patch: &str) -> Result<String, PatchFailure> {
    apply_within(workspace_name, original, patch, &Deadline::NONE).map_err(PatchStop::into_failure)
}

/// [`apply`] that stops by `deadline`, checked before each hunk and inside
/// the search for a relocated hunk.
///
/// # Errors
/// As [`apply`]; [`PatchStop::TimeBudget`] when `deadline` passed.
pub fn apply_within(
    workspace_name: &str,
    original: &str,
    patch: &str,
    deadline: &Deadline,
) -> Result<String, PatchStop> {
    let hunks = parse(workspace_name, patch)?;
    let lines = split_lines(original);
    let default_eol = dominant_eol(&lines);
    // Written straight into the result (no per-line copies): the output is
    // the original's lines plus the patch's added lines, so it is bounded
    // by their sizes together.
    let mut out = Output {
        text: String::with_capacity(original.len() + 64),
        default_eol,
        unterminated: false,
    };
    let mut next = 0usize; // first original line not yet copied
    let mut budget = SEARCH_BUDGET;
    for hunk in &hunks {
        deadline.check()?;
        let at = locate(hunk, &lines, next, &mut budget, deadline)?;
        for l in &lines[next..at] {
            out.line(l.content, l.eol);
        }
        let mut pos = at;
        for (line, nonl) in &hunk.body {
            match line {
                BodyLine::Context(_) => {
                    let l = &lines[pos];
                    out.line(l.content, if *nonl { "" } else { l.eol });
                    pos += 1;
                }
                BodyLine::Remove(_) => pos += 1,
                BodyLine::Add(s) => out.line(s, if *nonl { "" } else { default_eol }),
            }
        }
        next = pos;
    }
    for l in &lines[next..] {
        out.line(l.content, l.eol);
    }
    Ok(out.text)
}

/// The patched text being written.
struct Output {
    text: String,
    default_eol: &'static str,
    /// The last line written has no terminator (yet).
    unterminated: bool,
}

impl Output {
    fn line(&mut self, content: &str, eol: &str) {
        // A line that lost its place as the last one gets a terminator
        // again.
        if self.unterminated {
            self.text.push_str(self.default_eol);
        }
        self.text.push_str(content);
        self.text.push_str(eol);
        self.unterminated = eol.is_empty();
    }
}

/// Finds where a hunk's old block starts: the stated line if it matches
/// there, else its unique occurrence in the file; it must not start before
/// `min` (the end of the previous hunk).
fn locate(
    hunk: &Hunk,
    lines: &[FileLine<'_>],
    min: usize,
    budget: &mut usize,
    deadline: &Deadline,
) -> Result<usize, PatchStop> {
    let old = hunk.old_lines();
    let h = hunk.number;
    if old.is_empty() {
        // A pure insertion after line `old_start` (0 = before the first).
        let at = hunk.old_start;
        if at > lines.len() {
            return Err(fail(
                PatchStatus::ApplyFailed,
                format!(
                    "hunk {h}: inserts after line {at}, but the file has {} lines",
                    lines.len()
                ),
            )
            .into());
        }
        if at < min {
            return Err(fail(
                PatchStatus::ApplyFailed,
                format!("hunk {h}: inserts after line {at}, inside or before the previous hunk"),
            )
            .into());
        }
        return Ok(at);
    }
    let stated = hunk.old_start.saturating_sub(1);
    let matches_at = |start: usize, budget: &mut usize| -> bool {
        if start + old.len() > lines.len() {
            return false;
        }
        old.iter().enumerate().all(|(i, (content, nonl))| {
            *budget = budget.saturating_sub(1);
            let l = &lines[start + i];
            l.content == *content && (!*nonl || l.eol.is_empty())
        })
    };
    let position = if matches_at(stated, budget) {
        stated
    } else {
        let mut found = Vec::new();
        for start in 0..lines.len() {
            if start % DEADLINE_EVERY == 0 {
                deadline.check()?;
            }
            if *budget == 0 {
                return Err(fail(
                    PatchStatus::ApplyFailed,
                    format!("hunk {h}: searching for its old lines exceeded the work limit"),
                )
                .into());
            }
            if matches_at(start, budget) {
                found.push(start);
                if found.len() > 1 {
                    break;
                }
            }
        }
        match found[..] {
            [only] => only,
            [] => {
                return Err(fail(
                    PatchStatus::ApplyFailed,
                    format!(
                        "hunk {h} (patch line {}): its {} context/removed line(s) do not match the file at line {} and occur nowhere else (first: {:?})",
                        hunk.header_line,
                        old.len(),
                        hunk.old_start,
                        old[0].0
                    ),
                ).into())
            }
            _ => {
                return Err(fail(
                    PatchStatus::ApplyFailed,
                    format!(
                        "hunk {h} (patch line {}): its old lines do not match at line {} and occur more than once in the file (ambiguous relocation)",
                        hunk.header_line, hunk.old_start
                    ),
                ).into())
            }
        }
    };
    if position < min {
        return Err(fail(
            PatchStatus::ApplyFailed,
            format!(
                "hunk {h}: matches at line {}, overlapping or before the previous hunk (hunks must apply in order)",
                position + 1
            ),
        ).into());
    }
    Ok(position)
}

fn split_lines(text: &str) -> Vec<FileLine<'_>> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match rest.find('\n') {
            Some(i) => {
                let (content, eol) = if i > 0 && rest.as_bytes()[i - 1] == b'\r' {
                    (&rest[..i - 1], &rest[i - 1..=i])
                } else {
                    (&rest[..i], &rest[i..=i])
                };
                lines.push(FileLine { content, eol });
                rest = &rest[i + 1..];
            }
            None => {
                lines.push(FileLine {
                    content: rest,
                    eol: "",
                });
                rest = "";
            }
        }
    }
    lines
}

/// `\r\n` when most terminated lines of the original use it, else `\n`.
fn dominant_eol(lines: &[FileLine<'_>]) -> &'static str {
    let crlf = lines.iter().filter(|l| l.eol == "\r\n").count();
    let lf = lines.iter().filter(|l| l.eol == "\n").count();
    if crlf > lf {
        "\r\n"
    } else {
        "\n"
    }
}

/// Parses the patch text into hunks, checking headers against the workspace
/// file.
fn parse(workspace_name: &str, patch: &str) -> Result<Vec<Hunk>, PatchFailure> {
    let lines: Vec<&str> = patch
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    // `split` yields a last empty piece after a final newline: not a line.
    let n = if lines.last() == Some(&"") {
        lines.len() - 1
    } else {
        lines.len()
    };
    let lines = &lines[..n];
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut i = 0usize;
    let mut headers_seen = false; // a file section's `---`/`diff --git` was read
    while i < lines.len() {
        let line = lines[i];
        let no = i + 1;
        if line.starts_with("@@") {
            if hunks.len() >= MAX_HUNKS {
                return Err(fail(
                    PatchStatus::Malformed,
                    format!("more than {MAX_HUNKS} hunks"),
                ));
            }
            let (hunk, end) = parse_hunk(lines, i, hunks.len() + 1, CountRule::Exact)?;
            hunks.push(hunk);
            i = end;
            continue;
        }
        if line.starts_with("diff --git ") || line.starts_with("--- ") || line == "---" {
            if !hunks.is_empty() || (headers_seen && line.starts_with("diff --git ")) {
                return Err(fail(
                    PatchStatus::TargetMismatch,
                    format!("line {no}: a second file section ({line:?}); a patch may touch only the workspace file, once"),
                ));
            }
            if let Some(rest) = line.strip_prefix("diff --git ") {
                check_git_header(workspace_name, rest, no)?;
            } else {
                let path = line.strip_prefix("---").unwrap_or_default();
                check_path(workspace_name, path, no)?;
                let Some(plus) = lines.get(i + 1).filter(|l| l.starts_with("+++")) else {
                    return Err(fail(
                        PatchStatus::Malformed,
                        format!("line {no}: `---` header not followed by a `+++` header"),
                    ));
                };
                check_path(workspace_name, &plus[3..], no + 1)?;
                i += 1;
            }
            headers_seen = true;
            i += 1;
            continue;
        }
        if line.starts_with("+++") {
            return Err(fail(
                PatchStatus::Malformed,
                format!("line {no}: `+++` header without a preceding `---` header"),
            ));
        }
        if line.starts_with("new file mode") || line.starts_with("deleted file mode") {
            return Err(fail(
                PatchStatus::TargetMismatch,
                format!("line {no}: {line:?} — creating or deleting files is not allowed"),
            ));
        }
        if line.starts_with("rename ")
            || line.starts_with("copy ")
            || line.starts_with("similarity index")
        {
            return Err(fail(
                PatchStatus::TargetMismatch,
                format!("line {no}: {line:?} — renaming or copying files is not allowed"),
            ));
        }
        if line.starts_with("index ")
            || line.starts_with("old mode")
            || line.starts_with("new mode")
        {
            i += 1;
            continue;
        }
        if !hunks.is_empty() && lines[i..].iter().all(|l| l.trim().is_empty()) {
            break; // trailing blank lines after the last hunk
        }
        let what = if hunks.is_empty() {
            "before the first hunk"
        } else {
            "after a hunk whose declared counts are already complete"
        };
        return Err(fail(
            PatchStatus::Malformed,
            format!("line {no}: unexpected {} {what}", preview(line)),
        ));
    }
    if hunks.is_empty() {
        return Err(fail(
            PatchStatus::Malformed,
            "no hunk (`@@ -l,s +l,s @@`) found: not a unified diff",
        ));
    }
    Ok(hunks)
}

pub(super) fn preview(line: &str) -> String {
    let short: String = line.chars().take(60).collect();
    if short.len() < line.len() {
        format!("{short:?}…")
    } else {
        format!("{short:?}")
    }
}

/// Parses the hunk whose header is at `lines[start]`; returns it and the
/// index of the first line after its body. Body lines are taken verbatim
/// (the caller decides whether `\r` was already removed).
pub(super) fn parse_hunk(
    lines: &[&str],
    start: usize,
    number: usize,
    rule: CountRule,
) -> Result<(Hunk, usize), PatchFailure> {
    let header = lines[start];
    let no = start + 1;
    let bad = || {
        fail(
            PatchStatus::Malformed,
            format!(
                "line {no}: bad hunk header {}; expected `@@ -l[,s] +l[,s] @@`",
                preview(header)
            ),
        )
    };
    let inner = header.strip_prefix("@@ -").ok_or_else(bad)?;
    let (ranges, _section) = inner.split_once(" @@").ok_or_else(bad)?;
    let (old, new) = ranges.split_once(" +").ok_or_else(bad)?;
    let range = |s: &str| -> Option<(usize, usize)> {
        let (l, c) = match s.split_once(',') {
            Some((l, c)) => (l, Some(c)),
            None => (s, None),
        };
        let num = |t: &str| -> Option<usize> {
            if t.is_empty() || t.len() > 9 || !t.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            t.parse().ok().filter(|n| *n <= MAX_HUNK_NUMBER)
        };
        Some((
            num(l)?,
            match c {
                Some(c) => num(c)?,
                None => 1,
            },
        ))
    };
    let (old_start, old_count) = range(old).ok_or_else(bad)?;
    let (_new_start, new_count) = range(new).ok_or_else(bad)?;
    let mut body: Vec<(BodyLine, bool)> = Vec::new();
    let (mut seen_old, mut seen_new) = (0usize, 0usize);
    let mut i = start + 1;
    let counts = |o: usize, n: usize| {
        format!("hunk {number} (line {no}) declares {old_count} old and {new_count} new line(s) but its body has {o} and {n}")
    };
    loop {
        let complete = seen_old == old_count && seen_new == new_count;
        let Some(line) = lines.get(i) else {
            if complete {
                break;
            }
            let (missing_old, missing_new) = (old_count - seen_old, new_count - seen_new);
            if rule == CountRule::Gnu
                && missing_old == missing_new
                && missing_new <= GNU_CHOPPED_BLANKS
            {
                for _ in 0..missing_new {
                    body.push((BodyLine::Context(String::new()), false));
                }
                break;
            }
            return Err(fail(PatchStatus::Malformed, counts(seen_old, seen_new)));
        };
        if let Some(marker) = line.strip_prefix('\\') {
            let Some((_, flag)) = body.last_mut() else {
                return Err(fail(
                    PatchStatus::Malformed,
                    format!("line {}: `\\` marker with no preceding body line", i + 1),
                ));
            };
            if !marker
                .trim_start()
                .to_ascii_lowercase()
                .starts_with("no newline")
            {
                return Err(fail(
                    PatchStatus::Malformed,
                    format!("line {}: unknown `\\` marker {}", i + 1, preview(line)),
                ));
            }
            *flag = true;
            i += 1;
            continue;
        }
        if complete {
            // Only a marker may follow a complete body; anything else is
            // the next header, a trailing blank, or an overlong body that
            // the caller reports (GNU `patch` skips it as garbage).
            if rule == CountRule::Exact
                && matches!(line.chars().next(), Some(' ' | '-' | '+'))
                && !line.starts_with("--- ")
                && !line.starts_with("+++")
                && lines[i..].iter().any(|l| !l.trim().is_empty())
            {
                return Err(fail(
                    PatchStatus::Malformed,
                    format!(
                        "{}: line {} is an extra body line",
                        counts(seen_old, seen_new),
                        i + 1
                    ),
                ));
            }
            break;
        }
        let parsed = match line.chars().next() {
            None => BodyLine::Context(String::new()),
            // An empty line of a CRLF patch read without removing `\r`.
            Some('\r') if line.len() == 1 => BodyLine::Context((*line).to_owned()),
            Some(' ') => BodyLine::Context(line[1..].to_owned()),
            Some('-') => BodyLine::Remove(line[1..].to_owned()),
            Some('+') => BodyLine::Add(line[1..].to_owned()),
            Some(_) => {
                return Err(fail(
                    PatchStatus::Malformed,
                    format!(
                        "{}: line {} {} is not a body line (` `, `-`, `+` or `\\`)",
                        counts(seen_old, seen_new),
                        i + 1,
                        preview(line)
                    ),
                ))
            }
        };
        match &parsed {
            BodyLine::Context(_) => {
                seen_old += 1;
                seen_new += 1;
            }
            BodyLine::Remove(_) => seen_old += 1,
            BodyLine::Add(_) => seen_new += 1,
        }
        if seen_old > old_count || seen_new > new_count {
            return Err(fail(
                PatchStatus::Malformed,
                format!(
                    "{} (line {} goes past the declared counts)",
                    counts(seen_old, seen_new),
                    i + 1
                ),
            ));
        }
        body.push((parsed, false));
        i += 1;
    }
    Ok((
        Hunk {
            number,
            header_line: no,
            old_start,
            body,
        },
        i,
    ))
}

/// `diff --git a/X b/Y`: some split at a space must name the workspace
/// file on both sides.
fn check_git_header(workspace_name: &str, rest: &str, no: usize) -> Result<(), PatchFailure> {
    let ok = rest.match_indices(' ').any(|(at, _)| {
        check_path(workspace_name, &rest[..at], no).is_ok()
            && check_path(workspace_name, &rest[at + 1..], no).is_ok()
    });
    if ok {
        return Ok(());
    }
    // Report the first side that is wrong.
    let first = rest.split(' ').next().unwrap_or_default();
    check_path(workspace_name, first, no)?;
    Err(fail(
        PatchStatus::TargetMismatch,
        format!("line {no}: `diff --git {rest}` does not name {workspace_name:?} on both sides"),
    ))
}

/// Checks a `---`/`+++`/`diff --git` path against the workspace file.
fn check_path(workspace_name: &str, raw: &str, no: usize) -> Result<(), PatchFailure> {
    // `--- path<TAB>timestamp`; git quotes unusual names.
    let path = raw.trim_start();
    let path = path.split('\t').next().unwrap_or_default().trim_end();
    let path = path
        .strip_prefix('"')
        .and_then(|p| p.strip_suffix('"'))
        .unwrap_or(path);
    if path == "/dev/null" {
        return Err(fail(
            PatchStatus::TargetMismatch,
            format!("line {no}: /dev/null names a file creation or deletion"),
        ));
    }
    let normalised = normalise(path, true);
    if normalised == normalise(workspace_name, false) {
        return Ok(());
    }
    let why = if normalised.split('/').any(|c| c == "..") {
        "path traversal"
    } else if normalised.starts_with('/') {
        "an absolute path outside the workspace"
    } else {
        "another file"
    };
    Err(fail(
        PatchStatus::TargetMismatch,
        format!(
            "line {no}: header names {path:?} ({why}); the workspace file is {workspace_name:?}"
        ),
    ))
}

fn normalise(path: &str, strip_ab: bool) -> &str {
    let mut p = path;
    if strip_ab {
        if let Some(rest) = p.strip_prefix("a/").or_else(|| p.strip_prefix("b/")) {
            p = rest;
        }
    }
    loop {
        let before = p;
        while let Some(rest) = p.strip_prefix("./") {
            p = rest;
        }
        if let Some(rest) = p.strip_prefix("/workspace/") {
            p = rest;
        }
        if p == before {
            return p;
        }
    }
}
