//! The JSONL row of a scenario (spec §2.2): fixed key order, the structured
//! email that re-renders to `question`, and the generator metadata.

use serde_json::{json, Map, Value};
use svbench_mail::{Attachment, Email, Headers, RENDER_VERSION};

use super::draft::{Built, Span};
use super::{GENERATOR_NAME, GENERATOR_VERSION};
use crate::e4::{GoldSource, Label, Polarity};

/// What a row is, beyond its email.
#[derive(Debug, Clone)]
pub struct RowInfo {
    /// Gold label.
    pub label: Label,
    /// `meta.family`.
    pub family: &'static str,
    /// `meta.phishing_type` (phishing rows only).
    pub phishing_type: Option<&'static str>,
    /// `meta.brand`.
    pub brand: Option<&'static str>,
    /// `meta.pair_id`.
    pub pair_id: String,
    /// Hard indicator categories.
    pub hard: Vec<&'static str>,
    /// Soft indicators.
    pub soft: Vec<&'static str>,
    /// `meta.language`.
    pub language: &'static str,
    /// For ambiguous rows: archetype id and the three seeds.
    pub ambiguity: Option<(&'static str, super::AmbiguousSeeds)>,
}

impl RowInfo {
    /// `easy`, `medium` or `hard` (spec §3.1).
    pub fn difficulty(&self) -> &'static str {
        match self.label {
            Label::Abstain => "hard",
            Label::Phishing => match self.hard.len() {
                0 | 1 => "hard",
                2 => "medium",
                _ => "easy",
            },
            Label::Legitimate => match self.soft.len() {
                0 => "easy",
                1 => "medium",
                _ => "hard",
            },
        }
    }
}

/// The structured email (`{"headers": …, "text"|"html": …, "attachments": …}`).
pub fn email_json(email: &Email) -> Value {
    let h = &email.headers;
    let mut headers = Map::new();
    for (name, value) in [
        ("From", &h.from),
        ("Reply-To", &h.reply_to),
        ("To", &h.to),
        ("Date", &h.date),
        ("Subject", &h.subject),
        ("Authentication-Results", &h.authentication_results),
    ] {
        if let Some(v) = value {
            headers.insert(name.into(), json!(v));
        }
    }
    let mut out = Map::new();
    out.insert("headers".into(), Value::Object(headers));
    if let Some(text) = &email.text {
        out.insert("text".into(), json!(text));
    }
    if let Some(html) = &email.html {
        out.insert("html".into(), json!(html));
    }
    if !email.attachments.is_empty() {
        let list: Vec<Value> = email
            .attachments
            .iter()
            .map(|a| json!({"name": a.name, "type": a.mime_type, "size": a.size}))
            .collect();
        out.insert("attachments".into(), Value::Array(list));
    }
    Value::Object(out)
}

/// An [`Email`] from its structured form: header names case-insensitively,
/// `type` as the MIME type. `None` when a field has the wrong shape.
pub fn email_from_json(v: &Value) -> Option<Email> {
    let mut headers = Headers::default();
    for (name, value) in v.get("headers")?.as_object()? {
        let value = Some(value.as_str()?.to_string());
        match name.to_ascii_lowercase().as_str() {
            "from" => headers.from = value,
            "reply-to" => headers.reply_to = value,
            "return-path" => headers.return_path = value,
            "to" => headers.to = value,
            "date" => headers.date = value,
            "subject" => headers.subject = value,
            "message-id" => headers.message_id = value,
            "authentication-results" => headers.authentication_results = value,
            _ => {}
        }
    }
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let mut attachments = Vec::new();
    if let Some(list) = v.get("attachments") {
        for a in list.as_array()? {
            attachments.push(Attachment {
                name: a.get("name")?.as_str()?.to_string(),
                mime_type: a.get("type")?.as_str()?.to_string(),
                size: a.get("size")?.as_u64()?,
            });
        }
    }
    Some(Email {
        headers,
        text: text("text"),
        html: text("html"),
        attachments,
    })
}

fn span_json(s: &Span) -> Value {
    let mut m = Map::new();
    m.insert("start".into(), json!(s.start));
    m.insert("end".into(), json!(s.end));
    m.insert("text".into(), json!(s.text));
    m.insert("category".into(), json!(s.category));
    m.insert(
        "polarity".into(),
        json!(match s.polarity {
            Polarity::Phish => "phish",
            Polarity::Benign => "benign",
        }),
    );
    if s.categories.len() > 1 {
        m.insert("categories".into(), json!(s.categories));
    }
    Value::Object(m)
}

/// The row, keys in the documented order.
pub fn build_row(id: &str, split: &str, built: &Built, info: &RowInfo, seed: u64) -> Value {
    let mut meta = Map::new();
    meta.insert("split".into(), json!(split));
    meta.insert(
        "spans".into(),
        Value::Array(built.spans.iter().map(span_json).collect()),
    );
    meta.insert("gold_source".into(), json!(GoldSource::Annotated.as_str()));
    meta.insert("family".into(), json!(info.family));
    meta.insert("phishing_type".into(), json!(info.phishing_type));
    meta.insert("difficulty".into(), json!(info.difficulty()));
    meta.insert("pair_id".into(), json!(info.pair_id));
    meta.insert("ambiguous".into(), json!(info.ambiguity.is_some()));
    meta.insert("render_version".into(), json!(RENDER_VERSION));
    meta.insert("source".into(), json!("generated"));
    meta.insert(
        "generator".into(),
        json!({"name": GENERATOR_NAME, "version": GENERATOR_VERSION, "seed": seed}),
    );
    meta.insert("brand".into(), json!(info.brand));
    meta.insert("language".into(), json!(info.language));
    meta.insert("indicators".into(), json!(info.hard));
    meta.insert("soft_indicators".into(), json!(info.soft));
    if let Some((arch, seeds)) = &info.ambiguity {
        meta.insert("archetype".into(), json!(arch));
        meta.insert("surface_seed".into(), json!(seeds.surface));
        meta.insert(
            "scenario_seeds".into(),
            json!({"legitimate": seeds.legitimate, "phishing": seeds.phishing}),
        );
    }
    let mut row = Map::new();
    row.insert("id".into(), json!(id));
    row.insert("question".into(), json!(built.question));
    row.insert("answer".into(), json!(info.label.as_str()));
    row.insert("email".into(), email_json(&built.email));
    row.insert("meta".into(), Value::Object(meta));
    Value::Object(row)
}
