//! `report.html` (harness §4.4): structure checks on hand-built E1 and E2
//! runs, then the page loaded in headless Chromium with URL fragments
//! (filter, search, open a transcript) and the dumped DOM checked.
//!
//! Without a `chromium`/`chromium-browser` binary the browser checks are
//! skipped with a notice, unless `SVBENCH_REQUIRE_BROWSER=1` (CI), which
//! makes a missing browser a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{e1_record, metadata, sample_records, write_run, TS};
use serde_json::{json, Value};
use svbench_core::metrics::BootstrapConfig;
use svbench_report::html::render_html;
use svbench_report::{build_report, ReportOptions};

fn opts() -> ReportOptions {
    ReportOptions {
        timestamp: Some(TS.to_string()),
        bootstrap: Some(BootstrapConfig {
            resamples: 50,
            seed: 1234,
        }),
        ..ReportOptions::new(common::plugins)
    }
}

/// An E1 sample with a tool call, a tool result and a final answer whose
/// text tries to close the data script.
fn tool_record() -> Value {
    let mut r = e1_record(8, "Malicious", "Malicious", Some(0.95), "iot23", "v1");
    let text = "Verdict </script><b>pwn</b> Malicious";
    let m = r.as_object_mut().expect("object");
    m.insert("example_id".into(), json!("ex008-tools"));
    m.insert("completion".into(), json!(text));
    m.insert(
        "completion_messages".into(),
        json!([
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
              "function": {"name": "lookup_ip", "arguments": "{\"ip\":\"10.0.0.1\"}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "reputation: bad"},
            {"role": "assistant", "content": text}
        ]),
    );
    m.insert(
        "tool_interactions".into(),
        json!([{"turn": 0, "tool": "lookup_ip", "tool_call_id": "call_1",
                "arguments": {"ip": "10.0.0.1"}, "duration_ms": 0.0026709999999999998, "ok": true, "error": null}]),
    );
    r
}

fn e1_run(root: &Path) -> PathBuf {
    let mut records = sample_records();
    records.push(tool_record());
    write_run(root, "e1", &metadata("v1"), &records)
}

fn render(dir: &Path) -> String {
    let built = build_report(dir, &opts()).expect("report");
    render_html(
        dir,
        built.summary.as_ref(),
        &built.report_md,
        &[],
        common::plugins,
    )
    .expect("html")
}

/// The `svb-data` JSON embedded in the page.
fn embedded_rows(html: &str) -> Vec<Value> {
    let start = html.find("id=\"svb-data\">").expect("data script") + "id=\"svb-data\">".len();
    let end = start + html[start..].find("</script>").expect("end");
    let v: Value = serde_json::from_str(&html[start..end]).expect("json");
    v["rows"].as_array().expect("rows").clone()
}

fn outcome_of(rows: &[Value], id: &str) -> String {
    let outcomes = ["correct", "wrong", "abstain", "invalid", "error", "scored"];
    let row = rows.iter().find(|r| r[0] == id).expect("row");
    outcomes[row[4].as_u64().expect("outcome") as usize].to_string()
}

#[test]
fn e1_page_is_self_contained_and_complete() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = e1_run(tmp.path());
    let html = render(&dir);
    for bad in [
        "src=\"http",
        "href=\"http",
        "src='http",
        "href='http",
        "url(http",
        "@import",
        "<link",
        "<script src",
    ] {
        assert!(!html.contains(bad), "external reference `{bad}`");
    }
    // Only the page's own three script elements close: the completion's
    // `</script>` is escaped inside the data.
    assert_eq!(html.matches("</script>").count(), 3);
    assert_eq!(html.matches("<script").count(), 3);
    assert!(html.contains(r"Verdict \u003c/script>\u003cb>pwn"));
    for i in 0..8 {
        assert!(html.contains(&format!("\"ex{i:03}\"")), "ex{i:03}");
    }
    let rows = embedded_rows(&html);
    assert_eq!(rows.len(), 9);
    let expect = [
        ("ex000", "correct"),
        ("ex001", "wrong"),
        ("ex002", "wrong"),
        ("ex003", "correct"),
        ("ex004", "abstain"),
        ("ex005", "correct"),
        ("ex006", "invalid"),
        ("ex007", "error"),
        ("ex008-tools", "correct"),
    ];
    for (id, outcome) in expect {
        assert_eq!(outcome_of(&rows, id), outcome, "{id}");
    }
    assert!(
        html.contains("1 of 9 samples errored"),
        "errors said plainly"
    );
    // Identical inputs, identical bytes.
    assert_eq!(html, render(&dir));
}

#[test]
fn e2_outcomes_follow_the_findings() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut meta = metadata("v1");
    let o = meta.as_object_mut().expect("object");
    o.insert("environment".into(), json!("sv-env-config-verification"));
    o.insert("reward_params".into(), json!({}));
    let rec = |i: usize, status: &str, detection: Value, prediction: Value, oracle: Value| {
        json!({
            "index": i, "rollout_index": 0, "example_id": format!("e2-{i}"), "split": "test",
            "question": "audit", "prompt": [{"role": "user", "content": "audit this"}],
            "answer": "", "info": {"meta": {}}, "completion": "{\"violations\": []}",
            "completion_messages": [], "parsed": {"oracle": oracle, "prediction": prediction,
                "detection": {"v1": detection}, "parse_status": status},
            "parse": {"status": status, "reason": null, "format_ok": status == "valid"},
            "reward": 0.5, "rewards": {"detection": 0.5, "patch": 0.0, "format": 1.0},
            "reward_profile": "v1", "tool_interactions": [], "error": null,
            "fixture_type": "k8s", "valid_json": true, "patch": "", "patch_applied": false,
            "oracle_violations": oracle, "predicted_violations": prediction,
            "post_patch_violations": []
        })
    };
    let a = json!([{"id": "kube-linter/latest-tag", "severity": "med"}]);
    let records = vec![
        rec(
            0,
            "valid",
            json!({"tp": 1, "fp": 0, "fn": 0}),
            a.clone(),
            a.clone(),
        ),
        rec(
            1,
            "valid",
            json!({"tp": 1, "fp": 1, "fn": 0}),
            a.clone(),
            a.clone(),
        ),
        // No detection block: the id sets decide (clean, answered clean).
        rec(2, "valid", Value::Null, json!([]), json!([])),
        rec(3, "invalid", Value::Null, json!([]), a.clone()),
    ];
    let dir = write_run(tmp.path(), "e2", &meta, &records);
    let html = render(&dir);
    let rows = embedded_rows(&html);
    assert_eq!(outcome_of(&rows, "e2-0"), "correct");
    assert_eq!(outcome_of(&rows, "e2-1"), "wrong");
    assert_eq!(outcome_of(&rows, "e2-2"), "correct");
    assert_eq!(outcome_of(&rows, "e2-3"), "invalid");
    assert!(html.contains("scored findings equal the oracle"), "legend");
}

#[test]
fn bad_input_is_said_plainly() {
    let tmp = tempfile::tempdir().expect("tmp");
    // Zero samples.
    let dir = write_run(tmp.path(), "empty", &metadata("v1"), &[]);
    let built = build_report(&dir, &opts()).expect("report");
    assert!(built.summary.is_none());
    let html = render_html(&dir, None, &built.report_md, &[], common::plugins).expect("html");
    assert!(html.contains("Zero samples"));
    assert!(html.contains("This run has no record"));
    // A torn last line and mixed profiles.
    let mut records = sample_records();
    records.push(e1_record(
        9,
        "Benign",
        "Benign",
        Some(0.9),
        "iot23",
        "upstream",
    ));
    let dir = write_run(tmp.path(), "torn", &metadata("v1"), &records);
    let path = dir.join("results.jsonl");
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("{\"index\": 10, \"exa");
    std::fs::write(&path, text).expect("write");
    let html = render(&dir);
    assert!(html.contains("torn or unparseable"), "torn line");
    assert!(html.contains("Mixed reward profiles"), "mixed profiles");
    assert_eq!(embedded_rows(&html).len(), 9);
}

// ---- headless Chromium ----------------------------------------------------

fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// The browser binary, or `None` (skip) — a failure when CI requires it.
fn browser_or_skip(test: &str) -> Option<PathBuf> {
    let found = browser();
    if found.is_none() {
        if std::env::var("SVBENCH_REQUIRE_BROWSER").as_deref() == Ok("1") {
            panic!("SVBENCH_REQUIRE_BROWSER=1 but no chromium/chromium-browser on PATH");
        }
        eprintln!("notice: {test}: no chromium/chromium-browser on PATH; browser checks skipped");
    }
    found
}

fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false)
}

/// Loads `file#fragment` headless and returns the DOM after the scripts ran.
fn dump_dom(browser: &Path, file: &Path, fragment: &str) -> String {
    let work = tempfile::tempdir().expect("tmp");
    let out_path = work.path().join("dom.html");
    let out = std::fs::File::create(&out_path).expect("dom file");
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--virtual-time-budget=5000",
    ]);
    if running_as_root() {
        cmd.arg("--no-sandbox");
    }
    cmd.arg(format!(
        "--user-data-dir={}",
        work.path().join("profile").display()
    ))
    .arg("--dump-dom")
    .arg(format!("file://{}#{fragment}", file.display()))
    .stdout(out)
    .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("start chromium");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            assert!(status.success(), "chromium exited with {status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::read_to_string(&out_path).expect("dom")
}

/// The value of `attr` on the element whose opening tag contains `marker`.
fn attr(dom: &str, marker: &str, attr: &str) -> Option<String> {
    let at = dom.find(marker)?;
    let tag_start = dom[..at].rfind('<')?;
    let tag_end = at + dom[at..].find('>')?;
    let tag = &dom[tag_start..tag_end];
    let key = format!("{attr}=\"");
    let v = tag.find(&key)? + key.len();
    Some(tag[v..v + tag[v..].find('"')?].to_string())
}

/// The HTML between `from` and the next `to`.
fn between<'a>(dom: &'a str, from: &str, to: &str) -> &'a str {
    let start = dom.find(from).unwrap_or(dom.len());
    let rest = &dom[start..];
    &rest[..rest.find(to).unwrap_or(rest.len())]
}

fn list_ids(dom: &str) -> Vec<String> {
    let body = between(dom, "<tbody id=\"svb-rows\">", "</tbody>");
    body.split("data-id=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(str::to_string)
        .collect()
}

fn timings(dom: &str) -> (String, String) {
    let body = "<body";
    (
        attr(dom, body, "data-first-paint-ms").unwrap_or_default(),
        attr(dom, body, "data-filter-ms").unwrap_or_default(),
    )
}

#[test]
fn browser_filters_searches_and_opens() {
    let Some(chromium) = browser_or_skip("browser_filters_searches_and_opens") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = e1_run(tmp.path());
    let file = dir.join("report.html");
    std::fs::write(&file, render(&dir)).expect("write");

    // Unfiltered: every sample listed.
    let dom = dump_dom(&chromium, &file, "");
    assert_eq!(attr(&dom, "<body", "data-ready").as_deref(), Some("1"));
    assert_eq!(
        attr(&dom, "id=\"svb-list\"", "data-visible-count").as_deref(),
        Some("9")
    );
    assert_eq!(list_ids(&dom).len(), 9);

    // Outcome filter: exactly the two wrong samples.
    let dom = dump_dom(&chromium, &file, "outcome=wrong");
    assert_eq!(
        attr(&dom, "id=\"svb-list\"", "data-visible-count").as_deref(),
        Some("2")
    );
    assert_eq!(list_ids(&dom), ["ex001", "ex002"]);
    let (paint, filter) = timings(&dom);
    eprintln!("small E1 run: first paint {paint} ms, filter {filter} ms");
    assert!(!paint.is_empty() && !filter.is_empty());

    // Combined filter and search, and an opened transcript.
    let dom = dump_dom(
        &chromium,
        &file,
        "outcome=correct,error&q=verdict&open=ex008-tools",
    );
    assert_eq!(list_ids(&dom), ["ex008-tools"]);
    assert_eq!(
        attr(&dom, "id=\"svb-detail\"", "data-open-id").as_deref(),
        Some("ex008-tools")
    );
    let pane = between(&dom, "id=\"svb-detail\"", "<noscript>");
    for want in [
        "lookup_ip",
        "reputation: bad",
        "result of call_1",
        "Verdict &lt;/script&gt;&lt;b&gt;pwn&lt;/b&gt; Malicious",
        "flow record",
    ] {
        assert!(pane.contains(want), "transcript lacks {want:?}: {pane}");
    }
    assert!(
        !dom.contains("<b>pwn</b>"),
        "completion text rendered as HTML"
    );
    // Turns are assistant turns, not messages; tool times have a fixed
    // precision, never a raw float.
    assert!(
        pane.contains("completion: 2 assistant turns, 3 messages"),
        "{pane}"
    );
    assert!(pane.contains("<td>0.003</td>"), "{pane}");
    assert!(!pane.contains("0.0026709999999999998"), "{pane}");

    // A filter that matches nothing closes the open transcript.
    let dom = dump_dom(&chromium, &file, "q=no-such-text-anywhere&open=ex008-tools");
    assert_eq!(
        attr(&dom, "id=\"svb-list\"", "data-visible-count").as_deref(),
        Some("0")
    );
    assert!(
        attr(&dom, "id=\"svb-detail\"", "data-open-id").is_none(),
        "{dom}"
    );
    let pane = between(&dom, "id=\"svb-detail\"", "<noscript>");
    assert!(!pane.contains("lookup_ip"), "{pane}");

    // An errored sample shows its error.
    let dom = dump_dom(&chromium, &file, "open=ex007");
    let pane = between(&dom, "id=\"svb-detail\"", "<noscript>");
    assert!(pane.contains("timeout") && pane.contains("boom"), "{pane}");
}

#[test]
fn browser_ten_thousand_samples() {
    let Some(chromium) = browser_or_skip("browser_ten_thousand_samples") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tmp");
    let labels = ["Malicious", "Benign", "Abstain", ""];
    let records: Vec<Value> = (0..10_000)
        .map(|i| {
            let gold = if i % 2 == 0 { "Malicious" } else { "Benign" };
            let label = labels[(i / 2) % labels.len()];
            let mut r = e1_record(i, gold, label, Some(0.8), "iot23", "v1");
            r["example_id"] = json!(format!("ex{i:05}"));
            r["completion"] = json!(format!(
                "{{\"label\": \"{label}\", \"rationale\": \"flow {i}\"}}"
            ));
            r["completion_messages"] =
                json!([{"role": "assistant", "content": r["completion"].clone()}]);
            r
        })
        .collect();
    let wrong = records
        .iter()
        .filter(|r| {
            let l = r["predicted_label"].as_str().unwrap_or("");
            (l == "Malicious" || l == "Benign") && r["answer"] != r["predicted_label"]
        })
        .count();
    let dir = write_run(tmp.path(), "big", &metadata("v1"), &records);
    let start = Instant::now();
    let html = render(&dir);
    eprintln!(
        "10,000-sample E1 run: report + html {:.0} ms (debug build), {} bytes",
        start.elapsed().as_secs_f64() * 1000.0,
        html.len()
    );
    let file = dir.join("report.html");
    std::fs::write(&file, html).expect("write");

    let dom = dump_dom(&chromium, &file, "");
    let (paint, _) = timings(&dom);
    assert_eq!(list_ids(&dom).len(), 100, "one page of rows");
    let dom = dump_dom(&chromium, &file, "outcome=wrong");
    let (paint_f, filter) = timings(&dom);
    assert_eq!(
        attr(&dom, "id=\"svb-list\"", "data-visible-count"),
        Some(wrong.to_string())
    );
    let dom = dump_dom(
        &chromium,
        &file,
        "outcome=wrong,invalid&q=flow%2099&open=ex09999",
    );
    let (_, search) = timings(&dom);
    assert_eq!(
        attr(&dom, "id=\"svb-detail\"", "data-open-id").as_deref(),
        Some("ex09999")
    );
    eprintln!(
        "10,000-sample E1 run in chromium: first paint {paint} ms (unfiltered), \
         {paint_f} ms with #outcome=wrong; outcome filter {filter} ms; \
         outcome filter + text search (first search parses transcripts) {search} ms"
    );
}

/// Measurement, not a check (`cargo test --release -p svbench-report --test
/// html_browser -- --ignored --nocapture`): report + HTML for a
/// 100,000-sample E1 run whose records are as large as real ones (the full
/// system prompt stored per sample).
#[test]
#[ignore = "measurement; run in release with --ignored"]
fn html_generation_100k() {
    use std::io::Write;
    let n = 100_000;
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("run");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("metadata.json"),
        serde_json::to_vec(&metadata("v1")).expect("json"),
    )
    .expect("write");
    let system =
        "You are a network security analyst. Classify the Zeek connection record. ".repeat(16);
    let answers = [
        ("Malicious", Some(0.8)),
        ("Benign", Some(0.6)),
        ("Abstain", Some(0.3)),
        ("", None),
    ];
    let mut out =
        std::io::BufWriter::new(std::fs::File::create(dir.join("results.jsonl")).expect("create"));
    for i in 0..n {
        let gold = if i % 3 == 0 { "Malicious" } else { "Benign" };
        let (label, conf) = answers[i % answers.len()];
        let mut r = e1_record(i, gold, label, conf, "iot23", "v1");
        let question = format!(
            "Zeek conn 2024-03-07T14:05:{:02}Z device=ip-camera proto=tcp service=? {}→23 \
             duration=? orig_bytes=? resp_bytes=? orig_pkts=1 resp_pkts=0 conn_state=S0 flags=S",
            i % 60,
            1024 + i % 60000
        );
        let text =
            format!("{{\"label\":\"{label}\",\"confidence\":0.8,\"rationale\":\"flow {i}\"}}");
        r["example_id"] = json!(format!("ex{i:07}"));
        r["question"] = json!(question);
        r["prompt"] =
            json!([{"role": "system", "content": system}, {"role": "user", "content": question}]);
        r["completion"] = json!(text);
        r["completion_messages"] = json!([{"role": "assistant", "content": text}]);
        serde_json::to_writer(&mut out, &r).expect("json");
        out.write_all(b"\n").expect("write");
    }
    out.flush().expect("flush");
    drop(out);
    let bytes = std::fs::metadata(dir.join("results.jsonl"))
        .expect("stat")
        .len();
    let start = Instant::now();
    let built = build_report(&dir, &ReportOptions::new(common::plugins)).expect("report");
    let report = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let samples = svbench_report::html::read_samples(
        &dir.join("results.jsonl"),
        &svbench_envs::e1::report::plugin::REPORT,
    )
    .expect("samples");
    eprintln!("read_samples alone: {:.3} s", start.elapsed().as_secs_f64());
    drop(samples);
    let start = Instant::now();
    let html = render_html(
        &dir,
        built.summary.as_ref(),
        &built.report_md,
        &[],
        common::plugins,
    )
    .expect("html");
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "100,000-sample E1 run ({:.0} MB results.jsonl): summary + report.md {report:.3} s; \
         report.html {secs:.3} s, {:.1} MB",
        bytes as f64 / 1e6,
        html.len() as f64 / 1e6
    );
}

/// The `svb-details` JSON embedded in the page.
fn embedded_details(html: &str) -> Value {
    let tag = "id=\"svb-details\">";
    let start = html.find(tag).expect("details script") + tag.len();
    let end = start + html[start..].find("</script>").expect("end");
    serde_json::from_str(&html[start..end]).expect("json")
}

#[test]
fn oversized_transcripts_are_cut_with_a_visible_marker() {
    use svbench_report::html::{TEXT_CAP, TOTAL_BUDGET};
    let tmp = tempfile::tempdir().expect("tmp");
    // 80 samples whose completion and user message are ~200 KB each: cut at
    // 64 KiB each, so the page stays a fraction of the text.
    let big = "x".repeat(150_000);
    let records: Vec<Value> = (0..80)
        .map(|i| {
            let mut r = e1_record(i, "Benign", "Benign", Some(0.7), "iot23", "v1");
            // A two-byte character straddles the cap.
            r["completion"] = json!(format!("{}é{big}", "x".repeat(TEXT_CAP - 1)));
            r["prompt"] =
                json!([{"role": "system", "content": "s"}, {"role": "user", "content": big}]);
            r
        })
        .collect();
    let dir = write_run(tmp.path(), "big", &metadata("v1"), &records);
    let html = render(&dir);
    let marker = "…[svbench: cut at ";
    let details = embedded_details(&html);
    let list = details["details"].as_array().expect("details");
    assert_eq!(list.len(), 80);
    let completion = list[0]["completion"].as_str().expect("completion");
    assert!(completion.len() < TEXT_CAP + 200, "{}", completion.len());
    assert!(!completion.contains('é'));
    assert!(
        completion.contains(&format!(
            "{marker}{} of {} bytes",
            TEXT_CAP - 1,
            TEXT_CAP + 150_001
        )),
        "cut at a character boundary, marked: {}",
        &completion[completion.len() - 120..]
    );
    // The user message (interned prompt) is cut too.
    let messages = details["messages"].as_array().expect("messages");
    assert!(messages
        .iter()
        .any(|m| m["content"].as_str().is_some_and(|c| c.contains(marker))));
    // The page says so, and stays within its budget.
    assert!(html.contains("are cut there"), "warning about cut texts");
    assert!(
        (html.len() as u64) < TOTAL_BUDGET + (1 << 20),
        "{}",
        html.len()
    );
    // Small texts are untouched.
    let small = list[0]["answer"].as_str().expect("answer");
    assert_eq!(small, "Benign");
}

#[test]
fn the_list_and_transcripts_stay_within_the_limits() {
    use svbench_report::html::{render_into, Limits};
    let tmp = tempfile::tempdir().expect("tmp");
    let records: Vec<Value> = (0..30)
        .map(|i| {
            let label = if i % 3 == 0 { "Malicious" } else { "Benign" };
            e1_record(i, "Benign", label, Some(0.7), "iot23", "v1")
        })
        .collect();
    let dir = write_run(tmp.path(), "limits", &metadata("v1"), &records);
    let built = build_report(&dir, &opts()).expect("report");
    let limits = Limits {
        max_rows: 12,
        max_transcripts: 5,
        ..Limits::default()
    };
    let mut out = Vec::new();
    render_into(
        &dir,
        built.summary.as_ref(),
        &built.report_md,
        &[],
        common::plugins,
        limits,
        &mut out,
    )
    .expect("html");
    let html = String::from_utf8(out).expect("utf8");
    let rows = embedded_rows(&html);
    assert_eq!(rows.len(), 12);
    // The ten wrong samples come first, then correct ones, in run order.
    let wrong = rows.iter().filter(|r| r[4] == 1).count();
    assert_eq!(wrong, 10);
    let with_transcript = rows.iter().filter(|r| r[8] == 1).count();
    assert_eq!(with_transcript, 5);
    let indices: Vec<u64> = rows.iter().filter_map(|r| r[1].as_u64()).collect();
    let mut sorted = indices.clone();
    sorted.sort_unstable();
    assert_eq!(indices, sorted, "listed in run order");
    assert!(html.contains("the list holds 12 of them"));
    let details = embedded_details(&html);
    assert_eq!(details["details"].as_array().expect("details").len(), 12);
}

#[test]
fn e4_email_is_escaped_and_evidence_highlighted() {
    use common::e4::{e4_metadata, e4_record, item, span, Row};
    let tmp = tempfile::tempdir().expect("tmp");
    // Non-ASCII text before the spans: offsets are code points, not bytes.
    let question = "Grüße – <script>alert(1)</script> verify at evil.example now";
    let cp = |needle: &str| {
        let b = question.find(needle).expect("needle");
        question[..b].chars().count()
    };
    let (v, e) = (cp("verify"), cp("evil.example"));
    let row = Row {
        gold: "Phishing",
        label: "Phishing",
        conf: Some(0.9),
        gold_source: "annotated",
        applicable: true,
        family: "f",
        difficulty: None,
        spans: vec![
            span(v, v + 6, "verify", "credential_request", "phish"),
            span(e, e + 12, "evil.example", "url", "phish"),
        ],
        items: vec![
            item("valid", &[0], Some((v, v + 6))),
            item("valid", &[], Some((cp("now"), cp("now") + 3))),
            item("not_found", &[], None),
        ],
        f1: Some(0.4),
        question,
    };
    let dir = write_run(tmp.path(), "e4", &e4_metadata(), &[e4_record(0, &row)]);
    let html = render(&dir);
    assert!(
        !html.contains("<script>alert"),
        "email markup leaked into the page"
    );
    assert!(html.contains("\\u003cscript>alert(1)"));
    let details = embedded_details(&html);
    let segs = details["details"][0]["email_evidence"]
        .as_array()
        .expect("segments");
    let got: Vec<(&str, &str)> = segs
        .iter()
        .map(|s| {
            (
                s["text"].as_str().expect("text"),
                s["class"].as_str().expect("class"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("Grüße – <script>alert(1)</script> ", ""),
            ("verify", "ev-m gold-r"),
            (" at ", ""),
            ("evil.example", "gold-x"),
            (" ", ""),
            ("now", "ev-u"),
        ]
    );
    assert_eq!(outcome_of(&embedded_rows(&html), "e4-000"), "correct");
    assert!(html.contains("gold span missed"));
}
