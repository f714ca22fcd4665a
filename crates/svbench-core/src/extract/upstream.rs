//! `upstream` object extraction (E1 §2.2 steps 1–4), reproducing upstream
//! `sv_shared/parsers.py` quirks included.

use crate::json::python::{loads_dict, py_isspace, py_strip, PyDict};

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
pub fn extract_upstream(text: &str) -> UpstreamExtraction<'_> {
    if let Some(object) = loads_dict(text) {
        return UpstreamExtraction {
            object,
            source: UpstreamSource::WholeText,
        };
    }
    // Re-parsing the whole text would fail again, hence the `!= text` checks.
    if let Some(object) = upstream_fence(text)
        .filter(|g| *g != text)
        .and_then(loads_dict)
    {
        return UpstreamExtraction {
            object,
            source: UpstreamSource::Fence,
        };
    }
    if let Some(object) = upstream_brace_span(text)
        .filter(|s| *s != text)
        .and_then(loads_dict)
    {
        return UpstreamExtraction {
            object,
            source: UpstreamSource::Braces,
        };
    }
    UpstreamExtraction {
        object: PyDict::new(),
        source: UpstreamSource::Empty,
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
}
