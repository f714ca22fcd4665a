//! E2 plots: per-rule precision/recall, severity found/fixed and tool
//! distribution, all from the summary.

use std::collections::BTreeMap;

use crate::e2::report::summary::{E2Metrics, E2RuleStats, E2SeverityCounts, E2Summary};
use svbench_core::summary::Summary;

use svbench_report::plots::axes::{ticks, Frame, Range};
use svbench_report::plots::bars::{grouped_bars, Series};
use svbench_report::plots::svg::{fixed, placeholder, truncate, Anchor, Doc, INK, PALETTE, WIDTH};
use svbench_report::plots::Plot;

/// Rules shown in the per-rule plot (largest support first).
pub const TOP_RULES: usize = 30;
/// Severities in display order.
const SEVERITIES: [&str; 3] = ["high", "med", "low"];

/// `per_rule`, `severity` and `tool_distribution`.
pub fn plots(summary: &Summary, e2: &E2Summary, m: &E2Metrics) -> Vec<Plot> {
    vec![
        per_rule(&e2.per_rule),
        severity(
            summary
                .extension::<BTreeMap<String, E2SeverityCounts>>("severity_breakdown")
                .as_ref(),
        ),
        tool_distribution(m),
    ]
}

/// Horizontal precision and recall bars of the rules with most support.
pub fn per_rule(rules: &BTreeMap<String, E2RuleStats>) -> Plot {
    let title = format!("Per-rule precision and recall (top {TOP_RULES} by support)");
    let mut top: Vec<(&String, &E2RuleStats)> = rules.iter().collect();
    // Stable order: support descending, then id.
    top.sort_by(|a, b| b.1.support.cmp(&a.1.support).then_with(|| a.0.cmp(b.0)));
    top.truncate(TOP_RULES);
    let svg = if top.is_empty() {
        placeholder(&title, "No rule was predicted or in the oracle.")
    } else {
        let row = 30.0;
        let height = 90.0 + row * top.len() as f64 + 40.0;
        let mut doc = Doc::new(WIDTH, height, &title);
        doc.legend(
            250.0,
            44.0,
            &[("precision", PALETTE[0]), ("recall", PALETTE[2])],
        );
        let f = Frame {
            left: 250.0,
            top: 60.0,
            width: WIDTH - 250.0 - 70.0,
            height: row * top.len() as f64,
            x: Range::new(0.0, 1.0),
            y: Range::new(0.0, top.len() as f64),
        };
        for (i, (id, st)) in top.iter().enumerate() {
            let y = f.top + row * i as f64;
            doc.text(
                f.left - 8.0,
                y + row / 2.0 + 4.0,
                &truncate(id, 36),
                Anchor::End,
                11.0,
                INK,
            );
            for (k, (v, colour)) in [(st.precision, PALETTE[0]), (st.recall, PALETTE[2])]
                .into_iter()
                .enumerate()
            {
                let by = y + 4.0 + k as f64 * 11.0;
                match v.filter(|v| v.is_finite()) {
                    Some(v) => {
                        let w = f.px(v.clamp(0.0, 1.0)) - f.left;
                        doc.rect(f.left, by, w, 10.0, colour);
                        doc.text(
                            f.left + w + 3.0,
                            by + 9.0,
                            &fixed(v, 2),
                            Anchor::Start,
                            9.0,
                            INK,
                        );
                    }
                    None => doc.text(f.left + 3.0, by + 9.0, "—", Anchor::Start, 9.0, INK),
                }
            }
            doc.text(
                WIDTH - 10.0,
                y + row / 2.0 + 4.0,
                &format!("n={}", st.support),
                Anchor::End,
                10.0,
                INK,
            );
        }
        // The x axis only; rows are labelled by rule id.
        f.x_axis(&mut doc, Some(&ticks(f.x, 5, false)), "precision / recall");
        doc.line(f.left, f.top, f.left, f.bottom(), INK, false);
        doc.text(
            f.left,
            f.bottom() + 52.0,
            &format!(
                "{} of {} rules; n = support (records with the rule in the oracle); — = undefined.",
                top.len(),
                rules.len()
            ),
            Anchor::Start,
            10.0,
            INK,
        );
        doc.finish()
    };
    Plot {
        name: "per_rule".to_string(),
        title,
        svg,
    }
}

/// Oracle findings per severity: total, found, fixed.
pub fn severity(breakdown: Option<&BTreeMap<String, E2SeverityCounts>>) -> Plot {
    let empty = BTreeMap::new();
    let b = breakdown.unwrap_or(&empty);
    // Known severities first in their order, then any other key.
    let mut keys: Vec<String> = SEVERITIES
        .iter()
        .filter(|k| b.contains_key(**k))
        .map(|k| k.to_string())
        .collect();
    keys.extend(
        b.keys()
            .filter(|k| !SEVERITIES.contains(&k.as_str()))
            .cloned(),
    );
    let col = |f: fn(&E2SeverityCounts) -> u64| -> Vec<f64> {
        keys.iter()
            .map(|k| b.get(k).map_or(0.0, |c| f(c) as f64))
            .collect()
    };
    let series = [
        Series {
            label: "total",
            values: col(|c| c.total),
        },
        Series {
            label: "found",
            values: col(|c| c.found),
        },
        Series {
            label: "fixed",
            values: col(|c| c.fixed),
        },
    ];
    grouped_bars(
        "severity",
        "Oracle findings by severity: found and fixed",
        "findings",
        &keys,
        &series,
        0,
        "No severity breakdown in the summary.",
    )
}

/// Tool calls per analyzer.
pub fn tool_distribution(m: &E2Metrics) -> Plot {
    let d = &m.tool_economy.tool_distribution;
    let keys: Vec<String> = d.keys().cloned().collect();
    let series = [Series {
        label: "calls",
        values: d.values().map(|u| u.calls as f64).collect(),
    }];
    grouped_bars(
        "tool_distribution",
        "Tool calls per analyzer",
        "calls",
        &keys,
        &series,
        0,
        "No tool call was recorded.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::e2::report::summary::E2ToolUse;
    use svbench_report::plots::svg::check::assert_well_formed;

    fn rule(support: u64, precision: Option<f64>, recall: Option<f64>) -> E2RuleStats {
        E2RuleStats {
            precision,
            recall,
            support,
            ..E2RuleStats::default()
        }
    }

    #[test]
    fn per_rule_top_and_absent_values() {
        let mut rules = BTreeMap::new();
        assert!(per_rule(&rules).svg.contains("No rule"));
        for i in 0..40u64 {
            rules.insert(format!("kube-linter/rule-{i:02}"), rule(i, Some(0.5), None));
        }
        rules.insert("opa/<odd>&".to_string(), rule(100, None, Some(f64::NAN)));
        let p = per_rule(&rules);
        assert_well_formed(&p.svg);
        assert_eq!(p, per_rule(&rules));
        assert!(p.svg.contains("opa/&lt;odd&gt;&amp;"));
        assert!(p.svg.contains("rule-39") && !p.svg.contains("rule-10<"));
        assert!(p.svg.contains("—"));
        assert!(p.svg.contains("30 of 41 rules"));
    }

    #[test]
    fn severity_and_tools() {
        assert_well_formed(&severity(None).svg);
        let mut b = BTreeMap::new();
        for (k, t) in [("low", 1), ("high", 5), ("med", 0), ("other", 2)] {
            b.insert(
                k.to_string(),
                E2SeverityCounts {
                    total: t,
                    found: t / 2,
                    fixed: 0,
                },
            );
        }
        let p = severity(Some(&b));
        assert_well_formed(&p.svg);
        let (h, l, o) = (
            p.svg.find(">high<").unwrap(),
            p.svg.find(">low<").unwrap(),
            p.svg.find(">other<").unwrap(),
        );
        assert!(h < l && l < o);
        let mut m = E2Metrics::default();
        assert!(tool_distribution(&m).svg.contains("No tool call"));
        m.tool_economy.tool_distribution.insert(
            "opa".into(),
            E2ToolUse {
                calls: 7,
                time_ms: 1.0,
            },
        );
        let t = tool_distribution(&m);
        assert_well_formed(&t.svg);
        assert!(t.svg.contains(">7</text>"));
    }
}
