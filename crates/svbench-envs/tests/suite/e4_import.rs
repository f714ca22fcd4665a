//! E4 importers: explicit mappings, errors that say what the file holds,
//! and rows the E4 loader accepts.

use std::path::{Path, PathBuf};

use serde_json::Value;
use svbench_envs::e4::dataset::validate_row;
use svbench_envs::e4::import::{
    import, notes, EvidenceGold, ImportError, ImportFormat, ImportOptions, SkipReason, SplitChoice,
    TextKind,
};
use svbench_mail::EmailLimits;

/// A CSV laid out like the widely used public phishing corpus: an index
/// column, `Email Text` and `Email Type` with `Phishing Email`/`Safe Email`.
const CORPUS_CSV: &str = "\
,Email Text,Email Type
0,\"Dear customer, your account is suspended.
Confirm your password within 24 hours at http://203.0.113.7/login\",Phishing Email
1,\"Hi team, the meeting notes are attached. Thanks, Ana\",Safe Email
2,\"URGENT: verify your identity now, reply with your SSN\",Phishing Email
3,\"Lunch on Friday? Let me know.\",Safe Email
";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn csv_options() -> ImportOptions {
    let mut o = ImportOptions::new(ImportFormat::Csv);
    o.text_col = Some("Email Text".into());
    o.label_col = Some("Email Type".into());
    o.label_map = Some("Phishing Email=Phishing,Safe Email=Legitimate".into());
    o.text_kind = Some(TextKind::Body);
    o.evidence_gold = Some(EvidenceGold::Extractor);
    o.split = Some(SplitChoice::Fixed("test".into()));
    o
}

fn check_loads(rows: &[Value]) {
    for row in rows {
        validate_row(row, &EmailLimits::default()).unwrap_or_else(|e| panic!("{e}: {row}"));
    }
}

#[test]
fn a_public_corpus_csv_imports_with_its_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "emails.csv", CORPUS_CSV);
    let out = import(&[csv], &csv_options()).unwrap();
    assert_eq!(out.rows.len(), 4);
    let labels: Vec<&str> = out
        .rows
        .iter()
        .map(|r| r["answer"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Phishing", "Legitimate", "Phishing", "Legitimate"]);
    for r in &out.rows {
        let q = r["question"].as_str().unwrap();
        assert!(q.trim().len() > 10, "empty prompt: {q:?}");
        assert_eq!(r["meta"]["gold_source"], "extractor");
        assert_eq!(r["meta"]["split"], "test");
    }
    // The multi-line quoted field stayed one email.
    assert!(out.rows[0]["question"]
        .as_str()
        .unwrap()
        .contains("Confirm your password"));
    // The extractor found the IP URL of the first email as a gold span.
    let spans = out.rows[0]["meta"]["spans"].as_array().unwrap();
    assert!(spans.iter().any(|s| s["category"] == "ip_url"), "{spans:?}");
    check_loads(&out.rows);
}

#[test]
fn without_mapping_flags_the_error_lists_columns_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "emails.csv", CORPUS_CSV);
    let mut o = ImportOptions::new(ImportFormat::Csv);
    o.evidence_gold = Some(EvidenceGold::None);
    o.split = Some(SplitChoice::Fixed("test".into()));
    let e = import(&[csv], &o).unwrap_err().to_string();
    for needle in [
        "Email Text",
        "Email Type",
        "--text-col",
        "--label-col",
        "--label-map",
        "--text-kind",
    ] {
        assert!(e.contains(needle), "{needle} missing from: {e}");
    }
}

#[test]
fn unmapped_values_are_listed_with_counts_or_dropped_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{CORPUS_CSV}4,\"Win a prize now\",Spam\n5,\"Cheap pills\",Spam\n");
    let csv = write(dir.path(), "emails.csv", &text);
    let e = import(std::slice::from_ref(&csv), &csv_options())
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"Spam\" (2 rows)"), "{e}");
    let mut o = csv_options();
    o.drop_unmapped = true;
    let out = import(&[csv], &o).unwrap();
    assert_eq!(out.rows.len(), 4);
    assert_eq!(out.dropped_unmapped.get("Spam"), Some(&2));
}

#[test]
fn an_empty_text_cell_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{CORPUS_CSV}4,\"\",Safe Email\n");
    let csv = write(dir.path(), "emails.csv", &text);
    let e = import(std::slice::from_ref(&csv), &csv_options()).unwrap_err();
    match e {
        // The header is line 1 and the first record spans lines 2-3.
        ImportError::Row { line, .. } => assert_eq!(line, 7),
        other => panic!("{other}"),
    }
    let mut o = csv_options();
    o.drop_empty = true;
    assert_eq!(import(&[csv], &o).unwrap().dropped_empty, 1);
}

#[test]
fn a_missing_column_lists_the_columns() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "emails.csv", CORPUS_CSV);
    let mut o = csv_options();
    o.text_col = Some("body".into());
    let e = import(&[csv], &o).unwrap_err().to_string();
    assert!(
        e.contains("no column `body`") && e.contains("Email Type"),
        "{e}"
    );
}

#[test]
fn evidence_gold_and_split_are_required() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "emails.csv", CORPUS_CSV);
    let mut o = csv_options();
    o.evidence_gold = None;
    assert!(import(std::slice::from_ref(&csv), &o)
        .unwrap_err()
        .to_string()
        .contains("--evidence-gold"));
    let mut o = csv_options();
    o.split = None;
    assert!(import(&[csv], &o)
        .unwrap_err()
        .to_string()
        .contains("--split"));
}

#[test]
fn split_ratios_keep_a_subject_in_one_split_and_duplicates_go() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("subject,body,label\n");
    for i in 0..40 {
        text.push_str(&format!(
            "\"Re: invoice {}\",\"Please pay invoice {i}\",phish\n",
            i % 10
        ));
    }
    text.push_str("\"Re: invoice 1\",\"Please pay invoice 1\",phish\n");
    let csv = write(dir.path(), "t.csv", &text);
    let mut o = ImportOptions::new(ImportFormat::Csv);
    o.text_col = Some("body".into());
    o.label_col = Some("label".into());
    o.subject_col = Some("subject".into());
    o.label_map = Some("phish=Phishing".into());
    o.text_kind = Some(TextKind::Body);
    o.evidence_gold = Some(EvidenceGold::None);
    o.split = Some(SplitChoice::Ratios([0.5, 0.25, 0.25]));
    let out = import(&[csv], &o).unwrap();
    assert_eq!(out.duplicates.len(), 1);
    let mut by_subject = std::collections::HashMap::new();
    for r in &out.rows {
        let subject = r["email"]["headers"]["Subject"]
            .as_str()
            .unwrap()
            .to_string();
        let split = r["meta"]["split"].as_str().unwrap().to_string();
        assert_eq!(
            by_subject.entry(subject).or_insert_with(|| split.clone()),
            &split
        );
        assert_eq!(r["meta"]["spans"], serde_json::json!([]));
    }
    check_loads(&out.rows);
}

#[test]
fn eml_and_mbox_inputs_convert_with_labels() {
    let dir = tempfile::tempdir().unwrap();
    let eml = "From: Bank <alerts@northwlnd-bank.top>\r\nTo: dana@acme-corp.example\r\nSubject: Verify\r\nMessage-ID: <m1@x.test>\r\n\r\nConfirm your password within 24 hours.\r\n";
    let sub = dir.path().join("mail");
    std::fs::create_dir(&sub).unwrap();
    write(&sub, "a.eml", eml);
    write(&sub, "notes.txt", "not an email");
    let mut o = ImportOptions::new(ImportFormat::Eml);
    o.label = Some("phishing".into());
    o.evidence_gold = Some(EvidenceGold::Extractor);
    o.split = Some(SplitChoice::Fixed("dev".into()));
    let out = import(std::slice::from_ref(&sub), &o).unwrap();
    assert_eq!(out.rows.len(), 1);
    assert_eq!(out.rows[0]["answer"], "Phishing");
    check_loads(&out.rows);

    let mbox = format!(
        "From a@x Mon Jan  1 00:00:00 2024\n{}\nFrom b@y Mon Jan  1 00:00:00 2024\nFrom: Ana <ana@acme-corp.example>\nTo: team@acme-corp.example\nSubject: Notes\nMessage-ID: <m2@x.test>\n\nThe notes are attached.\n",
        eml.replace("\r\n", "\n")
    );
    let mbox = write(dir.path(), "box.mbox", &mbox);
    let labels = write(
        dir.path(),
        "labels.csv",
        "m1@x.test,Phishing\nm2@x.test,Legitimate\n",
    );
    let mut o = ImportOptions::new(ImportFormat::Mbox);
    o.labels = Some(labels);
    o.evidence_gold = Some(EvidenceGold::None);
    o.split = Some(SplitChoice::Fixed("test".into()));
    let out = import(std::slice::from_ref(&mbox), &o).unwrap();
    let labels: Vec<&str> = out
        .rows
        .iter()
        .map(|r| r["answer"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Phishing", "Legitimate"]);
    check_loads(&out.rows);
    // Unlabelled messages are an error, never a default.
    let only_one = write(dir.path(), "one.csv", "m1@x.test,Phishing\n");
    o.labels = Some(only_one);
    let e = import(&[mbox], &o).unwrap_err().to_string();
    assert!(e.contains("unlabelled message"), "{e}");
}

#[test]
fn upstream_rows_reimport_to_their_question() {
    let Some(path) =
        svbench_core::upstream_data::path(env!("CARGO_MANIFEST_DIR"), "public_mini/e4.jsonl")
    else {
        return;
    };
    let mut o = ImportOptions::new(ImportFormat::UpstreamE4);
    o.evidence_gold = Some(EvidenceGold::Extractor);
    o.split = Some(SplitChoice::Fixed("test".into()));
    let out = import(std::slice::from_ref(&path), &o).unwrap();
    let original: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(out.rows.len(), original.len());
    for (row, orig) in out.rows.iter().zip(&original) {
        assert_eq!(row["question"], orig["question"]);
    }
    check_loads(&out.rows);
}

const PHISH_EML: &str = "From: Bank <alerts@northwlnd-bank.top>\r\nTo: dana@acme-corp.example\r\nSubject: Verify\r\nMessage-ID: <m1@x.test>\r\n\r\nConfirm your password within 24 hours.\r\n";
const NOTES_EML: &str = "From: Ana <ana@acme-corp.example>\nTo: team@acme-corp.example\nSubject: Notes\nMessage-ID: <m2@x.test>\n\nThe notes are attached.\n";

fn message_options(format: ImportFormat) -> ImportOptions {
    let mut o = ImportOptions::new(format);
    o.label = Some("Phishing".into());
    o.evidence_gold = Some(EvidenceGold::None);
    o.split = Some(SplitChoice::Fixed("test".into()));
    o
}

/// A mail folder as exports leave them: messages without an extension,
/// notes, images and an empty `.eml`.
#[test]
fn a_folder_takes_every_message_and_names_what_it_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    std::fs::create_dir_all(mail.join("cur")).unwrap();
    write(&mail, "a.eml", PHISH_EML);
    write(&mail.join("cur"), "1700000000.M1P2.host:2,S", NOTES_EML);
    write(&mail, "notes.txt", "Shopping list\nmilk\n");
    std::fs::write(mail.join("logo.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    write(&mail, "c.eml", "");
    let inputs = std::slice::from_ref(&mail);
    // The empty `.eml` is meant to be a message: an error naming it.
    let e = import(inputs, &message_options(ImportFormat::Eml)).unwrap_err();
    assert!(
        matches!(
            e,
            ImportError::Invalid {
                reason: SkipReason::Empty,
                ..
            }
        ),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.contains("c.eml: empty file") && text.contains("--skip-invalid"),
        "{text}"
    );
    let mut o = message_options(ImportFormat::Eml);
    o.skip_invalid = true;
    let out = import(inputs, &o).unwrap();
    let subjects: Vec<&str> = out
        .rows
        .iter()
        .map(|r| r["email"]["headers"]["Subject"].as_str().unwrap())
        .collect();
    assert_eq!(subjects, ["Verify", "Notes"]);
    check_loads(&out.rows);
    let m = |name: &str| mail.join(name).display().to_string();
    let summary = format!(
        "skipped 3 files: 1 empty ({}), 1 binary ({}), 1 not a message ({})",
        m("c.eml"),
        m("logo.png"),
        m("notes.txt")
    );
    let lines = notes(&out, ImportFormat::Eml);
    assert!(lines.contains(&summary), "{lines:?}");
    assert_eq!(lines.last().unwrap(), "imported 2 rows");
    // Without the empty file, the rest is skipped without --skip-invalid.
    std::fs::remove_file(mail.join("c.eml")).unwrap();
    let out = import(inputs, &message_options(ImportFormat::Eml)).unwrap();
    assert_eq!((out.rows.len(), out.skipped.len()), (2, 2));
}

#[test]
fn skipped_lists_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good.eml", PHISH_EML);
    for i in 0..8 {
        write(dir.path(), &format!("empty{i}.eml"), "\n");
    }
    let mut o = message_options(ImportFormat::Eml);
    o.skip_invalid = true;
    let out = import(&[dir.path().to_path_buf()], &o).unwrap();
    assert_eq!((out.rows.len(), out.skipped.len()), (1, 8));
    let summary = &notes(&out, ImportFormat::Eml)[0];
    assert!(
        summary.starts_with("skipped 8 files: 8 empty (") && summary.ends_with("… and 3 more)"),
        "{summary}"
    );
}

#[test]
fn every_missing_flag_is_named_in_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let eml = write(dir.path(), "a.eml", PHISH_EML);
    let e = import(&[eml], &ImportOptions::new(ImportFormat::Eml)).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, ImportError::Usage(_)), "{text}");
    for flag in [
        "--label LABEL or --labels FILE",
        "--evidence-gold",
        "--split NAME",
    ] {
        assert!(text.contains(flag), "{flag} missing from: {text}");
    }
    let csv = write(dir.path(), "emails.csv", CORPUS_CSV);
    let text = import(&[csv], &ImportOptions::new(ImportFormat::Csv))
        .unwrap_err()
        .to_string();
    for needle in [
        "--text-col",
        "--label-col",
        "--label-map",
        "--text-kind",
        "--evidence-gold",
        "--split",
        "\"Email Text\"",
    ] {
        assert!(text.contains(needle), "{needle} missing from: {text}");
    }
}

#[test]
fn a_labels_file_may_start_with_a_header_line() {
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("mail");
    std::fs::create_dir(&mail).unwrap();
    write(&mail, "a.eml", PHISH_EML);
    write(&mail, "b.eml", NOTES_EML);
    let cases = [
        // (labels file, a note about its first line expected)
        ("file,label\na.eml,Phishing\nb.eml,Legitimate\n", false),
        (
            "\"id\",\"label\"\r\nm1@x.test,Phishing\r\nm2@x.test,Legitimate\r\n",
            false,
        ),
        (
            "\u{feff}message_id,class\nm1@x.test,phishing\nb.eml,legitimate\n",
            false,
        ),
        ("email,verdict\na.eml,Phishing\nb.eml,Legitimate\n", true),
        ("a.eml,Phishing\nb.eml,Legitimate\n", false),
    ];
    for (text, noted) in cases {
        let labels = write(dir.path(), "labels.csv", text);
        let mut o = message_options(ImportFormat::Eml);
        o.label = None;
        o.labels = Some(labels);
        let out =
            import(std::slice::from_ref(&mail), &o).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let labels: Vec<&str> = out
            .rows
            .iter()
            .map(|r| r["answer"].as_str().unwrap())
            .collect();
        assert_eq!(labels, ["Phishing", "Legitimate"], "{text:?}");
        let said = out.notes.iter().any(|n| n.contains("read as a header"));
        assert_eq!(said, noted, "{text:?}: {:?}", out.notes);
    }
    // A bad label past the first line is still an error.
    let labels = write(dir.path(), "labels.csv", "file,label\na.eml,Spam\n");
    let mut o = message_options(ImportFormat::Eml);
    o.label = None;
    o.labels = Some(labels);
    assert!(import(&[mail], &o).is_err());
}

#[test]
fn dropped_duplicates_name_the_kept_row_and_the_dropped_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.eml", PHISH_EML);
    let b = write(dir.path(), "b.eml", PHISH_EML);
    let out = import(&[a.clone(), b.clone()], &message_options(ImportFormat::Eml)).unwrap();
    assert_eq!(out.rows.len(), 1);
    let kept_id = out.rows[0]["id"].as_str().unwrap();
    let d = &out.duplicates[0];
    assert_eq!(
        (d.kept_id.as_str(), d.kept.clone(), d.dropped.clone()),
        (kept_id, a.display().to_string(), b.display().to_string())
    );
    let lines = notes(&out, ImportFormat::Eml);
    let expected = format!(
        "dropped 1 rows whose rendered email repeats an earlier row: {} (same as {kept_id}, {})",
        b.display(),
        a.display()
    );
    assert!(lines.contains(&expected), "{lines:?}");
}

/// Only real separator lines split a mailbox: an obsolete `From  :` header
/// and a body line `From the desk of …` stay in their message.
#[test]
fn mailboxes_split_only_at_separator_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mbox = format!(
        "From alerts@northwlnd-bank.top Tue Mar  4 09:12:44 2025\n\
         From  : Bank <alerts@northwlnd-bank.top>\nTo: dana@acme-corp.example\nSubject: Verify\n\n\
         Dear customer,\nFrom the desk of the security team: confirm your password.\n\n\
         From the desk of Ana\n\n\
         From ana@acme-corp.example Tue Mar  4 10:00:00 2025\n{NOTES_EML}\n\
         From x@acme-corp.example Tue Mar  4 11:00:00 2025\n\n"
    );
    let path = write(dir.path(), "box.mbox", &mbox);
    let inputs = std::slice::from_ref(&path);
    let e = import(inputs, &message_options(ImportFormat::Mbox))
        .unwrap_err()
        .to_string();
    assert!(e.contains("box.mbox#3: empty message"), "{e}");
    let mut o = message_options(ImportFormat::Mbox);
    o.skip_invalid = true;
    let out = import(inputs, &o).unwrap();
    assert_eq!(out.rows.len(), 2);
    let first = out.rows[0]["question"].as_str().unwrap();
    assert!(
        first.contains("confirm your password") && first.contains("From the desk of Ana"),
        "{first}"
    );
    assert_eq!(out.rows[1]["email"]["headers"]["Subject"], "Notes");
    assert_eq!(
        notes(&out, ImportFormat::Mbox)[0],
        format!("skipped 1 mailbox message: 1 empty ({}#3)", path.display())
    );
    // A file with no separator line is not a mailbox.
    let plain = write(dir.path(), "plain.mbox", NOTES_EML);
    let e = import(&[plain], &message_options(ImportFormat::Mbox))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no message (no mbox `From ` separator line)"),
        "{e}"
    );
}

/// A mailing-list post keeps its `List-Id` in the row, so the builtin reads
/// the row as the scanner reads the file: a Reply-To to the list is normal.
#[test]
fn a_list_post_keeps_its_list_id_and_its_reply_to_is_no_mismatch() {
    let post = "From: Kofi Mensah <kofi@mensah-consult.example>\r\n\
                To: ofs-discuss@lists.openfreight.example\r\n\
                Reply-To: ofs-discuss@lists.openfreight.example\r\n\
                List-Id: Open Freight discussion <ofs-discuss.lists.openfreight.example>\r\n\
                Subject: [ofs-discuss] Meeting notes\r\n\r\n\
                Hi all, the notes from today's call are below.\r\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "post.eml", post);
    let mut o = message_options(ImportFormat::Eml);
    o.label = Some("Legitimate".into());
    let out = import(std::slice::from_ref(&path), &o).unwrap();
    let headers = &out.rows[0]["email"]["headers"];
    assert_eq!(
        headers["List-Id"],
        "Open Freight discussion <ofs-discuss.lists.openfreight.example>"
    );
    check_loads(&out.rows);
    let limits = EmailLimits::default();
    let email = svbench_envs::e4::row::email_of_row(&out.rows[0]["email"], &limits).unwrap();
    assert!(email.headers.list_id.is_some());
    let rendered = svbench_mail::render(&email, &limits);
    let findings = svbench_mail::extract(&email, &rendered, svbench_mail::IndicatorSet::builtin());
    assert!(
        findings.iter().all(|f| f.category != "reply_to_mismatch"),
        "{findings:#?}"
    );
}
