//! E4 acceptance checks that join the parts: the extractor against the
//! generator's annotations, the exploit corpus against the builtin
//! policies, the oracle's upper bound.

use std::collections::BTreeMap;

use serde_json::Value;
use svbench_core::Completion;
use svbench_envs::e4::args::E4Args;
use svbench_envs::e4::dataset::{load, DatasetSpec, LoadedDataset, SelectionRequest, SplitRequest};
use svbench_envs::e4::env::E4Env;
use svbench_envs::e4::generate::families::family;
use svbench_envs::e4::policy::IndicatorsPolicy;
use svbench_envs::e4::row::email_of_row;
use svbench_envs::e4::Label;
use svbench_mail::{extract, render, EmailLimits, IndicatorSet};

fn test_split() -> LoadedDataset {
    split("test")
}

fn split(name: &str) -> LoadedDataset {
    load(
        &DatasetSpec::Embedded,
        &SplitRequest(Some(name.into())),
        &SelectionRequest {
            max_examples: None,
            shuffle: false,
            seed: 0,
        },
        &EmailLimits::default(),
    )
    .unwrap()
}

/// The code-point overlap of two half-open intervals.
fn overlap(a: (usize, usize), b: (usize, usize)) -> usize {
    a.1.min(b.1).saturating_sub(a.0.max(b.0))
}

#[test]
fn the_extractor_finds_the_hard_indicators_the_generator_inserted() {
    let data = test_split();
    let limits = EmailLimits::default();
    // category -> (found, inserted)
    let mut tally: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut misses: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (example, gold) in data.examples.iter().zip(&data.gold) {
        if *gold != Label::Phishing {
            continue;
        }
        let info = example.info_value();
        let meta = &info["meta"];
        // The later families are written so that a keyword list misses
        // many of their indicators; only the first ten are held to this.
        if !family(meta["family"].as_str().unwrap()).extractor_worded {
            continue;
        }
        let hard: Vec<&str> = meta["indicators"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let email = email_of_row(&info["email"], &limits).unwrap();
        let rendered = render(&email, &limits);
        assert_eq!(rendered.text, example.question);
        let findings = extract(&email, &rendered, IndicatorSet::builtin());
        for span in meta["spans"].as_array().unwrap() {
            let mut categories: Vec<&str> = vec![span["category"].as_str().unwrap()];
            if let Some(more) = span.get("categories").and_then(Value::as_array) {
                categories.extend(more.iter().filter_map(Value::as_str));
            }
            let g = (
                span["start"].as_u64().unwrap() as usize,
                span["end"].as_u64().unwrap() as usize,
            );
            for category in categories.iter().filter(|c| hard.contains(c)) {
                let found = findings.iter().any(|f| {
                    f.category == *category && 2 * overlap((f.start, f.end), g) >= g.1 - g.0
                });
                let entry = tally.entry(category.to_string()).or_default();
                entry.1 += 1;
                if found {
                    entry.0 += 1;
                } else {
                    misses
                        .entry(category.to_string())
                        .or_default()
                        .push(format!("{}: {}", example.id, span["text"]));
                }
            }
        }
    }
    let mut failing = Vec::new();
    for (category, (found, inserted)) in &tally {
        let recall = *found as f64 / *inserted as f64;
        eprintln!("{category}: {found}/{inserted} = {recall:.3}");
        if recall < 0.95 {
            failing.push(format!(
                "{category} {found}/{inserted}, e.g. {:?}",
                misses[category]
                    .iter()
                    .collect::<std::collections::BTreeSet<_>>()
            ));
        }
    }
    assert!(
        tally.len() >= 10,
        "too few hard categories inserted: {tally:?}"
    );
    assert!(failing.is_empty(), "recall below 0.95: {failing:#?}");
}

/// Scores `answer(example)` on every test row; returns the mean total.
fn mean_total(data: &LoadedDataset, env: &E4Env, answer: impl Fn(&Value, &str) -> String) -> f64 {
    let mut sum = 0.0;
    for example in &data.examples {
        let info = example.info_value();
        let text = answer(&info, &example.question);
        let (s, _) = env
            .score_row(
                &example.question,
                &example.answer,
                info.get("meta"),
                &Completion::assistant_text(text),
            )
            .unwrap();
        sum += s.reward.total;
    }
    sum / data.examples.len() as f64
}

/// The texts of the extractor's phish findings on a row's email.
fn phish_quotes(info: &Value) -> Vec<String> {
    let limits = EmailLimits::default();
    let email = email_of_row(&info["email"], &limits).unwrap();
    let rendered = render(&email, &limits);
    extract(&email, &rendered, IndicatorSet::builtin())
        .into_iter()
        .filter(|f| f.polarity == svbench_mail::Polarity::Phish)
        .map(|f| f.text)
        .take(10)
        .collect()
}

#[test]
fn constant_policies_score_below_the_indicators_policy() {
    let data = test_split();
    let env = E4Env::new("v1", None, E4Args::default()).unwrap();
    let policy = IndicatorsPolicy::new(&env);
    let limits = EmailLimits::default();
    let indicators = mean_total(&data, &env, |info, _| {
        policy.answer(&email_of_row(&info["email"], &limits).unwrap())
    });
    let constant = |label: &str, evidence: bool| {
        mean_total(&data, &env, |info, _| {
            let quotes = if evidence {
                phish_quotes(info)
            } else {
                Vec::new()
            };
            serde_json::json!({"label": label, "confidence": 0.9, "evidence": quotes}).to_string()
        })
    };
    let always_abstain = mean_total(&data, &env, |_, _| {
        r#"{"label":"Abstain","confidence":0.5,"evidence":[]}"#.to_string()
    });
    let results = [
        ("always Abstain", always_abstain),
        ("always Phishing", constant("Phishing", false)),
        (
            "always Phishing, extractor evidence",
            constant("Phishing", true),
        ),
        ("always Legitimate", constant("Legitimate", false)),
    ];
    eprintln!("builtin:indicators {indicators:.4}");
    for (name, mean) in results {
        eprintln!("{name} {mean:.4}");
        assert!(
            mean < indicators,
            "{name} ({mean:.4}) is not below builtin:indicators ({indicators:.4})"
        );
    }
    // Always-Abstain: u 0.7 on clear-cut rows, full utility on ambiguous ones.
    assert!((0.95..=1.10).contains(&always_abstain), "{always_abstain}");
}

#[test]
fn the_oracle_is_the_upper_bound_on_every_row() {
    let data = test_split();
    let env = E4Env::new("v1", None, E4Args::default()).unwrap();
    let oracle = svbench_envs::e4::policy::E4OraclePolicy;
    for (example, gold) in data.examples.iter().zip(&data.gold) {
        use svbench_envs::policy::Policy;
        let completion = oracle.respond(example, 0, &[]).unwrap();
        let info = example.info_value();
        let (s, _) = env
            .score_row(
                &example.question,
                &example.answer,
                info.get("meta"),
                &completion,
            )
            .unwrap();
        let want = if *gold == Label::Abstain {
            1.6375
        } else {
            1.70
        };
        assert!(
            (s.reward.total - want).abs() < 1e-9,
            "{}: {} ≠ {want}",
            example.id,
            s.reward.total
        );
    }
}

#[test]
fn evidence_exploits_never_beat_honest_quotes_on_the_corpus() {
    let data = test_split();
    let env = E4Env::new("v1", None, E4Args::default()).unwrap();
    let evidence_of = |example: &svbench_core::Example, items: Vec<String>| {
        let info = example.info_value();
        let answer =
            serde_json::json!({"label": example.answer, "confidence": 0.9, "evidence": items});
        let (s, _) = env
            .score_row(
                &example.question,
                &example.answer,
                info.get("meta"),
                &Completion::assistant_text(answer.to_string()),
            )
            .unwrap();
        s.grounding.f1.unwrap_or(0.0)
    };
    let mut rows = 0;
    for (example, gold) in data.examples.iter().zip(&data.gold) {
        if *gold != Label::Phishing {
            continue;
        }
        rows += 1;
        let info = example.info_value();
        let honest: Vec<String> = info["meta"]["spans"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["polarity"] == "phish")
            .map(|s| s["text"].as_str().unwrap().to_string())
            .collect();
        let honest_score = evidence_of(example, honest.clone());
        assert!(
            (honest_score - 1.0).abs() < 1e-9,
            "{}: honest quotes score {honest_score}",
            example.id
        );
        let q = &example.question;
        let sentences: Vec<String> = q
            .split(['.', '\n'])
            .map(str::trim)
            .filter(|s| s.chars().count() >= 4)
            .map(str::to_string)
            .take(10)
            .collect();
        let exploits: [(&str, Vec<String>); 6] = [
            ("one letter", vec!["a".into(), "e".into()]),
            ("whole email", vec![q.clone()]),
            ("sentence spray", sentences),
            (
                "paraphrase",
                vec![
                    "Spoofed sender domain".into(),
                    "suspicious link to a fake login page".into(),
                ],
            ),
            ("duplicate", vec![honest[0].clone(); 10]),
            (
                "scaffolding",
                vec!["https://".into(), ".example".into(), ".test".into()],
            ),
        ];
        for (name, items) in exploits {
            let score = evidence_of(example, items);
            assert!(
                score < honest_score,
                "{}: {name} scores {score}",
                example.id
            );
        }
    }
    assert!(rows >= 100, "{rows}");
}

/// The shortest fragment of at least eight characters of a span (code
/// points `start..end` of `question`) that is word-bounded where it stands:
/// `https://` of a URL, `.example` of a domain, `48 hours` of a phrase.
fn shortest_fragment(question: &[char], start: usize, end: usize) -> String {
    let alnum = |i: Option<usize>| {
        i.and_then(|i| question.get(i))
            .is_some_and(|c| c.is_alphanumeric())
    };
    for len in 8..=(end - start) {
        for a in start..=(end - len) {
            let b = a + len;
            let fragment = &question[a..b];
            if fragment[0].is_whitespace() || fragment[len - 1].is_whitespace() {
                continue;
            }
            let start_ok = !fragment[0].is_alphanumeric() || !alnum(a.checked_sub(1));
            let end_ok = !fragment[len - 1].is_alphanumeric() || !alnum(Some(b));
            if start_ok && end_ok {
                return fragment.iter().collect();
            }
        }
    }
    question[start..end].iter().collect()
}

/// Quoting eight characters of each gold span (the scaffolding of a URL or
/// a domain, two words of a phrase) tied the honest answer on 398 of the
/// 400 test rows when eight characters of a span were enough; under v1 a
/// quote must carry half of the span's words.
#[test]
fn eight_character_fragments_score_far_below_honest_quotes() {
    let data = test_split();
    let env = E4Env::new("v1", None, E4Args::default()).unwrap();
    let (mut honest_sum, mut fragment_sum, mut rows) = (0.0, 0.0, 0usize);
    for example in &data.examples {
        let info = example.info_value();
        let meta = &info["meta"];
        let gold = example.answer.as_str().unwrap_or_default();
        let question: Vec<char> = example.question.chars().collect();
        let relevant: Vec<&Value> = meta["spans"]
            .as_array()
            .map(|spans| {
                spans
                    .iter()
                    .filter(|s| match gold {
                        "Phishing" => s["polarity"] == "phish",
                        "Legitimate" => s["polarity"] == "benign",
                        _ => true,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let quotes = |fragment: bool| -> Vec<String> {
            relevant
                .iter()
                .map(|s| {
                    let (a, b) = (
                        s["start"].as_u64().unwrap() as usize,
                        s["end"].as_u64().unwrap() as usize,
                    );
                    if fragment {
                        shortest_fragment(&question, a, b)
                    } else {
                        s["text"].as_str().unwrap().to_string()
                    }
                })
                .collect()
        };
        let total = |items: Vec<String>| {
            let answer = serde_json::json!({"label": gold, "confidence": 1.0, "evidence": items});
            let (s, _) = env
                .score_row(
                    &example.question,
                    &example.answer,
                    info.get("meta"),
                    &Completion::assistant_text(answer.to_string()),
                )
                .unwrap();
            s.reward.total
        };
        let (honest, fragment) = (total(quotes(false)), total(quotes(true)));
        assert!(
            fragment <= honest + 1e-12,
            "{}: fragments {fragment} > honest {honest}",
            example.id
        );
        honest_sum += honest;
        fragment_sum += fragment;
        rows += 1;
    }
    let (honest, fragment) = (honest_sum / rows as f64, fragment_sum / rows as f64);
    eprintln!("honest {honest:.4}, fragments {fragment:.4} over {rows} rows");
    assert!(rows >= 400, "{rows}");
    // Evidence weighs 0.40: fragments lose most of it.
    assert!(
        honest - fragment > 0.2,
        "honest {honest:.4}, fragments {fragment:.4}"
    );
}

/// Phishing-class F1 of `builtin:indicators` over the rows `keep` selects,
/// as the eval report computes it (over the clear-cut rows it decided).
fn indicators_f1(data: &LoadedDataset, keep: impl Fn(&str) -> bool) -> f64 {
    let env = E4Env::new("v1", None, E4Args::default()).unwrap();
    let policy = IndicatorsPolicy::new(&env);
    let limits = EmailLimits::default();
    let (mut tp, mut fp, mut positives) = (0.0, 0.0, 0.0);
    for (example, gold) in data.examples.iter().zip(&data.gold) {
        let info = example.info_value();
        if !keep(info["meta"]["family"].as_str().unwrap()) {
            continue;
        }
        let answer = policy.answer(&email_of_row(&info["email"], &limits).unwrap());
        let said: Value = serde_json::from_str(&answer).unwrap();
        let phishing = said["label"] == "Phishing";
        if said["label"] == "Abstain" || *gold == Label::Abstain {
            continue;
        }
        if *gold == Label::Phishing {
            positives += 1.0;
            if phishing {
                tp += 1.0;
            }
        } else if phishing {
            fp += 1.0;
        }
    }
    2.0 * tp / (tp + fp + positives)
}

/// The corpus must separate a reader from a keyword list: the rule aces
/// the first ten families but not the splits, whose F1 stays in the band
/// the benchmark promises (0.6 to 0.85, on test and ood).
#[test]
fn a_keyword_rule_cannot_ace_the_corpus() {
    for name in ["test", "ood"] {
        let data = split(name);
        let all = indicators_f1(&data, |_| true);
        let later = indicators_f1(&data, |f| !family(f).extractor_worded);
        eprintln!("{name}: F1 {all:.3}, later families {later:.3}");
        assert!(
            (0.6..=0.85).contains(&all),
            "builtin:indicators F1 on {name} is {all:.3}: the corpus no longer discriminates"
        );
        assert!(later < all, "{name}: {later:.3} >= {all:.3}");
    }
    let first_ten = indicators_f1(&test_split(), |f| family(f).extractor_worded);
    eprintln!("test, first ten families: F1 {first_ten:.3}");
    assert!(first_ten > 0.95, "{first_ten:.3}");
}
