//! Leak and quality checks for E1 datasets (E1 §6.4).
//!
//! Values are parsed back from `question` (the v1 template, or upstream's
//! `Device … observed …` template), so the checks see exactly what a model sees.
//!
//! - **Single-field leak**: for every rendered field, a per-value majority rule
//!   learnt on train (tie → Malicious, unseen value → train majority), for
//!   numeric fields also the best threshold stump (midpoints, both directions,
//!   `?` as its own bucket with its train majority), and for every field its
//!   "is `?`" indicator. Scored by balanced accuracy on each evaluation split.
//!   Numeric fields get the categorical rule too (stricter than §6.4: ports and
//!   packet counts are small integers a lookup table could memorise).
//! - **Learnability**: naive Bayes (categoricals as-is, ports as exact values,
//!   other numbers in log2 buckets, `?` bucket, Laplace α = 1).
//! - **Abstention**: share of rows whose `meta.optimal_action` is Abstain and
//!   the mean v1 reward of the Bayes-rule oracle with and without abstaining.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Timelike};
use serde_json::Value;

use super::dataset::normalize_gold;
use super::generate::decision::{oracle_answer, v1_total};
use super::generate::parse_question_v1;
use super::generate::render::ARROW;
use super::Gold;

/// A field value read back from a question.
#[derive(Debug, Clone, PartialEq)]
pub enum Feature {
    /// Rendered as `?`.
    Missing,
    /// A number.
    Num(f64),
    /// Any other token.
    Cat(String),
}

impl Feature {
    fn from_token(t: &str) -> Feature {
        if t == "?" {
            Feature::Missing
        } else if let Ok(x) = t.parse::<f64>() {
            if x.is_finite() {
                Feature::Num(x)
            } else {
                Feature::Cat(t.to_string())
            }
        } else {
            Feature::Cat(t.to_string())
        }
    }

    fn key(&self) -> String {
        match self {
            Feature::Missing => "?".to_string(),
            Feature::Num(x) => format!("{x}"),
            Feature::Cat(s) => s.clone(),
        }
    }
}

/// One row as the checks see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Field name → value, parsed from the question.
    pub features: BTreeMap<String, Feature>,
    /// Gold label.
    pub gold: Gold,
    /// `meta.ambiguous` (false when absent).
    pub ambiguous: bool,
}

/// Errors turning rows into samples.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LeakError {
    /// A row the checks cannot read.
    #[error("row {index}: {message}")]
    Row {
        /// 0-based row index.
        index: usize,
        /// What is wrong.
        message: String,
    },
}

/// Reads the fields of a v1 or upstream-template question.
pub fn question_features(q: &str) -> Option<BTreeMap<String, Feature>> {
    if let Some(f) = parse_question_v1(q) {
        let mut m = BTreeMap::new();
        let tok = |v: Option<String>| v.map_or(Feature::Missing, Feature::Cat);
        let num = |v: Option<f64>| v.map_or(Feature::Missing, Feature::Num);
        let int = |v: Option<u64>| v.map_or(Feature::Missing, |x| Feature::Num(x as f64));
        let hour =
            f.ts.and_then(|t| DateTime::from_timestamp(t as i64, 0))
                .map_or(Feature::Missing, |d| {
                    Feature::Cat(format!("{:02}", d.hour()))
                });
        m.insert("device".into(), tok(f.device_type));
        m.insert("proto".into(), tok(f.proto));
        m.insert("service".into(), tok(f.service));
        m.insert("orig_p".into(), int(f.orig_p));
        m.insert("resp_p".into(), int(f.resp_p));
        m.insert("duration".into(), num(f.duration));
        m.insert("orig_bytes".into(), int(f.orig_bytes));
        m.insert("resp_bytes".into(), int(f.resp_bytes));
        m.insert("orig_pkts".into(), int(f.orig_pkts));
        m.insert("resp_pkts".into(), int(f.resp_pkts));
        m.insert("conn_state".into(), tok(f.conn_state));
        m.insert("flags".into(), tok(f.history));
        m.insert("hour".into(), hour);
        return Some(m);
    }
    upstream_features(q)
}

/// Upstream's `Device {d} observed {proto} {a}→{b}, duration {x}, bytes {n}[, flags [{h}]]. …`.
fn upstream_features(q: &str) -> Option<BTreeMap<String, Feature>> {
    let rest = q.strip_prefix("Device ")?;
    let (device, rest) = rest.split_once(" observed ")?;
    let body = match rest.find(". Decide") {
        Some(i) => &rest[..i],
        None => rest.trim_end_matches('.'),
    };
    let mut parts = body.split(", ");
    let head = parts.next()?;
    let (proto, ports) = head.split_once(' ')?;
    let (a, b) = ports.split_once(ARROW).or_else(|| ports.split_once("->"))?;
    let mut m = BTreeMap::new();
    m.insert("device".into(), Feature::Cat(device.to_string()));
    m.insert("proto".into(), Feature::Cat(proto.to_string()));
    m.insert("orig_p".into(), Feature::from_token(a));
    m.insert("resp_p".into(), Feature::from_token(b));
    for part in parts {
        if let Some(v) = part.strip_prefix("duration ") {
            m.insert("duration".into(), Feature::from_token(v));
        } else if let Some(v) = part.strip_prefix("bytes ") {
            m.insert("bytes".into(), Feature::from_token(v));
        } else if let Some(v) = part.strip_prefix("flags ") {
            let inner = v.trim_start_matches('[').trim_end_matches(']');
            let f = if inner.is_empty() {
                Feature::Missing
            } else {
                Feature::from_token(inner)
            };
            m.insert("flags".into(), f);
        }
    }
    Some(m)
}

/// Turns dataset rows into samples (question parsed, gold normalised).
pub fn samples(rows: &[Value]) -> Result<Vec<Sample>, LeakError> {
    rows.iter()
        .enumerate()
        .map(|(index, row)| {
            let err = |message: String| LeakError::Row { index, message };
            let q = row
                .get("question")
                .and_then(Value::as_str)
                .ok_or_else(|| err("no string `question`".into()))?;
            let features = question_features(q)
                .ok_or_else(|| err(format!("question is in no known template: {q}")))?;
            let gold = normalize_gold(row.get("answer").unwrap_or(&Value::Null))
                .map_err(|e| err(e.to_string()))?;
            let ambiguous = row["meta"]["ambiguous"].as_bool().unwrap_or(false);
            Ok(Sample {
                features,
                gold,
                ambiguous,
            })
        })
        .collect()
}

/// Balanced accuracy: mean recall over the classes present in `gold`.
pub fn balanced_accuracy(pred: &[Gold], gold: &[Gold]) -> f64 {
    let mut recalls = Vec::new();
    for class in [Gold::Benign, Gold::Malicious] {
        let total = gold.iter().filter(|g| **g == class).count();
        if total > 0 {
            let hit = pred
                .iter()
                .zip(gold)
                .filter(|(p, g)| **g == class && **p == class)
                .count();
            recalls.push(hit as f64 / total as f64);
        }
    }
    if recalls.is_empty() {
        0.0
    } else {
        recalls.iter().sum::<f64>() / recalls.len() as f64
    }
}

/// The kind of single-field rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RuleKind {
    /// Per-value majority.
    Categorical,
    /// Best threshold stump with a `?` bucket.
    Stump,
    /// Majority per "is `?`".
    Missing,
}

impl RuleKind {
    /// Short name.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Categorical => "categorical",
            RuleKind::Stump => "stump",
            RuleKind::Missing => "is_missing",
        }
    }
}

/// One rule's result on every evaluation split.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldLeak {
    /// Field name.
    pub field: String,
    /// Rule kind.
    pub rule: RuleKind,
    /// Balanced accuracy per evaluation split, in the order given.
    pub balanced_accuracy: Vec<(String, f64)>,
}

/// All single-field rules.
#[derive(Debug, Clone, PartialEq)]
pub struct LeakReport {
    /// One entry per (field, rule).
    pub fields: Vec<FieldLeak>,
}

impl LeakReport {
    /// The highest balanced accuracy on `split` and the (field, rule) reaching it.
    pub fn worst(&self, split: &str) -> Option<(&str, RuleKind, f64)> {
        self.fields
            .iter()
            .filter_map(|f| {
                f.balanced_accuracy
                    .iter()
                    .find(|(s, _)| s == split)
                    .map(|(_, ba)| (f.field.as_str(), f.rule, *ba))
            })
            .max_by(|a, b| a.2.total_cmp(&b.2))
    }

    /// Balanced accuracy of one (field, rule) on one split.
    pub fn get(&self, field: &str, rule: RuleKind, split: &str) -> Option<f64> {
        self.fields
            .iter()
            .find(|f| f.field == field && f.rule == rule)?
            .balanced_accuracy
            .iter()
            .find(|(s, _)| s == split)
            .map(|(_, v)| *v)
    }
}

fn majority(counts: (usize, usize)) -> Gold {
    // (benign, malicious); tie → Malicious.
    if counts.1 >= counts.0 {
        Gold::Malicious
    } else {
        Gold::Benign
    }
}

fn class_counts<'a>(it: impl Iterator<Item = &'a Gold>) -> (usize, usize) {
    it.fold((0, 0), |(b, m), g| match g {
        Gold::Benign => (b + 1, m),
        Gold::Malicious => (b, m + 1),
    })
}

/// A learnt single-field rule.
enum Rule {
    Table(HashMap<String, Gold>, Gold),
    Stump {
        threshold: f64,
        above: Gold,
        missing: Gold,
    },
}

impl Rule {
    fn predict(&self, v: Option<&Feature>) -> Gold {
        match self {
            Rule::Table(t, default) => {
                let key = v.map_or("?".to_string(), Feature::key);
                *t.get(&key).unwrap_or(default)
            }
            Rule::Stump {
                threshold,
                above,
                missing,
            } => match v {
                Some(Feature::Num(x)) => {
                    if *x > *threshold {
                        *above
                    } else {
                        other(*above)
                    }
                }
                _ => *missing,
            },
        }
    }
}

fn other(g: Gold) -> Gold {
    match g {
        Gold::Benign => Gold::Malicious,
        Gold::Malicious => Gold::Benign,
    }
}

fn learn_table(train: &[Sample], key: impl Fn(&Sample) -> String) -> Rule {
    let mut counts: HashMap<String, (usize, usize)> = HashMap::new();
    for s in train {
        let c = counts.entry(key(s)).or_default();
        match s.gold {
            Gold::Benign => c.0 += 1,
            Gold::Malicious => c.1 += 1,
        }
    }
    let default = majority(class_counts(train.iter().map(|s| &s.gold)));
    Rule::Table(
        counts.into_iter().map(|(k, c)| (k, majority(c))).collect(),
        default,
    )
}

/// The stump maximising train balanced accuracy (first best in threshold order).
fn learn_stump(train: &[Sample], field: &str) -> Option<Rule> {
    let mut nums: Vec<(f64, Gold)> = Vec::new();
    let mut missing = (0usize, 0usize);
    for s in train {
        match s.features.get(field) {
            Some(Feature::Num(x)) => nums.push((*x, s.gold)),
            _ => match s.gold {
                Gold::Benign => missing.0 += 1,
                Gold::Malicious => missing.1 += 1,
            },
        }
    }
    if nums.is_empty() {
        return None;
    }
    let missing_pred = majority(missing);
    nums.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (tot_b, tot_m) = class_counts(train.iter().map(|s| &s.gold));
    let (nb, nm) = class_counts(nums.iter().map(|n| &n.1));
    let (miss_b_ok, miss_m_ok) = match missing_pred {
        Gold::Benign => (missing.0, 0),
        Gold::Malicious => (0, missing.1),
    };
    let ba = |tp: usize, tn: usize| {
        let mut r = Vec::new();
        if tot_m > 0 {
            r.push((tp + miss_m_ok) as f64 / tot_m as f64);
        }
        if tot_b > 0 {
            r.push((tn + miss_b_ok) as f64 / tot_b as f64);
        }
        r.iter().sum::<f64>() / r.len().max(1) as f64
    };
    let mut best: Option<(f64, f64, Gold)> = None;
    // below_b / below_m: counts at or below the candidate threshold.
    let (mut below_b, mut below_m) = (0usize, 0usize);
    let mut i = 0;
    while i < nums.len() {
        let x = nums[i].0;
        while i < nums.len() && nums[i].0 == x {
            match nums[i].1 {
                Gold::Benign => below_b += 1,
                Gold::Malicious => below_m += 1,
            }
            i += 1;
        }
        if i == nums.len() {
            break;
        }
        let t = (x + nums[i].0) / 2.0;
        let (above_b, above_m) = (nb - below_b, nm - below_m);
        for (above, score) in [
            (Gold::Malicious, ba(above_m, below_b)),
            (Gold::Benign, ba(below_m, above_b)),
        ] {
            if best.is_none_or(|b| score > b.0) {
                best = Some((score, t, above));
            }
        }
    }
    let (_, threshold, above) = best.unwrap_or((0.0, f64::INFINITY, Gold::Benign));
    Some(Rule::Stump {
        threshold,
        above,
        missing: missing_pred,
    })
}

/// Runs every single-field rule learnt on `train` against each evaluation set.
pub fn single_field_leak(train: &[Sample], evals: &[(&str, &[Sample])]) -> LeakReport {
    let mut fields: BTreeSet<&str> = BTreeSet::new();
    for s in train.iter().chain(evals.iter().flat_map(|e| e.1.iter())) {
        fields.extend(s.features.keys().map(String::as_str));
    }
    let mut out = Vec::new();
    for field in fields {
        let mut rules: Vec<(RuleKind, Rule)> = Vec::new();
        rules.push((
            RuleKind::Categorical,
            learn_table(train, |s| {
                s.features.get(field).map_or("?".to_string(), Feature::key)
            }),
        ));
        let is_missing =
            |s: &Sample| matches!(s.features.get(field), None | Some(Feature::Missing));
        let any_missing = train
            .iter()
            .chain(evals.iter().flat_map(|e| e.1.iter()))
            .any(is_missing);
        if any_missing {
            rules.push((
                RuleKind::Missing,
                learn_table(train, |s| {
                    if is_missing(s) {
                        "?".into()
                    } else {
                        "value".into()
                    }
                }),
            ));
        }
        if let Some(stump) = learn_stump(train, field) {
            rules.push((RuleKind::Stump, stump));
        }
        for (kind, rule) in rules {
            let ba = evals
                .iter()
                .map(|(name, rows)| {
                    let pred: Vec<Gold> = rows
                        .iter()
                        .map(|s| match kind {
                            RuleKind::Missing => {
                                let k = if is_missing(s) { "?" } else { "value" };
                                rule.predict(Some(&Feature::Cat(k.to_string())))
                            }
                            _ => rule.predict(s.features.get(field)),
                        })
                        .collect();
                    let gold: Vec<Gold> = rows.iter().map(|s| s.gold).collect();
                    (name.to_string(), balanced_accuracy(&pred, &gold))
                })
                .collect();
            out.push(FieldLeak {
                field: field.to_string(),
                rule: kind,
                balanced_accuracy: ba,
            });
        }
    }
    LeakReport { fields: out }
}

fn nb_key(field: &str, v: Option<&Feature>) -> String {
    match v {
        None | Some(Feature::Missing) => "?".to_string(),
        Some(Feature::Cat(s)) => s.clone(),
        Some(Feature::Num(x)) if field.ends_with("_p") => format!("{x}"),
        Some(Feature::Num(x)) if *x == 0.0 => "0".to_string(),
        Some(Feature::Num(x)) if *x < 0.0 => "neg".to_string(),
        Some(Feature::Num(x)) => format!("b{}", x.log2().floor()),
    }
}

/// A trained naive Bayes classifier.
#[derive(Debug, Clone)]
pub struct NaiveBayes {
    prior: [f64; 2],
    class_n: [usize; 2],
    // field → (value → [benign, malicious] counts), plus distinct values + 1.
    tables: BTreeMap<String, (HashMap<String, [usize; 2]>, usize)>,
}

fn class_index(g: Gold) -> usize {
    match g {
        Gold::Benign => 0,
        Gold::Malicious => 1,
    }
}

impl NaiveBayes {
    /// Trains on `train` (Laplace α = 1).
    pub fn train(train: &[Sample]) -> NaiveBayes {
        let mut class_n = [0usize; 2];
        let mut tables: BTreeMap<String, (HashMap<String, [usize; 2]>, usize)> = BTreeMap::new();
        let fields: BTreeSet<String> = train
            .iter()
            .flat_map(|s| s.features.keys().cloned())
            .collect();
        for s in train {
            let c = class_index(s.gold);
            class_n[c] += 1;
            for f in &fields {
                let key = nb_key(f, s.features.get(f));
                tables
                    .entry(f.clone())
                    .or_default()
                    .0
                    .entry(key)
                    .or_default()[c] += 1;
            }
        }
        for t in tables.values_mut() {
            t.1 = t.0.len() + 1;
        }
        let n = (class_n[0] + class_n[1]).max(1) as f64;
        let prior = [
            ((class_n[0] as f64 + 1.0) / (n + 2.0)).ln(),
            ((class_n[1] as f64 + 1.0) / (n + 2.0)).ln(),
        ];
        NaiveBayes {
            prior,
            class_n,
            tables,
        }
    }

    /// Per-field log-odds (Malicious minus Benign) for `s`, prior first.
    pub fn explain(&self, s: &Sample) -> Vec<(String, f64)> {
        let mut out = vec![("prior".to_string(), self.prior[1] - self.prior[0])];
        for (field, (table, values)) in &self.tables {
            let key = nb_key(field, s.features.get(field));
            let counts = table.get(&key).copied().unwrap_or([0, 0]);
            let lp = |c: usize| ((counts[c] as f64 + 1.0) / (self.class_n[c] + values) as f64).ln();
            out.push((field.clone(), lp(1) - lp(0)));
        }
        out
    }

    /// Predicted label (ties → Malicious).
    pub fn predict(&self, s: &Sample) -> Gold {
        let mut score = self.prior;
        for (field, (table, values)) in &self.tables {
            let key = nb_key(field, s.features.get(field));
            let counts = table.get(&key).copied().unwrap_or([0, 0]);
            for c in 0..2 {
                score[c] += ((counts[c] as f64 + 1.0) / (self.class_n[c] + values) as f64).ln();
            }
        }
        if score[1] >= score[0] {
            Gold::Malicious
        } else {
            Gold::Benign
        }
    }
}

/// Naive Bayes trained on `train`, balanced accuracy on `test`.
pub fn naive_bayes_balanced_accuracy(train: &[Sample], test: &[Sample]) -> f64 {
    let nb = NaiveBayes::train(train);
    let pred: Vec<Gold> = test.iter().map(|s| nb.predict(s)).collect();
    let gold: Vec<Gold> = test.iter().map(|s| s.gold).collect();
    balanced_accuracy(&pred, &gold)
}

/// Abstention statistics of generated rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AbstentionReport {
    /// Rows considered.
    pub rows: usize,
    /// Rows whose `meta.optimal_action` is Abstain.
    pub abstain_optimal: usize,
    /// `abstain_optimal / rows`.
    pub share: f64,
    /// Mean v1 reward of the Bayes-rule oracle (honest confidence).
    pub oracle_with_abstain: f64,
    /// The same oracle forbidden to abstain.
    pub oracle_without_abstain: f64,
}

/// Abstention share and oracle comparison on rows with `meta.p_malicious`.
pub fn abstention(rows: &[Value]) -> Result<AbstentionReport, LeakError> {
    let mut abstain = 0;
    let (mut with, mut without) = (0.0, 0.0);
    for (index, row) in rows.iter().enumerate() {
        let err = |message: &str| LeakError::Row {
            index,
            message: message.to_string(),
        };
        let q = row["meta"]["p_malicious"]
            .as_f64()
            .ok_or_else(|| err("no numeric meta.p_malicious"))?;
        let gold = normalize_gold(&row["answer"]).map_err(|e| err(&e.to_string()))?;
        if row["meta"]["optimal_action"] == "Abstain" {
            abstain += 1;
        }
        let (l, c) = oracle_answer(q, true);
        with += v1_total(l, c, gold);
        let (l, c) = oracle_answer(q, false);
        without += v1_total(l, c, gold);
    }
    let n = rows.len().max(1) as f64;
    Ok(AbstentionReport {
        rows: rows.len(),
        abstain_optimal: abstain,
        share: abstain as f64 / n,
        oracle_with_abstain: with / n,
        oracle_without_abstain: without / n,
    })
}

/// The §6.4 numbers for a four-split corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct QualityReport {
    /// Single-field rules learnt on train, scored on dev, test and ood.
    pub leak: LeakReport,
    /// Naive Bayes balanced accuracy on the non-ambiguous test rows.
    pub learnability: f64,
    /// Abstention statistics of the test split.
    pub abstention: AbstentionReport,
}

/// Runs all §6.4 checks on rows of train, dev, test and ood.
pub fn quality_report(
    train: &[Value],
    dev: &[Value],
    test: &[Value],
    ood: &[Value],
) -> Result<QualityReport, LeakError> {
    let (tr, de, te, oo) = (
        samples(train)?,
        samples(dev)?,
        samples(test)?,
        samples(ood)?,
    );
    let leak = single_field_leak(&tr, &[("dev", &de), ("test", &te), ("ood", &oo)]);
    let clear: Vec<Sample> = te.iter().filter(|s| !s.ambiguous).cloned().collect();
    Ok(QualityReport {
        leak,
        learnability: naive_bayes_balanced_accuracy(&tr, &clear),
        abstention: abstention(test)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(fields: &[(&str, Feature)], gold: Gold) -> Sample {
        Sample {
            features: fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            gold,
            ambiguous: false,
        }
    }

    #[test]
    fn stump_finds_a_clean_threshold() {
        let train: Vec<Sample> = (0..20)
            .map(|i| {
                let g = if i >= 10 {
                    Gold::Malicious
                } else {
                    Gold::Benign
                };
                s(&[("x", Feature::Num(i as f64))], g)
            })
            .collect();
        let r = single_field_leak(&train, &[("t", &train)]);
        assert_eq!(r.get("x", RuleKind::Stump, "t"), Some(1.0));
        // Every value is seen in-sample, so the lookup table is perfect too.
        assert_eq!(r.get("x", RuleKind::Categorical, "t"), Some(1.0));
    }

    #[test]
    fn reads_upstream_questions() {
        let q = "Device unknown-device observed tcp 6662→62336, duration ?, bytes ?, flags [C]. Decide: Malicious or Benign (you may Abstain if unsure).";
        let f = question_features(q).expect("parses");
        assert_eq!(f["resp_p"], Feature::Num(62336.0));
        assert_eq!(f["duration"], Feature::Missing);
        assert_eq!(f["flags"], Feature::Cat("C".into()));
        let q = "Device unknown-device observed 17 123→123, duration ?, bytes 5.731331393. Decide Malicious/Benign.";
        let f = question_features(q).expect("parses");
        assert_eq!(f["bytes"], Feature::Num(5.731331393));
        assert_eq!(f["proto"], Feature::Cat("17".into()));
    }
}
