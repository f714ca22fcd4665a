//! The parts of an E4 row (spec §2.2) beyond `question`: the email itself,
//! raw or structured, and the gold facts in `meta`.

use serde::Deserialize;
use serde_json::{Map, Value};
use svbench_mail::{
    parse_message, render, Attachment, Email, EmailError, EmailLimits, Headers, RENDER_VERSION,
};

use super::{GoldSource, GoldSpan, Label};

/// What is wrong with an E4 row: its gold label, its `email`, the rendering
/// in `question`, or the gold facts in `meta`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    /// A string `answer` that is not one of the three labels.
    #[error("answer {0:?} is not a gold label (expected Phishing, Legitimate or Abstain)")]
    UnknownLabel(String),
    /// An `answer` that is not a string (the JSON text of it).
    #[error(
        "answer {0} is not a gold label (expected the string Phishing, Legitimate or Abstain)"
    )]
    LabelNotAString(String),
    /// The row has no `email`.
    #[error("missing field `email` (the message, raw or structured)")]
    MissingEmail,
    /// `email` is not a JSON object.
    #[error("field `email` is not an object")]
    EmailNotAnObject,
    /// `email` has `raw` and structured keys.
    #[error("field `email` has `raw` and other keys; give one form")]
    RawAndStructured,
    /// `email.raw` could not be read as a message.
    #[error("email.raw: {0}")]
    Raw(EmailError),
    /// A key of `email` that is neither `raw` nor a structured part.
    #[error("unknown key `email.{0}` (expected raw, or headers, text, html, attachments)")]
    UnknownEmailKey(String),
    /// A field (named by its path, `email.text`) that is not a string.
    #[error("field `{0}` is not a string")]
    NotAString(String),
    /// `email.headers` is not a JSON object.
    #[error("field `email.headers` is not an object")]
    HeadersNotAnObject,
    /// A header E4 does not read.
    #[error("header `{0}` is not one E4 reads (known: {known})", known = Headers::NAMES.join(", "))]
    UnknownHeader(String),
    /// A header given twice (names compared as E4 reads them).
    #[error("header `{0}` is given twice")]
    DuplicateHeader(String),
    /// `email.attachments` is not a JSON array.
    #[error("field `email.attachments` is not an array")]
    AttachmentsNotAnArray,
    /// An attachment without one of `name`, `type` and `size`.
    #[error("email.attachments[{index}] has no `{key}`")]
    AttachmentMissingKey {
        /// Position in `email.attachments`.
        index: usize,
        /// The missing key.
        key: &'static str,
    },
    /// An attachment whose `size` is not a non-negative integer.
    #[error("email.attachments[{0}].size is not a non-negative integer")]
    AttachmentSize(usize),
    /// `question` differs from the rendering of `email`.
    #[error(
        "`question` is not the rendering (version {version}) of `email`: they differ from \
         character {at} (question {question:?}, rendering {rendering:?})",
        version = RENDER_VERSION
    )]
    NotTheRendering {
        /// First character (code point) where they differ.
        at: usize,
        /// Up to 40 characters of `question` from `at`.
        question: String,
        /// Up to 40 characters of the rendering from `at`.
        rendering: String,
    },
    /// `meta.render_version` (its JSON text) is not this build's.
    #[error("`meta.render_version` is {0}; this build renders version {version}", version = RENDER_VERSION)]
    RenderVersion(String),
    /// `meta.spans` without `meta.gold_source`.
    #[error("`meta.spans` is given without `meta.gold_source` (annotated, extractor or none)")]
    SpansWithoutSource,
    /// `meta.gold_source` (its JSON text) is not a known source.
    #[error("`meta.gold_source` {0} is not one of annotated, extractor, none")]
    UnknownGoldSource(String),
    /// `meta.spans` does not have the span shape (the reader's message).
    #[error("`meta.spans` is not a list of {{start, end, text, category, polarity}}: {0}")]
    BadSpans(String),
    /// `meta.gold_source` is `none` but spans are given.
    #[error("`meta.gold_source` is none but `meta.spans` is not empty")]
    SpansWithNoneSource,
    /// A gold span whose range is not its text in `question`.
    #[error("meta.spans[{index}]: question[{start}..{end}] is not {text:?}")]
    SpanMismatch {
        /// Position in `meta.spans`.
        index: usize,
        /// The span's start (code points).
        start: usize,
        /// The span's end (code points).
        end: usize,
        /// The span's text.
        text: String,
    },
}

/// Reads the gold label strictly (trimmed, case-insensitive, canonical case
/// out). Anything but one of the three label strings is an error: there is
/// never a default label.
pub fn normalize_gold(answer: &Value) -> Result<Label, RowError> {
    match answer {
        Value::String(s) => {
            let t = s.trim();
            Label::ALL
                .into_iter()
                .find(|l| l.as_str().eq_ignore_ascii_case(t))
                .ok_or_else(|| RowError::UnknownLabel(s.clone()))
        }
        other => Err(RowError::LabelNotAString(other.to_string())),
    }
}

/// The row's `email`: `{"raw": "<RFC 5322 message>"}` or
/// `{"headers": {name: value}, "text", "html", "attachments": [{name, type, size}]}`.
pub fn email_of_row(email: &Value, limits: &EmailLimits) -> Result<Email, RowError> {
    let Value::Object(map) = email else {
        return Err(RowError::EmailNotAnObject);
    };
    if let Some(raw) = map.get("raw") {
        if map.len() > 1 {
            return Err(RowError::RawAndStructured);
        }
        let raw = raw
            .as_str()
            .ok_or_else(|| RowError::NotAString("email.raw".into()))?;
        return parse_message(raw.as_bytes(), limits).map_err(RowError::Raw);
    }
    structured(map)
}

fn structured(map: &Map<String, Value>) -> Result<Email, RowError> {
    let mut email = Email::default();
    for (key, value) in map {
        match key.as_str() {
            "headers" => email.headers = headers(value)?,
            "text" => email.text = Some(string(value, "email.text")?),
            "html" => email.html = Some(string(value, "email.html")?),
            "attachments" => email.attachments = attachments(value)?,
            other => return Err(RowError::UnknownEmailKey(other.to_string())),
        }
    }
    Ok(email)
}

fn string(value: &Value, what: &str) -> Result<String, RowError> {
    value
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| RowError::NotAString(what.to_string()))
}

fn headers(value: &Value) -> Result<Headers, RowError> {
    let Value::Object(map) = value else {
        return Err(RowError::HeadersNotAnObject);
    };
    let mut h = Headers::default();
    for (name, value) in map {
        let value = Some(string(value, &format!("email.headers.{name}"))?);
        let Some(slot) = h.slot_mut(name) else {
            return Err(RowError::UnknownHeader(name.clone()));
        };
        if slot.is_some() {
            return Err(RowError::DuplicateHeader(name.clone()));
        }
        *slot = value;
    }
    Ok(h)
}

fn attachments(value: &Value) -> Result<Vec<Attachment>, RowError> {
    let Value::Array(items) = value else {
        return Err(RowError::AttachmentsNotAnArray);
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let field = |key: &'static str| {
                item.get(key)
                    .ok_or(RowError::AttachmentMissingKey { index: i, key })
            };
            Ok(Attachment {
                name: string(field("name")?, &format!("email.attachments[{i}].name"))?,
                mime_type: string(field("type")?, &format!("email.attachments[{i}].type"))?,
                size: field("size")?.as_u64().ok_or(RowError::AttachmentSize(i))?,
            })
        })
        .collect()
}

/// Checks that `question` is the rendering of the row's email.
pub fn check_rendering(
    question: &str,
    email: &Email,
    limits: &EmailLimits,
) -> Result<(), RowError> {
    let rendered = render(email, limits);
    if rendered.text == question {
        return Ok(());
    }
    let at = first_difference(question, &rendered.text);
    Err(RowError::NotTheRendering {
        at,
        question: excerpt(question, at),
        rendering: excerpt(&rendered.text, at),
    })
}

fn first_difference(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

fn excerpt(s: &str, at: usize) -> String {
    s.chars().skip(at).take(40).collect()
}

/// The gold facts of a row's `meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct RowGold {
    /// Gold spans, checked against `question`.
    pub spans: Vec<GoldSpan>,
    /// Where they come from.
    pub gold_source: GoldSource,
}

/// Reads `meta.spans` and `meta.gold_source` and checks every span against
/// `question` (code points). A row with neither has no gold evidence
/// (`none`); spans without a `gold_source` are an error.
pub fn gold_facts(meta: Option<&Value>, question: &str) -> Result<RowGold, RowError> {
    let spans_value = meta.and_then(|m| m.get("spans"));
    let source_value = meta.and_then(|m| m.get("gold_source"));
    let gold_source = match source_value {
        None if spans_value.is_some() => return Err(RowError::SpansWithoutSource),
        None => GoldSource::None,
        Some(v) => {
            GoldSource::deserialize(v).map_err(|_| RowError::UnknownGoldSource(v.to_string()))?
        }
    };
    let spans: Vec<GoldSpan> = match spans_value {
        None => Vec::new(),
        Some(v) => {
            Vec::<GoldSpan>::deserialize(v).map_err(|e| RowError::BadSpans(e.to_string()))?
        }
    };
    if gold_source == GoldSource::None && !spans.is_empty() {
        return Err(RowError::SpansWithNoneSource);
    }
    if !spans.is_empty() {
        // Spans count code points; in an ASCII question those are bytes.
        let ascii = question.is_ascii();
        let chars: Vec<char> = match ascii {
            true => Vec::new(),
            false => question.chars().collect(),
        };
        let holds = |span: &GoldSpan| match ascii {
            true => question.get(span.start..span.end) == Some(span.text.as_str()),
            false => chars
                .get(span.start..span.end)
                .is_some_and(|c| c.iter().copied().eq(span.text.chars())),
        };
        for (i, span) in spans.iter().enumerate() {
            if span.start >= span.end || !holds(span) {
                return Err(RowError::SpanMismatch {
                    index: i,
                    start: span.start,
                    end: span.end,
                    text: span.text.clone(),
                });
            }
        }
    }
    Ok(RowGold { spans, gold_source })
}

/// Checks `meta.render_version` when present.
pub fn check_render_version(meta: Option<&Value>) -> Result<(), RowError> {
    match meta.and_then(|m| m.get("render_version")) {
        None => Ok(()),
        Some(v) if v.as_u64() == Some(u64::from(RENDER_VERSION)) => Ok(()),
        Some(v) => Err(RowError::RenderVersion(v.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The message of a refused email field.
    fn email_error(email: Value) -> String {
        email_of_row(&email, &EmailLimits::default())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn label_errors_keep_their_messages() {
        assert_eq!(
            normalize_gold(&json!("spam")).unwrap_err().to_string(),
            "answer \"spam\" is not a gold label (expected Phishing, Legitimate or Abstain)"
        );
        assert_eq!(
            normalize_gold(&json!(1)).unwrap_err(),
            RowError::LabelNotAString("1".into())
        );
        assert_eq!(
            normalize_gold(&json!(1)).unwrap_err().to_string(),
            "answer 1 is not a gold label (expected the string Phishing, Legitimate or Abstain)"
        );
    }

    #[test]
    fn email_errors_keep_their_messages() {
        for (email, message) in [
            (json!([]), "field `email` is not an object"),
            (
                json!({"raw": "x", "text": "y"}),
                "field `email` has `raw` and other keys; give one form",
            ),
            (json!({"raw": 1}), "field `email.raw` is not a string"),
            (
                json!({"body": ""}),
                "unknown key `email.body` (expected raw, or headers, text, html, attachments)",
            ),
            (json!({"text": 1}), "field `email.text` is not a string"),
            (json!({"html": 1}), "field `email.html` is not a string"),
            (
                json!({"headers": []}),
                "field `email.headers` is not an object",
            ),
            (
                json!({"headers": {"From": 1}}),
                "field `email.headers.From` is not a string",
            ),
            (
                json!({"headers": {"X-Foo": "a"}}),
                "header `X-Foo` is not one E4 reads (known: From, Reply-To, Return-Path, To, \
                 Date, Subject, Message-ID, Authentication-Results, List-Id)",
            ),
            (
                json!({"attachments": {}}),
                "field `email.attachments` is not an array",
            ),
            (
                json!({"attachments": [{"type": "a", "size": 1}]}),
                "email.attachments[0] has no `name`",
            ),
            (
                json!({"attachments": [{"name": "a", "type": "b", "size": -1}]}),
                "email.attachments[0].size is not a non-negative integer",
            ),
            (
                json!({"attachments": [{"name": 1, "type": "b", "size": 1}]}),
                "field `email.attachments[0].name` is not a string",
            ),
        ] {
            assert_eq!(email_error(email.clone()), message, "{email}");
        }
        let twice = email_error(json!({"headers": {"From": "a", "from": "b"}}));
        assert!(
            twice == "header `from` is given twice" || twice == "header `From` is given twice",
            "{twice}"
        );
        assert_eq!(
            email_of_row(&json!({"raw": ""}), &EmailLimits::default()).unwrap_err(),
            RowError::Raw(EmailError::NotAMessage)
        );
        assert_eq!(
            email_error(json!({"raw": ""})),
            format!("email.raw: {}", EmailError::NotAMessage)
        );
    }

    #[test]
    fn rendering_errors_keep_their_messages() {
        let limits = EmailLimits::default();
        let email = Email {
            text: Some("hello".into()),
            ..Email::default()
        };
        let rendered = render(&email, &limits).text;
        assert_eq!(check_rendering(&rendered, &email, &limits), Ok(()));
        let first: String = rendered.chars().take(40).collect();
        assert_eq!(
            check_rendering("", &email, &limits)
                .unwrap_err()
                .to_string(),
            format!(
                "`question` is not the rendering (version {RENDER_VERSION}) of `email`: they \
                 differ from character 0 (question \"\", rendering {first:?})"
            )
        );
        assert_eq!(check_render_version(None), Ok(()));
        assert_eq!(
            check_render_version(Some(&json!({"render_version": 0})))
                .unwrap_err()
                .to_string(),
            format!("`meta.render_version` is 0; this build renders version {RENDER_VERSION}")
        );
    }

    #[test]
    fn gold_fact_errors_keep_their_messages() {
        let span =
            json!({"start": 0, "end": 2, "text": "xy", "category": "c", "polarity": "phish"});
        let error = |meta: Value| gold_facts(Some(&meta), "ab").unwrap_err().to_string();
        assert_eq!(
            error(json!({"spans": []})),
            "`meta.spans` is given without `meta.gold_source` (annotated, extractor or none)"
        );
        assert_eq!(
            error(json!({"gold_source": "x"})),
            "`meta.gold_source` \"x\" is not one of annotated, extractor, none"
        );
        assert!(error(json!({"gold_source": "annotated", "spans": 3}))
            .starts_with("`meta.spans` is not a list of {start, end, text, category, polarity}: "));
        assert_eq!(
            error(json!({"gold_source": "none", "spans": [span]})),
            "`meta.gold_source` is none but `meta.spans` is not empty"
        );
        assert_eq!(
            error(json!({"gold_source": "annotated", "spans": [span]})),
            "meta.spans[0]: question[0..2] is not \"xy\""
        );
    }
}
