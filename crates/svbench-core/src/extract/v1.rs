//! `v1` candidates and selection (E1 §2.3 steps 3–5).

use std::borrow::Cow;
use std::cmp::Reverse;
use std::ops::Range;

use super::think::strip_reasoning;
use crate::json::strict::{parse_object, Object};

/// Unclosed `{` scans after which the balanced-brace scan gives up
/// (E1 §2.3 step 3): the 1,001st unclosed `{` ends the scan.
pub const MAX_BRACE_RESTARTS: usize = 1000;

/// Where a candidate object was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CandidateSource {
    /// The whole (stripped) text is the object.
    WholeText,
    /// The trimmed content of a fenced block.
    Fence,
    /// A balanced top-level `{…}` span.
    Braces,
}

/// A candidate span of the stripped text, before parsing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CandidateSpan {
    /// Byte range in the stripped text.
    pub span: Range<usize>,
    /// How it was found; for a span found several ways, the first of
    /// whole text, fence, braces.
    pub source: CandidateSource,
}

/// The object `v1` selected, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected<'t> {
    /// The selected object (duplicate keys kept and flagged).
    pub object: Object<'t>,
    /// Its byte range in [`Selected::stripped`].
    pub span: Range<usize>,
    /// How it was found.
    pub source: CandidateSource,
    /// The text after reasoning stripping and trimming.
    pub stripped: Cow<'t, str>,
}

/// Why `v1` selected no object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum ExtractFailure {
    /// No candidate parses as a JSON object (`no_json_object`).
    #[error("no_json_object")]
    NoJsonObject,
    /// Objects were found, but none has the required key at its top level
    /// (the environment names the reason, e.g. E1 `no_label_key`).
    #[error("no object with the required key")]
    MissingKey,
}

impl ExtractFailure {
    /// The reason code, given the environment's code for
    /// [`ExtractFailure::MissingKey`].
    pub fn reason(self, missing_key_reason: &'static str) -> &'static str {
        match self {
            ExtractFailure::NoJsonObject => "no_json_object",
            ExtractFailure::MissingKey => missing_key_reason,
        }
    }
}

/// E1 §2.3 steps 2–5 on selected text: strips reasoning, then returns the
/// last candidate object whose top level has `key`.
pub fn extract_v1<'t>(text: &'t str, key: &str) -> Result<Selected<'t>, ExtractFailure> {
    extract_v1_with(text, |o| o.contains_key(key))
}

/// [`extract_v1`] with a custom predicate for "has the required key" (E3
/// accepts `patched_code` or `diff`).
pub fn extract_v1_with<'t>(
    text: &'t str,
    accept: impl Fn(&Object<'_>) -> bool,
) -> Result<Selected<'t>, ExtractFailure> {
    match strip_reasoning(text) {
        Cow::Borrowed(stripped) => {
            let (object, cand) = select_candidate(stripped, accept)?;
            Ok(Selected {
                object,
                span: cand.span,
                source: cand.source,
                stripped: Cow::Borrowed(stripped),
            })
        }
        Cow::Owned(stripped) => {
            let (object, cand) =
                select_candidate(&stripped, accept).map(|(o, c)| (o.into_owned(), c))?;
            Ok(Selected {
                object,
                span: cand.span,
                source: cand.source,
                stripped: Cow::Owned(stripped),
            })
        }
    }
}

/// Steps 3–5 on already stripped text: candidates are the whole text, every
/// fenced block's trimmed content and every balanced top-level `{…}` that
/// parse as strict JSON objects; ordered by span end (ties: longer first),
/// the last one accepted by `accept` wins.
pub fn select_candidate<'s>(
    stripped: &'s str,
    accept: impl Fn(&Object<'_>) -> bool,
) -> Result<(Object<'s>, CandidateSpan), ExtractFailure> {
    let whole_span = CandidateSpan {
        span: 0..stripped.len(),
        source: CandidateSource::WholeText,
    };
    let mut whole = parse_object(stripped);
    let has_fence = stripped.contains("```");
    if let Some(object) = whole.take() {
        if !has_fence {
            // A valid object has exactly one balanced span, itself, and no
            // fence: no other candidate exists.
            return if accept(&object) {
                Ok((object, whole_span))
            } else {
                Err(ExtractFailure::MissingKey)
            };
        }
        whole = Some(object);
    }

    let mut spans = Vec::new();
    if whole.is_some() {
        spans.push(whole_span);
    }
    if has_fence {
        spans.extend(
            fenced_blocks(stripped)
                .into_iter()
                .map(|span| CandidateSpan {
                    span,
                    source: CandidateSource::Fence,
                }),
        );
    }
    spans.extend(brace_spans(stripped).into_iter().map(|span| CandidateSpan {
        span,
        source: CandidateSource::Braces,
    }));
    spans.sort_by_key(|c| (c.span.end, Reverse(c.span.len()), c.span.start, c.source));
    spans.dedup_by(|later, earlier| later.span == earlier.span);

    let mut any_object = false;
    for cand in spans.into_iter().rev() {
        let object = match cand.source {
            CandidateSource::WholeText => whole.take(),
            _ => stripped.get(cand.span.clone()).and_then(parse_object),
        };
        if let Some(object) = object {
            any_object = true;
            if accept(&object) {
                return Ok((object, cand));
            }
        }
    }
    Err(if any_object {
        ExtractFailure::MissingKey
    } else {
        ExtractFailure::NoJsonObject
    })
}

/// Trimmed contents of fenced blocks: ```` ``` ```` + optional language word
/// (ASCII letters, digits, `_+-.#`) + content + ```` ``` ````, paired left to
/// right. Empty contents are skipped.
pub fn fenced_blocks(text: &str) -> Vec<Range<usize>> {
    const FENCE: &str = "```";
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(off) = text.get(from..).and_then(|t| t.find(FENCE)) {
        let mut start = from + off + FENCE.len();
        while bytes.get(start).is_some_and(|&b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-' | b'.' | b'#')
        }) {
            start += 1;
        }
        let Some(close) = text
            .get(start..)
            .and_then(|t| t.find(FENCE))
            .map(|o| start + o)
        else {
            break;
        };
        let content = &text[start..close];
        let lead = content.len() - content.trim_start().len();
        let trimmed = content.trim();
        if !trimmed.is_empty() {
            out.push(start + lead..start + lead + trimmed.len());
        }
        from = close + FENCE.len();
    }
    out
}

/// Balanced top-level `{…}` spans (E1 §2.3 step 3): at depth 0 quotes are
/// ignored; from a `{`, depth is tracked with string and escape awareness
/// (escapes only inside strings). A span that closes is returned and the scan
/// resumes after it; a `{` that never closes makes the scan resume at the
/// next byte, at most [`MAX_BRACE_RESTARTS`] times.
///
/// Runs in about linear time even on hostile input (1 MiB of `{`): a failed
/// scan is recorded, and a later scan that reaches the same string state at
/// the same position is decided from the record instead of re-walked.
pub fn brace_spans(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut records: Vec<Record> = Vec::new();
    let mut restarts = 0;
    let mut pos = 0;
    while let Some(off) = bytes
        .get(pos..)
        .and_then(|rest| rest.iter().position(|&b| b == b'{'))
    {
        let start = pos + off;
        match scan_from(bytes, start, &records) {
            Scan::Closed(end) => {
                spans.push(start..end + 1);
                pos = end + 1;
            }
            Scan::Open { merged } => {
                if restarts == MAX_BRACE_RESTARTS {
                    break;
                }
                restarts += 1;
                if !merged {
                    if let Some(record) = Record::build(bytes, start) {
                        if records.len() == MAX_RECORDS {
                            records.remove(0);
                        }
                        records.push(record);
                    }
                }
                pos = start + 1;
            }
        }
    }
    spans
}

/// String states of the scanner after a byte.
const OUT: u8 = 0;
const IN: u8 = 1;
const ESCAPED: u8 = 2;

/// At most this many failed-scan records are kept (3 string states).
const MAX_RECORDS: usize = 3;

#[inline]
fn step(state: u8, depth: &mut usize, b: u8) -> u8 {
    match state {
        OUT => {
            match b {
                b'"' => return IN,
                b'{' => *depth += 1,
                b'}' => *depth = depth.saturating_sub(1),
                _ => {}
            }
            OUT
        }
        IN => match b {
            b'\\' => ESCAPED,
            b'"' => OUT,
            _ => IN,
        },
        _ => IN,
    }
}

enum Scan {
    /// The `{` closes at this byte index.
    Closed(usize),
    /// The text ends first; `merged` if a record decided it.
    Open { merged: bool },
}

/// A scan from `start` that reached the end of the text: per position, the
/// string state after that byte and how far the depth falls afterwards.
struct Record {
    start: usize,
    states: Vec<u8>,
    /// `depth[k] - min(depth[k+1..])`, or 0 if it never falls below `depth[k]`.
    fall: Vec<u32>,
}

impl Record {
    fn build(bytes: &[u8], start: usize) -> Option<Record> {
        let len = bytes.len().checked_sub(start)?;
        if bytes.len() > u32::MAX as usize {
            return None;
        }
        let mut states = Vec::with_capacity(len);
        let mut depths: Vec<u32> = Vec::with_capacity(len);
        let (mut state, mut depth) = (OUT, 1usize);
        states.push(state);
        depths.push(1);
        for &b in &bytes[start + 1..] {
            state = step(state, &mut depth, b);
            if depth == 0 {
                return None; // not a failed scan after all
            }
            states.push(state);
            depths.push(depth as u32);
        }
        let mut min_after = u32::MAX;
        for d in depths.iter_mut().rev() {
            let here = *d;
            *d = here.saturating_sub(min_after);
            min_after = min_after.min(here);
        }
        Some(Record {
            start,
            states,
            fall: depths,
        })
    }
}

fn scan_from(bytes: &[u8], start: usize, records: &[Record]) -> Scan {
    let (mut state, mut depth) = (OUT, 1usize);
    let mut i = start;
    loop {
        for r in records {
            let k = i - r.start;
            if r.states.get(k) == Some(&state) {
                // Same string state at the same byte: from here this scan
                // follows the record's path, `r.depth - depth` lower.
                let falls_far_enough = r.fall.get(k).is_some_and(|&f| f as usize >= depth);
                if !falls_far_enough {
                    return Scan::Open { merged: true };
                }
                return match close_linearly(bytes, i, state, depth) {
                    Some(end) => Scan::Closed(end),
                    None => Scan::Open { merged: true },
                };
            }
        }
        i += 1;
        let Some(&b) = bytes.get(i) else {
            return Scan::Open { merged: false };
        };
        state = step(state, &mut depth, b);
        if depth == 0 {
            return Scan::Closed(i);
        }
    }
}

fn close_linearly(bytes: &[u8], mut i: usize, mut state: u8, mut depth: usize) -> Option<usize> {
    loop {
        i += 1;
        state = step(state, &mut depth, *bytes.get(i)?);
        if depth == 0 {
            return Some(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The scan exactly as the spec words it, without records.
    fn naive_brace_spans(text: &str) -> Vec<Range<usize>> {
        let b = text.as_bytes();
        let mut spans = Vec::new();
        let mut restarts = 0;
        let mut pos = 0;
        while pos < b.len() {
            if b[pos] != b'{' {
                pos += 1;
                continue;
            }
            let (mut depth, mut in_str, mut esc) = (0usize, false, false);
            let mut closed = None;
            for (i, &c) in b.iter().enumerate().skip(pos) {
                if in_str {
                    if esc {
                        esc = false;
                    } else if c == b'\\' {
                        esc = true;
                    } else if c == b'"' {
                        in_str = false;
                    }
                    continue;
                }
                match c {
                    b'"' => in_str = true,
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            closed = Some(i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            match closed {
                Some(end) => {
                    spans.push(pos..end + 1);
                    pos = end + 1;
                }
                None => {
                    if restarts == MAX_BRACE_RESTARTS {
                        break;
                    }
                    restarts += 1;
                    pos += 1;
                }
            }
        }
        spans
    }

    fn spans(text: &str) -> Vec<&str> {
        brace_spans(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn brace_examples() {
        assert_eq!(spans(r#"a {"x":1} b {y} c"#), [r#"{"x":1}"#, "{y}"]);
        assert_eq!(spans(r#"{"a":"}"}"#), [r#"{"a":"}"}"#]);
        assert_eq!(spans(r#"{"a":"\"}"}"#), [r#"{"a":"\"}"}"#]);
        // Escapes count only inside strings.
        assert_eq!(spans(r#"{\}"#), [r#"{\}"#]);
        assert!(spans(r#"{\"}"#).is_empty());
        // Quotes are ignored at depth 0.
        assert_eq!(
            spans(r#"I saw "{" here. {"label":"B"}"#),
            [r#"{"label":"B"}"#]
        );
        // An unclosed `{` restarts at the next byte.
        assert_eq!(spans("{{}"), ["{}"]);
        assert_eq!(spans(r#"{"{}"#), ["{}"]);
        assert_eq!(spans("{oops {\"a\":1}"), ["{\"a\":1}"]);
        assert!(spans("no braces").is_empty());
        assert!(spans("}{").is_empty());
    }

    #[test]
    fn restart_bound_is_exact() {
        let object = r#"{"label":"Benign"}"#;
        let at_bound = format!("{}{object}", "{".repeat(MAX_BRACE_RESTARTS));
        assert_eq!(spans(&at_bound), [object]);
        let past_bound = format!("{}{object}", "{".repeat(MAX_BRACE_RESTARTS + 1));
        assert!(spans(&past_bound).is_empty());
        assert_eq!(naive_brace_spans(&at_bound), brace_spans(&at_bound));
        assert_eq!(naive_brace_spans(&past_bound), brace_spans(&past_bound));
    }

    #[test]
    fn hostile_inputs_match_the_naive_scan() {
        for text in [
            "{".repeat(3000),
            "{\"".repeat(1500),
            "{\"{\\".repeat(1000),
            format!("{}{}", "{".repeat(2000), "}".repeat(10)),
            format!("{}{}", "{\"".repeat(700), "\"}}}".repeat(5)),
        ] {
            assert_eq!(brace_spans(&text), naive_brace_spans(&text));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn brace_scan_matches_naive(text in r#"[{}"\\ax]{0,80}"#) {
            prop_assert_eq!(brace_spans(&text), naive_brace_spans(&text));
        }

        #[test]
        fn brace_scan_matches_naive_brace_heavy(text in r#"[{{{}"\\]{0,200}"#) {
            prop_assert_eq!(brace_spans(&text), naive_brace_spans(&text));
        }
    }

    #[test]
    fn fences() {
        let text = "a ```json\n{\"x\":1}\n``` b ```python {\"y\":2} ``` ```\n\n``` ```{\"z\":3}``` ```unclosed {";
        let got: Vec<&str> = fenced_blocks(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(got, ["{\"x\":1}", "{\"y\":2}", "{\"z\":3}"]);
    }

    fn pick(text: &str) -> Result<(String, CandidateSource), ExtractFailure> {
        extract_v1(text, "label").map(|s| (s.stripped[s.span.clone()].to_owned(), s.source))
    }

    #[test]
    fn selection_order() {
        // Last label-bearing candidate by end.
        let t = r#"{"label":"A"} then {"label":"B"}"#;
        assert_eq!(pick(t).unwrap().0, r#"{"label":"B"}"#);
        // A label-less later object does not win.
        let t = r#"{"label":"A"} {"note":"x"}"#;
        assert_eq!(pick(t).unwrap().0, r#"{"label":"A"}"#);
        // Fence content and braces give the same span: reported as fence.
        let t = "```json\n{\"label\":\"A\"}\n```";
        assert_eq!(
            pick(t).unwrap(),
            ("{\"label\":\"A\"}".into(), CandidateSource::Fence)
        );
        // The whole text wins even with a fence inside a string.
        let t = r#"{"label":"A","x":"```{}```"}"#;
        assert_eq!(pick(t).unwrap().1, CandidateSource::WholeText);
        let t = r#"{"y":"```{}```"}"#;
        assert_eq!(pick(t), Err(ExtractFailure::MissingKey));
        assert_eq!(
            pick(" {\"label\":1} ").unwrap().1,
            CandidateSource::WholeText
        );
        assert_eq!(pick("[{\"label\":1}]").unwrap().1, CandidateSource::Braces);
        assert_eq!(
            pick("{\"a\":{\"label\":1}}"),
            Err(ExtractFailure::MissingKey)
        );
        assert_eq!(pick("{'label':1}"), Err(ExtractFailure::NoJsonObject));
        assert_eq!(pick(""), Err(ExtractFailure::NoJsonObject));
    }

    #[test]
    fn owned_stripped_text_keeps_the_object() {
        let s = extract_v1("a <think>{}</think> {\"label\":\"x\"} b", "label").unwrap();
        assert!(matches!(s.stripped, Cow::Owned(_)));
        assert_eq!(&s.stripped[s.span.clone()], "{\"label\":\"x\"}");
        assert!(s.object.contains_key("label"));
    }

    #[test]
    fn custom_predicate() {
        let t = r#"{"diff":"x"} {"other":1}"#;
        let s = extract_v1_with(t, |o| {
            o.contains_key("patched_code") || o.contains_key("diff")
        })
        .unwrap();
        assert!(s.object.contains_key("diff"));
        assert_eq!(
            ExtractFailure::MissingKey.reason("no_answer_object"),
            "no_answer_object"
        );
        assert_eq!(
            ExtractFailure::NoJsonObject.reason("no_answer_object"),
            "no_json_object"
        );
    }
}
