//! The data card `README.md`, rendered from the corpus itself so every number
//! in it is measured and regeneration reproduces it byte for byte.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::manifest::Manifest;
use super::{k8s, mutate, tf, Corpus, GENERATOR_NAME, GENERATOR_VERSION};

/// Renders the data card for `corpus`.
#[must_use]
pub fn render_card(corpus: &Corpus, manifest: &Manifest) -> String {
    let mut s = String::new();
    let w = &mut s;
    let c = &corpus.config;
    let _ = writeln!(w, "# E2 dataset `{GENERATOR_NAME}` (generated)\n");
    let _ = writeln!(
        w,
        "Kubernetes manifests and Terraform modules for `sv-env-config-verification`.\n\
         Every byte of this directory — rows, `manifest.json` and this card — is written by\n\
         `svbench data gen e2`; do not edit by hand.\n"
    );
    let _ = writeln!(w, "## Provenance\n");
    let _ = writeln!(
        w,
        "- generator: `{GENERATOR_NAME}` version `{GENERATOR_VERSION}`, seed `{}`\n\
         - config: {} k8s + {} tf items, clean fraction {}, at most {} draws per item\n\
         - dropped: {} items whose intended ids did not all appear after every draw, {} duplicate questions\n\
         - labels: the live oracle (every native analyzer, default rule sets) on the final text:",
        corpus.seed, c.k8s, c.tf, c.clean_fraction, c.max_attempts, corpus.dropped.intent_failed,
        corpus.dropped.duplicate
    );
    for (ns, version) in &corpus.catalogue {
        let _ = writeln!(w, "  - `{ns}`: {version}");
    }
    let _ = writeln!(w, "\n| file | rows | sha256 |\n|---|---|---|");
    for f in &manifest.files {
        let _ = writeln!(w, "| `{}` | {} | `{}` |", f.path, f.rows, f.sha256);
    }
    let _ = writeln!(w, "\n| split | lang | clean | mutated |\n|---|---|---|---|");
    for n in &manifest.counts {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} |",
            n.split, n.lang, n.clean, n.mutated
        );
    }
    let _ = writeln!(
        w,
        "\nRegenerate exactly (CI does this and compares bytes):\n\n\
         ```\nsvbench data gen e2 --manifest datasets/e2/manifest.json --out datasets/e2\n```\n\n\
         A new corpus: `svbench data gen e2 --seed S --out DIR`; one split of any size:\n\
         `svbench data gen e2 --seed S --split test -n 1000 --out test.jsonl`.\n"
    );
    rows_section(w);
    families(w);
    operators(w, corpus);
    labels(w, corpus);
    let _ = writeln!(w, "## Limits\n");
    let _ = writeln!(
        w,
        "- Synthetic: one workload (or one or two Terraform families) per item, from fixed pools of\n  \
         names, images and ports; real repositories are larger and messier.\n\
         - Labels are exactly what the native analyzers report, including findings a mutation causes\n  \
         beyond its intent (e.g. a moved namespace also breaks service-account lookups).\n\
         - Labels depend on the analyzer versions above: a new analyzer version means a new corpus."
    );
    s
}

fn rows_section(w: &mut String) {
    let _ = writeln!(w, "## Rows\n");
    let _ = writeln!(
        w,
        "One JSON object per line (compact, fixed key order), k8s rows then tf rows, each in\n\
         stream order:\n\n\
         | field | meaning |\n|---|---|\n\
         | `id` | `e2-<lang>-<index in the language stream>` |\n\
         | `question` | the config (`manifest.yaml` or `main.tf`) |\n\
         | `info.violations` | one entry per finding: `tool`, `rule_id`, `severity` (project severity), `msg`, `loc` (`file:line`) |\n\
         | `info.patch` | `null` |\n\
         | `info.labelled_namespaces` | k8s: `kube-linter`, `semgrep`, `opa`; tf: `opa` (the namespaces with rules for the file type) |\n\
         | `info.analyzer_versions` | version of each labelled namespace |\n\
         | `meta.lang`, `meta.file_name` | `k8s`/`manifest.yaml` or `tf`/`main.tf` |\n\
         | `meta.split` | `train`/`dev`/`test`, 70/15/15 by SHA-256 of the baseline text |\n\
         | `meta.hash` | first 16 hex of SHA-256 of `question`; questions are distinct |\n\
         | `meta.generator` | `name`, `version`, `seed`, `baseline`, `mutations`, `intended_ids` |\n"
    );
}

fn families(w: &mut String) {
    let list = |f: &[&str]| {
        f.iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(w, "## Baselines\n");
    let _ = writeln!(
        w,
        "Every baseline scans clean under every default kube-linter check, the semgrep rules and all\n\
         opa rules (a test enumerates the families).\n\n\
         - k8s: {} — explicit non-default namespace, pinned images (some by digest), pod\n  \
         `runAsNonRoot` with `runAsUser` ≥ 10000, read-only root filesystem, no privilege escalation,\n  \
         all capabilities dropped, CPU/memory requests and limits, probes on exposed ports, an\n  \
         in-file service account, hostname anti-affinity when replicas ≥ 2; formatting varies\n  \
         (indentation, sequence indentation, quoting, document order, leading `---`).\n\
         - tf: {} (one, sometimes two, plus variables) — S3 with encryption, versioning, private ACL\n  \
         and public-access block; a security group open to one internal CIDR; encrypted RDS with a\n  \
         managed master password; an IAM policy with listed actions on listed resources; variables\n  \
         without secret defaults.\n",
        list(&k8s::FAMILIES),
        list(&tf::FAMILIES)
    );
}

fn operators(w: &mut String, corpus: &Corpus) {
    let mut used: BTreeMap<String, (usize, Vec<String>)> = BTreeMap::new();
    for row in corpus.all_rows() {
        let g = &row["meta"]["generator"];
        for m in g["mutations"].as_array().into_iter().flatten() {
            let e = used
                .entry(m.as_str().unwrap_or_default().to_string())
                .or_default();
            e.0 += 1;
        }
        // Intended ids of single-mutation items belong to that operator.
        if let [m] = g["mutations"].as_array().map_or(&[][..], Vec::as_slice) {
            let e = used
                .entry(m.as_str().unwrap_or_default().to_string())
                .or_default();
            for id in g["intended_ids"].as_array().into_iter().flatten() {
                let id = id.as_str().unwrap_or_default().to_string();
                if !e.1.contains(&id) {
                    e.1.push(id);
                }
            }
        }
    }
    let _ = writeln!(w, "## Mutations\n");
    let _ = writeln!(
        w,
        "Mutated items get 1 (50 %), 2 (35 %) or 3 (15 %) distinct operators that apply to the\n\
         baseline; `legacy-extensions-api` is always alone. Intended ids must all appear in the labels.\n\n\
         | operator | items | intended ids seen (single-mutation items) |\n|---|---|---|"
    );
    let names = mutate::K8S_OPERATORS
        .iter()
        .map(|o| o.name)
        .chain(tf::TF_OPERATORS.iter().map(|o| o.name));
    for name in names {
        let (n, ids) = used.get(name).cloned().unwrap_or_default();
        let mut ids = ids;
        ids.sort();
        let ids = ids
            .iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(w, "| `{name}` | {n} | {ids} |");
    }
    let _ = writeln!(w);
}

fn labels(w: &mut String, corpus: &Corpus) {
    let mut per_rule: BTreeMap<String, (String, usize, usize)> = BTreeMap::new();
    for row in corpus.all_rows() {
        let mut in_row = std::collections::BTreeSet::new();
        for v in row["info"]["violations"].as_array().into_iter().flatten() {
            let id = format!(
                "{}/{}",
                v["tool"].as_str().unwrap_or_default(),
                v["rule_id"].as_str().unwrap_or_default()
            );
            let e = per_rule
                .entry(id.clone())
                .or_insert_with(|| (v["severity"].as_str().unwrap_or_default().to_string(), 0, 0));
            e.2 += 1;
            if in_row.insert(id) {
                e.1 += 1;
            }
        }
    }
    let _ = writeln!(w, "## Labels per rule\n");
    let _ = writeln!(
        w,
        "| rule | severity | rows | findings |\n|---|---|---|---|"
    );
    for (id, (sev, rows, occ)) in &per_rule {
        let _ = writeln!(w, "| `{id}` | {sev} | {rows} | {occ} |");
    }
    let _ = writeln!(w);
}
