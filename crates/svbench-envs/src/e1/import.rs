//! E1's importer in the registry: `svbench data import e1 --format zeek`
//! reads Zeek `conn.log` / `conn.log.labeled` files (see [`super::zeek`])
//! with the flags declared here, parsed once into [`ImportOptions`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::generate::{question_hash, Template};
use super::zeek::{
    import, normalize_label, parse_device_map, parse_label_file, ImportInput, ImportOptions,
    SplitAssignment, ZeekError,
};
use crate::kit::import::{
    parse_ratios, Accepts, FlagKind, ImportFailure, ImportFlag, ImportFlags, ImportReport,
    ImporterEntry,
};

/// Split shares when neither `--split` nor `--split-ratios` is given.
const DEFAULT_RATIOS: [f64; 3] = [0.7, 0.15, 0.15];

/// A flag every format (there is one) reads.
const fn flag(
    name: &'static str,
    kind: FlagKind,
    help: &'static str,
    default: Option<&'static str>,
) -> ImportFlag {
    ImportFlag {
        name,
        kind,
        help,
        accepts: Accepts::Every,
        default,
    }
}

/// E1's importers in the registry.
pub static IMPORTER: ImporterEntry = ImporterEntry {
    formats: &[(
        "zeek",
        "Zeek conn.log or conn.log.labeled files (IoT-23 style)",
    )],
    flags: &[
        flag(
            "label",
            FlagKind::Text,
            "label every row of unlabelled logs: benign or malicious",
            None,
        ),
        flag(
            "labels",
            FlagKind::Path,
            "uid→label file for unlabelled logs (one `uid label` per line)",
            None,
        ),
        flag(
            "source",
            FlagKind::Text,
            "meta.source of the rows",
            Some("zeek"),
        ),
        flag("device", FlagKind::Text, "device type of every row", None),
        flag(
            "device-map",
            FlagKind::Path,
            "IP→device file (one `ip device` per line; originator, then responder)",
            None,
        ),
        flag(
            "scenario",
            FlagKind::Text,
            "capture name for all files [default: each file's folder]",
            None,
        ),
        flag(
            "split",
            FlagKind::Text,
            "put every capture in this split (train, dev, test, ood)",
            None,
        ),
        flag(
            "split-ratios",
            FlagKind::Text,
            "shares of train,dev,test for per-capture assignment [default: 0.7,0.15,0.15]",
            None,
        ),
        flag(
            "seed",
            FlagKind::Count,
            "seed for split assignment and sampling",
            Some("42"),
        ),
        flag(
            "max-per-label",
            FlagKind::Count,
            "keep at most N rows per label (seeded sample)",
            None,
        ),
        flag(
            "dedup-against",
            FlagKind::Path,
            "drop rows whose meta.hash already occurs in this JSONL dataset",
            None,
        ),
        flag(
            "template",
            FlagKind::Text,
            "question template: v1 or upstream",
            Some("v1"),
        ),
    ],
    run,
    inspect: None,
};

fn read_text(path: &Path, what: &str) -> Result<String, ImportFailure> {
    std::fs::read_to_string(path)
        .map_err(|e| ImportFailure::Data(format!("cannot read {what} {}: {e}", path.display())))
}

/// Refuses two flags that say the same thing differently.
fn one_of(flags: &ImportFlags, a: &str, b: &str) -> Result<(), ImportFailure> {
    let given = |name: &str| flags.text(name).is_some() || flags.path(name).is_some();
    if given(a) && given(b) {
        return Err(ImportFailure::Usage(format!(
            "give --{a} or --{b}, not both"
        )));
    }
    Ok(())
}

/// The options the flags ask for, with the files they name read.
///
/// # Errors
/// [`ImportFailure::Usage`] for conflicting or malformed flags,
/// [`ImportFailure::Data`] for files that cannot be read or parsed.
pub fn options_from_flags(flags: &ImportFlags) -> Result<ImportOptions, ImportFailure> {
    one_of(flags, "label", "labels")?;
    one_of(flags, "device", "device-map")?;
    one_of(flags, "split", "split-ratios")?;
    let label = match flags.text("label") {
        None => None,
        Some(l) => Some(normalize_label(l).ok_or_else(|| {
            ImportFailure::Usage(format!("--label `{l}`: expected benign or malicious"))
        })?),
    };
    let labels = match flags.path("labels") {
        None => None,
        Some(p) => Some(
            parse_label_file(&read_text(p, "labels file")?, p)
                .map_err(|e| ImportFailure::Data(e.to_string()))?,
        ),
    };
    let device_map = match flags.path("device-map") {
        None => None,
        Some(p) => Some(parse_device_map(&read_text(p, "device map")?)),
    };
    let split = match (flags.text("split"), flags.text("split-ratios")) {
        (Some(s), _) => SplitAssignment::Fixed(
            s.parse()
                .map_err(|e| ImportFailure::Usage(format!("{e}")))?,
        ),
        (None, Some(r)) => SplitAssignment::Ratios(parse_ratios(r)?),
        (None, None) => SplitAssignment::Ratios(DEFAULT_RATIOS),
    };
    let template_name = flags.required_text("template")?;
    let template = Template::parse(template_name).ok_or_else(|| {
        ImportFailure::Usage(format!(
            "--template `{template_name}`: expected v1 or upstream"
        ))
    })?;
    let mut dedup_against = HashSet::new();
    if let Some(p) = flags.path("dedup-against") {
        let rows =
            svbench_core::example::read_jsonl(p).map_err(|e| ImportFailure::Data(e.to_string()))?;
        for r in rows {
            let v: &Value = &r.value;
            match (v["meta"]["hash"].as_str(), v["question"].as_str()) {
                (Some(h), _) => dedup_against.insert(h.to_string()),
                (None, Some(q)) => dedup_against.insert(question_hash(q)),
                _ => false,
            };
        }
    }
    let max_per_label = match flags.count("max-per-label") {
        None => None,
        Some(n) => Some(
            usize::try_from(n)
                .map_err(|_| ImportFailure::Usage(format!("--max-per-label {n} is too large")))?,
        ),
    };
    Ok(ImportOptions {
        label,
        labels,
        source: flags.required_text("source")?.to_string(),
        device: flags.text("device").map(str::to_string),
        device_map,
        scenario: flags.text("scenario").map(str::to_string),
        split,
        seed: flags.required_count("seed")?,
        max_per_label,
        dedup_against,
        template,
    })
}

fn run(files: &[PathBuf], flags: &ImportFlags) -> Result<ImportReport, ImportFailure> {
    let opts = options_from_flags(flags)?;
    let mut inputs = Vec::with_capacity(files.len());
    for path in files {
        inputs.push(ImportInput {
            path: path.clone(),
            text: read_text(path, "log")?,
        });
    }
    let outcome = import(&inputs, &opts).map_err(|e| match e {
        ZeekError::Usage(m) => ImportFailure::Usage(m),
        other => ImportFailure::Data(other.to_string()),
    })?;
    let mut notes = Vec::new();
    for (capture, (split, rows)) in &outcome.captures {
        notes.push(format!("capture {capture}: {split}, {rows} rows"));
    }
    for (reason, count) in &outcome.skipped {
        notes.push(format!("skipped {count}: {reason}"));
    }
    notes.push(format!("imported {} rows", outcome.rows.len()));
    Ok(ImportReport {
        rows: outcome.rows,
        notes,
    })
}
