//! Non-finite E2 metrics become 0.0 with a warning (upstream-named numbers must be numbers).

use svbench_report::build::guard;

pub(crate) fn guard_e2(m: &mut crate::e2::report::summary::E2Metrics, w: &mut Vec<String>) {
    let q = &mut m.finding_quality;
    let p = &mut m.patch;
    let t = &mut m.tool_economy;
    let e = &mut m.episode;
    let fields: [(&str, &mut f64); 20] = [
        ("precision_weighted", &mut q.precision_weighted),
        ("recall_weighted", &mut q.recall_weighted),
        ("f1_weighted", &mut q.f1_weighted),
        ("precision_unweighted", &mut q.precision_unweighted),
        ("recall_unweighted", &mut q.recall_unweighted),
        ("f1_unweighted", &mut q.f1_unweighted),
        (
            "f1_weighted_positive_only",
            &mut q.f1_weighted_positive_only,
        ),
        (
            "f1_unweighted_positive_only",
            &mut q.f1_unweighted_positive_only,
        ),
        ("patch_provided_rate", &mut p.patch_provided_rate),
        ("patch_success_rate", &mut p.patch_success_rate),
        ("patch_fix_rate", &mut p.patch_fix_rate),
        ("mean_violations_fixed", &mut p.mean_violations_fixed),
        (
            "new_violations_introduced",
            &mut p.new_violations_introduced,
        ),
        ("mean_tool_calls", &mut t.mean_tool_calls),
        ("mean_tool_time_ms", &mut t.mean_tool_time_ms),
        ("calls_per_finding", &mut t.calls_per_finding),
        ("format_valid_rate", &mut e.format_valid_rate),
        ("mean_turns", &mut e.mean_turns),
        ("clean_pass_rate", &mut e.clean_pass_rate),
        (
            "false_positive_rate_on_clean",
            &mut e.false_positive_rate_on_clean,
        ),
    ];
    for (name, v) in fields {
        guard(&format!("metrics.{name}"), v, w);
    }
}
