//! `svbench scan` on e-mail: `.eml` and `.mbox` detection, JSON and SARIF
//! output, exit codes (1 only for phish findings).

mod common;

use common::{stdout, Sandbox};
use serde_json::Value;

const PHISH: &str = "From: Northwind Bank <alerts@northwlnd-bank.top>\r\n\
To: dana.ortiz@acme-corp.example\r\n\
Subject: Unusual sign-in\r\n\r\n\
Dear customer,\r\nConfirm your password within 24 hours or your account will be suspended.\r\n\
Verify at http://203.0.113.7/northwind/login now.\r\n";

const LEGIT: &str = "From: Northwind Bank <alerts@northwindbank.example>\r\n\
To: dana.ortiz@acme-corp.example\r\n\
Subject: Your statement\r\n\r\n\
Your statement is ready at https://www.northwindbank.example/statements today.\r\n";

fn json(sb: &Sandbox, args: &[&str]) -> (Option<i32>, Value) {
    let o = sb.run(args);
    let v = serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)));
    (o.status.code(), v)
}

#[test]
fn eml_files_are_detected_and_reported_as_json() {
    let sb = Sandbox::new();
    sb.write("alert.eml", PHISH);
    let (code, v) = json(&sb, &["scan", "alert.eml", "--format", "json"]);
    assert_eq!(code, Some(1));
    let file = &v["files"][0];
    assert_eq!(file["type"], "email");
    assert!(file["path"].as_str().unwrap().ends_with("alert.eml"));
    assert_eq!(file["errors"], Value::Array(vec![]));
    let findings = file["findings"].as_array().unwrap();
    let cats: Vec<&str> = findings
        .iter()
        .map(|f| f["category"].as_str().unwrap())
        .collect();
    for c in [
        "lookalike_domain",
        "ip_url",
        "credential_request",
        "generic_greeting",
    ] {
        assert!(cats.contains(&c), "{c}: {cats:?}");
    }
    let f = findings
        .iter()
        .find(|f| f["category"] == "lookalike_domain")
        .unwrap();
    assert_eq!(f["polarity"], "phish");
    assert_eq!(f["text"], "northwlnd-bank.top");
    // Offsets are code points into the rendering; this one is on the From line.
    assert_eq!(f["start"], 29);
    assert_eq!(f["end"], 47);
    assert!(f["detail"].as_str().is_some());
    assert!(v["analyzers"]["email-indicators"]["version"]
        .as_str()
        .unwrap()
        .contains("indicators.toml sha256"));
}

#[test]
fn mbox_gives_one_entry_per_message_and_benign_only_exits_zero() {
    let sb = Sandbox::new();
    let mbox = format!(
        "From alerts@northwindbank.example Tue Mar  4 09:12:44 2025\n{}\nFrom x@y Tue Mar  4 09:12:44 2025\n{}",
        LEGIT.replace("\r\n", "\n"),
        PHISH.replace("\r\n", "\n")
    );
    sb.write("box.mbox", &mbox);
    let (code, v) = json(&sb, &["scan", "box.mbox", "--format", "json"]);
    assert_eq!(code, Some(1));
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{v:#}");
    assert!(files[0]["path"].as_str().unwrap().ends_with("box.mbox#1"));
    assert!(files[1]["path"].as_str().unwrap().ends_with("box.mbox#2"));
    let first: Vec<&str> = files[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["polarity"].as_str().unwrap())
        .collect();
    assert!(
        !first.is_empty() && first.iter().all(|p| *p == "benign"),
        "{first:?}"
    );

    sb.write("legit.eml", LEGIT);
    let (code, _) = json(&sb, &["scan", "legit.eml", "--format", "json"]);
    assert_eq!(code, Some(0), "benign findings alone exit 0");
}

#[test]
fn sarif_has_an_email_run_and_unparseable_mail_exits_three() {
    let sb = Sandbox::new();
    sb.write("alert.eml", PHISH);
    let (code, v) = json(&sb, &["scan", "alert.eml", "--format", "sarif"]);
    assert_eq!(code, Some(1));
    assert_eq!(v["version"], "2.1.0");
    let runs = v["runs"].as_array().unwrap();
    let run = runs
        .iter()
        .find(|r| r["tool"]["driver"]["name"] == "email-indicators")
        .expect("an e-mail run");
    let results = run["results"].as_array().unwrap();
    assert!(results
        .iter()
        .any(|r| r["ruleId"] == "ip_url" && r["level"] == "warning"));
    assert!(results.iter().all(
        |r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("alert.eml")
    ));

    sb.write("empty.eml", "   \n");
    let o = sb.run(&["scan", "empty.eml", "--format", "json"]);
    assert_eq!(o.status.code(), Some(3));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["files"][0]["errors"][0]["message"], "empty file");
    let text = sb.run(&["scan", "alert.eml", "--type", "email"]);
    assert_eq!(text.status.code(), Some(1));
    assert!(
        stdout(&text).contains("email/ip_url [phish]"),
        "{}",
        stdout(&text)
    );
}

/// 10,000,000 bare separator lines: every one is a message, each was held
/// with its report (3.8 GB). The mailbox is read message by message and
/// stops after `max_mbox_messages` (100,000) with an error.
#[test]
fn a_mailbox_of_separators_stops_at_the_message_limit() {
    let sb = Sandbox::new();
    sb.write(
        "many.mbox",
        &"From - Tue Mar  4 09:12:44 2025\n".repeat(150_000),
    );
    let (code, v) = json(&sb, &["scan", "many.mbox", "--format", "json"]);
    assert_eq!(code, Some(3));
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 100_001);
    assert!(files[99_999]["path"]
        .as_str()
        .unwrap()
        .ends_with("many.mbox#100000"));
    let last = files.last().unwrap();
    assert!(
        last["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("more than 100000 messages"),
        "{last}"
    );
}

#[test]
fn the_time_budget_covers_e_mail() {
    let sb = Sandbox::new();
    sb.write("alert.eml", PHISH);
    sb.write(
        "box.mbox",
        &format!(
            "From a@b.example Tue Mar  4 09:12:44 2025\n{PHISH}\
             From b@b.example Tue Mar  4 09:12:45 2025\n{LEGIT}"
        ),
    );
    for file in ["alert.eml", "box.mbox"] {
        let (code, v) = json(
            &sb,
            &[
                "scan",
                file,
                "--format",
                "json",
                "--time-budget",
                "0.000000001",
            ],
        );
        assert_eq!(code, Some(3), "{v}");
        let files = v["files"].as_array().unwrap();
        assert_eq!(files.len(), 1, "a partial mailbox is not a result: {v}");
        assert_eq!(files[0]["findings"], Value::Array(vec![]));
        assert!(
            files[0]["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains("time budget was exceeded"),
            "{v}"
        );
    }
    let (code, _) = json(
        &sb,
        &[
            "scan",
            "box.mbox",
            "--format",
            "json",
            "--time-budget",
            "60",
        ],
    );
    assert_eq!(code, Some(1));
}

/// A mail folder in text mode: a message saved without an extension is
/// scanned, a header written `From  :` does not make a file a mailbox, and
/// the files skipped are named with why.
#[test]
fn a_mail_folder_in_text_mode_names_what_it_skipped() {
    let sb = Sandbox::new();
    sb.write("mail/alert.eml", PHISH);
    sb.write("mail/cur/1700000000.M1.host:2,S", LEGIT);
    sb.write(
        "mail/obsolete.eml",
        &PHISH.replacen("From: ", "From  : ", 1),
    );
    sb.write("mail/notes.txt", "Shopping list\nmilk\n");
    sb.write("mail/values.yaml", "replicas: 3\n");
    let o = sb.run(&["scan", "mail"]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "mail/notes.txt: skipped: not a Kubernetes manifest, Terraform file (.tf) or e-mail"
        ),
        "{text}"
    );
    assert!(
        text.contains("mail/values.yaml: skipped: YAML or JSON without an apiVersion key"),
        "{text}"
    );
    assert!(text.contains("mail/obsolete.eml:"), "{text}");
    assert!(!text.contains("obsolete.eml#"), "not a mailbox: {text}");
    assert!(
        text.lines()
            .last()
            .is_some_and(|l| l.starts_with("3 messages: ") && l.ends_with(", 2 skipped")),
        "{text}"
    );
}
