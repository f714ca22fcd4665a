//! The parts of an E4 row (spec §2.2) beyond `question`: the email itself,
//! raw or structured, and the gold facts in `meta`.

use serde::Deserialize;
use serde_json::{Map, Value};
use svbench_scan::email::{parse_message, render, Attachment, Email, EmailLimits, Headers};

use super::{GoldSource, GoldSpan, Label};

/// Reads the gold label strictly (trimmed, case-insensitive, canonical case
/// out). Anything but one of the three label strings is an error: there is
/// never a default label.
pub fn normalize_gold(answer: &Value) -> Result<Label, String> {
    match answer {
        Value::String(s) => {
            let t = s.trim();
            Label::ALL
                .into_iter()
                .find(|l| l.as_str().eq_ignore_ascii_case(t))
                .ok_or_else(|| {
                    format!("answer {s:?} is not a gold label (expected Phishing, Legitimate or Abstain)")
                })
        }
        other => Err(format!(
            "answer {other} is not a gold label (expected the string Phishing, Legitimate or Abstain)"
        )),
    }
}

/// The row's `email`: `{"raw": "<RFC 5322 message>"}` or
/// `{"headers": {name: value}, "text", "html", "attachments": [{name, type, size}]}`.
pub fn email_of_row(email: &Value, limits: &EmailLimits) -> Result<Email, String> {
    let Value::Object(map) = email else {
        return Err("field `email` is not an object".into());
    };
    if let Some(raw) = map.get("raw") {
        if map.len() > 1 {
            return Err("field `email` has `raw` and other keys; give one form".into());
        }
        let raw = raw.as_str().ok_or("field `email.raw` is not a string")?;
        return parse_message(raw.as_bytes(), limits).map_err(|e| format!("email.raw: {e}"));
    }
    structured(map)
}

fn structured(map: &Map<String, Value>) -> Result<Email, String> {
    let mut email = Email::default();
    for (key, value) in map {
        match key.as_str() {
            "headers" => email.headers = headers(value)?,
            "text" => email.text = Some(string(value, "email.text")?),
            "html" => email.html = Some(string(value, "email.html")?),
            "attachments" => email.attachments = attachments(value)?,
            other => {
                return Err(format!(
                "unknown key `email.{other}` (expected raw, or headers, text, html, attachments)"
            ))
            }
        }
    }
    Ok(email)
}

fn string(value: &Value, what: &str) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("field `{what}` is not a string"))
}

fn headers(value: &Value) -> Result<Headers, String> {
    let Value::Object(map) = value else {
        return Err("field `email.headers` is not an object".into());
    };
    let mut h = Headers::default();
    for (name, value) in map {
        let value = Some(string(value, &format!("email.headers.{name}"))?);
        let Some(slot) = h.slot_mut(name) else {
            return Err(format!(
                "header `{name}` is not one E4 reads (known: {})",
                Headers::NAMES.join(", ")
            ));
        };
        if slot.is_some() {
            return Err(format!("header `{name}` is given twice"));
        }
        *slot = value;
    }
    Ok(h)
}

fn attachments(value: &Value) -> Result<Vec<Attachment>, String> {
    let Value::Array(items) = value else {
        return Err("field `email.attachments` is not an array".into());
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let field = |key: &str| {
                item.get(key)
                    .ok_or_else(|| format!("email.attachments[{i}] has no `{key}`"))
            };
            Ok(Attachment {
                name: string(field("name")?, &format!("email.attachments[{i}].name"))?,
                mime_type: string(field("type")?, &format!("email.attachments[{i}].type"))?,
                size: field("size")?.as_u64().ok_or_else(|| {
                    format!("email.attachments[{i}].size is not a non-negative integer")
                })?,
            })
        })
        .collect()
}

/// Checks that `question` is the rendering of the row's email.
pub fn check_rendering(question: &str, email: &Email, limits: &EmailLimits) -> Result<(), String> {
    let rendered = render(email, limits);
    if rendered.text == question {
        return Ok(());
    }
    let at = first_difference(question, &rendered.text);
    Err(format!(
        "`question` is not the rendering (version {}) of `email`: they differ from character {at} \
         (question {:?}, rendering {:?})",
        svbench_scan::email::RENDER_VERSION,
        excerpt(question, at),
        excerpt(&rendered.text, at),
    ))
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
pub fn gold_facts(meta: Option<&Value>, question: &str) -> Result<RowGold, String> {
    let spans_value = meta.and_then(|m| m.get("spans"));
    let source_value = meta.and_then(|m| m.get("gold_source"));
    let gold_source =
        match source_value {
            None if spans_value.is_some() => return Err(
                "`meta.spans` is given without `meta.gold_source` (annotated, extractor or none)"
                    .into(),
            ),
            None => GoldSource::None,
            Some(v) => GoldSource::deserialize(v).map_err(|_| {
                format!("`meta.gold_source` {v} is not one of annotated, extractor, none")
            })?,
        };
    let spans: Vec<GoldSpan> = match spans_value {
        None => Vec::new(),
        Some(v) => Vec::<GoldSpan>::deserialize(v).map_err(|e| {
            format!("`meta.spans` is not a list of {{start, end, text, category, polarity}}: {e}")
        })?,
    };
    if gold_source == GoldSource::None && !spans.is_empty() {
        return Err("`meta.gold_source` is none but `meta.spans` is not empty".into());
    }
    if !spans.is_empty() {
        let chars: Vec<char> = question.chars().collect();
        for (i, span) in spans.iter().enumerate() {
            let inside = span.start < span.end && span.end <= chars.len();
            if !inside
                || !chars[span.start..span.end]
                    .iter()
                    .copied()
                    .eq(span.text.chars())
            {
                return Err(format!(
                    "meta.spans[{i}]: question[{}..{}] is not {:?}",
                    span.start, span.end, span.text
                ));
            }
        }
    }
    Ok(RowGold { spans, gold_source })
}

/// Checks `meta.render_version` when present.
pub fn check_render_version(meta: Option<&Value>) -> Result<(), String> {
    match meta.and_then(|m| m.get("render_version")) {
        None => Ok(()),
        Some(v) if v.as_u64() == Some(u64::from(svbench_scan::email::RENDER_VERSION)) => Ok(()),
        Some(v) => Err(format!(
            "`meta.render_version` is {v}; this build renders version {}",
            svbench_scan::email::RENDER_VERSION
        )),
    }
}
