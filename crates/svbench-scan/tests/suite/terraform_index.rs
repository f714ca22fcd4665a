//! Issue 13 item 2: the Terraform policies are linear in the number of
//! blocks. TF_001–TF_003 found each bucket's companions, and TF_008 the data
//! source a policy refers to, by walking every resource of the file from
//! every block (2,000 buckets: five minutes). They now read the module
//! view's `index`, built once per file; these tests pin the index to the old
//! definitions, show the lookups go through it, scan the 2,000-bucket file,
//! and check the total time budget that ends a scan.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::json;
use svbench_scan::opa::Opa;
use svbench_scan::rego::{PolicySet, TF_DENY_QUERY};
use svbench_scan::scan::{FileType, ScanOptions, Scanner};
use svbench_scan::terraform::parse_module;
use svbench_scan::{parse_documents, Deadline, Limits, TimeBudgetExceeded};

/// The pre-index definitions of `tf.companions` and TF_008's data-source
/// lookup (walks of `input.module`), and a deny element whenever the
/// indexed ones disagree with them.
const OLD_DEFINITIONS: &str = r#"
package sv.tf

import data.sv.lib.tf

old_for_this_bucket(bucket) if tf.refers_to(bucket, input.block.address)

old_for_this_bucket(bucket) if {
	is_string(bucket)
	bucket == input.block.config.bucket
}

old_companions(type) := [config |
	some address, config in input.module.resources
	tf.resource_type(address) == type
	is_object(config)
	old_for_this_bucket(config.bucket)
]

old_statements(policy) := [s |
	some address, document in input.module.data
	startswith(address, "data.aws_iam_policy_document.")
	tf.refers_to(policy, address)
	some block in tf.blocks(document, "statement")
	s := {
		"Effect": object.get(block, "effect", "Allow"),
		"Action": object.get(block, "actions", []),
		"Resource": object.get(block, "resources", []),
	}
]

companion_types := ["aws_s3_bucket_versioning", "aws_s3_bucket_acl", "aws_s3_bucket_public_access_block", "aws_s3_bucket_server_side_encryption_configuration", "aws_s3_bucket"]

deny contains {"id": "MISMATCH_COMPANIONS", "severity": "high", "message": msg} if {
	some t in companion_types
	tf.companions(t) != old_companions(t)
	msg := sprintf("%s of %s: %v, was %v", [t, input.block.address, tf.companions(t), old_companions(t)])
}

deny contains {"id": "MISMATCH_STATEMENTS", "severity": "high", "message": msg} if {
	policy := input.block.config.policy
	not is_string(policy)
	tf.document_statements(policy) != old_statements(policy)
	msg := sprintf("%s: %v, was %v", [input.block.address, tf.document_statements(policy), old_statements(policy)])
}

old_open(policy) if {
	some s in old_statements(policy)
	tf.allows_everything(s)
}

deny contains {"id": "MISMATCH_OPEN_DOCUMENT", "severity": "high", "message": input.block.address} if {
	policy := input.block.config.policy
	not is_string(policy)
	not old_open(policy)
	tf.refers_to_open_document(policy)
}

deny contains {"id": "MISMATCH_OPEN_DOCUMENT", "severity": "high", "message": input.block.address} if {
	policy := input.block.config.policy
	not is_string(policy)
	old_open(policy)
	not tf.refers_to_open_document(policy)
}

# The per-bucket summaries against the walk of the companions.
texts := ["public-read", "private", "false", "true", "Enabled"]

fields := ["acl", "block_public_acls", "versioning_configuration/status"]

old_text(c, field, text) if {
	not contains(field, "/")
	is_string(c[field])
	c[field] == text
}

old_text(c, field, text) if {
	not contains(field, "/")
	is_boolean(c[field])
	sprintf("%v", [c[field]]) == text
}

old_text(c, "versioning_configuration/status", text) if {
	some v in tf.blocks(c, "versioning_configuration")
	v.status == text
}

deny contains {"id": "MISMATCH_FIELDS", "severity": "high", "message": msg} if {
	input.block.type == "aws_s3_bucket"
	some t in companion_types
	some field in fields
	new := {x | some x in texts; tf.companion_value(t, field, x)}
	old := {x | some x in texts; some c in old_companions(t); old_text(c, field, x)}
	new != old
	msg := sprintf("%s %s of %s: %v, was %v", [t, field, input.block.address, new, old])
}

old_has(t) if count(old_companions(t)) > 0

deny contains {"id": "MISMATCH_HAS", "severity": "high", "message": msg} if {
	input.block.type == "aws_s3_bucket"
	some t in companion_types
	old_has(t)
	not tf.has_companion(t)
	msg := sprintf("%s of %s: lost", [t, input.block.address])
}

deny contains {"id": "MISMATCH_HAS", "severity": "high", "message": msg} if {
	input.block.type == "aws_s3_bucket"
	some t in companion_types
	not old_has(t)
	tf.has_companion(t)
	msg := sprintf("%s of %s: invented", [t, input.block.address])
}
"#;

/// The built-ins and [`OLD_DEFINITIONS`], loaded once (a clone shares the
/// compiled policies).
fn with_old_definitions() -> Opa {
    static OPA: OnceLock<Opa> = OnceLock::new();
    OPA.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("old.rego"), OLD_DEFINITIONS).unwrap();
        let mut opa = Opa::builtin().unwrap();
        opa.add_policy_dir(dir.path()).unwrap();
        opa
    })
    .clone()
}

/// A `bucket` (or `policy`) argument as written in HCL.
fn argument() -> impl Strategy<Value = String> {
    let name = 0..4usize;
    prop_oneof![
        name.clone().prop_map(|i| format!("\"logs-{i}\"")),
        name.clone().prop_map(|i| format!("aws_s3_bucket.b{i}.id")),
        name.clone()
            .prop_map(|i| format!("aws_s3_bucket.b{i}[0].arn")),
        name.clone().prop_map(|i| format!("aws_s3_bucket.b{i}")),
        name.clone()
            .prop_map(|i| format!("\"${{aws_s3_bucket.b{i}.id}}-x\"")),
        (name.clone(), name.clone())
            .prop_map(|(i, j)| format!("[aws_s3_bucket.b{i}.id, aws_s3_bucket.b{j}.id]")),
        name.clone().prop_map(|i| format!("var.v{i}")),
        name.clone().prop_map(|i| format!("aws_s3_bucket.b{i}x.id")),
        name.clone()
            .prop_map(|i| format!("data.aws_iam_policy_document.d{i}.json")),
        name.prop_map(|i| format!("{{ refs = [\"aws_s3_bucket.b{i}\"] }}")),
    ]
}

const TYPES: [&str; 6] = [
    "aws_s3_bucket",
    "aws_s3_bucket_versioning",
    "aws_s3_bucket_acl",
    "aws_s3_bucket_public_access_block",
    "aws_s3_bucket_server_side_encryption_configuration",
    "aws_iam_policy",
];

/// A file of resources (type, name, argument), variables and data sources.
fn module_text() -> impl Strategy<Value = String> {
    let resource = (0..TYPES.len(), 0..5usize, argument(), any::<bool>());
    (proptest::collection::vec(resource, 0..12), 0..3usize).prop_map(|(resources, data)| {
        let mut text = String::new();
        let mut seen = BTreeSet::new();
        for (t, name, arg, acl) in resources {
            let (ty, prefix) = match TYPES[t] {
                "aws_s3_bucket" => ("aws_s3_bucket", "b"),
                other => (other, "r"),
            };
            if !seen.insert((ty, name)) {
                continue;
            }
            let key = if ty == "aws_iam_policy" {
                "policy"
            } else {
                "bucket"
            };
            let _ = writeln!(text, "resource \"{ty}\" \"{prefix}{name}\" {{\n  {key} = {arg}");
            if acl {
                text.push_str("  acl = \"public-read\"\n  block_public_acls = false\n  versioning_configuration {\n    status = \"Enabled\"\n  }\n");
            } else if name % 2 == 0 {
                text.push_str("  acl = \"private\"\n  block_public_acls = \"true\"\n");
            }
            text.push_str("}\n");
        }
        for i in 0..data {
            let _ = writeln!(
                text,
                "data \"aws_iam_policy_document\" \"d{i}\" {{\n  statement {{\n    actions = [\"{}\"]\n    resources = [\"*\"]\n  }}\n}}",
                if i % 2 == 0 { "*".to_owned() } else { format!("s3:{i}") }
            );
        }
        text.push_str("variable \"v0\" {\n  default = \"logs-0\"\n}\n");
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The indexed lookups find exactly what the walks of every resource
    /// found (same configs, same order), whatever the references look like.
    #[test]
    fn indexed_lookups_equal_the_old_walks(text in module_text()) {
        let module = parse_module(&text).unwrap();
        let analysis = with_old_definitions().scan_tf("main.tf", &module, &BTreeSet::new());
        prop_assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
        let mismatches: Vec<_> = analysis
            .findings
            .iter()
            .filter(|f| f.rule_id.starts_with("MISMATCH"))
            .map(|f| f.message.clone())
            .collect();
        prop_assert!(mismatches.is_empty(), "{text}\n{mismatches:#?}");
    }
}

/// The lookups read the index, not the resources: a companion left out of
/// the index is not seen (the walk of every resource from every block, the
/// quadratic path, would find it).
#[test]
fn companions_are_read_from_the_index() {
    let bucket = json!({"bucket": "logs"});
    let versioning = json!({
        "bucket": {"expr": "aws_s3_bucket.b.id", "refs": ["aws_s3_bucket.b.id"]},
        "versioning_configuration": [{"status": "Enabled"}],
    });
    let input = |index| {
        json!({
            "block": {"block_type": "resource", "type": "aws_s3_bucket", "name": "b",
                      "address": "aws_s3_bucket.b", "line": 1, "config": bucket},
            "file": "main.tf",
            "module": {
                "resources": {"aws_s3_bucket.b": bucket, "aws_s3_bucket_versioning.v": versioning},
                "variables": {}, "data": {}, "index": index,
            },
        })
    };
    let mut policies = PolicySet::new();
    let sources: Vec<(String, String)> = Opa::builtin_policy_names()
        .iter()
        .map(|name| {
            let path = format!("{}/../../{name}", env!("CARGO_MANIFEST_DIR"));
            ((*name).to_owned(), std::fs::read_to_string(path).unwrap())
        })
        .collect();
    let sources: Vec<(&str, &str)> = sources
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    policies.add_policies(&sources).unwrap();
    let ids = |policies: &mut PolicySet, index| {
        let (findings, errors) = policies.eval_deny(TF_DENY_QUERY, &input(index));
        assert!(errors.is_empty(), "{errors:#?}");
        findings.into_iter().map(|f| f.id).collect::<BTreeSet<_>>()
    };
    let indexed = json!({
        "ref_targets": {"aws_s3_bucket.b.id": ["aws_s3_bucket.b"]},
        "bucket_referrers": {"aws_s3_bucket.b": {"aws_s3_bucket_versioning": ["aws_s3_bucket_versioning.v"]}},
        "bucket_names": {},
        "world_cidrs": {},
        "name_fields": {},
        "open_statements": {},
    });
    let empty = json!({
        "ref_targets": {}, "bucket_referrers": {}, "bucket_names": {}, "world_cidrs": {},
        "name_fields": {}, "open_statements": {},
    });
    assert!(!ids(&mut policies, indexed).contains("TF_002"));
    assert!(ids(&mut policies, empty).contains("TF_002"));
}

/// `n` buckets, every other one with a versioning companion by reference,
/// every third one public by a companion ACL naming it literally.
fn buckets(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let _ = writeln!(
            text,
            "resource \"aws_s3_bucket\" \"b{i}\" {{\n  bucket = \"bucket-{i}\"\n}}\n"
        );
        if i % 2 == 0 {
            let _ = writeln!(
                text,
                "resource \"aws_s3_bucket_versioning\" \"v{i}\" {{\n  bucket = aws_s3_bucket.b{i}.id\n  versioning_configuration {{\n    status = \"Enabled\"\n  }}\n}}\n"
            );
        }
        if i % 3 == 0 {
            let _ = writeln!(
                text,
                "resource \"aws_s3_bucket_acl\" \"a{i}\" {{\n  bucket = \"bucket-{i}\"\n  acl    = \"public-read\"\n}}\n"
            );
        }
    }
    text
}

/// The issue's scenario: a 2,000-bucket file (5 minutes in a release build
/// before the index; the test would not finish) scans, with no time budget,
/// and every bucket is judged by its own companions.
#[test]
fn a_two_thousand_bucket_file_scans() {
    let n = 2000;
    let text = buckets(n);
    let options = ScanOptions {
        time_budget: None,
        ..ScanOptions::default()
    };
    let report = Scanner::new(&options)
        .unwrap()
        .scan("main.tf", text.as_bytes(), FileType::Tf);
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    let count = |id: &str| report.findings.iter().filter(|f| f.rule_id == id).count();
    assert_eq!(count("TF_001"), n);
    assert_eq!(count("TF_002"), n / 2);
    assert_eq!(count("TF_003"), n.div_ceil(3));
}

/// Issue 14, item 6a: 2,000 buckets sharing one literal `bucket` name took
/// 106 s (release): the index listed every resource of that name, buckets
/// included, and each bucket walked the list once per companion type. The
/// index is now keyed by name and then type, so a bucket reads only its
/// companions. 3,000 buckets (quadratic: tens of minutes in a debug build)
/// plus one companion of each kind for the shared name; every bucket is
/// still judged by the companions of its name.
#[test]
fn many_buckets_sharing_one_name_scan() {
    let n = 3000;
    let mut text = String::new();
    for i in 0..n {
        let _ = writeln!(
            text,
            "resource \"aws_s3_bucket\" \"b{i}\" {{\n  bucket = \"shared\"\n}}\n"
        );
    }
    text.push_str(
        "resource \"aws_s3_bucket_acl\" \"a\" {\n  bucket = \"shared\"\n  acl    = \"public-read\"\n}\n\
         resource \"aws_s3_bucket_versioning\" \"v\" {\n  bucket = \"shared\"\n  versioning_configuration {\n    status = \"Enabled\"\n  }\n}\n",
    );
    let module = parse_module(&text).unwrap();
    let index = &module.module_view()["index"];
    let by_type = index["bucket_names"]["shared"].as_object().unwrap();
    assert_eq!(by_type["aws_s3_bucket"].as_array().unwrap().len(), n);
    assert_eq!(by_type["aws_s3_bucket_acl"], json!(["aws_s3_bucket_acl.a"]));
    let options = ScanOptions {
        time_budget: None,
        ..ScanOptions::default()
    };
    let report = Scanner::new(&options)
        .unwrap()
        .scan("main.tf", text.as_bytes(), FileType::Tf);
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    let count = |id: &str| report.findings.iter().filter(|f| f.rule_id == id).count();
    assert_eq!(count("TF_001"), n);
    assert_eq!(count("TF_002"), 0);
    assert_eq!(count("TF_003"), n);
}

/// The same with as many companions as buckets, all of one name: each
/// bucket "has" every ACL of its name, so walking them costs buckets × ACLs
/// (1,000 × 1,000 ran past the 30 s scan budget in a debug build). The
/// rules read the per-name summary of the companions' values instead.
#[test]
fn many_buckets_and_many_companions_sharing_one_name_scan() {
    let n = 2000;
    let mut text = String::new();
    for i in 0..n {
        let acl = if i == n / 2 { "public-read" } else { "private" };
        let _ = writeln!(
            text,
            "resource \"aws_s3_bucket\" \"b{i}\" {{\n  bucket = \"shared\"\n}}\n\
             resource \"aws_s3_bucket_acl\" \"a{i}\" {{\n  bucket = \"shared\"\n  acl    = \"{acl}\"\n}}\n"
        );
    }
    let report = Scanner::new(&ScanOptions {
        time_budget: None,
        ..ScanOptions::default()
    })
    .unwrap()
    .scan("main.tf", text.as_bytes(), FileType::Tf);
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    let public: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "TF_003")
        .collect();
    assert_eq!(public.len(), n);
    assert!(public[0]
        .message
        .ends_with("an aws_s3_bucket_acl grants public-read"));
}

/// One large ACL whose `bucket` names every bucket (a template of 2,000
/// references) beside 2,000 extra arguments: each bucket reads the ACL once
/// through its `bucket_referrers` pair; copying the ACL's values into every
/// bucket's entry would cost references × arguments.
#[test]
fn one_large_companion_naming_many_buckets_scans() {
    let n = 2000;
    let mut text = String::new();
    let mut template = String::new();
    for i in 0..n {
        let _ = writeln!(
            text,
            "resource \"aws_s3_bucket\" \"b{i}\" {{\n  bucket = \"bucket-{i}\"\n}}"
        );
        let _ = write!(template, "${{aws_s3_bucket.b{i}.id}}");
    }
    let _ = writeln!(
        text,
        "resource \"aws_s3_bucket_acl\" \"a\" {{\n  bucket = \"{template}\"\n  acl = \"public-read\""
    );
    for i in 0..n {
        let _ = writeln!(text, "  extra_{i} = \"v{i}\"");
    }
    text.push_str("}\n");
    let report = Scanner::new(&ScanOptions {
        time_budget: None,
        ..ScanOptions::default()
    })
    .unwrap()
    .scan("main.tf", text.as_bytes(), FileType::Tf);
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    let public = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "TF_003")
        .count();
    assert_eq!(public, n);
}

/// TF_008 for many policies referring to one large policy document: judged
/// once per document (the index's `open_statements`), not once per policy
/// and statement.
#[test]
fn many_policies_referring_to_one_large_document_scan() {
    let n = 2000;
    let mut text = String::from("data \"aws_iam_policy_document\" \"d\" {\n");
    for i in 0..n {
        let action = if i == n - 1 {
            "*".to_owned()
        } else {
            format!("s3:Get{i}")
        };
        let _ = writeln!(
            text,
            "  statement {{\n    actions   = [\"{action}\"]\n    resources = [\"*\"]\n  }}"
        );
    }
    text.push_str("}\n");
    for i in 0..n {
        let _ = writeln!(
            text,
            "resource \"aws_iam_policy\" \"p{i}\" {{\n  policy = data.aws_iam_policy_document.d.json\n}}"
        );
    }
    let report = Scanner::new(&ScanOptions {
        time_budget: None,
        ..ScanOptions::default()
    })
    .unwrap()
    .scan("main.tf", text.as_bytes(), FileType::Tf);
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    let admin = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "TF_008")
        .count();
    assert_eq!(admin, n);
}

/// A user policy that spends its whole per-evaluation limit on every block.
const SLOW_POLICY: &str = r#"
package sv.tf

deny contains {"id": "SLOW", "severity": "low", "message": "never"} if {
	count([x | some x in numbers.range(1, 1000000); some y in numbers.range(1, 1000000); x == y]) < 0
}
"#;

const SLOW_K8S_POLICY: &str = r#"
package sv.k8s

deny contains {"id": "SLOW", "severity": "low", "message": "never"} if {
	count([x | some x in numbers.range(1, 1000000); some y in numbers.range(1, 1000000); x == y]) < 0
}
"#;

fn slow_scanner(policy: &str, budget: Option<Duration>) -> Scanner {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("slow.rego"), policy).unwrap();
    let options = ScanOptions {
        policy_dirs: vec![dir.path().to_owned()],
        time_budget: budget,
        ..ScanOptions::default()
    };
    Scanner::new(&options).unwrap()
}

/// The total budget ends a scan whose every evaluation would run to the
/// 1 s per-policy limit (50 blocks: 50 s without it): the scan stops with
/// the typed error, and `scan` reports the file as not scanned.
#[test]
fn a_scan_stops_at_its_total_time_budget() {
    let text = buckets(50);
    let mut scanner = slow_scanner(SLOW_POLICY, None);
    let deadline = Deadline::after(Duration::from_millis(300));
    let err = scanner
        .scan_within("main.tf", text.as_bytes(), FileType::Tf, &deadline)
        .expect_err("50 one-second evaluations do not fit in 300 ms");
    assert_eq!(
        err,
        TimeBudgetExceeded {
            budget: Duration::from_millis(300)
        }
    );

    let mut scanner = slow_scanner(SLOW_POLICY, Some(Duration::from_millis(300)));
    let report = scanner.scan("main.tf", text.as_bytes(), FileType::Tf);
    assert!(report.findings.is_empty());
    assert_eq!(report.errors.len(), 1, "{:#?}", report.errors);
    assert!(
        report.errors[0].message.contains("time budget"),
        "{}",
        report.errors[0].message
    );
}

/// The same for Kubernetes objects (the budget is read before each one).
#[test]
fn a_kubernetes_scan_stops_at_its_total_time_budget() {
    let mut yaml = String::new();
    for i in 0..50 {
        let _ = writeln!(
            yaml,
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}"
        );
    }
    let mut scanner = slow_scanner(SLOW_K8S_POLICY, None);
    let deadline = Deadline::after(Duration::from_millis(300));
    assert!(scanner
        .scan_within("m.yaml", yaml.as_bytes(), FileType::K8s, &deadline)
        .is_err());
    // An already passed deadline stops the scan before any work.
    let docs = parse_documents(&yaml, &Limits::default());
    let passed = Deadline::at(Instant::now(), Duration::from_secs(1));
    assert!(Opa::builtin()
        .unwrap()
        .scan_k8s_within("m.yaml", &docs, &BTreeSet::new(), &passed)
        .is_err());
}
