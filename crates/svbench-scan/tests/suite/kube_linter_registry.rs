//! The kube-linter catalogue and the registry of implemented checks agree.

use svbench_scan::kube_linter::{catalogue, implemented_checks};
use svbench_scan::{Enabled, Severity, Tier, Tool};

#[test]
fn catalogue_is_sorted_unique_and_complete() {
    let cat = catalogue();
    let ids: Vec<&str> = cat.iter().map(|r| r.id).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted, "sorted by name, no duplicates");
    let count = |t: Tier| cat.iter().filter(|r| r.tier == t).count();
    assert_eq!(count(Tier::Must), 20);
    assert_eq!(count(Tier::Next), 11);
    assert_eq!(count(Tier::OptIn), 32);
    assert!(cat
        .iter()
        .all(|r| r.tool == Tool::KubeLinter && !r.remediation.is_empty()));
}

#[test]
fn catalogue_severities_follow_the_spec_table() {
    let sev = |id: &str| catalogue().iter().find(|r| r.id == id).map(|r| r.severity);
    assert_eq!(sev("privileged-container"), Some(Severity::High));
    assert_eq!(sev("run-as-non-root"), Some(Severity::Med));
    assert_eq!(sev("unset-cpu-requirements"), Some(Severity::Low));
    assert_eq!(sev("cluster-admin-role-binding"), Some(Severity::High));
}

#[test]
fn every_implemented_check_has_a_catalogue_row_and_every_must_check_is_implemented() {
    let implemented = implemented_checks();
    for name in &implemented {
        assert!(
            catalogue().iter().any(|r| r.id == *name),
            "{name} has no catalogue row"
        );
    }
    let mut dedup = implemented.clone();
    dedup.dedup();
    assert_eq!(dedup, implemented, "no check registered twice");
    for rule in catalogue().iter().filter(|r| r.tier == Tier::Must) {
        assert!(
            implemented.contains(&rule.id),
            "{} not implemented",
            rule.id
        );
    }
}

#[test]
fn defaults_are_must_and_next() {
    let enabled = Enabled::defaults(catalogue());
    assert!(enabled.contains("latest-tag"));
    assert!(enabled.contains("host-ipc"));
    assert!(!enabled.contains("exposed-services"));
}
