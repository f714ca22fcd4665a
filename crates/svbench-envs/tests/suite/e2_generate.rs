//! `sv-synth-e2` (spec E2 §8.3–8.4, §10 item 20): reproducible bytes, clean
//! baselines, operators that cause their intended ids, and the corpus rules
//! (clean share, splits, hashes, distinct questions, row format).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::Value;
use svbench_envs::e2::generate::mutate::K8S_OPERATORS;
use svbench_envs::e2::generate::rng::GenRng;
use svbench_envs::e2::generate::tf::TF_OPERATORS;
use svbench_envs::e2::generate::{
    corpus_files, generate_corpus, generate_split, k8s, oracle_scanner, question_hash, tf, Corpus,
    GenConfig, Split,
};
use svbench_scan::scan::{FileType, Scanner};
use svbench_scan::Tool;

fn findings(scanner: &mut Scanner, text: &str, ft: FileType) -> (BTreeSet<String>, String) {
    let name = match ft {
        FileType::K8s => "manifest.yaml",
        FileType::Tf => "main.tf",
    };
    let report = scanner.scan(name, text.as_bytes(), ft);
    assert!(
        report.errors.is_empty(),
        "scan errors {:?}\n{text}",
        report.errors
    );
    let ids = report.findings.iter().map(|f| f.full_id()).collect();
    let detail = report
        .findings
        .iter()
        .map(|f| format!("{} at {}: {}", f.full_id(), f.location(), f.message))
        .collect::<Vec<_>>()
        .join("\n");
    (ids, detail)
}

fn small_config() -> GenConfig {
    GenConfig {
        k8s: 60,
        tf: 20,
        ..GenConfig::default()
    }
}

#[test]
fn the_oracle_runs_every_namespace_on_both_file_types() {
    let scanner = oracle_scanner().unwrap();
    assert_eq!(scanner.tools_for(FileType::K8s), Tool::ALL.to_vec());
    assert_eq!(
        scanner.tools_for(FileType::Tf),
        vec![Tool::Semgrep, Tool::Opa]
    );
    assert_eq!(scanner.analyzers().len(), 3);
}

#[test]
fn every_baseline_family_scans_clean_under_every_default_analyzer() {
    let mut scanner = oracle_scanner().unwrap();
    for family in k8s::FAMILIES {
        for seed in 0..12 {
            let mut rng = GenRng::for_item(seed, "test-k8s", 0, 0);
            let text = k8s::draft(&mut rng, family).render();
            let (ids, detail) = findings(&mut scanner, &text, FileType::K8s);
            assert!(ids.is_empty(), "{family} seed {seed}:\n{detail}\n{text}");
        }
    }
    for family in tf::FAMILIES {
        for seed in 0..12 {
            let mut rng = GenRng::for_item(seed, "test-tf", 0, 0);
            let text = tf::draft(&mut rng, family).render();
            let (ids, detail) = findings(&mut scanner, &text, FileType::Tf);
            assert!(ids.is_empty(), "{family} seed {seed}:\n{detail}\n{text}");
        }
    }
}

/// Each operator alone, on several seeds and every family it applies to,
/// causes all of its intended ids.
#[test]
fn every_k8s_operator_yields_its_intended_ids() {
    let mut scanner = oracle_scanner().unwrap();
    let mut failures = Vec::new();
    for op in K8S_OPERATORS {
        let mut applied = 0;
        for family in k8s::FAMILIES {
            for seed in 0..4 {
                let mut rng = GenRng::for_item(seed, "test-op", 0, 0);
                let mut draft = k8s::draft(&mut rng, family);
                let Some(intended) = (op.apply)(&mut draft, &mut rng) else {
                    continue;
                };
                applied += 1;
                let text = draft.render();
                let (ids, detail) = findings(&mut scanner, &text, FileType::K8s);
                let missing: Vec<&String> = intended.iter().filter(|i| !ids.contains(*i)).collect();
                if !missing.is_empty() {
                    failures.push(format!(
                        "{} on {family} seed {seed}: missing {missing:?}\n{detail}\n{text}",
                        op.name
                    ));
                }
            }
        }
        assert!(applied >= 4, "{} applied only {applied} times", op.name);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_tf_operator_yields_its_intended_ids() {
    let mut scanner = oracle_scanner().unwrap();
    let mut failures = Vec::new();
    for op in TF_OPERATORS {
        let mut applied = 0;
        for family in tf::FAMILIES {
            for seed in 0..4 {
                let mut rng = GenRng::for_item(seed, "test-op", 0, 0);
                let mut draft = tf::draft(&mut rng, family);
                let Some(intended) = (op.apply)(&mut draft, &mut rng) else {
                    continue;
                };
                applied += 1;
                let text = draft.render();
                let (ids, detail) = findings(&mut scanner, &text, FileType::Tf);
                if !intended.iter().all(|i| ids.contains(i)) {
                    failures.push(format!(
                        "{} on {family} seed {seed}: want {intended:?}\n{detail}\n{text}",
                        op.name
                    ));
                }
            }
        }
        assert!(applied >= 4, "{} applied only {applied} times", op.name);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn files_of(corpus: &Corpus) -> Vec<(String, String)> {
    corpus_files(corpus)
}

#[test]
fn same_seed_same_bytes_and_another_seed_differs() {
    let config = GenConfig {
        k8s: 12,
        tf: 4,
        ..GenConfig::default()
    };
    let a = files_of(&generate_corpus(&config, 7).unwrap());
    let b = files_of(&generate_corpus(&config, 7).unwrap());
    assert!(a == b, "same seed, different bytes");
    let c = files_of(&generate_corpus(&config, 8).unwrap());
    assert!(a[0] != c[0], "another seed gave the same train file");
}

#[test]
fn corpus_rules_hold() {
    let config = small_config();
    let corpus = generate_corpus(&config, 42).unwrap();
    let rows: Vec<&Value> = corpus.all_rows().collect();
    assert_eq!(rows.len(), config.k8s + config.tf);

    // Counts per language and clean share (systematic: within one per language).
    for (lang, n) in [("k8s", config.k8s), ("tf", config.tf)] {
        let of_lang: Vec<&&Value> = rows.iter().filter(|r| r["meta"]["lang"] == lang).collect();
        assert_eq!(of_lang.len(), n, "{lang}");
        let clean = of_lang
            .iter()
            .filter(|r| {
                r["meta"]["generator"]["mutations"]
                    .as_array()
                    .unwrap()
                    .is_empty()
            })
            .count();
        let want = config.clean_fraction * n as f64;
        assert!(
            (clean as f64 - want).abs() <= 1.0,
            "{lang}: {clean} clean of {n}"
        );
    }

    // Split ratios 70/15/15 by baseline hash (a binomial draw: loose bounds).
    let share = |s: Split| corpus.rows(s).len() as f64 / rows.len() as f64;
    assert!(
        (0.55..=0.85).contains(&share(Split::Train)),
        "{}",
        share(Split::Train)
    );
    assert!(
        (0.05..=0.27).contains(&share(Split::Dev)),
        "{}",
        share(Split::Dev)
    );
    assert!(
        (0.05..=0.27).contains(&share(Split::Test)),
        "{}",
        share(Split::Test)
    );
    for split in Split::ALL {
        for r in corpus.rows(split) {
            assert_eq!(r["meta"]["split"], split.as_str());
        }
    }

    let mut questions = HashSet::new();
    let mut ids = HashSet::new();
    let mut scanner = oracle_scanner().unwrap();
    for r in &rows {
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["id", "question", "info", "meta"]);
        let q = r["question"].as_str().unwrap();
        let lang = r["meta"]["lang"].as_str().unwrap();
        let id = r["id"].as_str().unwrap();
        let digits = id.strip_prefix(&format!("e2-{lang}-")).unwrap_or_default();
        assert!(
            digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_digit()),
            "{id}"
        );
        assert!(ids.insert(id.to_string()), "duplicate id {id}");
        assert!(questions.insert(q.to_string()), "duplicate question {id}");
        assert_eq!(r["meta"]["hash"], question_hash(q));
        assert_eq!(r["info"]["patch"], Value::Null);
        let (ns, file, ft): (&[&str], _, _) = if lang == "k8s" {
            (
                &["kube-linter", "semgrep", "opa"],
                "manifest.yaml",
                FileType::K8s,
            )
        } else {
            (&["opa"], "main.tf", FileType::Tf)
        };
        assert_eq!(r["info"]["labelled_namespaces"], serde_json::json!(ns));
        let versions = r["info"]["analyzer_versions"].as_object().unwrap();
        assert_eq!(versions.keys().map(String::as_str).collect::<Vec<_>>(), ns);
        assert_eq!(r["meta"]["file_name"], file);

        // Labels are the live oracle's findings on the question, one per finding.
        let report = scanner.scan(file, q.as_bytes(), ft);
        let labels = r["info"]["violations"].as_array().unwrap();
        assert_eq!(labels.len(), report.findings.len(), "{id}");
        for (v, f) in labels.iter().zip(&report.findings) {
            assert_eq!(v["tool"], f.tool.as_str());
            assert_eq!(v["rule_id"], f.rule_id.as_str());
            assert_eq!(v["severity"], f.severity.as_str());
            assert_eq!(v["msg"], f.message.as_str());
            assert_eq!(v["loc"], f.location());
            assert!(f.location().starts_with(&format!("{file}:")));
        }
        let g = &r["meta"]["generator"];
        let found: BTreeSet<String> = report.findings.iter().map(|f| f.full_id()).collect();
        let mutations = g["mutations"].as_array().unwrap();
        if mutations.is_empty() {
            assert!(labels.is_empty(), "clean item {id} has labels");
        }
        for want in g["intended_ids"].as_array().unwrap() {
            assert!(
                found.contains(want.as_str().unwrap()),
                "{id}: {want} missing"
            );
        }
        assert!(mutations.len() <= 3);
    }
}

#[test]
fn a_split_request_extends_the_corpus_rows_of_that_split() {
    let config = GenConfig {
        k8s: 12,
        tf: 4,
        ..GenConfig::default()
    };
    let corpus = generate_corpus(&config, 3).unwrap();
    let more = generate_split(&config, 3, Split::Train, 24).unwrap();
    assert!(more.iter().all(|r| r["meta"]["split"] == "train"));
    let by_lang = |rows: &[Value], lang: &str| -> Vec<Value> {
        rows.iter()
            .filter(|r| r["meta"]["lang"] == lang)
            .cloned()
            .collect()
    };
    let mut counts = BTreeMap::new();
    for lang in ["k8s", "tf"] {
        let have = by_lang(corpus.rows(Split::Train), lang);
        let got = by_lang(&more, lang);
        assert!(got.len() >= have.len(), "{lang}");
        assert_eq!(&got[..have.len()], &have[..], "{lang}: not a prefix");
        counts.insert(lang, got.len());
    }
    assert_eq!(counts["k8s"] + counts["tf"], 24);
    assert_eq!(counts["k8s"], 18);
}
