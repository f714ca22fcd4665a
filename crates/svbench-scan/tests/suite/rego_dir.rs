//! User policy directories: recursive `*.rego`, `*_test.rego` excluded, hashes recorded.

use std::fs;

use serde_json::json;
use svbench_scan::rego::{PolicySet, RegoError, K8S_DENY_QUERY};

const USER: &str = r#"package sv.k8s

deny contains {"id": "USR_1", "severity": "med", "message": "user rule"} if input.object.kind == "Pod"
"#;

#[test]
fn loads_rego_files_recursively_and_skips_tests() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("nested/deeper")).unwrap();
    fs::write(dir.path().join("nested/deeper/user.rego"), USER).unwrap();
    // A test file would not even parse as a policy here: it must be skipped.
    fs::write(dir.path().join("nested/user_test.rego"), "this is not rego").unwrap();
    fs::write(dir.path().join("README.md"), "not a policy").unwrap();
    fs::write(
        dir.path().join("lib.rego"),
        "package sv.lib\n\nis_pod if input.object.kind == \"Pod\"\n",
    )
    .unwrap();

    let mut set = PolicySet::new();
    let (loaded, errors) = set.add_policy_dir(dir.path());
    assert!(errors.is_empty(), "{errors:?}");
    let names: Vec<&str> = loaded.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names[0].ends_with("lib.rego") && names[1].ends_with("user.rego"),
        "{names:?}"
    );
    // SHA-256 of the file contents.
    let sha = &loaded[1].sha256;
    assert_eq!(sha.len(), 64);
    assert!(sha
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert_ne!(loaded[0].sha256, loaded[1].sha256);
    assert_eq!(set.sources(), &loaded[..]);

    let (findings, errors) = set.eval_deny(K8S_DENY_QUERY, &json!({"object": {"kind": "Pod"}}));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(findings[0].id, "USR_1");
}

#[test]
fn bad_files_are_reported_and_the_rest_still_load() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("a_bad.rego"),
        "package sv.k8s\n\ndeny contains if {\n",
    )
    .unwrap();
    fs::write(dir.path().join("b_good.rego"), USER).unwrap();
    let mut set = PolicySet::new();
    let (loaded, errors) = set.add_policy_dir(dir.path());
    assert_eq!(loaded.len(), 1);
    assert!(
        matches!(errors[..], [RegoError::Parse { .. }]),
        "{errors:?}"
    );

    let (loaded, errors) = set.add_policy_dir(&dir.path().join("missing"));
    assert!(loaded.is_empty());
    assert!(matches!(errors[..], [RegoError::Io { .. }]), "{errors:?}");
}

#[test]
fn identical_content_has_identical_hash() {
    let mut a = PolicySet::new();
    a.add_policy("one.rego", USER).unwrap();
    let mut b = PolicySet::new();
    b.add_policy("two.rego", USER).unwrap();
    assert_eq!(a.sources()[0].sha256, b.sources()[0].sha256);
}

#[test]
fn policy_sets_can_move_to_worker_threads() {
    fn assert_send<T: Send + Clone>() {}
    assert_send::<PolicySet>();
    let mut set = PolicySet::new();
    set.add_policy("u.rego", USER).unwrap();
    let worker = set.clone();
    let handle = std::thread::spawn(move || {
        let mut worker = worker;
        worker
            .eval_deny(K8S_DENY_QUERY, &json!({"object": {"kind": "Pod"}}))
            .0
            .len()
    });
    assert_eq!(handle.join().unwrap(), 1);
}

#[test]
fn the_set_hash_follows_contents_not_names() {
    let mut a = PolicySet::new();
    a.add_policy("one.rego", USER).unwrap();
    let mut b = PolicySet::new();
    b.add_policy("elsewhere/two.rego", USER).unwrap();
    assert_eq!(a.policies_sha256(), b.policies_sha256());
    assert_ne!(a.policies_sha256(), PolicySet::new().policies_sha256());
    b.add_policy("lib.rego", "package sv.lib\n\nx := 1\n")
        .unwrap();
    assert_ne!(a.policies_sha256(), b.policies_sha256());
}
