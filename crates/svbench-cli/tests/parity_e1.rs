//! Parity with upstream on its public mini set (E1 §8, issue acceptance 7):
//! the heuristic's per-example predictions follow the spec's rules, the
//! upstream reward matches its formula, and the report's upstream-named
//! metrics follow upstream's definitions. Skips when ../shared is absent.

mod common;

use std::path::PathBuf;

use common::*;
use serde_json::Value;
use svbench_core::upstream_data;

/// The heuristic of E1 §5, written out independently of the crate's code.
fn reference_heuristic(q: &str) -> (&'static str, f64) {
    let u = q.to_uppercase();
    let bad = [
        "TOR",
        "C2",
        "SYN_SCAN",
        "BRUTE",
        "AUTH_FAILED",
        "MALWARE",
        "BEACON",
        "PORTS=",
    ];
    let good = ["STATUS=OK", "AUTH_SUCCESS", "DNS", "ICMP"];
    if bad.iter().any(|m| u.contains(m)) {
        return ("Malicious", 0.8);
    }
    if good.iter().any(|m| u.contains(m)) {
        return ("Benign", 0.6);
    }
    let after = |marker: &str, space: bool| -> Option<u64> {
        for (pos, _) in q.match_indices(marker) {
            let mut rest = &q[pos + marker.len()..];
            if space {
                rest = rest.trim_start();
            }
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            if !digits.is_empty() {
                return digits.parse().ok();
            }
        }
        None
    };
    let port = after("→", true)
        .or_else(|| after("->", true))
        .or_else(|| after("PORT=", false));
    match port {
        Some(22 | 23 | 445 | 3389 | 4444 | 9001 | 5900) => ("Malicious", 0.7),
        Some(53 | 80 | 443) => ("Benign", 0.55),
        _ => ("Abstain", 0.3),
    }
}

/// Upstream report.py's E1 formulas over (prediction, gold, confidence).
struct UpstreamMetrics {
    tpr: f64,
    fpr: f64,
    fnr: f64,
    precision: f64,
    f1: f64,
    accuracy: f64,
    ece: f64,
    brier: f64,
    total_cost: f64,
    cost_weighted_accuracy: f64,
    abstain_rate: f64,
    aurc: f64,
    counts: [u64; 5],
}

fn upstream_metrics(triples: &[(String, String, f64)]) -> UpstreamMetrics {
    let valid: Vec<_> = triples.iter().filter(|t| !t.0.is_empty()).collect();
    let abstain = valid.iter().filter(|t| t.0 == "abstain").count();
    let decided: Vec<_> = valid.iter().filter(|t| t.0 != "abstain").collect();
    let (mut tp, mut tn, mut fp, mut fnn) = (0u64, 0u64, 0u64, 0u64);
    for t in &decided {
        match (t.0.as_str(), t.1.as_str()) {
            ("malicious", "malicious") => tp += 1,
            ("benign", "benign") => tn += 1,
            ("malicious", "benign") => fp += 1,
            _ => fnn += 1,
        }
    }
    let div = |a: f64, b: f64| if b == 0.0 { 0.0 } else { a / b };
    let tpr = div(tp as f64, (tp + fnn) as f64);
    let precision = div(tp as f64, (tp + fp) as f64);
    let n = decided.len() as f64;
    let correct: Vec<f64> = decided
        .iter()
        .map(|t| if t.0 == t.1 { 1.0 } else { 0.0 })
        .collect();
    let conf: Vec<f64> = decided.iter().map(|t| t.2).collect();
    let mut ece = 0.0;
    for i in 0..10 {
        let lo = i as f64 / 10.0;
        let hi = (i + 1) as f64 / 10.0;
        let members: Vec<usize> = (0..conf.len())
            .filter(|&j| conf[j] >= lo && (conf[j] < hi || (i == 9 && conf[j] <= 1.0)))
            .collect();
        if members.is_empty() {
            continue;
        }
        let m = members.len() as f64;
        let acc: f64 = members.iter().map(|&j| correct[j]).sum::<f64>() / m;
        let mc: f64 = members.iter().map(|&j| conf[j]).sum::<f64>() / m;
        ece += m / n * (acc - mc).abs();
    }
    let brier = if n == 0.0 {
        0.0
    } else {
        (0..conf.len())
            .map(|j| (conf[j] - correct[j]).powi(2))
            .sum::<f64>()
            / n
    };
    let total_cost = 10.0 * fnn as f64 + fp as f64;
    let mut covs = Vec::new();
    let mut risks = Vec::new();
    for j in 0..=100 {
        let tau = j as f64 / 100.0;
        let cov: Vec<usize> = (0..conf.len()).filter(|&k| conf[k] >= tau).collect();
        covs.push(div(cov.len() as f64, n));
        risks.push(if cov.is_empty() {
            0.0
        } else {
            cov.iter().map(|&k| 1.0 - correct[k]).sum::<f64>() / cov.len() as f64
        });
    }
    let mut aurc = 0.0;
    for j in 1..=100 {
        aurc += (covs[j - 1] - covs[j]) * (risks[j] + risks[j - 1]) / 2.0;
    }
    UpstreamMetrics {
        tpr,
        fpr: div(fp as f64, (fp + tn) as f64),
        fnr: 1.0 - tpr,
        precision,
        f1: div(2.0 * precision * tpr, precision + tpr),
        accuracy: div((tp + tn) as f64, n),
        ece: if n == 0.0 { 0.0 } else { ece },
        brier,
        total_cost,
        cost_weighted_accuracy: if n == 0.0 {
            1.0
        } else {
            1.0 - total_cost / (10.0 * n)
        },
        abstain_rate: div(abstain as f64, valid.len() as f64),
        aurc: aurc.max(0.0),
        counts: [tp, tn, fp, fnn, abstain as u64],
    }
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|x| (x - b).abs() < 1e-12)
}

#[test]
fn heuristic_on_public_mini_follows_upstream() {
    let Some(root) = upstream_data::dir(env!("CARGO_MANIFEST_DIR")) else {
        return;
    };
    let file: PathBuf = root.join("public_mini/e1.jsonl");
    let sb = Sandbox::new();
    let out = sb.run(&[
        "eval",
        "e1",
        "--dataset",
        file.to_str().unwrap(),
        "--split",
        "all",
        "--reward-profile",
        "upstream",
        "--run-id",
        "parity",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = sb.path().join(stdout(&out).trim());
    let recs = results(&dir);
    assert_eq!(recs.len(), 100);

    let mut triples = Vec::new();
    for r in &recs {
        let q = r["question"].as_str().unwrap();
        let (label, conf) = reference_heuristic(q);
        assert_eq!(r["predicted_label"], label, "{q}");
        assert!(close(&r["confidence"], conf), "{q}");
        assert_eq!(r["parse"]["status"], "valid");
        assert_eq!(r["parse"]["format_ok"], true);
        // Upstream reward formula, every component.
        let gold = r["answer"].as_str().unwrap();
        let k = if label == gold { 1.0 } else { 0.0 };
        let cost = if label == gold {
            1.0
        } else if label == "Benign" && gold == "Malicious" {
            -1.0
        } else {
            0.0
        };
        let comps = [
            ("reward_accuracy", k),
            ("format_reward", 1.0),
            ("reward_calibration", 1.0 - (conf - k).abs()),
            ("reward_asymmetric_cost", cost),
        ];
        for (name, want) in comps {
            assert!(close(&r["rewards"][name], want), "{name} on {q}");
        }
        let total = k + 0.1 + 0.2 * (1.0 - (conf - k).abs()) + 0.5 * cost;
        assert!((r["reward"].as_f64().unwrap() - total).abs() < 1e-12);
        triples.push((label.to_lowercase(), gold.to_lowercase(), conf));
    }
    // Spot checks from the spec's examples that occur in this file.
    for r in &recs {
        let q = r["question"].as_str().unwrap();
        if q.contains("→23,") {
            assert_eq!(r["predicted_label"], "Malicious");
        }
    }

    let want = upstream_metrics(&triples);
    let summary = read_json(&dir.join("summary.json"));
    // svbench's `accuracy` also counts abstentions (as not correct);
    // upstream's is the selective one, `accuracy_non_abstained`.
    let [tp, tn, fp, fn_, abstain] = want.counts;
    let accuracy_all = (tp + tn) as f64 / (tp + tn + fp + fn_ + abstain) as f64;
    for (block, accuracy) in [
        (&summary["metrics"], accuracy_all),
        (&summary["upstream_compat"], want.accuracy),
    ] {
        let d = &block["detection"];
        for (name, v) in [
            ("tpr", want.tpr),
            ("fpr", want.fpr),
            ("fnr", want.fnr),
            ("precision", want.precision),
            ("f1", want.f1),
            ("accuracy", accuracy),
        ] {
            assert!(close(&d[name], v), "{name}: {} vs {v}", d[name]);
        }
        assert!(close(&block["calibration"]["ece"], want.ece));
        assert!(close(&block["calibration"]["brier"], want.brier));
        assert!(close(&block["cost"]["total_cost"], want.total_cost));
        assert!(close(
            &block["cost"]["cost_weighted_accuracy"],
            want.cost_weighted_accuracy
        ));
        assert!(close(
            &block["abstention"]["abstain_rate"],
            want.abstain_rate
        ));
        assert!(close(
            &block["abstention"]["accuracy_non_abstained"],
            want.accuracy
        ));
        assert!(close(&block["abstention"]["aurc"], want.aurc));
        let cm = &block["confusion_matrix"];
        for (name, v) in ["tp", "tn", "fp", "fn", "abstain"].iter().zip(want.counts) {
            assert_eq!(cm[*name].as_u64(), Some(v), "{name}");
        }
    }
}

#[test]
fn loader_reads_all_upstream_files_and_keeps_meta_extras() {
    let Some(root) = upstream_data::dir(env!("CARGO_MANIFEST_DIR")) else {
        return;
    };
    let sb = Sandbox::new();
    for (file, split) in [
        ("public_mini/e1.jsonl", "all"),
        ("e1/iot23-train-dev-test-test.jsonl", "all"),
        ("e1/cic-ids-2017-ood-test.jsonl", "ood"),
        ("e1/unsw-nb15-ood-test.jsonl", "ood"),
    ] {
        let path = root.join(file);
        let out = sb.run(&[
            "eval",
            "e1",
            "--dataset",
            path.to_str().unwrap(),
            "--split",
            split,
            "--model",
            "builtin:oracle",
        ]);
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        let dir = sb.path().join(stdout(&out).trim());
        let recs = results(&dir);
        assert!(!recs.is_empty());
        for r in &recs {
            assert_eq!(r["parse"]["status"], "valid");
            assert!(r["info"]["meta"]["hash"].is_string(), "meta preserved");
        }
        if file.starts_with("public_mini") {
            assert_eq!(recs[0]["info"]["meta"]["public_mini"], true);
            assert_eq!(
                recs[0]["info"]["meta"]["source_dataset"],
                "iot23-train-dev-test-v1.jsonl"
            );
        }
        let summary = read_json(&dir.join("summary.json"));
        assert!(
            close(&summary["metrics"]["detection"]["accuracy"], 1.0),
            "oracle is perfect"
        );
    }
}
