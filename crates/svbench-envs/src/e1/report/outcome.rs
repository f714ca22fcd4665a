//! What one E1 record contributes to the metrics (E1 §4.1): gold and an
//! outcome — decided (Malicious/Benign) with a confidence, abstain, or
//! invalid — read from recorded fields only, never re-parsed.

use serde_json::Value;
use svbench_core::ParseStatus;

use super::record::E1Fields;
use svbench_report::read::RecordView;

/// A predicted outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prediction {
    /// Decided Malicious.
    Malicious,
    /// Decided Benign.
    Benign,
    /// Abstained.
    Abstain,
    /// No usable label (invalid or no answer).
    Invalid,
}

/// One scored E1 sample as the metrics see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct E1Sample {
    /// Predicted outcome.
    pub prediction: Prediction,
    /// Stated confidence (0.0 for label-only answers; unused for abstain and invalid).
    pub confidence: f64,
    /// Gold is Malicious.
    pub gold_malicious: bool,
    /// The answer had a label but no usable confidence.
    pub label_only: bool,
}

impl E1Sample {
    /// A decided sample with the given confidence.
    pub fn decided(malicious: bool, gold_malicious: bool, confidence: f64) -> Self {
        Self {
            prediction: if malicious {
                Prediction::Malicious
            } else {
                Prediction::Benign
            },
            confidence,
            gold_malicious,
            label_only: false,
        }
    }

    /// An abstention.
    pub fn abstain(gold_malicious: bool) -> Self {
        Self {
            prediction: Prediction::Abstain,
            confidence: 0.0,
            gold_malicious,
            label_only: false,
        }
    }

    /// An invalid output.
    pub fn invalid(gold_malicious: bool) -> Self {
        Self {
            prediction: Prediction::Invalid,
            confidence: 1.0,
            gold_malicious,
            label_only: false,
        }
    }
}

/// Why a scored record could not enter the E1 metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// The gold label is not Malicious/Benign.
    Gold(String),
}

/// Reads the gold label: a case-insensitive `malicious`/`benign` string,
/// `true`/`false`, or `1`/`0` (E1 §1.3).
pub fn gold_is_malicious(answer: &Value) -> Option<bool> {
    match answer {
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "malicious" => Some(true),
            "benign" => Some(false),
            _ => None,
        },
        Value::Bool(b) => Some(*b),
        Value::Number(n) => match n.as_i64() {
            Some(1) => Some(true),
            Some(0) => Some(false),
            _ => None,
        },
        _ => None,
    }
}

pub(super) enum Label {
    Malicious,
    Benign,
    Abstain,
}

pub(super) fn standard_label(v: Option<&str>) -> Option<Label> {
    match v?.trim().to_ascii_lowercase().as_str() {
        "malicious" => Some(Label::Malicious),
        "benign" => Some(Label::Benign),
        "abstain" => Some(Label::Abstain),
        _ => None,
    }
}

/// The outcome of a scored (non-errored) record.
///
/// With a `parse` object: `invalid`/`no_answer` are invalid; `valid` and
/// `label_only` take the label from `parsed` (else the compatibility field
/// `predicted_label`), label-only with confidence 0.0. Without one
/// (upstream-style records): a standard label in `predicted_label` is decided
/// or abstain, anything else (including empty) is invalid; a missing or
/// non-numeric confidence makes it label-only.
pub fn classify(rec: &RecordView<E1Fields>) -> Result<E1Sample, Unusable> {
    let gold =
        gold_is_malicious(&rec.answer).ok_or_else(|| Unusable::Gold(rec.answer.to_string()))?;
    let env = &rec.env;
    let parsed = env.parsed.as_ref();
    let (label, confidence, label_only) = match &rec.parse {
        Some(p) if matches!(p.status, ParseStatus::Invalid | ParseStatus::NoAnswer) => {
            return Ok(E1Sample::invalid(gold));
        }
        Some(p) => {
            let label = standard_label(parsed.map(|p| p.label.as_str()))
                .or_else(|| standard_label(env.predicted_label.as_deref()));
            let confidence = parsed.and_then(|p| p.confidence).or(env.confidence);
            let label_only = p.status == ParseStatus::LabelOnly || confidence.is_none();
            (label, confidence, label_only)
        }
        None => {
            let confidence = env.confidence;
            (
                standard_label(env.predicted_label.as_deref()),
                confidence,
                confidence.is_none(),
            )
        }
    };
    let Some(label) = label else {
        return Ok(E1Sample::invalid(gold));
    };
    let confidence = if label_only {
        0.0
    } else {
        confidence.unwrap_or(0.0)
    };
    let mut sample = match label {
        Label::Malicious => E1Sample::decided(true, gold, confidence),
        Label::Benign => E1Sample::decided(false, gold, confidence),
        Label::Abstain => E1Sample::abstain(gold),
    };
    sample.label_only = label_only;
    Ok(sample)
}

/// The parse status a record counts under: its `parse.status`, else (for
/// upstream-style records) the status implied by its compatibility fields.
pub fn status_of(rec: &RecordView<E1Fields>) -> ParseStatus {
    if let Some(p) = &rec.parse {
        return p.status;
    }
    match standard_label(rec.env.predicted_label.as_deref()) {
        None => ParseStatus::Invalid,
        Some(_) if rec.env.confidence.is_some() => ParseStatus::Valid,
        Some(_) => ParseStatus::LabelOnly,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(s: &str) -> RecordView<E1Fields> {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn recorded_outcomes() {
        let r = rec(
            r#"{"answer":"Malicious","parse":{"status":"valid","reason":null,"format_ok":true},
            "parsed":{"label":"Malicious","confidence":0.9,"rationale":null,"format_ok":true},
            "predicted_label":"Malicious","confidence":0.9}"#,
        );
        assert_eq!(classify(&r).unwrap(), E1Sample::decided(true, true, 0.9));
        let r = rec(
            r#"{"answer":"Benign","parse":{"status":"label_only","reason":"confidence_missing","format_ok":false},
            "parsed":{"label":"Benign","confidence":null,"rationale":null,"format_ok":false},
            "predicted_label":"Benign","confidence":null}"#,
        );
        let s = classify(&r).unwrap();
        assert_eq!(
            (s.prediction, s.confidence, s.label_only),
            (Prediction::Benign, 0.0, true)
        );
        let r = rec(
            r#"{"answer":"Benign","parse":{"status":"invalid","reason":"no_json_object","format_ok":false},
            "parsed":null,"predicted_label":"","confidence":null}"#,
        );
        assert_eq!(classify(&r).unwrap().prediction, Prediction::Invalid);
    }

    #[test]
    fn upstream_style_records() {
        let r = rec(r#"{"answer":"malicious","predicted_label":"abstain","confidence":0.2}"#);
        assert_eq!(classify(&r).unwrap().prediction, Prediction::Abstain);
        assert_eq!(status_of(&r), ParseStatus::Valid);
        let r = rec(r#"{"answer":true,"predicted_label":"","confidence":0.0}"#);
        assert_eq!(classify(&r).unwrap(), E1Sample::invalid(true));
        assert_eq!(status_of(&r), ParseStatus::Invalid);
        let r = rec(r#"{"answer":0,"predicted_label":"Maybe","confidence":0.5}"#);
        assert_eq!(classify(&r).unwrap().prediction, Prediction::Invalid);
        let r = rec(r#"{"answer":"Benign","predicted_label":"BENIGN"}"#);
        let s = classify(&r).unwrap();
        assert!(s.label_only && s.prediction == Prediction::Benign);
        assert_eq!(status_of(&r), ParseStatus::LabelOnly);
        let r = rec(r#"{"answer":"Abstain","predicted_label":"Benign","confidence":0.5}"#);
        assert!(classify(&r).is_err());
    }
}
