//! What one E4 record contributes to the metrics (E4 §8, §9): gold, the
//! call with its confidence, the grouping keys and the grounded evidence,
//! read from recorded fields only (`parsed`, `parse`, `info.meta.spans`).

use crate::e4::report::record::{E4Fields, E4Parsed};
use serde_json::Value;
use svbench_core::ParseStatus;

use svbench_report::read::RecordView;

/// A gold label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Gold {
    /// Phishing (the positive class).
    Phishing,
    /// Legitimate.
    Legitimate,
    /// Genuinely ambiguous: abstaining is right.
    Abstain,
}

impl Gold {
    /// The label as written.
    pub fn name(self) -> &'static str {
        match self {
            Gold::Phishing => "Phishing",
            Gold::Legitimate => "Legitimate",
            Gold::Abstain => "Abstain",
        }
    }
}

/// A predicted outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Call {
    /// Decided Phishing.
    Phishing,
    /// Decided Legitimate.
    Legitimate,
    /// Abstained.
    Abstain,
    /// No usable label.
    Invalid,
}

impl Call {
    /// Whether the call is a decided label (Phishing or Legitimate).
    pub fn decided(self) -> bool {
        matches!(self, Call::Phishing | Call::Legitimate)
    }

    /// Whether the call equals the gold label.
    pub fn correct(self, gold: Gold) -> bool {
        matches!(
            (self, gold),
            (Call::Phishing, Gold::Phishing)
                | (Call::Legitimate, Gold::Legitimate)
                | (Call::Abstain, Gold::Abstain)
        )
    }
}

/// Reads a label ASCII-case-insensitively.
pub fn read_label(s: &str) -> Option<Gold> {
    let s = s.trim();
    [Gold::Phishing, Gold::Legitimate, Gold::Abstain]
        .into_iter()
        .find(|g| g.name().eq_ignore_ascii_case(s))
}

/// One relevant gold span of a row: its category and whether an item
/// recalled it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelevantSpan {
    /// `meta.spans[i].category` (`unknown` when absent).
    pub category: String,
    /// Matched by some valid item.
    pub recalled: bool,
}

/// The evidence of a row where evidence is scored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvidenceRow {
    /// Items given, valid and invalid.
    pub items: u64,
    /// Valid (grounded) items.
    pub valid: u64,
    /// Valid items matching some gold span.
    pub matched: u64,
    /// Status of every invalid item.
    pub invalid_reasons: Vec<String>,
    /// The relevant gold spans (E4 §4.2), in `meta.spans` order.
    pub relevant: Vec<RelevantSpan>,
    /// The `evidence` component (0 for an invalid answer).
    pub f1: f64,
}

impl EvidenceRow {
    /// matched / items; `None` without items.
    pub fn precision(&self) -> Option<f64> {
        svbench_core::metrics::ratio(self.matched, self.items)
    }

    /// Recalled relevant spans.
    pub fn recalled(&self) -> u64 {
        self.relevant.iter().filter(|s| s.recalled).count() as u64
    }

    /// recalled / relevant; `None` without relevant spans.
    pub fn recall(&self) -> Option<f64> {
        svbench_core::metrics::ratio(self.recalled(), self.relevant.len() as u64)
    }
}

/// One scored E4 row as the metrics see it.
#[derive(Debug, Clone, PartialEq)]
pub struct E4Sample {
    /// Gold label.
    pub gold: Gold,
    /// Predicted outcome.
    pub call: Call,
    /// Stated confidence (0.0 for label-only answers; 1.0 for invalid ones).
    pub confidence: f64,
    /// The answer had a label but no usable confidence.
    pub label_only: bool,
    /// Total reward, NaN when absent.
    pub reward: f64,
    /// `gold_source` (`unknown` when absent).
    pub gold_source: String,
    /// `phishing_type`, `difficulty`, `family` (`unknown` when absent).
    pub phishing_type: String,
    /// See [`E4Sample::phishing_type`].
    pub difficulty: String,
    /// See [`E4Sample::phishing_type`].
    pub family: String,
    /// The evidence; `None` where it is not applicable.
    pub evidence: Option<EvidenceRow>,
}

/// Reads a scored record; `None` when it has no usable gold label.
pub fn sample(r: &RecordView<E4Fields>) -> Option<E4Sample> {
    let empty = E4Parsed::default();
    let parsed = r.env.parsed.as_ref();
    let p = parsed.unwrap_or(&empty);
    let gold = read_label(&p.gold).or_else(|| r.answer.as_str().and_then(read_label))?;
    let status = r
        .parse
        .as_ref()
        .or(p.parse.as_ref())
        .map(|x| x.status)
        .unwrap_or(ParseStatus::Invalid);
    let label = p.label.as_deref().or(r.env.predicted_label.as_deref());
    let call = match (status, label.and_then(read_label)) {
        (ParseStatus::Invalid | ParseStatus::NoAnswer, _) | (_, None) => Call::Invalid,
        (_, Some(Gold::Phishing)) => Call::Phishing,
        (_, Some(Gold::Legitimate)) => Call::Legitimate,
        (_, Some(Gold::Abstain)) => Call::Abstain,
    };
    let stated = p.confidence.or(r.env.confidence);
    let label_only =
        call != Call::Invalid && (status == ParseStatus::LabelOnly || stated.is_none());
    let confidence = match call {
        Call::Invalid => 1.0,
        _ if label_only => 0.0,
        _ => stated.unwrap_or(0.0),
    };
    let key = |v: &Option<String>| {
        v.as_deref()
            .filter(|s| !s.is_empty())
            .unwrap_or("unknown")
            .to_string()
    };
    let evidence = (parsed.is_some() && p.evidence.applicable).then(|| {
        let mut row = evidence_row(p, gold, spans(r));
        if call == Call::Invalid {
            // An invalid answer scores 0 on every component.
            row.f1 = 0.0;
        }
        row
    });
    Some(E4Sample {
        gold,
        call,
        confidence,
        label_only,
        reward: r.reward.unwrap_or(f64::NAN),
        gold_source: if p.gold_source.is_empty() {
            "unknown".to_string()
        } else {
            p.gold_source.clone()
        },
        phishing_type: key(&p.phishing_type),
        difficulty: key(&p.difficulty),
        family: key(&p.family),
        evidence,
    })
}

/// `info.meta.spans` as written (empty when absent or not an array).
fn spans(r: &RecordView<E4Fields>) -> &[Value] {
    r.env
        .info
        .as_ref()
        .and_then(|i| i.meta.0.as_ref())
        .and_then(|m| m.spans.as_ref())
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Whether a gold span counts for a row of this gold label (E4 §4.2).
fn relevant(gold: Gold, polarity: Option<&str>) -> bool {
    match gold {
        Gold::Phishing => polarity == Some("phish"),
        Gold::Legitimate => polarity == Some("benign"),
        Gold::Abstain => true,
    }
}

fn evidence_row(p: &E4Parsed, gold: Gold, spans: &[Value]) -> EvidenceRow {
    let items = &p.evidence.items;
    // Only spans relevant to the gold label count (a quote of a phishing
    // indicator does not support a Legitimate verdict).
    let counts: Vec<bool> = spans
        .iter()
        .map(|s| relevant(gold, s.get("polarity").and_then(Value::as_str)))
        .collect();
    let mut hit = vec![false; spans.len()];
    let mut row = EvidenceRow {
        items: items.len() as u64,
        f1: p.evidence.f1.unwrap_or(0.0),
        ..EvidenceRow::default()
    };
    for item in items {
        if item.status == "valid" {
            row.valid += 1;
            let mut matched = false;
            for &g in &item.matched_gold {
                if counts.get(g) == Some(&true) {
                    hit[g] = true;
                    matched = true;
                }
            }
            row.matched += u64::from(matched);
        } else {
            row.invalid_reasons.push(item.status.clone());
        }
    }
    for ((span, recalled), counted) in spans.iter().zip(hit).zip(counts) {
        if counted {
            row.relevant.push(RelevantSpan {
                category: span
                    .get("category")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown")
                    .to_string(),
                recalled,
            });
        }
    }
    row
}
