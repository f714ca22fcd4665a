//! E2 reward acceptance tests (spec E2 §5): every row of the worked-case
//! tables of §5.1 (`upstream`) and §5.2 (`v1`), each exploit of the §5.2
//! list scored under both profiles, and the reward config.
//!
//! Item: public-mini row 0 (`nginx-dummy.yaml`, a Pod with image `nginx`, no
//! securityContext, no resources). Catalogue severities come from the native
//! scan catalogues (spec E2 §1.5–1.6).

use std::collections::BTreeSet;

use svbench_core::reward_config::RewardConfigError;
use svbench_envs::e2::reward::{
    score_upstream, score_v1, tool_observation_reward, E2Rewards, PatchEvaluation, UpstreamPatch,
    UpstreamScore, V1Answer, V1Params, V1Score,
};
use svbench_envs::e2::{
    Answer, E2Parse, Lang, NormalizedId, Oracle, OracleViolation, PredictedViolation, Severity,
    Tool,
};
use svbench_scan::scan::{FileType, ScanOptions, Scanner, ToolSelection};
use svbench_scan::{kube_linter, semgrep, Tier};

use Severity::{High, Low, Med};

// ---------------------------------------------------------------- fixtures

const SEMGREP: &str = "semgrep/yaml.kubernetes.security.";

/// The kube-linter oracle K of row 0.
const K: [&str; 5] = [
    "kube-linter/latest-tag",
    "kube-linter/no-read-only-root-fs",
    "kube-linter/run-as-non-root",
    "kube-linter/unset-cpu-requirements",
    "kube-linter/unset-memory-requirements",
];

fn sg(rule: &str) -> String {
    format!("{SEMGREP}{rule}.{rule}")
}

/// The two semgrep labels of row 0.
fn semgrep_labels() -> [String; 2] {
    [sg("run-as-non-root"), sg("writable-filesystem-container")]
}

/// All seven labels of row 0.
fn all7() -> Vec<String> {
    K.iter()
        .map(|s| s.to_string())
        .chain(semgrep_labels())
        .collect()
}

/// Row 0's oracle: K labelled `medium`, the semgrep ones `INFO` (both → med
/// upstream's way), namespaces {kube-linter, semgrep}.
fn row0() -> Oracle {
    Oracle {
        namespaces: [Tool::KubeLinter, Tool::Semgrep].into_iter().collect(),
        violations: all7()
            .into_iter()
            .map(|id| OracleViolation { id, severity: Med })
            .collect(),
    }
}

/// A clean Kubernetes item (e.g. a PVC): nothing labelled.
fn clean() -> Oracle {
    Oracle {
        namespaces: [Tool::KubeLinter, Tool::Semgrep].into_iter().collect(),
        violations: Vec::new(),
    }
}

const ROW0_YAML: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx-dummy\n  namespace: default\nspec:\n  containers:\n  - name: nginx-dummy\n    image: nginx\n    volumeMounts:\n    - name: dummy\n      mountPath: /data\n    ports:\n    - containerPort: 80\n  volumes:\n  - name: dummy\n    flexVolume:\n      driver: \"k8s/dummy\"\n";

/// Catalogue severity of the native kube-linter and semgrep rules.
fn catalogue_severity(tool: Tool, rule: &str) -> Option<Severity> {
    let rules = match tool {
        Tool::KubeLinter => kube_linter::catalogue(),
        Tool::Semgrep => semgrep::catalogue(),
        Tool::Opa => return None,
    };
    rules.iter().find(|r| r.id == rule).map(|r| r.severity)
}

/// Every default-enabled kube-linter check, as full ids.
fn default_kube_linter_ids() -> Vec<String> {
    kube_linter::catalogue()
        .iter()
        .filter(|r| r.tier != Tier::OptIn)
        .map(|r| format!("kube-linter/{}", r.id))
        .collect()
}

/// Every semgrep rule, as full ids.
fn semgrep_ids() -> Vec<String> {
    semgrep::catalogue()
        .iter()
        .map(|r| format!("semgrep/{}", r.id))
        .collect()
}

/// Minimal normalisation for full ids written as in the catalogue (the
/// real one, spec E2 §3.4, lives in `e2::ids`): a known namespace prefix
/// resolves, anything else is unresolved.
fn norm(id: &str) -> NormalizedId {
    match id
        .split_once('/')
        .and_then(|(t, r)| Some((Tool::parse(t)?, r)))
    {
        Some((tool, rule)) => NormalizedId::Resolved {
            tool,
            rule: rule.to_string(),
        },
        None => NormalizedId::Unresolved(id.to_string()),
    }
}

fn set<S: AsRef<str>>(ids: &[S]) -> BTreeSet<String> {
    ids.iter().map(|s| s.as_ref().to_string()).collect()
}

fn upstream_parse<S: AsRef<str>>(ids: &[(S, Severity)]) -> E2Parse {
    E2Parse::Valid {
        answer: Answer {
            violations: ids
                .iter()
                .map(|(id, severity)| PredictedViolation {
                    id: id.as_ref().to_string(),
                    severity: *severity,
                })
                .collect(),
            patch: None,
            confidence: Some(0.9),
        },
        format_ok: true,
        format_reason: None,
        skipped_items: 0,
    }
}

fn med<S: AsRef<str>>(ids: &[S]) -> Vec<(String, Severity)> {
    ids.iter().map(|s| (s.as_ref().to_string(), Med)).collect()
}

fn up(oracle: &Oracle, answer: &E2Parse, patch: &UpstreamPatch) -> UpstreamScore {
    score_upstream(Lang::K8s, &oracle.violations, answer, patch, &[] as &[&str])
}

fn v1_answer<S: AsRef<str>>(ids: &[S], patch: PatchEvaluation) -> V1Answer {
    V1Answer {
        ids: ids.iter().map(|s| norm(s.as_ref())).collect(),
        format_ok: true,
        patch,
    }
}

fn v1(oracle: &Oracle, answer: Option<&V1Answer>) -> V1Score {
    score_v1(&V1Params::default(), oracle, answer, &catalogue_severity)
}

fn failed(status: &str) -> PatchEvaluation {
    PatchEvaluation::Failed {
        status: status.to_string(),
    }
}

/// Asserts `value` equals `expected` to the table's three decimals.
#[track_caller]
fn approx(value: f64, expected: f64) {
    assert!(
        (value - expected).abs() < 5e-4,
        "got {value:.6}, table says {expected}"
    );
}

/// Asserts an upstream row: P / R / F1, rca and total.
#[track_caller]
fn upstream_row(s: &UpstreamScore, prf: Option<(f64, f64, f64)>, rca: f64, total: f64) {
    if let Some((p, r, f1)) = prf {
        let d = s.detection.expect("detection computed");
        approx(d.precision, p);
        approx(d.recall, r);
        approx(d.f1, f1);
    }
    approx(
        s.breakdown.component("reward_config_auditing").unwrap(),
        rca,
    );
    approx(s.breakdown.total, total);
}

/// Asserts a v1 row: detection, patch and total.
#[track_caller]
fn v1_row(s: &V1Score, detection: f64, patch: f64, total: f64) {
    approx(s.breakdown.component("detection").unwrap(), detection);
    approx(s.breakdown.component("patch").unwrap(), patch);
    approx(s.breakdown.total, total);
}

/// A `run_kubelinter` result (spec E2 §2.2) showing `rules`.
fn kube_linter_result(rules: &[&str]) -> String {
    let findings: Vec<_> = rules
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": format!("kube-linter/{r}"), "tool": "kube-linter", "rule_id": r,
                "severity": "med", "message": "…", "file": "manifest.yaml", "line": 8,
            })
        })
        .collect();
    serde_json::json!({"tool": "kube-linter", "backend": "native", "version": "x",
                       "findings": findings, "errors": [], "truncated": false})
    .to_string()
}

/// The readOnlyRootFilesystem patch of §5.2: fixes kube-linter
/// no-read-only-root-fs and semgrep writable-filesystem-container, and the new
/// securityContext (without allowPrivilegeEscalation) trips semgrep
/// allow-privilege-escalation.
fn read_only_patch() -> PatchEvaluation {
    let before = set(&all7());
    let mut after = before.clone();
    after.remove("kube-linter/no-read-only-root-fs");
    after.remove(&sg("writable-filesystem-container"));
    after.insert(sg("allow-privilege-escalation"));
    PatchEvaluation::Applied { before, after }
}

/// The hardening patch of §5.2 (pin `nginx:1.27.0`, read-only root fs, no
/// privilege escalation, runAsNonRoot): only the resource findings remain.
fn hardening_patch() -> PatchEvaluation {
    PatchEvaluation::Applied {
        before: set(&all7()),
        after: set(&[
            "kube-linter/unset-cpu-requirements",
            "kube-linter/unset-memory-requirements",
        ]),
    }
}

// ------------------------------------------------- §5.1 upstream worked cases

#[test]
fn upstream_the_five_k_ids() {
    let s = up(
        &row0(),
        &upstream_parse(&med(&K)),
        &UpstreamPatch::NotApplied,
    );
    upstream_row(&s, Some((1.0, 1.0, 1.0)), 1.05, 1.10);
    assert_eq!(s.breakdown.component("format_reward"), Some(1.0));
    assert_eq!(s.breakdown.component("tool_observation_reward"), Some(0.0));
}

#[test]
fn upstream_the_five_k_ids_with_a_kube_linter_result() {
    let tool = kube_linter_result(&[
        "latest-tag",
        "no-read-only-root-fs",
        "run-as-non-root",
        "unset-cpu-requirements",
        "unset-memory-requirements",
    ]);
    let s = score_upstream(
        Lang::K8s,
        &row0().violations,
        &upstream_parse(&med(&K)),
        &UpstreamPatch::NotApplied,
        &[tool],
    );
    approx(
        s.breakdown.component("tool_observation_reward").unwrap(),
        1.0,
    );
    approx(s.breakdown.total, 1.30);
}

fn two_hits_and_host_network(host_network: Severity) -> E2Parse {
    upstream_parse(&[
        ("kube-linter/latest-tag", Med),
        ("kube-linter/run-as-non-root", Med),
        ("kube-linter/host-network", host_network),
        ("opa/GEN_001", Med),
    ])
}

#[test]
fn upstream_two_hits_host_network_high_and_a_dropped_opa_id() {
    let s = up(
        &row0(),
        &two_hits_and_host_network(High),
        &UpstreamPatch::NotApplied,
    );
    upstream_row(&s, Some((0.545, 0.400, 0.462)), 0.512, 0.562);
}

#[test]
fn upstream_same_with_host_network_labelled_low() {
    let s = up(
        &row0(),
        &two_hits_and_host_network(Low),
        &UpstreamPatch::NotApplied,
    );
    upstream_row(&s, Some((0.800, 0.400, 0.533)), 0.583, 0.633);
}

#[test]
fn upstream_latest_tag_once() {
    let s = up(
        &row0(),
        &upstream_parse(&med(&["kube-linter/latest-tag"])),
        &UpstreamPatch::NotApplied,
    );
    upstream_row(&s, Some((1.0, 0.2, 0.333)), 0.383, 0.433);
}

#[test]
fn upstream_latest_tag_ten_times() {
    let s = up(
        &row0(),
        &upstream_parse(&med(&["kube-linter/latest-tag"; 10])),
        &UpstreamPatch::NotApplied,
    );
    upstream_row(&s, Some((1.0, 0.714, 0.833)), 0.883, 0.933);
}

#[test]
fn upstream_latest_tag_a_hundred_times() {
    let s = up(
        &row0(),
        &upstream_parse(&med(&["kube-linter/latest-tag"; 100])),
        &UpstreamPatch::NotApplied,
    );
    upstream_row(&s, Some((1.0, 0.962, 0.980)), 1.030, 1.080);
}

#[test]
fn upstream_all_31_default_checks_as_low() {
    let ids = default_kube_linter_ids();
    assert_eq!(ids.len(), 31);
    let answer: Vec<_> = ids.iter().map(|id| (id.as_str(), Low)).collect();
    let s = up(
        &row0(),
        &upstream_parse(&answer),
        &UpstreamPatch::NotApplied,
    );
    upstream_row(&s, Some((0.278, 1.0, 0.435)), 0.485, 0.535);
}

#[test]
fn upstream_five_k_ids_and_a_configmap_patch_is_clamped_at_2() {
    // Replacing the Pod by a ConfigMap: kube-linter finds nothing afterwards.
    let patch = UpstreamPatch::Applied {
        after: BTreeSet::new(),
    };
    let s = up(&row0(), &upstream_parse(&med(&K)), &patch);
    upstream_row(&s, Some((1.0, 1.0, 1.0)), 2.0, 2.05);
    approx(s.patch_bonus, 3.0);
}

#[test]
fn upstream_clean_row_empty_list() {
    let s = up(
        &clean(),
        &upstream_parse::<&str>(&[]),
        &UpstreamPatch::NotApplied,
    );
    upstream_row(&s, None, 0.0, 0.05);
    assert_eq!(s.detection, None);
}

#[test]
fn upstream_clean_row_invented_latest_tag() {
    let s = up(
        &clean(),
        &upstream_parse(&med(&["kube-linter/latest-tag"])),
        &UpstreamPatch::NotApplied,
    );
    upstream_row(&s, Some((0.0, 0.0, 0.0)), 0.05, 0.10);
}

#[test]
fn upstream_patch_leaving_no_valid_object_scores_rca_0() {
    let s = up(
        &row0(),
        &upstream_parse(&med(&K)),
        &UpstreamPatch::AdapterError,
    );
    upstream_row(&s, None, 0.0, 0.05);
}

#[test]
fn upstream_invalid_and_no_answer_score_0_but_tool_observations_count() {
    let tool = kube_linter_result(&["latest-tag"]);
    for parse in [
        E2Parse::Invalid {
            reason: "no_json_object",
        },
        E2Parse::NoAnswer,
    ] {
        let s = score_upstream(
            Lang::K8s,
            &row0().violations,
            &parse,
            &UpstreamPatch::NotApplied,
            &[tool.as_str()],
        );
        assert_eq!(s.breakdown.component("reward_config_auditing"), Some(0.0));
        assert_eq!(s.breakdown.component("format_reward"), Some(0.0));
        // One of five observed: P 1, R .2, F1 .333.
        approx(
            s.breakdown.component("tool_observation_reward").unwrap(),
            0.333,
        );
        approx(s.breakdown.total, 0.2 / 3.0);
    }
}

#[test]
fn upstream_only_filtered_ids_are_scored_not_treated_as_empty() {
    // The empty check precedes the primary filter: a list of opa ids scores
    // F1 0 plus the constant, unlike an empty list.
    let s = up(
        &row0(),
        &upstream_parse(&med(&["opa/GEN_001"])),
        &UpstreamPatch::NotApplied,
    );
    upstream_row(&s, Some((0.0, 0.0, 0.0)), 0.05, 0.10);
}

#[test]
fn tool_observations_first_occurrence_kept_non_json_skipped() {
    let oracle = row0().violations;
    // latest-tag first seen as high (an FP weight would differ, a TP uses
    // the oracle's); host-network observed twice, first as low.
    let a = kube_linter_result(&["latest-tag"]);
    let b = serde_json::json!({"findings": [
        {"tool": "kube-linter", "rule_id": "host-network", "severity": "low"},
        {"nested": {"tool": "kube-linter", "rule_id": "host-network", "severity": "high"}},
        {"tool": "semgrep", "rule_id": "x"}
    ]})
    .to_string();
    let (r, d) = tool_observation_reward(Lang::K8s, &oracle, &[a.as_str(), "not json", &b]);
    let d = d.expect("both sides non-empty");
    approx(d.tp, 0.6);
    approx(d.fp, 0.3);
    approx(d.fn_, 2.4);
    approx(r, d.f1);
    // Nothing observed, or nothing left after the filter → 0.
    assert_eq!(tool_observation_reward(Lang::K8s, &oracle, &["{}"]).0, 0.0);
    let only_semgrep = serde_json::json!({"tool": "semgrep", "rule_id": "x"}).to_string();
    assert_eq!(
        tool_observation_reward(Lang::K8s, &oracle, &[only_semgrep]).0,
        0.0
    );
}

// ------------------------------------------------------ §5.2 v1 worked cases

#[test]
fn v1_row0_weights_sum_to_3_9() {
    let total: f64 = all7()
        .iter()
        .map(|id| {
            let NormalizedId::Resolved { tool, rule } = norm(id) else {
                panic!("{id} resolves")
            };
            catalogue_severity(tool, &rule)
                .expect("catalogued")
                .weight()
        })
        .sum();
    approx(total, 3.9);
}

#[test]
fn v1_all_seven_ids() {
    let s = v1(
        &row0(),
        Some(&v1_answer(&all7(), PatchEvaluation::NotGiven)),
    );
    v1_row(&s, 1.0, 0.0, 1.05);
}

#[test]
fn v1_the_five_kube_linter_ids() {
    let s = v1(&row0(), Some(&v1_answer(&K, PatchEvaluation::NotGiven)));
    approx(s.detection.precision, 1.0);
    approx(s.detection.recall, 0.692);
    v1_row(&s, 0.818, 0.0, 0.868);
}

#[test]
fn v1_two_hits_and_host_network() {
    let ids = [
        "kube-linter/latest-tag",
        "kube-linter/run-as-non-root",
        "kube-linter/host-network",
    ];
    let s = v1(&row0(), Some(&v1_answer(&ids, PatchEvaluation::NotGiven)));
    approx(s.detection.precision, 0.545);
    approx(s.detection.recall, 0.308);
    v1_row(&s, 0.393, 0.0, 0.443);
}

#[test]
fn v1_latest_tag_ten_times_is_deduplicated() {
    let s = v1(
        &row0(),
        Some(&v1_answer(
            &["kube-linter/latest-tag"; 10],
            PatchEvaluation::NotGiven,
        )),
    );
    approx(s.detection.precision, 1.0);
    approx(s.detection.recall, 0.154);
    v1_row(&s, 0.267, 0.0, 0.317);
}

#[test]
fn v1_every_default_kube_linter_id_and_all_semgrep_ids() {
    let ids: Vec<String> = default_kube_linter_ids()
        .into_iter()
        .chain(semgrep_ids())
        .collect();
    assert_eq!(ids.len(), 39);
    let s = v1(&row0(), Some(&v1_answer(&ids, PatchEvaluation::NotGiven)));
    approx(s.detection.precision, 0.164);
    approx(s.detection.recall, 1.0);
    v1_row(&s, 0.282, 0.0, 0.332);
}

#[test]
fn v1_clean_row_empty_list() {
    let s = v1(
        &clean(),
        Some(&v1_answer::<&str>(&[], PatchEvaluation::NotGiven)),
    );
    assert!(s.clean);
    v1_row(&s, 1.0, 0.0, 1.05);
}

#[test]
fn v1_clean_row_any_scored_id() {
    let s = v1(
        &clean(),
        Some(&v1_answer(
            &["kube-linter/latest-tag"],
            PatchEvaluation::NotGiven,
        )),
    );
    v1_row(&s, 0.0, 0.0, 0.05);
}

#[test]
fn v1_all_seven_and_the_read_only_root_fs_patch() {
    let s = v1(&row0(), Some(&v1_answer(&all7(), read_only_patch())));
    approx(s.patch.fixed, 0.308);
    approx(s.patch.new, 0.6);
    v1_row(&s, 1.0, 0.008, 1.054);
}

#[test]
fn v1_all_seven_and_the_hardening_patch() {
    let s = v1(&row0(), Some(&v1_answer(&all7(), hardening_patch())));
    approx(s.patch.fixed, 0.769);
    approx(s.patch.new, 0.0);
    v1_row(&s, 1.0, 0.769, 1.435);
}

#[test]
fn v1_all_seven_and_a_configmap_replacement_fails_preservation() {
    let s = v1(
        &row0(),
        Some(&v1_answer(&all7(), failed("preservation_failed"))),
    );
    v1_row(&s, 1.0, 0.0, 1.05);
}

#[test]
fn v1_all_seven_and_a_patch_breaking_indentation_fails_reparse() {
    let s = v1(&row0(), Some(&v1_answer(&all7(), failed("reparse_failed"))));
    v1_row(&s, 1.0, 0.0, 1.05);
}

#[test]
fn v1_all_seven_and_an_ignore_check_annotation_fails_preservation() {
    let s = v1(
        &row0(),
        Some(&v1_answer(&all7(), failed("preservation_failed"))),
    );
    v1_row(&s, 1.0, 0.0, 1.05);
}

/// The id sets of the two applied-patch rows, checked against real native
/// scans of the original and the patched manifests.
#[test]
fn v1_patch_rows_match_native_scans() {
    let options = ScanOptions {
        tools: ToolSelection::Only([Tool::KubeLinter, Tool::Semgrep].into_iter().collect()),
        ..ScanOptions::default()
    };
    let mut scanner = Scanner::new(&options).expect("default scanner");
    let mut scan = |text: &str| -> BTreeSet<String> {
        scanner
            .scan("manifest.yaml", text.as_bytes(), FileType::K8s)
            .findings
            .iter()
            .map(|f| f.full_id())
            .collect()
    };
    let before = scan(ROW0_YAML);
    assert_eq!(before, set(&all7()));

    let read_only = ROW0_YAML.replace(
        "    image: nginx\n",
        "    image: nginx\n    securityContext:\n      readOnlyRootFilesystem: true\n",
    );
    let expected = read_only_patch();
    let PatchEvaluation::Applied { after, .. } = &expected else {
        unreachable!()
    };
    assert_eq!(&scan(&read_only), after);

    let hardened = ROW0_YAML.replace(
        "    image: nginx\n",
        "    image: nginx:1.27.0\n    securityContext:\n      readOnlyRootFilesystem: true\n      \
         allowPrivilegeEscalation: false\n      runAsNonRoot: true\n",
    );
    let expected = hardening_patch();
    let PatchEvaluation::Applied { after, .. } = &expected else {
        unreachable!()
    };
    assert_eq!(&scan(&hardened), after);
}

// ----------------------------------------------------- v1 set construction

#[test]
fn v1_unlabelled_namespaces_are_ignored_and_unresolved_ids_are_fps_at_med() {
    let base = v1(&row0(), Some(&v1_answer(&K, PatchEvaluation::NotGiven)));
    // A resolved opa id: the item did not label opa → neither TP nor FP.
    let with_opa = v1(
        &row0(),
        Some(&v1_answer(
            &[&K[..], &["opa/GEN_001"]].concat(),
            PatchEvaluation::NotGiven,
        )),
    );
    assert_eq!(with_opa.breakdown, base.breakdown);
    // An unresolved (bare, ambiguous) id stays in P at med.
    let with_bare = v1(
        &row0(),
        Some(&v1_answer(
            &[&K[..], &["run-as-non-root"]].concat(),
            PatchEvaluation::NotGiven,
        )),
    );
    approx(with_bare.detection.fp, 0.6);
    // A labelled namespace's rule unknown to the catalogue: FP at med.
    let with_unknown = v1(
        &row0(),
        Some(&v1_answer(
            &[&K[..], &["kube-linter/no-such-check"]].concat(),
            PatchEvaluation::NotGiven,
        )),
    );
    approx(with_unknown.detection.fp, 0.6);
}

#[test]
fn v1_oracle_ids_outside_the_labelled_namespaces_do_not_count() {
    let mut oracle = row0();
    oracle.namespaces.remove(&Tool::Semgrep);
    let s = v1(&oracle, Some(&v1_answer(&K, PatchEvaluation::NotGiven)));
    v1_row(&s, 1.0, 0.0, 1.05);
}

#[test]
fn v1_patch_penalty_never_goes_negative_and_only_fixable_ids_count() {
    // A patch introducing two high findings and fixing nothing.
    let before = set(&all7());
    let mut after = before.clone();
    after.insert("kube-linter/privileged-container".to_string());
    after.insert("kube-linter/host-network".to_string());
    let s = v1(
        &row0(),
        Some(&v1_answer(
            &all7(),
            PatchEvaluation::Applied { before, after },
        )),
    );
    approx(s.patch.new, 2.0);
    v1_row(&s, 1.0, 0.0, 1.05);
    // An oracle id the native scan never found (not fixable) is not credited
    // when absent afterwards.
    let before = set(&K);
    let after = set(&K[..4]);
    let s = v1(
        &row0(),
        Some(&v1_answer(
            &all7(),
            PatchEvaluation::Applied { before, after },
        )),
    );
    approx(s.patch.fixed, 0.6 / 3.9);
}

// ------------------------------------------------------------ §5.2 exploits

#[test]
fn exploit_repeated_ids() {
    // v1 deduplicates: ×10 scores like once.
    let once = v1(
        &row0(),
        Some(&v1_answer(
            &["kube-linter/latest-tag"],
            PatchEvaluation::NotGiven,
        )),
    );
    let ten = v1(
        &row0(),
        Some(&v1_answer(
            &["kube-linter/latest-tag"; 10],
            PatchEvaluation::NotGiven,
        )),
    );
    assert_eq!(once.breakdown, ten.breakdown);
    approx(ten.breakdown.total, 0.317);
    // upstream: .433 once, .933 ×10, 1.080 ×100 (near the full answer's 1.10).
    let up10 = up(
        &row0(),
        &upstream_parse(&med(&["kube-linter/latest-tag"; 10])),
        &UpstreamPatch::NotApplied,
    );
    approx(up10.breakdown.total, 0.933);
}

#[test]
fn exploit_spamming_ids() {
    // The same spam under both profiles: every default kube-linter check,
    // stated `low`.
    let ids = default_kube_linter_ids();
    let s = v1(&row0(), Some(&v1_answer(&ids, PatchEvaluation::NotGiven)));
    // TP = K's catalogue weights 4×.6 + .3 = 2.7; FN = the semgrep labels
    // 1.2; FP = the other 26 checks at catalogue weight (8 high, 3 med, 15
    // low) = 14.3: P .159, R .692, F1 .258, total .308.
    approx(s.detection.tp, 2.7);
    approx(s.detection.fn_, 1.2);
    approx(s.detection.fp, 14.3);
    approx(s.breakdown.total, 0.308);
    let answer: Vec<_> = ids.iter().map(|id| (id.as_str(), Low)).collect();
    let u = up(
        &row0(),
        &upstream_parse(&answer),
        &UpstreamPatch::NotApplied,
    );
    approx(u.breakdown.total, 0.535);
    // v1: .308 (spam of all 39 ids: .332), far below the 5 true kube-linter
    // ids (.868). upstream: .535, more than one correct finding (.433).
}

#[test]
fn exploit_inventing_findings_on_clean_items() {
    let invent = ["kube-linter/latest-tag"];
    // v1: inventing costs the whole detection (1.05 → .05).
    approx(
        v1(
            &clean(),
            Some(&v1_answer(&invent, PatchEvaluation::NotGiven)),
        )
        .breakdown
        .total,
        0.05,
    );
    // upstream rewards it: .10 against .05 for the correct empty list.
    approx(
        up(
            &clean(),
            &upstream_parse(&med(&invent)),
            &UpstreamPatch::NotApplied,
        )
        .breakdown
        .total,
        0.10,
    );
}

#[test]
fn exploit_labelling_guesses_low() {
    let ids = [
        "kube-linter/latest-tag",
        "kube-linter/run-as-non-root",
        "kube-linter/host-network",
    ];
    // v1 ignores stated severities: .443 whatever host-network is called.
    let s = v1(&row0(), Some(&v1_answer(&ids, PatchEvaluation::NotGiven)));
    approx(s.breakdown.total, 0.443);
    // upstream: .562 as high, .633 as low.
    let high = up(
        &row0(),
        &two_hits_and_host_network(High),
        &UpstreamPatch::NotApplied,
    );
    let low = up(
        &row0(),
        &two_hits_and_host_network(Low),
        &UpstreamPatch::NotApplied,
    );
    approx(high.breakdown.total, 0.562);
    approx(low.breakdown.total, 0.633);
}

#[test]
fn exploit_deleting_or_replacing_objects() {
    // v1: preservation_failed → patch 0 (1.05); upstream: clamped 2.05.
    let s = v1(
        &row0(),
        Some(&v1_answer(&all7(), failed("preservation_failed"))),
    );
    v1_row(&s, 1.0, 0.0, 1.05);
    let u = up(
        &row0(),
        &upstream_parse(&med(&K)),
        &UpstreamPatch::Applied {
            after: BTreeSet::new(),
        },
    );
    approx(u.breakdown.total, 2.05);
}

#[test]
fn exploit_swapping_images() {
    // `image: nginx` → `busybox:1.36` silences latest-tag. v1: not a
    // pinning of the same repository → preservation_failed → 1.05.
    let s = v1(
        &row0(),
        Some(&v1_answer(&all7(), failed("preservation_failed"))),
    );
    v1_row(&s, 1.0, 0.0, 1.05);
    // upstream: bonus .6 → rca min(2, 1 + .6 + .05) = 1.65, total 1.70.
    let after = set(&K[1..]);
    let u = up(
        &row0(),
        &upstream_parse(&med(&K)),
        &UpstreamPatch::Applied { after },
    );
    upstream_row(&u, Some((1.0, 1.0, 1.0)), 1.65, 1.70);
}

#[test]
fn exploit_suppression_annotations_or_comments() {
    // `ignore-check.kube-linter.io/latest-tag` (or `# nosemgrep`): v1
    // preservation_failed → 1.05; upstream credits the silenced finding → 1.70.
    let s = v1(
        &row0(),
        Some(&v1_answer(&all7(), failed("preservation_failed"))),
    );
    v1_row(&s, 1.0, 0.0, 1.05);
    let u = up(
        &row0(),
        &upstream_parse(&med(&K)),
        &UpstreamPatch::Applied {
            after: set(&K[1..]),
        },
    );
    approx(u.breakdown.total, 1.70);
}

#[test]
fn exploit_count_zero_on_terraform() {
    // The bad.tf fixture: upstream oracle `semgrep/terraform-acl-public-read`
    // (high). Upstream's tf re-scan (native semgrep) finds nothing, so any
    // applied patch — here `count = 0` — earns the full oracle weight.
    let oracle = Oracle {
        namespaces: [Tool::Semgrep].into_iter().collect(),
        violations: vec![OracleViolation {
            id: "semgrep/terraform-acl-public-read".into(),
            severity: High,
        }],
    };
    let ids = ["semgrep/terraform-acl-public-read"];
    let u = score_upstream(
        Lang::Tf,
        &oracle.violations,
        &upstream_parse(&[(ids[0], High)]),
        &UpstreamPatch::Applied {
            after: BTreeSet::new(),
        },
        &[] as &[&str],
    );
    upstream_row(&u, Some((1.0, 1.0, 1.0)), 2.0, 2.05);
    // v1: `count` added on an existing resource → preservation_failed.
    let s = v1(
        &oracle,
        Some(&v1_answer(&ids, failed("preservation_failed"))),
    );
    v1_row(&s, 1.0, 0.0, 1.05);
}

#[test]
fn exploit_breaking_yaml() {
    // A patch leaving a document undecodable: its findings vanish. v1:
    // reparse_failed → 1.05; upstream counts them all as fixed → 2.05.
    let s = v1(&row0(), Some(&v1_answer(&all7(), failed("reparse_failed"))));
    v1_row(&s, 1.0, 0.0, 1.05);
    let u = up(
        &row0(),
        &upstream_parse(&med(&K)),
        &UpstreamPatch::Applied {
            after: BTreeSet::new(),
        },
    );
    approx(u.breakdown.total, 2.05);
}

#[test]
fn exploit_not_answering_is_not_an_empty_list() {
    // v1 on a clean item: `[]` is correct (1.05); no answer scores 0
    // on every component.
    let empty = v1(
        &clean(),
        Some(&v1_answer::<&str>(&[], PatchEvaluation::NotGiven)),
    );
    approx(empty.breakdown.total, 1.05);
    let none = V1Answer::from_parse(&E2Parse::NoAnswer, norm, PatchEvaluation::NotGiven);
    assert_eq!(none, None);
    let s = v1(&clean(), none.as_ref());
    for c in &s.breakdown.components {
        assert_eq!(c.value, 0.0, "{}", c.name);
    }
    assert_eq!(s.breakdown.total, 0.0);
    // upstream: both score 0 on rca; the empty list keeps its format .05.
    let u_none = up(&clean(), &E2Parse::NoAnswer, &UpstreamPatch::NotApplied);
    assert_eq!(u_none.breakdown.total, 0.0);
    let u_empty = up(
        &clean(),
        &upstream_parse::<&str>(&[]),
        &UpstreamPatch::NotApplied,
    );
    approx(u_empty.breakdown.total, 0.05);
}

// --------------------------------------------------------- breakdown, config

#[test]
fn every_component_is_always_reported() {
    let v = v1(&row0(), None);
    let names: Vec<_> = v.breakdown.components.iter().map(|c| c.name).collect();
    assert_eq!(names, ["detection", "patch", "format"]);
    let u = up(&row0(), &E2Parse::NoAnswer, &UpstreamPatch::NotApplied);
    let names: Vec<_> = u.breakdown.components.iter().map(|c| c.name).collect();
    assert_eq!(
        names,
        [
            "reward_config_auditing",
            "format_reward",
            "tool_observation_reward"
        ]
    );
    // Totals are the weighted sums (harness §1.3).
    for b in [&v.breakdown, &u.breakdown] {
        let sum: f64 = b.components.iter().map(|c| c.weight * c.value).sum();
        assert_eq!(sum, b.total);
    }
}

#[test]
fn v1_format_credit_follows_strict_validity() {
    let mut a = v1_answer(&all7(), PatchEvaluation::NotGiven);
    a.format_ok = false;
    let s = v1(&row0(), Some(&a));
    v1_row(&s, 1.0, 0.0, 1.0);
    assert_eq!(s.breakdown.component("format"), Some(0.0));
}

#[test]
fn config_defaults_hash_and_overrides() {
    let r = E2Rewards::v1_default();
    assert_eq!(r.name(), "v1");
    assert_eq!(
        r.weights(),
        vec![("detection", 1.0), ("patch", 0.5), ("format", 0.05)]
    );
    let p = V1Params::default();
    assert_eq!(
        (
            p.new_finding_factor,
            p.weight_low,
            p.weight_med,
            p.weight_high
        ),
        (0.5, 0.3, 0.6, 1.0)
    );
    let h = r.config_hash();
    assert!(h.starts_with("sha256:"));
    let changed = E2Rewards::load("v1", Some(("[v1]\nw_patch = 1\n", "f.toml"))).unwrap();
    assert_ne!(changed.config_hash(), h);
    let up = E2Rewards::load("upstream", None).unwrap();
    assert_eq!(
        up.weights(),
        vec![
            ("reward_config_auditing", 1.0),
            ("format_reward", 0.05),
            ("tool_observation_reward", 0.2)
        ]
    );
    assert_ne!(up.config_hash(), h);
    assert!(matches!(
        E2Rewards::load("v1", Some(("[v1]\nweight_low = 0.9\n", "f"))),
        Err(RewardConfigError::Invalid { .. })
    ));
    assert!(matches!(
        E2Rewards::load("v1", Some(("[v1]\nw_patch = -1.0\n", "f"))),
        Err(RewardConfigError::Invalid { .. })
    ));
    assert!(matches!(
        E2Rewards::load("upstream", Some(("[upstream]\nw_patch = 1.0\n", "f"))),
        Err(RewardConfigError::UnknownKey { .. })
    ));
    assert!(matches!(
        E2Rewards::load("v2", None),
        Err(RewardConfigError::NoSuchProfile { .. })
    ));
}

// ------------------------------------------- end to end through the pipeline

/// The §5.2 patch rows through the real pieces: the v1 parser, §3.4
/// normalisation, `apply_patch` (with preservation) and native scans.
mod pipeline {
    use super::*;
    use svbench_core::extract::ParseMode;
    use svbench_envs::e2::ids::Catalogue;
    use svbench_envs::e2::parse::parse_text;
    use svbench_scan::patch::apply_patch;

    fn scan(text: &str) -> BTreeSet<String> {
        let options = ScanOptions {
            tools: ToolSelection::Only([Tool::KubeLinter, Tool::Semgrep].into_iter().collect()),
            ..ScanOptions::default()
        };
        Scanner::new(&options)
            .expect("default scanner")
            .scan("manifest.yaml", text.as_bytes(), FileType::K8s)
            .findings
            .iter()
            .map(|f| f.full_id())
            .collect()
    }

    /// Scores a final message holding all seven ids and `patch` on row 0.
    fn score(patch: &str) -> (V1Score, String) {
        let text = serde_json::json!({
            "violations": all7().iter().map(|id| serde_json::json!({"id": id, "severity": "med"}))
                .collect::<Vec<_>>(),
            "patch": patch,
            "confidence": 0.8,
        })
        .to_string();
        let parse = parse_text(&text, ParseMode::V1);
        let outcome = apply_patch("manifest.yaml", ROW0_YAML, patch, FileType::K8s);
        let evaluation = PatchEvaluation::from_outcome(&outcome, scan(ROW0_YAML), scan);
        let status = evaluation.status().to_string();
        let catalogue = Catalogue::builtin();
        let answer = V1Answer::from_parse(&parse, |id| catalogue.normalize(id), evaluation)
            .expect("a valid answer");
        let severity = |t: Tool, r: &str| catalogue.severity(t, r);
        (
            score_v1(&V1Params::default(), &row0(), Some(&answer), &severity),
            status,
        )
    }

    const HEADER: &str = "--- a/manifest.yaml\n+++ b/manifest.yaml\n";

    #[test]
    fn no_patch() {
        let (s, status) = score("");
        assert_eq!(status, "none");
        v1_row(&s, 1.0, 0.0, 1.05);
    }

    #[test]
    fn read_only_root_fs() {
        let patch = format!(
            "{HEADER}@@ -9 +9,3 @@\n-    image: nginx\n+    image: nginx\n+    securityContext:\n\
             +      readOnlyRootFilesystem: true\n"
        );
        let (s, status) = score(&patch);
        assert_eq!(status, "applied");
        v1_row(&s, 1.0, 0.008, 1.054);
    }

    #[test]
    fn hardening() {
        let patch = format!(
            "{HEADER}@@ -9 +9,5 @@\n-    image: nginx\n+    image: nginx:1.27.0\n+    securityContext:\n\
             +      readOnlyRootFilesystem: true\n+      allowPrivilegeEscalation: false\n\
             +      runAsNonRoot: true\n"
        );
        let (s, status) = score(&patch);
        assert_eq!(status, "applied");
        v1_row(&s, 1.0, 0.769, 1.435);
    }

    #[test]
    fn replacing_the_pod_by_a_configmap() {
        let patch =
            format!("{HEADER}@@ -1,2 +1,2 @@\n apiVersion: v1\n-kind: Pod\n+kind: ConfigMap\n");
        let (s, status) = score(&patch);
        assert_eq!(status, "preservation_failed");
        v1_row(&s, 1.0, 0.0, 1.05);
    }

    #[test]
    fn breaking_indentation() {
        let patch = format!("{HEADER}@@ -9 +9 @@\n-    image: nginx\n+      image: nginx\n");
        let (s, status) = score(&patch);
        assert_eq!(status, "reparse_failed");
        v1_row(&s, 1.0, 0.0, 1.05);
    }

    #[test]
    fn ignore_check_annotation() {
        let patch = format!(
            "{HEADER}@@ -5 +5,3 @@\n   namespace: default\n+  annotations:\n\
             +    ignore-check.kube-linter.io/latest-tag: \"pinned elsewhere\"\n"
        );
        let (s, status) = score(&patch);
        assert_eq!(status, "preservation_failed");
        v1_row(&s, 1.0, 0.0, 1.05);
    }

    #[test]
    fn swapping_the_image() {
        let patch = format!("{HEADER}@@ -9 +9 @@\n-    image: nginx\n+    image: busybox:1.36\n");
        let (s, status) = score(&patch);
        assert_eq!(status, "preservation_failed");
        v1_row(&s, 1.0, 0.0, 1.05);
    }
}

// ---------------------------------------------------------------- properties

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Ids an answer might contain: labels, other catalogue ids, an
    /// unlabelled namespace, unresolved and unknown ids.
    fn pool() -> Vec<String> {
        let mut ids = all7();
        ids.extend(
            [
                "kube-linter/host-network",
                "kube-linter/dangling-service",
                "opa/GEN_001",
                "run-as-non-root",
                "kube-linter/no-such-check",
            ]
            .map(String::from),
        );
        ids.push(sg("allow-privilege-escalation"));
        ids
    }

    fn severity_of(i: u8) -> Severity {
        [Low, Med, High][usize::from(i % 3)]
    }

    proptest! {
        #[test]
        fn totals_stay_in_range_and_v1_ignores_repetition(
            picks in prop::collection::vec((0usize..13, 1usize..5, 0u8..3), 0..20),
            clean_item in any::<bool>(),
            after in prop::collection::btree_set(0usize..13, 0..6),
        ) {
            let pool = pool();
            let oracle = if clean_item { clean() } else { row0() };
            let once: Vec<String> = picks.iter().map(|(i, _, _)| pool[*i].clone()).collect();
            let repeated: Vec<String> = picks
                .iter()
                .flat_map(|(i, n, _)| std::iter::repeat_n(pool[*i].clone(), *n))
                .collect();
            let after: BTreeSet<String> = after.into_iter().map(|i| pool[i].clone()).collect();
            let patch = PatchEvaluation::Applied { before: set(&all7()), after: after.clone() };

            let a = v1(&oracle, Some(&v1_answer(&once, patch.clone())));
            let b = v1(&oracle, Some(&v1_answer(&repeated, patch)));
            prop_assert_eq!(&a.breakdown, &b.breakdown);
            prop_assert!((0.0..=1.55 + 1e-12).contains(&a.breakdown.total));

            let answer: Vec<(String, Severity)> = picks
                .iter()
                .map(|(i, _, s)| (pool[*i].clone(), severity_of(*s)))
                .collect();
            let u = up(&oracle, &upstream_parse(&answer), &UpstreamPatch::Applied { after });
            prop_assert!((0.0..=2.25 + 1e-12).contains(&u.breakdown.total));
            let rca = u.breakdown.component("reward_config_auditing").unwrap();
            prop_assert!((0.0..=2.0).contains(&rca));
        }
    }
}
