//! HTML bodies made by multiplying one unit (attributes per tag, tags,
//! `<body>` tags, formatting elements), through the attribute pass and
//! html5ever as `html_to_text` runs them.
//!
//! Input: a decimal count `N` (≤ 100,000) on the first line, then a prefix,
//! a NUL and a unit; the HTML is the prefix and `N` copies of the unit.
//! Invariants beyond "no panic": the attribute pass takes at most a dozen
//! steps per byte; in the tree html5ever builds from what it is given no
//! element has more than `max_html_attributes` attributes, nor `<html>` and
//! `<body>` together, and html5ever's per-tag attribute comparisons stay
//! within `max_html_attributes` per byte parsed (plus a floor). The
//! quadratic inputs this catches (one tag with 300,000 attributes, 10,000
//! `<body>` tags) took from seconds to minutes.

use svbench_mail::{html_dom_stats, scan_attributes, EmailLimits};

/// Largest HTML built (a little over `max_html_bytes`, so the byte cut runs).
const MAX_BYTES: usize = 3 << 20;

/// The HTML an input stands for, or `None` when it is not one.
#[must_use]
pub fn build(data: &[u8]) -> Option<String> {
    let text = crate::utf8(data)?;
    let (count, rest) = crate::split_line(text);
    let n: usize = count.trim().parse().ok().filter(|n| *n <= 100_000)?;
    let (prefix, unit) = rest.split_once('\0').unwrap_or((rest, ""));
    let copies = if unit.is_empty() {
        0
    } else {
        n.min(MAX_BYTES / unit.len())
    };
    let mut html = String::with_capacity(prefix.len() + unit.len() * copies);
    html.push_str(prefix);
    for _ in 0..copies {
        html.push_str(unit);
    }
    Some(html)
}

/// One input.
pub fn run(data: &[u8]) {
    let Some(html) = build(data) else {
        return;
    };
    let limits = EmailLimits::default();
    let scan = scan_attributes(
        &html,
        limits.max_html_attributes,
        limits.max_html_formatting_attributes,
    );
    assert!(
        scan.steps <= 12 * html.len(),
        "{} attribute-pass steps for {} bytes",
        scan.steps,
        html.len()
    );
    let stats = html_dom_stats(&html, &limits);
    let k = limits.max_html_attributes;
    assert!(stats.max_attributes <= k, "{stats:?}");
    assert!(stats.html_body_attributes <= k, "{stats:?}");
    assert!(
        stats.attribute_pairs <= k * stats.parsed_bytes + k * k,
        "attribute comparisons not linear in the bytes parsed: {stats:?}"
    );
}
