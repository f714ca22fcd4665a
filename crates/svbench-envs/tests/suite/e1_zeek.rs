//! Zeek importer tests (E1 §8.6.1–2): IoT-23 quirks, missing/empty/zero
//! values, label normalisation, errors with line numbers, capture-level
//! splits, sampling, dedup and reruns. Logs are written by the tests.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use svbench_envs::e1::generate::{Split, Template};
use svbench_envs::e1::zeek::{
    capture_split, import, parse_conn_log, parse_label_file, Cell, ImportInput, ImportOptions,
    SplitAssignment, ZeekError,
};
use svbench_envs::e1::Gold;

const FIELDS: &str = "ts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\tservice\tduration\torig_bytes\tresp_bytes\tconn_state\tlocal_orig\tlocal_resp\tmissed_bytes\thistory\torig_pkts\torig_ip_bytes\tresp_pkts\tresp_ip_bytes\ttunnel_parents   label   detailed-label";
const TYPES: &str = "time\tstring\taddr\tport\taddr\tport\tenum\tstring\tinterval\tcount\tcount\tstring\tbool\tbool\tcount\tstring\tcount\tcount\tcount\tcount\tset[string]   string   string";

/// An IoT-23 `conn.log.labeled`: header lines as Zeek writes them, the last
/// three columns separated by runs of spaces.
fn iot23(rows: &[&str]) -> String {
    let mut s = String::from("#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#open\t2018-05-09-15-30-31\n");
    s.push_str(&format!("#fields\t{FIELDS}\n#types\t{TYPES}\n"));
    for r in rows {
        s.push_str(r);
        s.push('\n');
    }
    s.push_str("#close\t2018-05-10-15-30-31\n");
    s
}

/// A data row: 20 tab-separated columns, then `tunnel label detailed` with spaces.
fn row(cols: &[&str], tail: (&str, &str, &str)) -> String {
    assert_eq!(cols.len(), 20);
    format!("{}\t{}   {}   {}", cols.join("\t"), tail.0, tail.1, tail.2)
}

/// A SYN-only TCP row (a scan) with the given uid, port, duration, bytes and packets.
fn scan(uid: &str, port: &str, dur: &str, ob: &str, rb: &str, pkts: &str) -> String {
    [
        "1525879831.015811",
        uid,
        "192.168.100.103",
        "51524",
        "65.127.233.163",
        port,
        "tcp",
        "-",
        dur,
        ob,
        rb,
        "S0",
        "-",
        "-",
        "0",
        "S",
        pkts,
        "180",
        "0",
        "0",
    ]
    .join("\t")
}

fn cols(s: &str) -> Vec<&str> {
    s.split('\t').collect()
}

fn sample_log() -> String {
    let dns = [
        "1525879832.500000",
        "CXWfTK3LRdiuQxBbM6",
        "192.168.100.103",
        "43763",
        "192.168.100.1",
        "53",
        "udp",
        "dns",
        "0.000000",
        "0",
        "0",
        "SF",
        "-",
        "-",
        "0",
        "Dd",
        "1",
        "28",
        "1",
        "28",
    ];
    iot23(&[
        &row(
            &cols(&scan("CUmrqr4svHuSXJy5z7", "23", "2.999051", "0", "0", "3")),
            ("-", "Malicious", "PartOfAHorizontalPortScan"),
        ),
        &row(
            &cols(&scan("CH98aB3s1kJeq6SFOc", "2323", "-", "-", "-", "1")),
            ("-", "malicious", "PartOfAHorizontalPortScan"),
        ),
        &row(&dns, ("(empty)", "benign", "-")),
        &row(
            &cols(&scan("Cq1", "81", "1.5", "0", "0", "2")),
            ("-", "PartOfAHorizontalPortScan", "-"),
        ),
    ])
}

fn input(path: &str, text: String) -> ImportInput {
    ImportInput {
        path: PathBuf::from(path),
        text,
    }
}

#[test]
fn iot23_rows_parse_with_space_separated_trailing_columns() {
    let log = parse_conn_log(&sample_log(), Path::new("c/conn.log.labeled")).unwrap();
    assert_eq!(log.fields.len(), 23);
    assert_eq!(
        &log.fields[20..],
        ["tunnel_parents", "label", "detailed-label"]
    );
    assert_eq!(log.rows.len(), 4);
    assert_eq!(log.rows[0].line, 9);
    assert_eq!(log.rows[0].cells[7], Cell::Unset);
    assert_eq!(log.rows[2].cells[20], Cell::Empty);
    assert_eq!(log.rows[0].cells[21], Cell::Text("Malicious".into()));
}

#[test]
fn values_labels_and_skips() {
    let out = import(
        &[input(
            "CTU-IoT-Malware-Capture-1-1/bro/conn.log.labeled",
            sample_log(),
        )],
        &ImportOptions::default(),
    )
    .unwrap();
    assert_eq!(out.rows.len(), 3);
    let q: Vec<&str> = out
        .rows
        .iter()
        .map(|r| r["question"].as_str().unwrap())
        .collect();
    assert_eq!(
        q[0],
        "Zeek conn 2018-05-09T15:30:31Z device=? proto=tcp service=? 51524→23 duration=2.999051 orig_bytes=0 resp_bytes=0 orig_pkts=3 resp_pkts=0 conn_state=S0 flags=S"
    );
    assert!(
        q[1].contains(" duration=? orig_bytes=? resp_bytes=? "),
        "{}",
        q[1]
    );
    assert!(
        q[2].contains("service=dns 43763→53 duration=0.000000 orig_bytes=0 resp_bytes=0"),
        "{}",
        q[2]
    );
    let answers: Vec<&str> = out
        .rows
        .iter()
        .map(|r| r["answer"].as_str().unwrap())
        .collect();
    assert_eq!(answers, ["Malicious", "Malicious", "Benign"]);
    assert_eq!(
        out.rows[0]["meta"]["attack_family"],
        "PartOfAHorizontalPortScan"
    );
    assert_eq!(out.rows[2]["meta"]["attack_family"], "NA");
    assert_eq!(
        out.rows[0]["meta"]["scenario"],
        "CTU-IoT-Malware-Capture-1-1"
    );
    assert_eq!(out.rows[0]["meta"]["source"], "zeek");
    assert_eq!(
        out.rows[1]["meta"]["flow"]["duration"],
        serde_json::Value::Null
    );
    assert_eq!(out.rows[2]["meta"]["flow"]["duration"], 0.0);
    assert_eq!(
        out.skipped,
        BTreeMap::from([("unknown label `PartOfAHorizontalPortScan`".to_string(), 1)])
    );
    for r in &out.rows {
        let h = r["meta"]["hash"].as_str().unwrap();
        assert_eq!(
            h,
            svbench_envs::e1::generate::question_hash(r["question"].as_str().unwrap())
        );
    }
}

#[test]
fn a_wrong_field_count_is_an_error_with_its_line_number() {
    let mut text = sample_log();
    text = text.replacen("\t51524\t", "\t", 1); // line 9 loses a column
    let err = import(
        &[input("cap/conn.log.labeled", text)],
        &ImportOptions::default(),
    )
    .unwrap_err();
    match &err {
        ZeekError::Format { line, .. } => assert_eq!(*line, 9),
        other => panic!("{other}"),
    }
    assert!(
        err.to_string()
            .starts_with("cap/conn.log.labeled:9: expected 23 fields"),
        "{err}"
    );
    // A non-number in a count column is an error too, never a default.
    let text = sample_log().replacen("\t2.999051\t0\t", "\t2.999051\tmany\t", 1);
    let err = import(&[input("cap/x.log", text)], &ImportOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains(":9: orig_bytes `many` is not a number"),
        "{err}"
    );
}

#[test]
fn separators_and_unset_markers_come_from_the_header() {
    let text = "#separator \\x2c\n#unset_field,NONE\n#empty_field,EMPTY\n#fields,ts,uid,id.orig_p,id.resp_p,proto,duration,orig_bytes,resp_bytes,conn_state,history,orig_pkts,resp_pkts\n1.0,C1,1000,80,tcp,NONE,NONE,NONE,S0,S,1,0\n";
    let opts = ImportOptions {
        label: Some(Gold::Benign),
        ..ImportOptions::default()
    };
    let out = import(&[input("lab/conn.log", text.to_string())], &opts).unwrap();
    assert_eq!(
        out.rows[0]["question"],
        "Zeek conn 1970-01-01T00:00:01Z device=? proto=tcp service=? 1000→80 duration=? orig_bytes=? resp_bytes=? orig_pkts=1 resp_pkts=0 conn_state=S0 flags=S"
    );
}

fn unlabelled() -> String {
    "#separator \\x09\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_p\tproto\tduration\torig_bytes\tresp_bytes\tconn_state\thistory\torig_pkts\tresp_pkts\n\
     10.0\tCa\t10.0.0.5\t1000\t443\ttcp\t1.0\t100\t200\tSF\tShADadFf\t5\t4\n\
     11.0\tCb\t10.0.0.6\t1001\t443\ttcp\t1.0\t100\t201\tSF\tShADadFf\t5\t4\n"
        .to_string()
}

#[test]
fn unlabelled_logs_need_an_explicit_label() {
    let err = import(
        &[input("u/conn.log", unlabelled())],
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, ZeekError::Usage(_)), "{err}");
    assert!(err.to_string().contains("--label"));
    let opts = ImportOptions {
        label: Some(Gold::Malicious),
        device: Some("ip-camera".into()),
        ..ImportOptions::default()
    };
    let out = import(&[input("u/conn.log", unlabelled())], &opts).unwrap();
    assert_eq!(out.rows.len(), 2);
    assert!(out.rows.iter().all(|r| r["answer"] == "Malicious"));
    assert!(out.rows[0]["question"]
        .as_str()
        .unwrap()
        .contains("device=ip-camera"));
    // A label column plus --label is refused.
    let err = import(&[input("c/conn.log.labeled", sample_log())], &opts).unwrap_err();
    assert!(matches!(err, ZeekError::Usage(_)));
}

#[test]
fn uid_label_files_and_device_maps() {
    let labels = parse_label_file("# uid label\nCa\tBENIGN\n", Path::new("l.tsv")).unwrap();
    let opts = ImportOptions {
        labels: Some(labels),
        device_map: Some([("10.0.0.5".to_string(), "doorbell".to_string())].into()),
        ..ImportOptions::default()
    };
    let out = import(&[input("u/conn.log", unlabelled())], &opts).unwrap();
    assert_eq!(out.rows.len(), 1);
    assert_eq!(out.rows[0]["answer"], "Benign");
    assert!(out.rows[0]["question"]
        .as_str()
        .unwrap()
        .contains("device=doorbell"));
    assert_eq!(out.skipped["uid not in --labels file"], 1);
    let bad = parse_label_file("Ca maybe\n", Path::new("l.tsv")).unwrap_err();
    assert!(bad.to_string().starts_with("l.tsv:1:"), "{bad}");
}

#[test]
fn the_upstream_template_uses_the_same_missing_rule() {
    let opts = ImportOptions {
        template: Template::Upstream,
        ..ImportOptions::default()
    };
    let out = import(&[input("c/conn.log.labeled", sample_log())], &opts).unwrap();
    assert_eq!(
        out.rows[0]["question"],
        "Device unknown-device observed tcp 51524→23, duration 2.999051, bytes 0, flags [S]. Decide: Malicious or Benign (you may Abstain if unsure)."
    );
    assert!(out.rows[1]["question"]
        .as_str()
        .unwrap()
        .contains("duration ?, bytes ?,"));
}

fn capture_log(i: usize) -> String {
    let rows: Vec<String> = (0..4)
        .map(|j| {
            let port = format!("{}", 1000 + 10 * i + j);
            let label = if j % 2 == 0 { "Benign" } else { "Malicious" };
            let line = scan(&format!("C{i}x{j}"), &port, "1.0", "0", "0", "2");
            row(&cols(&line), ("-", label, "-"))
        })
        .collect();
    let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
    iot23(&refs)
}

fn write_captures(dir: &Path, n: usize) -> Vec<ImportInput> {
    (0..n)
        .map(|i| {
            let p = dir
                .join(format!("capture-{i:02}"))
                .join("bro")
                .join("conn.log.labeled");
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, capture_log(i)).unwrap();
            ImportInput {
                text: std::fs::read_to_string(&p).unwrap(),
                path: p,
            }
        })
        .collect()
}

#[test]
fn whole_captures_go_to_one_split_and_reruns_are_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let inputs = write_captures(tmp.path(), 12);
    let opts = ImportOptions::default();
    let out = import(&inputs, &opts).unwrap();
    assert_eq!(out.rows.len(), 48);
    let mut by_capture: BTreeMap<String, HashSet<String>> = BTreeMap::new();
    for r in &out.rows {
        by_capture
            .entry(r["meta"]["scenario"].as_str().unwrap().to_string())
            .or_default()
            .insert(r["meta"]["split"].as_str().unwrap().to_string());
    }
    assert_eq!(by_capture.len(), 12);
    let mut splits = HashSet::new();
    for (capture, s) in &by_capture {
        assert_eq!(s.len(), 1, "{capture} spans {s:?}");
        let expected = capture_split(capture, 42, [0.7, 0.15, 0.15]);
        assert!(s.contains(expected.as_str()));
        assert_eq!(out.captures[capture], (expected, 4));
        splits.insert(expected);
    }
    assert!(
        splits.len() >= 2,
        "twelve captures spread over splits: {splits:?}"
    );
    assert_eq!(import(&inputs, &opts).unwrap(), out, "rerun identical");
    let fixed = ImportOptions {
        split: SplitAssignment::Fixed(Split::Ood),
        ..ImportOptions::default()
    };
    let out = import(&inputs, &fixed).unwrap();
    assert!(out.rows.iter().all(|r| r["meta"]["split"] == "ood"));
}

#[test]
fn sampling_and_dedup() {
    let tmp = tempfile::tempdir().unwrap();
    let inputs = write_captures(tmp.path(), 5);
    let opts = ImportOptions {
        max_per_label: Some(3),
        ..ImportOptions::default()
    };
    let a = import(&inputs, &opts).unwrap();
    assert_eq!(a.rows.len(), 6);
    assert_eq!(a.rows.iter().filter(|r| r["answer"] == "Benign").count(), 3);
    assert_eq!(a.skipped["sampled out (--max-per-label)"], 14);
    assert_eq!(
        import(&inputs, &opts).unwrap(),
        a,
        "seeded sample is reproducible"
    );
    let other = ImportOptions {
        seed: 7,
        ..opts.clone()
    };
    assert_eq!(import(&inputs, &other).unwrap().rows.len(), 6);

    // The same log twice: every row of the second copy is a duplicate.
    let twice = vec![inputs[0].clone(), inputs[0].clone()];
    let out = import(&twice, &ImportOptions::default()).unwrap();
    assert_eq!(out.rows.len(), 4);
    assert_eq!(out.skipped["duplicate question"], 4);
    // And against an existing dataset.
    let against: HashSet<String> = out.rows[..2]
        .iter()
        .map(|r| r["meta"]["hash"].as_str().unwrap().to_string())
        .collect();
    let opts = ImportOptions {
        dedup_against: against,
        ..ImportOptions::default()
    };
    let out = import(&inputs[..1], &opts).unwrap();
    assert_eq!(out.rows.len(), 2);
    assert_eq!(out.skipped["duplicate of a row in --dedup-against"], 2);
}
