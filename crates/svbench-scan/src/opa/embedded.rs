//! The built-in policies, embedded at build time from the repository's
//! top-level `policies/` directory.
//!
//! The list is written out because `include_str!` needs literal paths; a test
//! (`tests/opa_builtin.rs`) checks that it names every `.rego` file under
//! `policies/`, so a new policy cannot be forgotten here.

/// `(name, text)` of every built-in module; names are paths relative to the
/// repository root, as they appear in errors.
pub(crate) const POLICIES: &[(&str, &str)] = &[
    (
        "policies/lib/catalogue.rego",
        include_str!("../../../../policies/lib/catalogue.rego"),
    ),
    (
        "policies/lib/configmap.rego",
        include_str!("../../../../policies/lib/configmap.rego"),
    ),
    (
        "policies/lib/finding.rego",
        include_str!("../../../../policies/lib/finding.rego"),
    ),
    (
        "policies/lib/k8s.rego",
        include_str!("../../../../policies/lib/k8s.rego"),
    ),
    (
        "policies/lib/pod.rego",
        include_str!("../../../../policies/lib/pod.rego"),
    ),
    (
        "policies/lib/secrets.rego",
        include_str!("../../../../policies/lib/secrets.rego"),
    ),
    (
        "policies/lib/tf.rego",
        include_str!("../../../../policies/lib/tf.rego"),
    ),
    (
        "policies/lib/tf_s3.rego",
        include_str!("../../../../policies/lib/tf_s3.rego"),
    ),
    (
        "policies/meta/rules.rego",
        include_str!("../../../../policies/meta/rules.rego"),
    ),
    (
        "policies/k8s/containers.rego",
        include_str!("../../../../policies/k8s/containers.rego"),
    ),
    (
        "policies/k8s/objects.rego",
        include_str!("../../../../policies/k8s/objects.rego"),
    ),
    (
        "policies/k8s/pods.rego",
        include_str!("../../../../policies/k8s/pods.rego"),
    ),
    (
        "policies/tf/iam.rego",
        include_str!("../../../../policies/tf/iam.rego"),
    ),
    (
        "policies/tf/network.rego",
        include_str!("../../../../policies/tf/network.rego"),
    ),
    (
        "policies/tf/rds.rego",
        include_str!("../../../../policies/tf/rds.rego"),
    ),
    (
        "policies/tf/s3.rego",
        include_str!("../../../../policies/tf/s3.rego"),
    ),
    (
        "policies/tf/secrets.rego",
        include_str!("../../../../policies/tf/secrets.rego"),
    ),
];
