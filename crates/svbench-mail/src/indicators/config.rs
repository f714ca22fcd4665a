//! The two data files, as written: `indicators.toml` (phrases, lists,
//! thresholds, policy weights) and `brands.toml`. Unknown keys are errors,
//! so a misspelt key cannot silently fall back to a default.

use std::collections::BTreeMap;

use serde::Deserialize;

/// `datasets/e4/indicators.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IndicatorsFile {
    pub policy: Policy,
    pub spans: Spans,
    pub phrases: Phrases,
    pub domains: Domains,
    pub lookalike: Lookalike,
    pub attachments: Attachments,
    pub link_gateways: Vec<GatewayEntry>,
}

/// One `[[link_gateways]]` table: a security gateway that rewrites links.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GatewayEntry {
    pub suffix: String,
    #[serde(default)]
    pub host_prefix: String,
    pub read: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Policy {
    pub offset: f64,
    pub weights: BTreeMap<String, f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Spans {
    pub min_chars: usize,
    pub max_chars: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Phrases {
    pub credential_request: Vec<String>,
    pub pii_request: Vec<String>,
    pub payment_request: Vec<String>,
    pub urgency_threat: Vec<String>,
    pub generic_greeting: Vec<String>,
    pub corporate_claim: Vec<String>,
    pub protected_archive: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Domains {
    pub shorteners: Vec<String>,
    pub suspicious_tlds: Vec<String>,
    pub freemail: Vec<String>,
    pub file_extensions: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Lookalike {
    pub max_distance: usize,
    pub min_label_chars: usize,
    pub short_label_max_chars: usize,
    pub short_max_distance: usize,
    pub folds: Vec<(String, String)>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Attachments {
    pub risky_extensions: Vec<String>,
    pub decoy_extensions: Vec<String>,
    pub archive_extensions: Vec<String>,
}

/// `datasets/e4/brands.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BrandsFile {
    pub brand: Vec<BrandEntry>,
}

/// One `[[brand]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BrandEntry {
    pub name: String,
    #[serde(default)]
    pub names: Vec<String>,
    pub domains: Vec<String>,
    #[serde(default)]
    pub labels: Vec<String>,
    #[serde(default)]
    pub shorteners: Vec<String>,
    // Read by the generator, not the extractor; declared so the schema is checked.
    #[serde(default)]
    #[allow(dead_code)]
    pub kind: String,
    #[serde(default)]
    #[allow(dead_code)]
    pub fictional: bool,
}
