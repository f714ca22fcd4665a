//! The data card (`README.md`) of a generated corpus, written from the
//! corpus itself so every number is measured and regeneration reproduces it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;
use svbench_mail::RENDER_VERSION;

use super::ambiguous::{archetype_of, ARCHETYPES};
use super::brands::OOD_BRANDS;
use super::families::FAMILIES;
use super::manifest::Manifest;
use super::{Corpus, GENERATOR_NAME, GENERATOR_VERSION};

/// Renders the data card for `corpus`.
pub fn render_card(corpus: &Corpus, manifest: &Manifest) -> String {
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "# E4 dataset `{GENERATOR_NAME}` (generated)\n");
    let _ = writeln!(
        w,
        "Synthetic emails for `sv-env-phishing-detection`: fictional brands, fictional people,\n\
         every row annotated with the indicator spans the generator inserted. Every byte of this\n\
         directory except `brands.toml` — rows, `manifest.json` and this card — is written by\n\
         `svbench data gen e4`; do not edit by hand.\n"
    );
    provenance(w, corpus, manifest);
    rows_section(w);
    families_section(w);
    counts(w, corpus);
    ambiguity(w, corpus);
    fiction(w);
    let _ = writeln!(w, "## Limits\n");
    let _ = writeln!(
        w,
        "- Templates, not real mail: wording varies by seeded choice among a few phrasings per slot.\n\
         - Other languages are hand-written phrase tables for two families; amounts stay in dollars.\n\
         - Gold spans are what the generator inserted; an indicator it did not insert is not gold.\n\
         - Ambiguous items are ambiguous by construction: the hidden fact that decides them is not in the email."
    );
    s
}

fn provenance(w: &mut String, corpus: &Corpus, manifest: &Manifest) {
    let c = &corpus.config;
    let _ = writeln!(w, "## Provenance\n");
    let _ = writeln!(
        w,
        "- generator: `{GENERATOR_NAME}` version `{GENERATOR_VERSION}`, seed `{}`\n\
         - config: ambiguity {}, sizes train {} / dev {} / test {} / ood {}\n\
         - rendering: `svbench_mail::render` version {RENDER_VERSION} (`meta.render_version`)\n",
        corpus.seed, c.ambiguity, c.sizes.train, c.sizes.dev, c.sizes.test, c.sizes.ood
    );
    let _ = writeln!(
        w,
        "| file | rows | Phishing | Legitimate | Abstain | sha256 |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|---|");
    for f in &manifest.files {
        let _ = writeln!(
            w,
            "| `{}` | {} | {} | {} | {} | `{}` |",
            f.path, f.rows, f.phishing, f.legitimate, f.abstain, f.sha256
        );
    }
    let _ = writeln!(
        w,
        "\nRegenerate exactly (a test does this and compares every byte):\n\n\
         ```\nsvbench data gen e4 --manifest datasets/e4/manifest.json --out datasets/e4\n```\n"
    );
}

fn rows_section(w: &mut String) {
    let _ = writeln!(w, "## Rows\n");
    let _ = writeln!(
        w,
        "One JSON object per line, keys in this order:\n\n\
         | field | meaning |\n|---|---|\n\
         | `id` | `e4-gen-NNNNNN`, numbered across the four files |\n\
         | `question` | the rendered email (headers, blank line, body) |\n\
         | `answer` | `Phishing`, `Legitimate` or `Abstain` |\n\
         | `email` | `headers` (`From`, `Reply-To`, `To`, `Date`, `Subject`, `Authentication-Results`, when present), `text` or `html`, `attachments` (`name`, `type`, `size`); rendering it gives `question` |\n\
         | `meta.split` | `train`, `dev`, `test` or `ood` |\n\
         | `meta.spans` | `{{start, end, text, category, polarity}}`, code-point offsets into `question`; `categories` lists every category when one text carries several |\n\
         | `meta.gold_source` | `annotated` |\n\
         | `meta.family`, `meta.phishing_type` | family id; phishing type (`null` unless Phishing) |\n\
         | `meta.difficulty` | `easy`, `medium`, `hard` |\n\
         | `meta.pair_id` | the group: a legitimate instance and its phishing counterparts, or one ambiguous item |\n\
         | `meta.ambiguous`, `meta.render_version`, `meta.source`, `meta.generator` | provenance |\n\
         | `meta.brand` | the fictional brand or vendor written about (`null` for internal mail) |\n\
         | `meta.language` | the language the email is written in (`en`, `pt`, `es`, `fr`, `de`) |\n\
         | `meta.indicators` | hard indicator categories present (Phishing rows) |\n\
         | `meta.soft_indicators` | soft indicators present (Legitimate rows), or the phish-polarity categories of an ambiguous surface |\n\
         | `meta.archetype`, `meta.surface_seed`, `meta.scenario_seeds` | ambiguous rows: what regenerates both scenarios |\n"
    );
    let _ = writeln!(
        w,
        "Spans are citable by construction: 4–200 characters, word-bounded, at most 10 per\n\
         polarity (10 in all on ambiguous rows). Difficulty: Phishing `easy` with ≥ 3 hard\n\
         indicators, `medium` with 2, `hard` with 1 (the weak generic greeting does not count);\n\
         Legitimate `easy` with no soft indicator, `medium` with 1, `hard` with ≥ 2; Abstain `hard`.\n"
    );
}

fn families_section(w: &mut String) {
    let _ = writeln!(w, "## Families\n");
    let _ = writeln!(
        w,
        "| family | phishing type | brands | splits | languages | ambiguous archetype | hard indicators drawn from |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|---|---|");
    for f in FAMILIES {
        let brands: Vec<&str> = f.brands.iter().chain(f.ood_brands).copied().collect();
        let _ = writeln!(
            w,
            "| `{}` | `{}` | {} | {} | {} | {} | {} |",
            f.id,
            f.phishing_type,
            if brands.is_empty() && f.everywhere {
                "(organisation and vendor mail)".to_string()
            } else if brands.is_empty() {
                "(internal mail)".to_string()
            } else {
                brands.join(", ")
            },
            if f.ood_only {
                "ood only"
            } else if f.everywhere {
                "all"
            } else if f.ood_brands.is_empty() {
                "train, dev, test"
            } else {
                "all (ood: ood brands)"
            },
            f.languages.join(", "),
            archetype_of(f.id).map_or("none".to_string(), |a| format!("`{}`", a.id)),
            f.hard
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let through: Vec<&str> = FAMILIES
        .iter()
        .filter(|f| !f.ood_only && !f.ood_brands.is_empty())
        .map(|f| f.id)
        .collect();
    let _ = writeln!(
        w,
        "\nThe ood split uses the two ood-only families and the brands {} (Coho Crypto through\n\
         {}); none of them appears in train, dev or test. Its recipient organisations are\n\
         ood-only too, and so are the vendors of the families drawn in every split.\n",
        OOD_BRANDS.join(", "),
        through
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        w,
        "The families after the first ten are written so that a keyword list cannot decide\n\
         them: their phishing side often carries no phrase the builtin extractor reads (the\n\
         tell is a lookalike of the recipient's own domain or of a vendor no brand list holds,\n\
         a changed Reply-To, a link to an unrelated host), and their legitimate side carries\n\
         alarming or money wording from the real sender, replies routed to an invoicing\n\
         platform, or links rewritten by the recipient's security gateway. Their gold label is\n\
         fixed by construction (who sent it), not by the wording. They carry fewer hard\n\
         indicators (one most often) and are dealt {} times as often as the first ten.\n",
        super::LATER_WEIGHT
    );
}

fn counts(w: &mut String, corpus: &Corpus) {
    let _ = writeln!(w, "## Measured mix\n");
    let _ = writeln!(w, "| split | label | easy | medium | hard |");
    let _ = writeln!(w, "|---|---|---|---|---|");
    for (split, rows) in &corpus.splits {
        for label in ["Phishing", "Legitimate", "Abstain"] {
            let n = |d: &str| {
                rows.iter()
                    .filter(|r| r["answer"] == label && r["meta"]["difficulty"] == d)
                    .count()
            };
            let _ = writeln!(
                w,
                "| {split} | {label} | {} | {} | {} |",
                n("easy"),
                n("medium"),
                n("hard")
            );
        }
    }
    let _ = writeln!(w, "\n| split | family | rows |");
    let _ = writeln!(w, "|---|---|---|");
    for (split, rows) in &corpus.splits {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for r in rows {
            *by.entry(r["meta"]["family"].as_str().unwrap_or("?"))
                .or_default() += 1;
        }
        for (f, n) in by {
            let _ = writeln!(w, "| {split} | `{f}` | {n} |");
        }
    }
    let _ = writeln!(w, "\n| split | language | rows |");
    let _ = writeln!(w, "|---|---|---|");
    for (split, rows) in &corpus.splits {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for r in rows {
            *by.entry(r["meta"]["language"].as_str().unwrap_or("?"))
                .or_default() += 1;
        }
        for (l, n) in by {
            let _ = writeln!(w, "| {split} | `{l}` | {n} |");
        }
    }
    let mut cats: BTreeMap<String, usize> = BTreeMap::new();
    for (_, rows) in &corpus.splits {
        for r in rows {
            for s in r["meta"]["spans"].as_array().into_iter().flatten() {
                let key = format!(
                    "{} ({})",
                    s["category"].as_str().unwrap_or("?"),
                    s["polarity"].as_str().unwrap_or("?")
                );
                *cats.entry(key).or_default() += 1;
            }
        }
    }
    let _ = writeln!(w, "\n| span category | spans (all splits) |");
    let _ = writeln!(w, "|---|---|");
    for (c, n) in cats {
        let _ = writeln!(w, "| `{c}` | {n} |");
    }
    let _ = writeln!(w);
}

fn ambiguity(w: &mut String, corpus: &Corpus) {
    let total: usize = corpus
        .splits
        .iter()
        .map(|(_, r)| {
            r.iter()
                .filter(|r| r["meta"]["ambiguous"] == Value::Bool(true))
                .count()
        })
        .sum();
    let _ = writeln!(w, "## Ambiguity\n");
    let _ = writeln!(
        w,
        "{total} rows are gold `Abstain`. Each is built so that a legitimate and a phishing\n\
         scenario of the same family render byte-identically: the visible email comes from\n\
         `meta.surface_seed`, and each scenario's hidden fact (who controls the sending account,\n\
         whether the new vendor exists) from its own seed in `meta.scenario_seeds`. A test\n\
         regenerates both and compares the renderings. Only the first ten families have an\n\
         archetype; the later ones have no ambiguous items. Archetypes:\n"
    );
    for a in ARCHETYPES {
        let _ = writeln!(
            w,
            "- `{}` ({}): legitimate if {}; phishing if {}",
            a.id, a.family, a.legit_stories[0], a.phish_stories[0]
        );
    }
    let _ = writeln!(w);
}

fn fiction(w: &mut String) {
    let _ = writeln!(w, "## Fiction policy\n");
    let _ = writeln!(
        w,
        "- Brands are the fictional ones of `datasets/e4/brands.toml`; their official domains are\n  \
         reserved names (`.example`, `.test`). People are random first/last name pairs.\n\
         - Attacker domains are derived from those brands (character edits, digit/letter swaps,\n  \
         `rn`/`m`, hyphenated or subdomain brand tokens, Cyrillic confusables) or random words, on\n  \
         reserved TLDs or `.top`/`.xyz`/`.click`/`.icu`. IP URLs use documentation ranges\n  \
         (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24). Nothing is resolved or fetched.\n\
         - Free-mail senders use fictional providers (`freemail.example`, `inboxly.test`,\n  \
         `postbox-mail.example`); third-party shortener URLs carry random paths.\n\
         - Vendors (not in `brands.toml`), their invoicing platforms and the security gateways\n  \
         that rewrite links are invented names under reserved domains; vendor lookalikes are\n  \
         derived the same way as brand lookalikes.\n\
         - Attachments are listed by name, type and a small size only; no content exists.\n"
    );
}
