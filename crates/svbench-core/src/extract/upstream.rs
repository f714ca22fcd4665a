//! `upstream` object extraction (E1 §2.2 steps 1–4), reproducing upstream
//! `sv_shared/parsers.py` quirks included.

use crate::json::python::{loads, py_isspace, py_strip, PyDict, PyValue};
use crate::json::JsonErrorKind;

/// Which step of the upstream chain produced the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UpstreamSource {
    /// Step 1: `json.loads` of the whole text gave a dict.
    WholeText,
    /// Step 2: the first fenced block gave a dict.
    Fence,
    /// Step 3: the brace scan from the first `{` gave a dict.
    Braces,
    /// Step 4: nothing did; the object is empty.
    Empty,
    /// A step's `json.loads` raised `RecursionError` (nesting deeper than
    /// [`crate::json::PYTHON_MAX_DEPTH`]). Upstream catches only
    /// `JSONDecodeError` and `TypeError` there, so the reward function
    /// itself raises and verifiers' `Rubric` scores it 0.0; later steps are
    /// never tried. The object is empty, which scores the same.
    RecursionError,
}

/// The object upstream's parser works with.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamExtraction<'t> {
    /// The dict (empty when every step failed).
    pub object: PyDict<'t>,
    /// The step that produced it.
    pub source: UpstreamSource,
}

/// Upstream's first-success chain: the whole text; the first fenced block
/// ([`upstream_fence`]); the brace scan from the first `{`
/// ([`upstream_brace_span`]); else an empty object. Each step uses Python
/// `json.loads` and counts only if it yields a dict.
///
/// Nesting (issue 14 item 9): `json.loads` accepts as deep as CPython does
/// under verifiers ([`crate::json::PYTHON_MAX_DEPTH`]). One level more raises
/// `RecursionError`, which upstream's `_parse_json`
/// (`sv_shared/parsers.py`, `except (json.JSONDecodeError, TypeError)`) does
/// not catch: the chain stops there with [`UpstreamSource::RecursionError`]
/// and an empty object, whatever a later step would have found.
pub fn extract_upstream(text: &str) -> UpstreamExtraction<'_> {
    match upstream_chain(text) {
        Ok((object, source)) => UpstreamExtraction { object, source },
        Err(RecursionError) => UpstreamExtraction {
            object: PyDict::new(),
            source: UpstreamSource::RecursionError,
        },
    }
}

/// `json.loads` raised `RecursionError`.
struct RecursionError;

fn upstream_chain(text: &str) -> Result<(PyDict<'_>, UpstreamSource), RecursionError> {
    if let Some(object) = loads_step(text)? {
        return Ok((object, UpstreamSource::WholeText));
    }
    // Re-parsing the whole text would fail again, hence the `!= text` checks.
    if let Some(fenced) = upstream_fence(text).filter(|g| *g != text) {
        if let Some(object) = loads_step(fenced)? {
            return Ok((object, UpstreamSource::Fence));
        }
    }
    if let Some(span) = upstream_brace_span(text).filter(|s| *s != text) {
        if let Some(object) = loads_step(span)? {
            return Ok((object, UpstreamSource::Braces));
        }
    }
    Ok((PyDict::new(), UpstreamSource::Empty))
}

/// One `try: data = json.loads(s) … except (JSONDecodeError, TypeError)` of
/// upstream: the dict, `None` for a decode error or a non-dict, and `Err`
/// for the `RecursionError` that escapes.
fn loads_step(s: &str) -> Result<Option<PyDict<'_>>, RecursionError> {
    // Only a text opening with `{` can give a dict, and only one opening with
    // `{` or `[` can nest: anything else is settled without parsing.
    let first = s.trim_start_matches([' ', '\t', '\n', '\r']).bytes().next();
    if !matches!(first, Some(b'{' | b'[')) {
        return Ok(None);
    }
    match loads(s) {
        Ok(PyValue::Dict(d)) => Ok(Some(d)),
        Err(e) if e.kind == JsonErrorKind::TooDeep => Err(RecursionError),
        _ => Ok(None),
    }
}

/// Group 1 of the first match of Python's
/// `re.search(r"```(?:json)?\s*\n?(.*?)\n?```", text, re.DOTALL | re.IGNORECASE)`,
/// stripped with `str.strip()`; `None` when there is no match.
///
/// Backtracking reduces to: the first ```` ``` ````; an optional `json` in
/// any case (Python's case folding also lets `ſ` match `s`); all following
/// Python whitespace; then the content up to the next ```` ``` ````, minus
/// one newline right before it.
pub fn upstream_fence(text: &str) -> Option<&str> {
    const FENCE: &str = "```";
    let open = text.find(FENCE)?;
    let mut start = open + FENCE.len();
    start += json_word_len(&text[start..]);
    start += text[start..]
        .chars()
        .take_while(|&c| py_isspace(c))
        .map(char::len_utf8)
        .sum::<usize>();
    let close = start + text[start..].find(FENCE)?;
    let end = if close > start && text.as_bytes()[close - 1] == b'\n' {
        close - 1
    } else {
        close
    };
    Some(py_strip(&text[start..end]))
}

/// Byte length of a case-insensitive `json` at the start of `s` (0 if none).
fn json_word_len(s: &str) -> usize {
    let mut len = 0;
    let mut chars = s.chars();
    for want in ['j', 's', 'o', 'n'] {
        match chars.next() {
            Some(c) if c.to_ascii_lowercase() == want || (want == 's' && c == 'ſ') => {
                len += c.len_utf8();
            }
            _ => return 0,
        }
    }
    len
}

/// Upstream's brace scan: from the first `{` only, walk keeping depth,
/// in-string and escape flags; a backslash skips the next character even
/// outside strings; `"` toggles the string flag; braces count outside
/// strings. Returns the span up to the `}` that brings depth back to 0, or
/// `None` if the first `{` never balances (no later `{` is tried).
pub fn upstream_brace_span(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let bytes = text.as_bytes();
    let (mut depth, mut in_string, mut escape) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if escape {
            escape = false;
            continue;
        }
        match b {
            b'\\' => escape = true,
            b'"' => in_string = !in_string,
            b'{' if !in_string => depth += 1,
            b'}' if !in_string => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(&text[start..=i]);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_regex_semantics() {
        // Expectations produced by CPython 3.11's `re` with the upstream pattern.
        let cases: &[(&str, Option<&str>)] = &[
            ("```json\n{\"a\":1}\n```", Some("{\"a\":1}")),
            ("```JSON {\"a\":1}```", Some("{\"a\":1}")),
            ("```python\n{\"a\":1}\n```", Some("python\n{\"a\":1}")),
            ("```jſon\n{}\n```", Some("{}")),
            ("```json```", Some("")),
            ("``````", Some("")),
            ("````", None),
            ("```json\n{}", None),
            ("no fence", None),
            ("x ```\n\n  a \n\n``` y ```json\nb\n```", Some("a")),
            ("```jsonx```", Some("x")),
            ("```js\n1\n```", Some("js\n1")),
            ("```\u{1c}\u{a0}json\n```", Some("json")),
            ("```json\n\n```", Some("")),
            ("`````x```", Some("``x")),
        ];
        for &(text, want) in cases {
            assert_eq!(upstream_fence(text), want, "text {text:?}");
        }
    }

    #[test]
    fn brace_scan_quirks() {
        assert_eq!(upstream_brace_span("a {\"x\":{}} b"), Some("{\"x\":{}}"));
        assert_eq!(upstream_brace_span("{x} {y}"), Some("{x}"));
        // A backslash outside strings skips the next character.
        assert_eq!(upstream_brace_span("{\\}}"), Some("{\\}}"));
        assert_eq!(upstream_brace_span("{\\}"), None);
        // Only the first `{` is tried.
        assert_eq!(upstream_brace_span("{oops {\"a\":1}"), None);
        assert_eq!(upstream_brace_span("I saw \"{\" here. {\"a\":1}"), None);
        assert_eq!(upstream_brace_span("none"), None);
    }

    #[test]
    fn chain_order() {
        assert_eq!(
            extract_upstream(" {\"a\":1} ").source,
            UpstreamSource::WholeText
        );
        assert_eq!(
            extract_upstream("```json\n{\"a\":1}\n```").source,
            UpstreamSource::Fence
        );
        assert_eq!(
            extract_upstream("```python\n{\"a\":1}\n```").source,
            UpstreamSource::Braces
        );
        assert_eq!(
            extract_upstream("[{\"a\":1}]").source,
            UpstreamSource::Braces
        );
        assert_eq!(extract_upstream("{bad}").source, UpstreamSource::Empty);
        assert_eq!(extract_upstream("").source, UpstreamSource::Empty);
        let e = extract_upstream("{\"a\":1,\"a\":2}");
        assert_eq!(e.object.len(), 1);
    }

    /// `{"label":"Benign","confidence":0.9,"x":[[…]]}` with the list nested
    /// so that the object is `depth` levels deep.
    fn deep_answer(depth: usize) -> String {
        let inner = depth - 1;
        format!(
            "{{\"label\":\"Benign\",\"confidence\":0.9,\"x\":{}{}}}",
            "[".repeat(inner),
            "]".repeat(inner)
        )
    }

    #[test]
    fn nesting_parity_with_cpython() {
        use crate::json::PYTHON_MAX_DEPTH;
        // Issue 14 item 9: CPython 3.12 under verifiers parses these.
        for depth in [501, 900, PYTHON_MAX_DEPTH] {
            let text = deep_answer(depth);
            let e = extract_upstream(&text);
            assert_eq!(e.source, UpstreamSource::WholeText, "depth {depth}");
            assert!(e.object.contains_key("label"));
            let text = format!("Answer: {text} done");
            let e = extract_upstream(&text);
            assert_eq!(e.source, UpstreamSource::Braces, "depth {depth}");
        }
        // One level more raises RecursionError, which upstream does not
        // catch: no later step is tried.
        let too_deep = deep_answer(PYTHON_MAX_DEPTH + 1);
        let good = "{\"label\":\"Benign\",\"confidence\":0.9}";
        for text in [
            too_deep.clone(),
            format!("x {too_deep}"),
            format!("```json\n{too_deep}\n```\n{good}"),
            format!("{good} ```json\n{}\n```", "[".repeat(PYTHON_MAX_DEPTH + 1)),
            "[".repeat(PYTHON_MAX_DEPTH + 1),
        ] {
            let e = extract_upstream(&text);
            assert_eq!(e.source, UpstreamSource::RecursionError, "{}", &text[..20]);
            assert!(e.object.is_empty());
        }
        // Without the deep fence the same answer is found by the brace scan.
        let text = format!("{good} ```json\n[1]\n```");
        assert_eq!(extract_upstream(&text).source, UpstreamSource::Braces);
        // A deep list that fails to decode first is a decode error.
        let text = format!("[x{}", "[".repeat(100_000));
        assert_eq!(extract_upstream(&text).source, UpstreamSource::Empty);
    }

    #[test]
    fn nesting_never_exhausts_the_stack() {
        // Rust's default for spawned threads (tokio's blocking pool too).
        const STACK: usize = 2 << 20;
        let run = || {
            for text in [
                "{\"a\":".repeat(100_000),
                format!("{}0{}", "{\"a\":".repeat(100_000), "}".repeat(100_000)),
                format!("see {}{}", "{".repeat(100_000), "}".repeat(100_000)),
                format!("```\n{}\n```", "[".repeat(100_000)),
            ] {
                let e = extract_upstream(&text);
                assert!(e.object.is_empty());
            }
        };
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(run)
            .unwrap()
            .join()
            .unwrap();
    }
}
