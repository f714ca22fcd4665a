//! `svbench bench e4`: the whole path of one email — MIME parsing,
//! rendering, the indicator extractor and scoring an answer — on one core.
//! Prints figures; asserts nothing.
//!
//! Typical emails are the embedded corpus (every split), each written out
//! as an RFC 5322 message (multipart/alternative when it has HTML, with its
//! attachments as base64 parts of at most 4 KB, so that every message stays
//! under 20 KB) so that parsing is part of the cost. Large
//! emails are generated: a 1 MB HTML body, or a short body with a 1 MB
//! attachment.
//!
//! `--corpus PATH` times the user's own mail in place of the embedded
//! corpus: message files and mailboxes under `PATH` (files that are not
//! messages skipped and counted, as `data import e4 --format eml` does),
//! parse, render and indicators per email, with the same figures. There is
//! no gold label to score against, so scoring is not part of that figure.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::Instant;

use serde_json::{json, Value};
use svbench_core::Completion;
use svbench_mail::{
    extract, is_mbox_separator, parse_message, render, Email, EmailLimits, IndicatorSet, MboxItem,
    MboxReader,
};

use super::args::E4Args;
use super::dataset::{load, DatasetSpec, SelectionRequest, SplitRequest};
use super::env::E4Env;
use super::import::{has_extension, read_message_file, sniff, strip_separator, walk};
use super::row::email_of_row;
use crate::kit::bench::{
    percentile, setup, BenchEntry, BenchError, BenchOut, BenchRequest, CorpusInputs, LargeInputs,
};

/// E4's benchmark in the registry: 20,000 typical emails and 200 large ones
/// take seconds.
pub static BENCH: BenchEntry = BenchEntry {
    summary: "parse, render, indicators and score per email; `--completions` emails, at most 200,000, and `--large` 1 MB emails",
    max_items: Some(200_000),
    large: Some(LargeInputs {
        what: "1 MB emails",
        default: 200,
        alias: Some("large-emails"),
    }),
    corpus: Some(CorpusInputs {
        what: "message files and mailboxes, a folder of them or one, timed in place of the embedded corpus",
    }),
    whole_stack: None,
    run,
};

/// Bytes of each attachment's stand-in payload in the typical emails.
const ATTACHMENT_BYTES: u64 = 4096;

/// One email's work, timed as a unit: parse, render, extract, score.
struct Pipeline {
    env: E4Env,
    limits: EmailLimits,
    set: &'static IndicatorSet,
}

/// Seconds spent in each stage, summed over emails.
#[derive(Debug, Default, Clone, Copy)]
struct Stages {
    parse: f64,
    render: f64,
    extract: f64,
    score: f64,
}

impl Pipeline {
    /// Returns the reward, so the work cannot be optimised away, and adds
    /// each stage's time to `stages`.
    fn run(
        &self,
        raw: &[u8],
        question: Option<&str>,
        answer: &Completion,
        gold: &Value,
        meta: Option<&Value>,
        stages: &mut Stages,
    ) -> Result<f64, BenchError> {
        let t0 = Instant::now();
        let email = parse_message(raw, &self.limits).map_err(setup)?;
        let t1 = Instant::now();
        let rendered = render(&email, &self.limits);
        let t2 = Instant::now();
        let findings = extract(&email, &rendered, self.set);
        std::hint::black_box(&findings);
        let t3 = Instant::now();
        // A corpus row's answer is scored against the row (its question and
        // gold spans), as eval scores it; a generated large email's against
        // the rendering just made.
        let (score, _) = self
            .env
            .score_row(question.unwrap_or(&rendered.text), gold, meta, answer)
            .map_err(setup)?;
        let t4 = Instant::now();
        stages.parse += (t1 - t0).as_secs_f64();
        stages.render += (t2 - t1).as_secs_f64();
        stages.extract += (t3 - t2).as_secs_f64();
        stages.score += (t4 - t3).as_secs_f64();
        Ok(score.reward.total)
    }
}

/// An RFC 5322 message for a parsed email.
fn to_raw(email: &Email) -> String {
    let mut out = String::new();
    for (name, value) in email.headers.fields() {
        if let Some(v) = value {
            let _ = write!(out, "{name}: {v}\r\n");
        }
    }
    out.push_str(
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b-mixed\"\r\n\r\n",
    );
    out.push_str("--b-mixed\r\nContent-Type: multipart/alternative; boundary=\"b-alt\"\r\n\r\n");
    if let Some(text) = &email.text {
        let _ = write!(out, "--b-alt\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{text}\r\n");
    }
    if let Some(html) = &email.html {
        let _ = write!(out, "--b-alt\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{html}\r\n");
    }
    out.push_str("--b-alt--\r\n");
    for a in &email.attachments {
        // A small stand-in payload: the typical email stays under 20 KB.
        let body = base64(&vec![b'x'; a.size.min(ATTACHMENT_BYTES) as usize]);
        let _ = write!(
            out,
            "--b-mixed\r\nContent-Type: {}; name=\"{}\"\r\nContent-Disposition: attachment; filename=\"{}\"\r\nContent-Transfer-Encoding: base64\r\n\r\n{body}\r\n",
            a.mime_type, a.name, a.name
        );
    }
    out.push_str("--b-mixed--\r\n");
    out
}

/// Standard base64 in 76-character lines.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + bytes.len() / 57 * 2 + 4);
    for (i, chunk) in bytes.chunks(3).enumerate() {
        if i > 0 && i % 19 == 0 {
            out.push_str("\r\n");
        }
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A large email: a 1 MB HTML body of paragraphs and links, or a short
/// body with a 1 MB attachment.
fn large_email(i: usize) -> String {
    let head = format!(
        "From: Northwind Bank <alerts@northwlnd-bank.top>\r\nTo: dana.ortiz@acme-corp.example\r\nSubject: Statement {i}\r\nMIME-Version: 1.0\r\n"
    );
    if i.is_multiple_of(2) {
        let mut html = String::from("<html><body>");
        let mut k = 0;
        while html.len() < 1 << 20 {
            let _ = write!(
                html,
                "<p>Dear customer, item {k}: please review your account activity. <a href=\"http://203.0.113.{}/login?i={k}\">Verify now</a></p>",
                k % 250
            );
            k += 1;
        }
        html.push_str("</body></html>");
        format!("{head}Content-Type: text/html; charset=utf-8\r\n\r\n{html}")
    } else {
        let body = base64(&vec![b'y'; 750_000]);
        format!(
            "{head}Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nConfirm your password within 24 hours.\r\n--b\r\nContent-Type: application/octet-stream; name=\"statement.pdf.exe\"\r\nContent-Transfer-Encoding: base64\r\n\r\n{body}\r\n--b--\r\n"
        )
    }
}

/// The most bytes of a user's corpus held in memory for timing; the
/// messages past it are not timed (the figure line says so).
const MAX_CORPUS_BYTES: usize = 512 << 20;

/// The user's messages, raw, and what was not taken.
#[derive(Debug, Default)]
struct Corpus {
    messages: Vec<Vec<u8>>,
    files: usize,
    skipped: usize,
    bytes: usize,
    /// Stopped at [`MAX_CORPUS_BYTES`].
    capped: bool,
}

impl Corpus {
    /// Keeps a message that sniffs and parses as one; counts the rest.
    fn take(&mut self, bytes: Vec<u8>, limits: &EmailLimits) {
        let raw = strip_separator(&bytes);
        if sniff(raw, limits).is_err() || parse_message(raw, limits).is_err() {
            self.skipped += 1;
            return;
        }
        if self.bytes + raw.len() > MAX_CORPUS_BYTES {
            self.capped = true;
            return;
        }
        self.bytes += raw.len();
        self.messages.push(raw.to_vec());
    }
}

/// Reads every message under `path`: mailboxes (`.mbox`, or a first line
/// that is a `From ` separator) message by message, other files whole.
fn load_corpus(path: &Path, limits: &EmailLimits) -> Result<Corpus, BenchError> {
    let mut corpus = Corpus::default();
    for candidate in walk(&[path.to_path_buf()]).map_err(setup)? {
        if corpus.capped {
            break;
        }
        let file = &candidate.path;
        corpus.files += 1;
        let open = std::fs::File::open(file).map_err(|e| setup(format!("{}: {e}", file.display())));
        let mut reader = BufReader::new(open?);
        let head = reader
            .fill_buf()
            .map_err(|e| setup(format!("{}: {e}", file.display())))?;
        if has_extension(file, "mbox") || is_mbox_separator(head) {
            for item in MboxReader::new(reader, limits) {
                match item {
                    Ok(MboxItem::Message(bytes)) => corpus.take(bytes, limits),
                    Ok(MboxItem::TooLarge { .. }) => corpus.skipped += 1,
                    // Past the mailbox's message limit, or unreadable: the
                    // rest of the mailbox is not timed.
                    Err(_) => break,
                }
            }
        } else {
            match read_message_file(file, limits) {
                Ok(bytes) => corpus.take(bytes, limits),
                Err(_) => corpus.skipped += 1,
            }
        }
    }
    Ok(corpus)
}

/// Times parse, render and indicators on the user's messages, cycled to
/// `n` emails.
fn run_corpus(
    path: &Path,
    n: usize,
    pipeline: &Pipeline,
    out: &mut BenchOut<'_>,
) -> Result<(), BenchError> {
    let corpus = load_corpus(path, &pipeline.limits)?;
    if corpus.messages.is_empty() {
        return Err(setup(format!(
            "{}: no message to time ({} files, {} not messages)",
            path.display(),
            corpus.files,
            corpus.skipped
        )));
    }
    let time_one = |raw: &[u8], stages: &mut Stages| -> Result<usize, BenchError> {
        let t0 = Instant::now();
        let email = parse_message(raw, &pipeline.limits).map_err(setup)?;
        let t1 = Instant::now();
        let rendered = render(&email, &pipeline.limits);
        let t2 = Instant::now();
        let findings = extract(&email, &rendered, pipeline.set);
        let t3 = Instant::now();
        stages.parse += (t1 - t0).as_secs_f64();
        stages.render += (t2 - t1).as_secs_f64();
        stages.extract += (t3 - t2).as_secs_f64();
        Ok(findings.len())
    };
    let distinct = corpus.messages.len();
    let mut checksum = 0usize;
    for raw in &corpus.messages {
        checksum += time_one(raw, &mut Stages::default())?;
    }
    let mut stages = Stages::default();
    let mut latencies = Vec::with_capacity(n);
    let start = Instant::now();
    for i in 0..n {
        let t = Instant::now();
        checksum += time_one(&corpus.messages[i % distinct], &mut stages)?;
        latencies.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let secs = start.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    let capped = if corpus.capped {
        format!(", the first {} MB of it", MAX_CORPUS_BYTES >> 20)
    } else {
        String::new()
    };
    out(&format!(
        "e4 corpus {}: {n} emails ({distinct} distinct messages from {} files{capped}, {} skipped as not messages, mean {:.1} KB) in {secs:.3} s = {:.0} emails/s on one core (parse, render, indicators); p50 {:.1} µs, p99 {:.1} µs (checksum {checksum})",
        path.display(),
        corpus.files,
        corpus.skipped,
        corpus.bytes as f64 / distinct as f64 / 1024.0,
        n as f64 / secs,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
    ))?;
    let per = |x: f64| x / n as f64 * 1e6;
    out(&format!(
        "e4 corpus, mean per email: parse {:.1} µs, render {:.1} µs, indicators {:.1} µs",
        per(stages.parse),
        per(stages.render),
        per(stages.extract),
    ))?;
    Ok(())
}

/// Runs the benchmark: `n` typical emails (the corpus, cycled; or the
/// user's `--corpus`) and `large` 1 MB emails.
fn run(req: &BenchRequest, mut out: BenchOut<'_>) -> Result<(), BenchError> {
    let (n, large) = (req.items, req.large);
    let args = E4Args::default();
    let limits = args.limits();
    let pipeline = Pipeline {
        env: E4Env::new("v1", None, args).map_err(setup)?,
        limits: limits.clone(),
        set: IndicatorSet::builtin(),
    };
    let mut checksum = 0.0;
    match &req.corpus {
        Some(path) => run_corpus(path, n, &pipeline, &mut out)?,
        None => checksum = run_embedded(n, &pipeline, &mut out)?,
    }
    if large > 0 {
        run_large(large, checksum, &pipeline, &mut out)?;
    }
    Ok(())
}

/// `n` emails of the embedded corpus, cycled; returns the checksum.
fn run_embedded(n: usize, pipeline: &Pipeline, out: &mut BenchOut<'_>) -> Result<f64, BenchError> {
    let limits = &pipeline.limits;
    let rows = load(
        &DatasetSpec::Embedded,
        &SplitRequest(Some("all".into())),
        &SelectionRequest {
            max_examples: None,
            shuffle: false,
            seed: 0,
        },
        limits,
    )
    .map_err(setup)?;
    // Prepared before timing: messages, answers and row metadata.
    let mut items = Vec::with_capacity(rows.examples.len());
    for example in &rows.examples {
        let info = example.info_value();
        let email = email_of_row(&info["email"], limits).map_err(setup)?;
        let raw = to_raw(&email);
        let quote: Vec<&str> = info["meta"]["spans"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["text"].as_str())
            .take(3)
            .collect();
        let answer = Completion::assistant_text(
            json!({"label": example.answer, "confidence": 0.8, "evidence": quote}).to_string(),
        );
        items.push((
            raw,
            example.question.clone(),
            answer,
            example.answer.clone(),
            info["meta"].clone(),
        ));
    }
    if items.is_empty() {
        return Err(setup("the embedded corpus has no rows to time"));
    }
    let bytes: usize = items.iter().map(|i| i.0.len()).sum();
    // A corpus row's whole path, scored against the row as eval scores it.
    let run_item = |i: usize, stages: &mut Stages| {
        let (raw, question, answer, gold, meta) = &items[i % items.len()];
        pipeline.run(
            raw.as_bytes(),
            Some(question),
            answer,
            gold,
            Some(meta),
            stages,
        )
    };
    let mut checksum = 0.0;
    let mut stages = Stages::default();
    for i in 0..items.len() {
        checksum += run_item(i, &mut stages)?;
    }
    let mut stages = Stages::default();
    let mut latencies = Vec::with_capacity(n);
    let start = Instant::now();
    for i in 0..n {
        let t = Instant::now();
        checksum += run_item(i, &mut stages)?;
        latencies.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let secs = start.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    out(&format!(
        "e4 typical emails: {n} emails ({} distinct corpus rows, mean {:.1} KB as MIME) in {secs:.3} s = {:.0} emails/s on one core; p50 {:.1} µs, p99 {:.1} µs (checksum {checksum:.1})",
        items.len(),
        bytes as f64 / items.len() as f64 / 1024.0,
        n as f64 / secs,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
    ))?;
    let per = |x: f64| x / n as f64 * 1e6;
    out(&format!(
        "e4 typical emails, mean per email: parse {:.1} µs, render {:.1} µs, indicators {:.1} µs, score {:.1} µs",
        per(stages.parse),
        per(stages.render),
        per(stages.extract),
        per(stages.score),
    ))?;
    Ok(checksum)
}

/// `large` generated 1 MB emails, whole path.
fn run_large(
    large: usize,
    mut checksum: f64,
    pipeline: &Pipeline,
    out: &mut BenchOut<'_>,
) -> Result<(), BenchError> {
    let answer = Completion::assistant_text(
        r#"{"label":"Phishing","confidence":0.9,"evidence":["northwlnd-bank.top","Verify now"]}"#,
    );
    let gold = json!("Phishing");
    let emails: Vec<String> = (0..large.min(8)).map(large_email).collect();
    let mut latencies = Vec::with_capacity(large);
    for i in 0..large {
        let raw = &emails[i % emails.len()];
        let t = Instant::now();
        checksum += pipeline.run(
            raw.as_bytes(),
            None,
            &answer,
            &gold,
            None,
            &mut Stages::default(),
        )?;
        latencies.push(t.elapsed().as_secs_f64() * 1e3);
    }
    latencies.sort_by(f64::total_cmp);
    out(&format!(
            "e4 1 MB emails: {large} emails (half a 1 MB HTML body, half a 1 MB attachment); p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms on one core (checksum {checksum:.1})",
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.99),
            percentile(&latencies, 1.0),
        ))?;
    Ok(())
}
