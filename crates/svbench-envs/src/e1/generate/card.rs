//! The data card (`README.md`) of a generated corpus. It is written by the
//! generator from the corpus itself, so every number in it is measured and
//! regeneration reproduces the card byte for byte.

use std::fmt::Write as _;

use serde_json::Value;

use super::ambiguous::ARCHETYPES;
use super::decision::optimal_action;
use super::families::ID_FAMILIES;
use super::manifest::Manifest;
use super::ood::OOD_FAMILIES;
use super::row::{ID_DEVICES, OOD_DEVICES};
use super::{Corpus, Split, GENERATOR_NAME, GENERATOR_VERSION};
use crate::e1::heuristic;
use crate::e1::leak::{quality_report, LeakError, QualityReport};
use crate::e1::Label;

/// The heuristic baseline on one split.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeuristicScore {
    /// Correct decisions over all rows (abstaining counts as not correct).
    pub accuracy: f64,
    /// Correct decisions over decided rows.
    pub decided_accuracy: f64,
    /// Share of rows it abstains on.
    pub abstain_rate: f64,
}

/// Scores the built-in heuristic (E1 §5) on rows.
pub fn heuristic_score(rows: &[Value]) -> HeuristicScore {
    let (mut ok, mut decided) = (0usize, 0usize);
    for r in rows {
        let q = r["question"].as_str().unwrap_or_default();
        let (label, _) = heuristic::decide(q);
        if label != Label::Abstain {
            decided += 1;
            ok += usize::from(r["answer"].as_str() == Some(label.as_str()));
        }
    }
    let n = rows.len().max(1) as f64;
    HeuristicScore {
        accuracy: ok as f64 / n,
        decided_accuracy: ok as f64 / decided.max(1) as f64,
        abstain_rate: (rows.len() - decided) as f64 / n,
    }
}

/// Renders the data card for `corpus`.
pub fn render_card(corpus: &Corpus, manifest: &Manifest) -> Result<String, LeakError> {
    let q = quality_report(
        corpus.rows(Split::Train),
        corpus.rows(Split::Dev),
        corpus.rows(Split::Test),
        corpus.rows(Split::Ood),
    )?;
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "# E1 dataset `{GENERATOR_NAME}` (generated)\n");
    let _ = writeln!(
        w,
        "Synthetic Zeek `conn.log` flows for `sv-env-network-logs`. Every byte of this\n\
         directory — rows, `manifest.json` and this card — is written by\n\
         `svbench data gen e1`; do not edit by hand.\n"
    );
    header(w, corpus, manifest);
    fields(w);
    families(w);
    ambiguity(w, corpus);
    quality(w, &q, corpus);
    let _ = writeln!(w, "## Limits\n");
    let _ = writeln!(
        w,
        "- Synthetic: shapes follow Zeek semantics and the IoT botnet literature, not a capture.\n\
         - Clear rows carry `meta.p_malicious` 1.0 or 0.0: their family's label, not a posterior.\n\
         - Numbers above are measured on a few hundred rows; `data gen --split S -n N` makes larger sets."
    );
    Ok(s)
}

fn header(w: &mut String, corpus: &Corpus, manifest: &Manifest) {
    let c = &corpus.config;
    let _ = writeln!(w, "## Provenance\n");
    let _ = writeln!(
        w,
        "- generator: `{GENERATOR_NAME}` version `{GENERATOR_VERSION}`, seed `{}`\n\
         - config: ambiguity {}, sizes train {} / dev {} / test {} / ood {}\n\
         - splits generated in the order ood, test, dev, train; `meta.hash` is unique across all four\n",
        corpus.seed, c.ambiguity, c.sizes.train, c.sizes.dev, c.sizes.test, c.sizes.ood
    );
    let _ = writeln!(
        w,
        "| file | rows | malicious | ambiguous | Abstain-optimal | sha256 |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|---|");
    for f in &manifest.files {
        let _ = writeln!(
            w,
            "| `{}` | {} | {} | {} | {} | `{}` |",
            f.path, f.rows, f.malicious, f.ambiguous, f.abstain_optimal, f.sha256
        );
    }
    let _ = writeln!(
        w,
        "\nRegenerate exactly (CI does this and compares SHA-256):\n\n\
         ```\nsvbench data gen e1 --manifest datasets/e1/manifest.json --out datasets/e1\n```\n\n\
         A new corpus: `svbench data gen e1 --seed S --out DIR`; one split of any size:\n\
         `svbench data gen e1 --seed S --split test -n 1000 --out test.jsonl` (the same rows as\n\
         `eval --dataset synthetic:S:1000 --split test`).\n"
    );
}

fn fields(w: &mut String) {
    let _ = writeln!(w, "## Rows\n");
    let _ = writeln!(
        w,
        "One JSON object per line (compact, fixed key order, raw UTF-8):\n\n\
         | field | meaning |\n|---|---|\n\
         | `question` | the flow rendered with the v1 template (below) |\n\
         | `answer` | `Benign` or `Malicious` |\n\
         | `meta.source` | `{GENERATOR_NAME}` |\n\
         | `meta.scenario` | family or archetype id |\n\
         | `meta.attack_family` | the family/archetype id of a malicious row, `NA` for benign |\n\
         | `meta.hash` | first 16 hex of SHA-256 of `question` |\n\
         | `meta.split` | `train`, `dev`, `test` or `ood` |\n\
         | `meta.generator` | `{{name, version, seed}}` |\n\
         | `meta.ambiguous` | drawn from an ambiguous archetype |\n\
         | `meta.p_malicious` | q of the archetype; 1.0/0.0 for clear rows |\n\
         | `meta.optimal_action` | Bayes-optimal v1 action for `p_malicious` with default reward constants |\n\
         | `meta.flow` | the Zeek record: `ts`, `uid`, `proto`, `service`, `duration`, `orig_bytes`, `resp_bytes`, `conn_state`, `history`, `orig_pkts`, `resp_pkts`, `orig_p`, `resp_p`, `device_type`; `null` = missing |\n"
    );
    let _ = writeln!(
        w,
        "Template (one line; `?` only for a missing value, zero renders `0`, durations with six\n\
         decimals, `ts` as ISO-8601 UTC seconds; `uid` is never rendered and Zeek's `history` is\n\
         labelled `flags`, so the fixed text holds none of the heuristic's keywords):\n\n\
         ```\nZeek conn {{ts}} device={{device}} proto={{proto}} service={{service}} {{orig_p}}→{{resp_p}} duration={{duration}} orig_bytes={{orig_bytes}} resp_bytes={{resp_bytes}} orig_pkts={{orig_pkts}} resp_pkts={{resp_pkts}} conn_state={{conn_state}} flags={{history}}\n```\n\n\
         Zeek consistency holds on every row: duration and bytes are missing iff the flow is a\n\
         single packet (1 originator packet, no reply); `S0` has no responder packets; `REJ` has\n\
         responder packets and no responder bytes; TCP `SF` has packets both ways; UDP history\n\
         uses only `D`/`d`; ICMP has no service. Device and time are drawn independently of the\n\
         label (devices: {}; ood devices: {}).\n",
        ID_DEVICES.join(", "),
        OOD_DEVICES.join(", ")
    );
}

fn families(w: &mut String) {
    let _ = writeln!(w, "## Families\n");
    let list = |fams: &[super::families::Family], label: crate::e1::Gold| {
        fams.iter()
            .filter(|f| f.label == label)
            .map(|f| format!("`{}`", f.id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        w,
        "- benign (train/dev/test): {}\n\
         - malicious (train/dev/test): {}\n\
         - ood only, benign enterprise traffic: {}\n\
         - ood only, unseen attacks: {}\n\
         - the ood split draws {:.0} % of its clear rows from ood-only families and the rest from the\n  \
         in-distribution families with shifted (3×) size ranges.\n",
        list(ID_FAMILIES, crate::e1::Gold::Benign),
        list(ID_FAMILIES, crate::e1::Gold::Malicious),
        list(OOD_FAMILIES, crate::e1::Gold::Benign),
        list(OOD_FAMILIES, crate::e1::Gold::Malicious),
        super::OOD_ONLY_SHARE * 100.0
    );
    let _ = writeln!(
        w,
        "Every group of destination ports carries both labels (telnet: admin sessions vs scans and\n\
         brute force; 443: cloud TLS vs TLS beacons and downloads; IoT control ports: UPnP/TR-069\n\
         calls vs exploit probes; 53/123/1900: lookups vs floods and reflector probes), so no single\n\
         field decides the label; the combination does.\n"
    );
}

fn ambiguity(w: &mut String, corpus: &Corpus) {
    let _ = writeln!(w, "## Ambiguity and abstention\n");
    let _ = writeln!(
        w,
        "A share `ambiguity` = {} of each split comes from ambiguous archetypes. Their features are\n\
         drawn without looking at the label; the label is Malicious with probability q. Each\n\
         archetype owns a region no clear family emits (a predicate, checked by a test), so\n\
         P(Malicious | record) = q exactly. Labels are assigned by systematic sampling over the\n\
         split's ambiguous rows (one uniform offset): every row is Malicious with probability\n\
         exactly q, and any run of rows holds within one of its expected count, so a small split\n\
         shows the designed rates. Clear rows then fill each split to exactly half malicious.\n",
        corpus.config.ambiguity
    );
    let _ = writeln!(w, "| archetype | q | optimal action (v1 defaults) |");
    let _ = writeln!(w, "|---|---|---|");
    for a in ARCHETYPES {
        let _ = writeln!(w, "| `{}` | {} | {} |", a.id, a.q, optimal_action(a.q));
    }
    let _ = writeln!(
        w,
        "\nWith the default v1 constants abstaining is optimal for 0.17621 < q < 0.38730.\n"
    );
}

fn quality(w: &mut String, q: &QualityReport, corpus: &Corpus) {
    let _ = writeln!(w, "## Measured quality\n");
    let _ = writeln!(
        w,
        "Single-field leak: per-value majority (every field), best threshold stump (numeric fields,\n\
         `?` bucket) and \"is `?`\" indicators, learnt on train, balanced accuracy (limit 0.75):\n"
    );
    let _ = writeln!(w, "| split | worst rule | balanced accuracy |");
    let _ = writeln!(w, "|---|---|---|");
    for split in ["dev", "test", "ood"] {
        if let Some((field, rule, ba)) = q.leak.worst(split) {
            let _ = writeln!(w, "| {split} | `{field}` {} | {ba:.3} |", rule.as_str());
        }
    }
    let a = &q.abstention;
    let h_test = heuristic_score(corpus.rows(Split::Test));
    let h_ood = heuristic_score(corpus.rows(Split::Ood));
    let _ = writeln!(
        w,
        "\n- learnability: naive Bayes trained on train, balanced accuracy {:.3} on the non-ambiguous\n  \
         test rows (limit ≥ 0.80)\n\
         - abstention: {} of {} test rows ({:.1} %) are Abstain-optimal (limit 8–20 %); Bayes-rule\n  \
         oracle mean v1 reward {:.4} with abstention vs {:.4} without\n\
         - built-in heuristic (`builtin:heuristic`): test accuracy {:.3} over all rows, {:.3} over the {:.0} % it\n  \
         decides; ood {:.3} / {:.3} (a weak baseline: it keys on `dns`/`icmp` values and ports)\n",
        q.learnability,
        a.abstain_optimal,
        a.rows,
        a.share * 100.0,
        a.oracle_with_abstain,
        a.oracle_without_abstain,
        h_test.accuracy,
        h_test.decided_accuracy,
        (1.0 - h_test.abstain_rate) * 100.0,
        h_ood.accuracy,
        h_ood.decided_accuracy,
    );
}
