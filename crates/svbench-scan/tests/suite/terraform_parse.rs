//! Terraform files → canonical blocks (spec E2 §1.7, "Input, Terraform").

use serde_json::json;
use svbench_scan::terraform::{parse_module, TfBlockType, TfError, MAX_TF_BYTES};

#[test]
fn s3_bucket_with_nested_versioning_block() {
    let tf = r#"
resource "aws_s3_bucket" "b" {
  bucket = "my-logs"
  acl    = "private"
  force_destroy = false
  tags = { Name = "logs", "team-x" = 3 }

  versioning {
    enabled = true
  }
}
"#;
    let module = parse_module(tf).unwrap();
    assert_eq!(module.blocks.len(), 1);
    let b = &module.blocks[0];
    assert_eq!(b.block_type, TfBlockType::Resource);
    assert_eq!(b.r#type.as_deref(), Some("aws_s3_bucket"));
    assert_eq!(b.name, "b");
    assert_eq!(b.address, "aws_s3_bucket.b");
    assert_eq!(b.line, 2);
    assert_eq!(
        b.config,
        json!({
            "bucket": "my-logs",
            "acl": "private",
            "force_destroy": false,
            "tags": {"Name": "logs", "team-x": 3},
            "versioning": [{"enabled": true}]
        })
    );
    assert_eq!(
        b.to_json(),
        json!({
            "block_type": "resource", "type": "aws_s3_bucket", "name": "b",
            "address": "aws_s3_bucket.b", "line": 2, "config": b.config
        })
    );
}

#[test]
fn security_group_with_two_ingress_blocks_keeps_them_apart() {
    let tf = r#"resource "aws_security_group" "web" {
  name = "web"
  ingress {
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/8"]
  }
  ingress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0", var.extra_cidr]
  }
}
"#;
    let module = parse_module(tf).unwrap();
    let ingress = &module.blocks[0].config["ingress"];
    assert_eq!(ingress.as_array().unwrap().len(), 2);
    assert_eq!(ingress[0]["cidr_blocks"], json!(["10.0.0.0/8"]));
    assert_eq!(ingress[1]["protocol"], "-1");
    assert_eq!(
        ingress[1]["cidr_blocks"],
        json!(["0.0.0.0/0", {"expr": "var.extra_cidr", "refs": ["var.extra_cidr"]}])
    );
}

#[test]
fn variable_with_default_and_module_view() {
    let tf = r#"
variable "db_password" {
  type    = string
  default = "hunter2"
}

resource "aws_db_instance" "db" {
  password          = var.db_password
  storage_encrypted = true
}
"#;
    let module = parse_module(tf).unwrap();
    let v = &module.blocks[0];
    assert_eq!(v.block_type, TfBlockType::Variable);
    assert_eq!(v.r#type, None);
    assert_eq!(v.address, "var.db_password");
    assert_eq!(v.line, 2);
    assert_eq!(v.config["default"], "hunter2");
    assert_eq!(
        v.config["type"],
        json!({"expr": "string", "refs": ["string"]})
    );
    assert_eq!(module.blocks[1].line, 7);

    let view = module.module_view();
    assert_eq!(view["variables"]["db_password"]["default"], "hunter2");
    // A variable with a default evaluates to it (Terraform's value when no
    // other is given): the password is written in the file.
    assert_eq!(
        view["resources"]["aws_db_instance.db"]["password"],
        "hunter2"
    );
    let inputs = module.policy_inputs("main.tf");
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[1]["file"], "main.tf");
    assert_eq!(inputs[1]["block"]["address"], "aws_db_instance.db");
    assert_eq!(inputs[1]["module"], view);
}

#[test]
fn jsonencode_of_a_literal_is_terraform_json_text() {
    let tf = r#"
resource "aws_iam_policy" "p" {
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = "*"
      Resource = "*"
      Condition = { StringLike = { "s3:prefix" = "a<b>&c" } }
      Max = 2.0
    }]
  })
  other = jsonencode({ id = aws_s3_bucket.b.id })
}
"#;
    let module = parse_module(tf).unwrap();
    let config = &module.blocks[0].config;
    assert_eq!(
        config["policy"],
        r#"{"Statement":[{"Action":"*","Condition":{"StringLike":{"s3:prefix":"a\u003cb\u003e\u0026c"}},"Effect":"Allow","Max":2,"Resource":"*"}],"Version":"2012-10-17"}"#
    );
    // Not a literal: kept as an expression with its references.
    assert_eq!(config["other"]["refs"], json!(["aws_s3_bucket.b.id"]));
}

#[test]
fn references_are_collected_from_expressions() {
    let tf = r#"
resource "aws_s3_bucket_versioning" "v" {
  bucket = aws_s3_bucket.b.id
  name   = "${var.prefix}-${aws_s3_bucket.b.id}"
  first  = aws_instance.web[0].id
  all    = aws_instance.web[*].id
  cond   = var.enabled ? local.a : "x"
  names  = [for s in var.subnets : s.name if s.public]
  count  = length(var.list)

  versioning_configuration {
    status = "Enabled"
  }
}
"#;
    let c = &parse_module(tf).unwrap().blocks[0].config;
    assert_eq!(
        c["bucket"],
        json!({"expr": "aws_s3_bucket.b.id", "refs": ["aws_s3_bucket.b.id"]})
    );
    assert_eq!(
        c["name"]["expr"],
        r#""${var.prefix}-${aws_s3_bucket.b.id}""#
    );
    assert_eq!(
        c["name"]["refs"],
        json!(["var.prefix", "aws_s3_bucket.b.id"])
    );
    assert_eq!(c["first"]["refs"], json!(["aws_instance.web[0].id"]));
    assert_eq!(c["all"]["refs"], json!(["aws_instance.web"]));
    assert_eq!(c["cond"]["refs"], json!(["var.enabled", "local.a"]));
    assert_eq!(c["names"]["refs"], json!(["var.subnets"]));
    assert_eq!(c["count"]["refs"], json!(["var.list"]));
    assert_eq!(
        c["versioning_configuration"],
        json!([{"status": "Enabled"}])
    );
}

#[test]
fn dynamic_blocks_are_kept_uninterpreted() {
    let tf = r#"
resource "aws_security_group" "sg" {
  dynamic "ingress" {
    for_each = var.rules
    content {
      from_port = ingress.value.port
    }
  }
}
"#;
    let c = &parse_module(tf).unwrap().blocks[0].config;
    assert!(c.get("ingress").is_none());
    let d = &c["dynamic"][0]["ingress"];
    assert_eq!(d["for_each"]["refs"], json!(["var.rules"]));
    assert_eq!(
        d["content"][0]["from_port"]["refs"],
        json!(["ingress.value.port"])
    );
}

#[test]
fn other_blocks_are_ignored_and_heredocs_are_strings() {
    let tf = "provider \"aws\" {\n  region = \"us-east-1\"\n}\n\nresource \"aws_iam_policy\" \"p\" {\n  policy = <<-EOT\n    {\"a\": 1}\n  EOT\n}\n";
    let module = parse_module(tf).unwrap();
    assert_eq!(module.blocks.len(), 1);
    assert_eq!(module.blocks[0].line, 5);
    // `<<-` strips the smallest indentation, as Terraform does.
    assert_eq!(module.blocks[0].config["policy"], "{\"a\": 1}\n");
}

#[test]
fn syntax_error_is_typed_with_a_line() {
    let tf = "resource \"aws_s3_bucket\" \"b\" {\n  bucket = \"x\"\n  acl = = \"private\"\n}\n";
    let err = parse_module(tf).unwrap_err();
    assert!(matches!(err, TfError::Syntax { line: 3, .. }), "{err:?}");
    assert_eq!(err.line(), Some(3));
    assert!(err.to_string().contains("line 3"), "{err}");
}

#[test]
fn malformed_and_duplicate_blocks_are_errors() {
    let err = parse_module("resource \"aws_s3_bucket\" {\n}\n").unwrap_err();
    assert!(
        matches!(err, TfError::InvalidBlock { line: 1, .. }),
        "{err:?}"
    );
    let tf = "variable \"x\" {}\n\nvariable \"x\" {}\n";
    let err = parse_module(tf).unwrap_err();
    assert!(matches!(err, TfError::Duplicate { line: 3, .. }), "{err:?}");
    let err = parse_module("variable \"x\" {\n  default = 1\n  default = 2\n}\n").unwrap_err();
    assert_eq!(err.line(), Some(3), "{err:?}");
    let tf = "variable \"x\" {\n  default = 1\n  default {\n  }\n}\n";
    let err = parse_module(tf).unwrap_err();
    assert!(
        matches!(
            err,
            TfError::Duplicate {
                line: 3,
                what: "argument",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn hostile_inputs_are_errors_not_crashes() {
    let deep = format!(
        "variable \"x\" {{\n  default = {}1{}\n}}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(matches!(parse_module(&deep), Err(TfError::Syntax { .. })));
    let ops = format!(
        "variable \"x\" {{\n  default = 1{}\n}}\n",
        " + 1".repeat(100_000)
    );
    assert!(parse_module(&ops).is_err());
    let big = " ".repeat(MAX_TF_BYTES + 1);
    assert!(matches!(parse_module(&big), Err(TfError::TooLarge { .. })));
    assert!(parse_module("\u{0}\u{1}resource").is_err());
}
