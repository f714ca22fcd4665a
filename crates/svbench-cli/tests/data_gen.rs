//! `svbench data gen`, `svbench data import e1 --format zeek` and its alias
//! `svbench data import-zeek` through the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn svbench(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_svbench"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run svbench")
}

fn dataset_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/e1")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_manifest_regenerates_the_committed_corpus_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = dataset_dir().join("manifest.json");
    let out = tmp.path().join("e1");
    let o = svbench(
        tmp.path(),
        &[
            "data",
            "gen",
            "e1",
            "--manifest",
            manifest.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
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
        let got = std::fs::read(out.join(name)).unwrap();
        assert!(want == got, "{name} differs");
    }
    assert!(o.stdout.is_empty(), "data files only, nothing on stdout");
}

#[test]
fn whole_corpus_with_a_seed_and_one_split_to_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let o = svbench(
        tmp.path(),
        &[
            "data",
            "gen",
            "network-logs",
            "--seed",
            "42",
            "--out",
            "corpus",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let test = std::fs::read(tmp.path().join("corpus/test.jsonl")).unwrap();
    assert!(test == std::fs::read(dataset_dir().join("test.jsonl")).unwrap());

    let o = svbench(
        tmp.path(),
        &["data", "gen", "sv-env-network-logs", "--split", "test"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        o.stdout == test,
        "--split test at its configured size equals the corpus file"
    );

    let o = svbench(
        tmp.path(),
        &[
            "data",
            "gen",
            "e1",
            "--seed",
            "7",
            "--split",
            "dev",
            "-n",
            "5",
            "--out",
            "dev5.jsonl",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(tmp.path().join("dev5.jsonl")).unwrap();
    assert_eq!(text.lines().count(), 5);
    assert!(text
        .lines()
        .all(|l| l.contains("\"split\":\"dev\"") && l.contains("\"seed\":7")));
}

#[test]
fn usage_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let o = svbench(tmp.path(), &["data", "gen", "e1", "-n", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("-n needs --split"), "{}", stderr(&o));
    let o = svbench(tmp.path(), &["data", "gen", "e3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not built yet"), "{}", stderr(&o));
    let o = svbench(tmp.path(), &["data", "gen", "e9"]);
    assert_eq!(o.status.code(), Some(2));
    let o = svbench(tmp.path(), &["data", "gen", "e1", "--split", "validation"]);
    assert_eq!(o.status.code(), Some(2));
    let o = svbench(tmp.path(), &["data", "gen", "e1", "--generator", "other"]);
    assert_eq!(o.status.code(), Some(2));
    let o = svbench(
        tmp.path(),
        &["data", "gen", "e1", "--manifest", "missing.json"],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        !tmp.path().join("datasets").exists(),
        "nothing written on errors"
    );
}

const LOG: &str = "#separator \\x09\n#unset_field\t-\n#empty_field\t(empty)\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\tservice\tduration\torig_bytes\tresp_bytes\tconn_state\thistory\torig_pkts\tresp_pkts\ttunnel_parents   label   detailed-label\n\
1525879831.0\tC1\t10.0.0.2\t40000\t1.2.3.4\t23\ttcp\t-\t-\t-\t-\tS0\tS\t1\t0\t-   Malicious   PartOfAHorizontalPortScan\n\
1525879832.0\tC2\t10.0.0.2\t40001\t1.2.3.5\t53\tudp\tdns\t0.010000\t30\t90\tSF\tDd\t1\t1\t(empty)   Benign   -\n\
1525879833.0\tC3\t10.0.0.2\t40002\t1.2.3.6\t443\ttcp\t-\t1.0\t0\t0\tS0\tS\t2\t0\t-   C&C   -\n";

#[test]
fn import_zeek_writes_rows_and_reports_skips() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("capture-a");
    std::fs::create_dir_all(&cap).unwrap();
    std::fs::write(cap.join("conn.log.labeled"), LOG).unwrap();
    let args = [
        "data",
        "import-zeek",
        "capture-a/conn.log.labeled",
        "--split",
        "test",
        "--source",
        "iot23-local",
        "--out",
        "rows.jsonl",
    ];
    let o = svbench(tmp.path(), &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(tmp.path().join("rows.jsonl")).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(text.contains("\"scenario\":\"capture-a\""));
    assert!(text.contains("\"source\":\"iot23-local\""));
    assert!(text.contains("duration=? orig_bytes=? resp_bytes=?"));
    assert!(
        stderr(&o).contains("skipped 1: unknown label `C&C`"),
        "{}",
        stderr(&o)
    );
    // Reruns are identical; stdout without --out.
    let o = svbench(tmp.path(), &args[..7]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), text);
}

#[test]
fn import_zeek_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = LOG.replacen("\t40001\t", "\t", 1);
    std::fs::write(tmp.path().join("bad.log"), bad).unwrap();
    let o = svbench(tmp.path(), &["data", "import-zeek", "bad.log"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("bad.log:6:"), "{}", stderr(&o));
    std::fs::write(tmp.path().join("plain.log"), "#fields\tts\tuid\n1.0\tC1\n").unwrap();
    let o = svbench(tmp.path(), &["data", "import-zeek", "plain.log"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--label"));
    let o = svbench(
        tmp.path(),
        &["data", "import-zeek", "plain.log", "--label", "maybe"],
    );
    assert_eq!(o.status.code(), Some(2));
    let o = svbench(
        tmp.path(),
        &[
            "data",
            "import-zeek",
            "plain.log",
            "--label",
            "benign",
            "--split-ratios",
            "0.5,0.5",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let o = svbench(
        tmp.path(),
        &["data", "import-zeek", "missing.log", "--label", "benign"],
    );
    assert_eq!(o.status.code(), Some(3));
}

/// The alias's note on stderr.
const ALIAS_NOTE: &str =
    "note: `svbench data import-zeek` is an alias of `svbench data import e1 --format zeek`\n";

#[test]
fn import_e1_zeek_writes_the_bytes_the_alias_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("capture-a");
    std::fs::create_dir_all(&cap).unwrap();
    std::fs::write(cap.join("conn.log.labeled"), LOG).unwrap();
    let flags = [
        "capture-a/conn.log.labeled",
        "--split-ratios",
        "0.5,0.25,0.25",
        "--seed",
        "7",
        "--source",
        "iot23-local",
        "--template",
        "upstream",
        "--max-per-label",
        "5",
    ];
    let alias = svbench(
        tmp.path(),
        &[&["data", "import-zeek"][..], &flags[..]].concat(),
    );
    let direct = svbench(
        tmp.path(),
        &[
            &["data", "import", "e1", "--format", "zeek"][..],
            &flags[..],
        ]
        .concat(),
    );
    assert_eq!(alias.status.code(), Some(0), "{}", stderr(&alias));
    assert_eq!(direct.status.code(), Some(0), "{}", stderr(&direct));
    assert!(!direct.stdout.is_empty());
    assert_eq!(alias.stdout, direct.stdout);
    // The alias says what it stands for, once, before the importer's notes.
    let alias_err = stderr(&alias);
    assert!(alias_err.starts_with(ALIAS_NOTE), "{alias_err}");
    assert_eq!(&alias_err[ALIAS_NOTE.len()..], stderr(&direct));
    assert!(
        stderr(&direct).contains("imported 2 rows"),
        "{}",
        stderr(&direct)
    );
}

/// Runs `svbench data import ENV conn.log.labeled ARGS…` and checks it is a
/// usage error whose message says `says`.
fn refused(dir: &Path, env: &str, args: &[&str], says: &str) {
    let o = svbench(
        dir,
        &[&["data", "import", env, "conn.log.labeled"][..], args].concat(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(says), "{}", stderr(&o));
}

#[test]
fn import_refuses_a_flag_the_environment_or_format_does_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("conn.log.labeled"), LOG).unwrap();
    let dir = tmp.path();
    // An E4 flag given for E1 names the flag, the environment and its flags.
    let e4_flag = ["--format", "zeek", "--text-col", "x"];
    refused(
        dir,
        "e1",
        &e4_flag,
        "--text-col is not a flag of e1's importer",
    );
    refused(dir, "e1", &e4_flag, "--device-map");
    // An E4 flag of another E4 format names the formats that read it.
    refused(
        dir,
        "e4",
        &["--format", "csv", "--labels", "x.csv"],
        "--labels applies to --format eml and mbox only",
    );
    // Conflicting pairs clap refused for the alias are refused here too.
    refused(
        dir,
        "e1",
        &[
            "--format",
            "zeek",
            "--device",
            "cam",
            "--device-map",
            "map.txt",
        ],
        "give --device or --device-map, not both",
    );
    // A format the environment does not import.
    refused(dir, "e1", &["--format", "csv"], "formats: zeek");
}
