//! Issue 14, item 4: the Terraform canonical form evaluates what Terraform
//! evaluates (string templates, the common pure functions, locals, variable
//! defaults, arguments of other resources, `dynamic` blocks with a literal
//! `for_each`), marks what the file fixes but the evaluator cannot compute
//! as unknown, and does so within a budget proportional to the file's size.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{json, Value};
use svbench_scan::opa::Opa;
use svbench_scan::terraform::{parse_module, TfError, EVAL_UNITS_PER_BYTE, MIN_EVAL_UNITS};

/// The `acl` of the only bucket of `tf`.
fn acl(tf: &str) -> Value {
    let module = parse_module(tf).unwrap();
    let bucket = module
        .blocks
        .iter()
        .find(|b| b.address == "aws_s3_bucket.b")
        .expect("bucket");
    bucket.config["acl"].clone()
}

fn bucket(expr: &str) -> String {
    format!("resource \"aws_s3_bucket\" \"b\" {{\n  bucket = \"logs\"\n  acl = {expr}\n}}\n")
}

#[test]
fn expressions_terraform_evaluates_become_their_values() {
    let cases: [(&str, &str); 22] = [
        (r#""${"public-read"}""#, "public-read"),
        (r#""public-${"read"}""#, "public-read"),
        (r#"lower("PUBLIC-READ")"#, "public-read"),
        (r#"upper("x")"#, "X"),
        (r#"join("-", ["public", "read"])"#, "public-read"),
        (r#"concat(["public-read"], ["x"])[0]"#, "public-read"),
        (r#"tolist(["public-read"])[0]"#, "public-read"),
        (r#"element(["a", "public-read"], 3)"#, "public-read"),
        (r#"lookup({ a = "public-read" }, "a", "x")"#, "public-read"),
        (r#"lookup({ a = "y" }, "b", "public-read")"#, "public-read"),
        (r#"coalesce("", "public-read")"#, "public-read"),
        (r#"trimspace("  public-read ")"#, "public-read"),
        (r#"replace("public_read", "_", "-")"#, "public-read"),
        (r#"format("%s-%s", "public", "read")"#, "public-read"),
        (r#"flatten([["public-read"]])[0]"#, "public-read"),
        (r#"tostring("public-read")"#, "public-read"),
        (r#"split(",", "private,public-read")[1]"#, "public-read"),
        (r#"true ? "public-read" : "private""#, "public-read"),
        (r#"1 + 1 == 2 ? "public-read" : "private""#, "public-read"),
        (r#"[for s in ["PUBLIC-READ"] : lower(s)][0]"#, "public-read"),
        (
            r#"{ for k, v in { a = "public-read" } : k => v }.a"#,
            "public-read",
        ),
        (r#"jsondecode("{\"a\": \"public-read\"}").a"#, "public-read"),
    ];
    for (expr, want) in cases {
        assert_eq!(acl(&bucket(expr)), want, "{expr}");
    }
    let with = |extra: &str, expr: &str| format!("{extra}\n{}", bucket(expr));
    assert_eq!(
        acl(&with(
            "locals {\n  a = \"public\"\n  b = \"${local.a}-read\"\n}",
            "local.b"
        )),
        "public-read"
    );
    assert_eq!(
        acl(&with(
            "variable \"acl\" {\n  default = \"public-read\"\n}",
            "var.acl"
        )),
        "public-read"
    );
    assert_eq!(
        acl(&with(
            "resource \"terraform_data\" \"t\" {\n  input = \"public-read\"\n}",
            "terraform_data.t.input"
        )),
        "public-read"
    );
    assert_eq!(acl(&bucket(r#"tobool("false")"#)), false);
    assert_eq!(acl(&bucket(r#"tonumber("0")"#)), 0);
    assert_eq!(acl(&bucket(r#"length(["a", "b"])"#)), 2);
    assert_eq!(acl(&bucket(r#"toset(["b", "a", "b"])"#)), json!(["a", "b"]));
    assert_eq!(
        acl(&bucket(r#"jsonencode({ b = 1, a = "<" })"#)),
        r#"{"a":"\u003c","b":1}"#
    );
}

#[test]
fn inputs_and_computed_values_stay_references() {
    let dynamic = |tf: &str| {
        let v = acl(tf);
        assert!(v.get("expr").is_some(), "{v}");
        assert!(v.get("unknown").is_none(), "{v}");
    };
    // No default: an input of the module.
    dynamic(&format!("variable \"acl\" {{}}\n{}", bucket("var.acl")));
    // Declared elsewhere (another file of the module).
    dynamic(&bucket("var.elsewhere"));
    dynamic(&bucket("local.elsewhere"));
    // Computed attributes and data sources.
    dynamic(&bucket("aws_s3_bucket.other.id"));
    dynamic(&bucket("data.x.y.acl"));
    dynamic(&bucket(r#"lower(var.elsewhere)"#));
    dynamic(&bucket(r#"file("acl.txt")"#));
    // A function the evaluator lacks, over an input: still an input.
    dynamic(&bucket(r#"cidrsubnet(var.vpc, 8, 1)"#));
}

#[test]
fn values_fixed_by_the_file_but_not_computed_are_unknown() {
    let unknown = |tf: &str| {
        let v = acl(tf);
        assert_eq!(v["unknown"], true, "{v}");
    };
    unknown(&bucket(r#"base64decode("cHVibGljLXJlYWQ=")"#));
    unknown(&bucket(r#"["public-read"][*]"#));
    unknown(&bucket(r#""%{if true}public-read%{endif}""#));
    unknown(&bucket(r#"tobool("maybe")"#));
    unknown(&bucket(r#"["a"][5]"#));
    unknown(&bucket(r#"provider::aws::arn_parse("x")"#));
    // A reference cycle.
    unknown(&format!(
        "locals {{\n  a = local.b\n  b = local.a\n}}\n{}",
        bucket("local.a")
    ));
}

#[test]
fn dynamic_blocks_expand_as_terraform_generates_them() {
    let tf = r#"resource "aws_security_group" "sg" {
  ingress {
    from_port = 443
  }
  dynamic "ingress" {
    for_each = { a = "10.0.0.0/8", b = "0.0.0.0/0" }
    iterator = rule
    content {
      cidr_blocks = [rule.value]
      description = rule.key
    }
  }
  dynamic "egress" {
    for_each = var.unknown_rules
    content {
      cidr_blocks = egress.value
    }
  }
  dynamic "ingress" {
    for_each = base64decode("WzFd")
    content {
      from_port = ingress.value
    }
  }
}
"#;
    let module = parse_module(tf).unwrap();
    let sg = &module.blocks[0];
    let ingress = sg.config["ingress"].as_array().unwrap();
    assert_eq!(ingress.len(), 4, "{ingress:#?}");
    assert_eq!(ingress[0], json!({"from_port": 443}));
    assert_eq!(
        ingress[1],
        json!({"cidr_blocks": ["10.0.0.0/8"], "description": "a"})
    );
    assert_eq!(
        ingress[2],
        json!({"cidr_blocks": ["0.0.0.0/0"], "description": "b"})
    );
    // An unknown for_each: one block, its iterator unknown.
    assert_eq!(ingress[3]["from_port"]["unknown"], true);
    // A for_each from an input: nothing generated (how many is not known).
    assert!(sg.config.get("egress").is_none());
    // The blocks as written are still there.
    assert_eq!(sg.config["dynamic"].as_array().unwrap().len(), 3);

    // A header Terraform rejects (a quoted iterator, no for_each) cannot
    // hide its content: one block, its iterator unknown.
    for header in ["for_each = [1]\n    iterator = \"r\"", "iterator = r"] {
        let tf = format!(
            "resource \"aws_security_group\" \"sg\" {{\n  dynamic \"ingress\" {{\n    {header}\n    content {{\n      cidr_blocks = [\"0.0.0.0/0\"]\n      protocol = \"-1\"\n      from_port = 0\n      to_port = 0\n    }}\n  }}\n}}\n"
        );
        let module = parse_module(&tf).unwrap();
        let ingress = module.blocks[0].config["ingress"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(ingress.len(), 1, "{header}");
        assert_eq!(ingress[0]["cidr_blocks"], json!(["0.0.0.0/0"]), "{header}");
    }
    // Generated blocks are at the `dynamic` keyword's line.
    assert_eq!(sg.line_of("/ingress/1/cidr_blocks"), 9);
    assert_eq!(sg.line_of("/ingress/2"), 5);
}

/// Each shape of the issue, scanned: the finding of the literal is still
/// reported.
#[test]
fn rewritten_findings_are_still_reported() {
    let ids = |tf: &str| -> BTreeSet<String> {
        let module = parse_module(tf).unwrap();
        let analysis = Opa::builtin()
            .unwrap()
            .scan_tf("main.tf", &module, &BTreeSet::new());
        assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
        analysis.findings.into_iter().map(|f| f.rule_id).collect()
    };
    let open = |cidrs: &str, protocol: &str| {
        format!("resource \"aws_security_group\" \"sg\" {{\n  ingress {{\n    from_port = 0\n    to_port = 0\n    protocol = {protocol}\n    cidr_blocks = {cidrs}\n  }}\n}}\n")
    };
    assert!(ids(&open(r#"["0.0.0.0/1", "128.0.0.0/1"]"#, r#""-1""#)).contains("TF_006"));
    assert!(ids(&open(r#"["::/1", "8000::/1"]"#, r#""-1""#)).is_empty());
    assert!(ids(&open(r#"["0.0.0.0/1"]"#, r#""-1""#)).is_empty());
    assert!(ids(&open(r#"[base64decode("MC4wLjAuMC8w")]"#, r#""-1""#)).contains("TF_006"));
    assert!(ids(&open(r#"["0.0.0.0/0"]"#, r#"base64decode("LTE=")"#)).contains("TF_006"));
    let v6 = "resource \"aws_security_group\" \"sg\" {\n  ingress {\n    from_port = 0\n    to_port = 0\n    protocol = \"-1\"\n    ipv6_cidr_blocks = [\"::/1\", \"8000::/1\"]\n  }\n}\n";
    assert!(ids(v6).contains("TF_006"));
    let rule = "resource \"aws_vpc_security_group_ingress_rule\" \"r\" {\n  cidr_ipv4 = \"${\"0.0.0.0\"}/0\"\n  ip_protocol = \"-1\"\n}\n";
    assert!(ids(rule).contains("TF_006"));

    let bucket_ids = |expr: &str| ids(&bucket(expr));
    for expr in [
        r#""${"public-read"}""#,
        r#"lower("PUBLIC-READ")"#,
        r#"base64decode("cHVibGljLXJlYWQ=")"#,
    ] {
        assert!(bucket_ids(expr).contains("TF_003"), "{expr}");
    }
    assert!(!bucket_ids(r#"lower("PRIVATE")"#).contains("TF_003"));
    assert!(!bucket_ids("var.elsewhere").contains("TF_003"));

    // An access block companion whose bucket cannot be evaluated: reported
    // on the companion.
    let pab = "resource \"aws_s3_bucket_public_access_block\" \"p\" {\n  bucket = base64decode(\"bG9ncw==\")\n  block_public_acls = \"false\"\n}\n";
    assert!(ids(pab).contains("TF_003"));

    let db = |password: &str| {
        format!("resource \"aws_db_instance\" \"db\" {{\n  storage_encrypted = \"true\"\n  password = {password}\n}}\n")
    };
    assert_eq!(
        ids(&db(r#""${"Winter"}2024!""#)),
        ["TF_005".to_owned()].into()
    );
    assert_eq!(
        ids(&db(r#"base64decode("eA==")"#)),
        ["TF_005".to_owned()].into()
    );
    assert!(ids(&db("var.elsewhere")).is_empty());

    let iam = "locals {\n  all = \"*\"\n}\nresource \"aws_iam_policy\" \"p\" {\n  policy = jsonencode({ Statement = [{ Effect = \"Allow\", Action = local.all, Resource = [local.all] }] })\n}\n";
    assert!(ids(iam).contains("TF_008"));
    let iam_unknown = "resource \"aws_iam_policy\" \"p\" {\n  policy = base64decode(\"e30=\")\n}\n";
    assert!(ids(iam_unknown).contains("TF_008"));
    let variable = "variable \"region\" {\n  default = base64decode(\"QUtJQQ==\")\n}\n";
    assert!(ids(variable).contains("TF_007"));
}

fn budget_of(tf: &str) -> u64 {
    (tf.len() as u64 * EVAL_UNITS_PER_BYTE).max(MIN_EVAL_UNITS)
}

fn assert_budget_error(tf: &str) {
    match parse_module(tf) {
        Err(TfError::EvaluationBudget(e)) => {
            assert_eq!(e.limit, budget_of(tf));
            let message = TfError::EvaluationBudget(e).to_string();
            assert!(message.contains(&e.limit.to_string()), "{message}");
        }
        other => panic!("expected the evaluation budget error, got {other:?}"),
    }
}

/// Multiplying units: every local doubles the previous one (40 of them
/// would be 2^40 elements), a separator joined between many elements,
/// a string whose every character is replaced by a long one, nested
/// `dynamic` blocks whose counts multiply, one large local read many
/// times. Each stops at the file's budget instead of allocating.
#[test]
fn evaluation_stops_at_a_budget_proportional_to_the_file() {
    let mut doubling = String::from("locals {\n  l0 = [\"xxxxxxxxxxxxxxxx\"]\n");
    for i in 1..40 {
        let _ = writeln!(
            doubling,
            "  l{i} = concat(local.l{}, local.l{})",
            i - 1,
            i - 1
        );
    }
    doubling.push_str("}\n");
    doubling.push_str(&bucket("local.l39"));
    assert_budget_error(&doubling);

    let mut doubling_text = String::from("locals {\n  s0 = \"xxxxxxxxxxxxxxxx\"\n");
    for i in 1..40 {
        let _ = writeln!(
            doubling_text,
            "  s{i} = \"${{local.s{}}}${{local.s{}}}\"",
            i - 1,
            i - 1
        );
    }
    doubling_text.push_str("}\n");
    doubling_text.push_str(&bucket("local.s39"));
    assert_budget_error(&doubling_text);

    let sep = "x".repeat(100_000);
    let join = format!(
        "locals {{\n  sep = \"{sep}\"\n  many = [{}]\n}}\n{}",
        vec!["\"a\""; 10_000].join(","),
        bucket("join(local.sep, local.many)")
    );
    assert_budget_error(&join);

    let replace = format!(
        "locals {{\n  s = \"{}\"\n  long = \"{}\"\n}}\n{}",
        "a".repeat(50_000),
        "b".repeat(50_000),
        bucket("replace(local.s, \"a\", local.long)")
    );
    assert_budget_error(&replace);

    let hundred: Vec<String> = (0..300).map(|i| i.to_string()).collect();
    let list = format!("[{}]", hundred.join(","));
    let nested = format!(
        "resource \"aws_security_group\" \"sg\" {{\n  dynamic \"ingress\" {{\n    for_each = {list}\n    content {{\n      dynamic \"x\" {{\n        for_each = {list}\n        content {{\n          dynamic \"y\" {{\n            for_each = {list}\n            content {{\n              description = \"generated\"\n            }}\n          }}\n        }}\n      }}\n    }}\n  }}\n}}\n"
    );
    assert_budget_error(&nested);

    let mut reads = format!("locals {{\n  big = \"{}\"\n}}\n", "z".repeat(100_000));
    for i in 0..5_000 {
        let _ = writeln!(reads, "variable \"v{i}\" {{\n  default = local.big\n}}");
    }
    assert_budget_error(&reads);
}

/// A reference chain deeper than the evaluation depth is unknown (judged at
/// its worst), not a stack overflow: 20,000 locals each naming the next.
#[test]
fn a_deep_reference_chain_is_unknown() {
    let n = 20_000;
    let mut tf = String::from("locals {\n");
    for i in 0..n {
        let _ = writeln!(tf, "  l{i} = local.l{}", i + 1);
    }
    let _ = writeln!(tf, "  l{n} = \"public-read\"\n}}");
    tf.push_str(&bucket("local.l0"));
    assert_eq!(acl(&tf)["unknown"], true);
}

/// Honest files are nowhere near the budget: 2,000 buckets reading locals,
/// variables and templates.
#[test]
fn many_evaluated_blocks_fit_the_budget() {
    let mut tf = String::from(
        "variable \"env\" {\n  default = \"prod\"\n}\nlocals {\n  tags = { Env = var.env, Team = \"platform\" }\n  prefix = \"acme-${var.env}\"\n}\n",
    );
    for i in 0..2_000 {
        let _ = writeln!(
            tf,
            "resource \"aws_s3_bucket\" \"b{i}\" {{\n  bucket = \"${{local.prefix}}-{i}\"\n  tags = merge(local.tags, {{ Name = \"b{i}\" }})\n}}"
        );
    }
    let module = parse_module(&tf).unwrap();
    assert_eq!(module.blocks[1].config["bucket"], "acme-prod-0");
    assert_eq!(
        module.blocks[1].config["tags"],
        json!({"Env": "prod", "Team": "platform", "Name": "b0"})
    );
}

/// Locals that wrap each other one level at a time, read in order so that
/// each is memoised before the next: the values would nest 5,000 deep (and
/// overflow the stack of every walk after). Past the value depth they are
/// unknown.
#[test]
fn values_nested_one_local_at_a_time_stop_at_the_depth_limit() {
    let n = 5_000;
    let mut tf = String::from("locals {\n  l0 = \"x\"\n");
    for i in 1..=n {
        let _ = writeln!(tf, "  l{i} = [local.l{}]", i - 1);
    }
    tf.push_str("}\nresource \"aws_s3_bucket\" \"b\" {\n  bucket = \"x\"\n");
    for i in 1..=n {
        let _ = writeln!(tf, "  a{i} = local.l{i}");
    }
    tf.push_str("}\n");
    let module = parse_module(&tf).unwrap();
    let config = &module.blocks[0].config;
    assert_eq!(config["a1"], json!(["x"]));
    assert!(config["a64"].is_array());
    assert_eq!(config["a65"]["unknown"], true);
    assert_eq!(config[format!("a{n}")]["unknown"], true);
}

/// The deepest nesting the parser accepts (60 levels of calls, brackets and
/// blocks) around a chain of 50 such locals: evaluated within the depth
/// limit on a test thread's stack (2 MiB, unoptimised), no overflow.
#[test]
fn deep_expressions_in_deep_blocks_fit_a_small_stack() {
    let d = 60;
    let mut tf = String::from("locals {\n  l0 = \"X\"\n");
    for i in 1..50 {
        let _ = writeln!(
            tf,
            "  l{i} = {}local.l{}{}",
            "lower(".repeat(d),
            i - 1,
            ")".repeat(d)
        );
    }
    tf.push_str("}\nresource \"aws_s3_bucket\" \"b\" {\n  bucket = \"x\"\n");
    let _ = writeln!(tf, "  acl = {}local.l49{}", "[".repeat(d), "]".repeat(d));
    tf.push_str(&"  n {\n".repeat(d));
    tf.push_str("    acl = [[[local.l49]]]\n");
    tf.push_str(&"  }\n".repeat(d));
    tf.push_str("}\n");
    let module = parse_module(&tf).unwrap();
    let analysis = Opa::builtin()
        .unwrap()
        .scan_tf("main.tf", &module, &BTreeSet::new());
    assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
}
