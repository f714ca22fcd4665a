//! E4 through the real binary: eval with the builtin policies on the
//! embedded data, report --check, the corpus regenerated from its manifest,
//! and a public-corpus CSV imported and evaluated.

mod common;

use std::path::{Path, PathBuf};

use common::*;

fn run_dir_of(out: &std::process::Output) -> PathBuf {
    let text = stdout(out);
    PathBuf::from(text.lines().last().expect("eval prints the run dir").trim())
}

fn dataset_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/e4")
}

#[test]
fn default_eval_runs_indicators_and_the_report_recomputes() {
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e4", "--run-id", "t1"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("builtin:indicators"),
        "{}",
        stderr(&out)
    );
    let dir = sb.path().join(run_dir_of(&out));
    let meta = read_json(&dir.join("metadata.json"));
    assert_eq!(meta["status"], "completed");
    assert_eq!(meta["split"], "test");
    assert_eq!(meta["num_examples"], 400);
    let recs = results(&dir);
    assert_eq!(recs.len(), 400);
    for r in &recs {
        assert_eq!(r["parse"]["status"], "valid");
        assert_eq!(r["parsed"]["render_version"], svbench_mail::RENDER_VERSION);
        assert!(r["reward"].as_f64().unwrap() <= 1.7 + 1e-12);
        // The prompt holds the email between markers.
        let user = r["prompt"][1]["content"].as_str().unwrap();
        assert!(user.starts_with("<email>\n") && user.ends_with("\n</email>"));
    }
    let check = sb.run(&["report", "--check", dir.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    let summary = read_json(&dir.join("summary.json"));
    assert!(
        summary["metrics"]["evidence"].is_object(),
        "{}",
        summary["metrics"]
    );
    assert!(dir.join("report.html").is_file());
}

#[test]
fn the_oracle_scores_the_upper_bound() {
    let sb = Sandbox::new();
    let out = sb.run(&["eval", "e4", "--model", "builtin:oracle", "--run-id", "o"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let recs = results(&sb.path().join(run_dir_of(&out)));
    for r in &recs {
        let want = if r["answer"] == "Abstain" {
            1.6375
        } else {
            1.7
        };
        assert!((r["reward"].as_f64().unwrap() - want).abs() < 1e-9, "{r}");
    }
}

#[test]
fn the_manifest_regenerates_the_committed_corpus_byte_for_byte() {
    let sb = Sandbox::new();
    let manifest = dataset_dir().join("manifest.json");
    let out_dir = sb.path().join("e4");
    let o = sb.run(&[
        "data",
        "gen",
        "e4",
        "--manifest",
        manifest.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for name in [
        "train.jsonl",
        "dev.jsonl",
        "test.jsonl",
        "ood.jsonl",
        "manifest.json",
        "README.md",
    ] {
        let want = std::fs::read(dataset_dir().join(name)).unwrap();
        let got = std::fs::read(out_dir.join(name)).unwrap();
        assert!(want == got, "{name} differs");
    }
}

#[test]
fn a_public_corpus_csv_imports_and_evaluates() {
    let sb = Sandbox::new();
    sb.write(
        "emails.csv",
        ",Email Text,Email Type\n\
         0,\"Dear customer, confirm your password within 24 hours at http://203.0.113.7/login\",Phishing Email\n\
         1,\"Hi team, the notes from Monday are in the shared folder. Ana\",Safe Email\n",
    );
    let inspect = sb.run(&["data", "inspect", "emails.csv"]);
    assert_eq!(inspect.status.code(), Some(0), "{}", stderr(&inspect));
    let text = stdout(&inspect);
    assert!(
        text.contains("--text-col \"Email Text\" --label-col \"Email Type\""),
        "{text}"
    );
    // Without the mapping flags nothing is guessed.
    let bare = sb.run(&["data", "import", "e4", "emails.csv", "--format", "csv"]);
    assert_eq!(bare.status.code(), Some(2), "{}", stderr(&bare));
    assert!(
        stderr(&bare).contains("\"Email Text\""),
        "{}",
        stderr(&bare)
    );
    let o = sb.run(&[
        "data",
        "import",
        "e4",
        "emails.csv",
        "--format",
        "csv",
        "--text-col",
        "Email Text",
        "--label-col",
        "Email Type",
        "--label-map",
        "Phishing Email=Phishing,Safe Email=Legitimate",
        "--text-kind",
        "body",
        "--evidence-gold",
        "extractor",
        "--split",
        "test",
        "--out",
        "rows.jsonl",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = sb.run(&["eval", "e4", "--dataset", "rows.jsonl", "--run-id", "imp"]);
    assert!(e.status.success(), "{}", stderr(&e));
    let recs = results(&sb.path().join(run_dir_of(&e)));
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0]["parsed"]["gold_source"], "extractor");
}

/// A mail folder as exports leave it: messages without `.eml`, notes and an
/// empty file. Every missing flag is named at once; the empty `.eml` stops
/// the import naming `--skip-invalid`, which skips it, counted and named.
#[test]
fn a_mail_folder_imports_with_what_was_skipped_named() {
    let sb = Sandbox::new();
    let msg = "From: Ana <ana@acme-corp.example>\nTo: team@acme-corp.example\nSubject: Notes\n\nThe notes from Monday are in the shared folder.\n";
    sb.write("mail/a.eml", msg);
    sb.write(
        "mail/cur/1700000000.M1.host:2,S",
        &msg.replace("Monday", "Tuesday"),
    );
    sb.write("mail/notes.txt", "Shopping list\nmilk\n");
    sb.write("mail/empty.eml", "");
    let bare = sb.run(&["data", "import", "e4", "mail", "--format", "eml"]);
    assert_eq!(bare.status.code(), Some(2), "{}", stderr(&bare));
    for flag in [
        "--label LABEL or --labels FILE",
        "--evidence-gold",
        "--split NAME",
    ] {
        assert!(stderr(&bare).contains(flag), "{flag}: {}", stderr(&bare));
    }
    let args = [
        "data",
        "import",
        "e4",
        "mail",
        "--format",
        "eml",
        "--label",
        "Legitimate",
        "--evidence-gold",
        "none",
        "--split",
        "test",
        "--out",
        "rows.jsonl",
    ];
    let strict = sb.run(&args);
    assert_eq!(strict.status.code(), Some(3), "{}", stderr(&strict));
    assert!(
        stderr(&strict).contains("mail/empty.eml: empty file; pass --skip-invalid"),
        "{}",
        stderr(&strict)
    );
    let o = sb.run(&[&args[..], &["--skip-invalid"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "skipped 2 files: 1 empty (mail/empty.eml), 1 not a message (mail/notes.txt)"
        ),
        "{}",
        stderr(&o)
    );
    let rows = std::fs::read_to_string(sb.path().join("rows.jsonl")).unwrap();
    assert_eq!(rows.lines().count(), 2, "{rows}");
}
