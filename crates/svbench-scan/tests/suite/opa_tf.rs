//! The built-in Terraform policies (spec E2 §1.7): for every rule a firing
//! and a non-firing case, the upstream bugs of the table's last column as
//! regressions, lines from deny paths and the upstream fixture.

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

use svbench_scan::opa::Opa;
use svbench_scan::terraform::parse_module;
use svbench_scan::{Analysis, ObjectRef, Severity};

/// `(rule, line, address)` of each finding, sorted.
type Row = (String, usize, String);

/// A clone of one loaded set (a clone shares the compiled policies).
fn builtin() -> Opa {
    static OPA: OnceLock<Mutex<Opa>> = OnceLock::new();
    OPA.get_or_init(|| Mutex::new(Opa::builtin().unwrap()))
        .lock()
        .unwrap()
        .clone()
}

fn scan(tf: &str) -> Analysis {
    let module = parse_module(tf).unwrap();
    builtin().scan_tf("main.tf", &module, &BTreeSet::new())
}

fn rows(analysis: &Analysis) -> Vec<Row> {
    assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
    let mut rows: Vec<Row> = analysis
        .findings
        .iter()
        .map(|f| {
            assert_eq!(f.doc_index, None);
            assert_eq!(f.container, None);
            let address = match &f.object {
                Some(ObjectRef::Terraform { name, .. }) => name.clone(),
                other => panic!("not a terraform block: {other:?}"),
            };
            (f.rule_id.clone(), f.line.unwrap(), address)
        })
        .collect();
    rows.sort();
    rows
}

fn rule_rows(tf: &str, rule: &str) -> Vec<Row> {
    rows(&scan(tf))
        .into_iter()
        .filter(|r| r.0 == rule)
        .collect()
}

fn row(rule: &str, line: usize, address: &str) -> Row {
    (rule.to_owned(), line, address.to_owned())
}

// ------------------------------------------------------------ TF_001–003

const BUCKETS: &str = r#"resource "aws_s3_bucket" "good" {
  bucket = "good-bucket"
  server_side_encryption_configuration {
    rule {
      apply_server_side_encryption_by_default {
        sse_algorithm = "aws:kms"
      }
    }
  }
  versioning {
    enabled = true
  }
}

resource "aws_s3_bucket" "bad" {
  bucket = "bad-bucket"
  acl    = "public-read"
  versioning {
    enabled = false
  }
}

resource "aws_s3_bucket" "split" {
  bucket = "split-bucket"
}

resource "aws_s3_bucket_server_side_encryption_configuration" "split" {
  bucket = aws_s3_bucket.split.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_versioning" "split" {
  bucket = "split-bucket"
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_public_access_block" "split" {
  bucket                  = aws_s3_bucket.split.id
  block_public_acls       = true
  block_public_policy     = false
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket" "acl_only" {
  bucket = "acl-only"
}

resource "aws_s3_bucket_acl" "acl_only" {
  bucket = aws_s3_bucket.acl_only.bucket
  acl    = "public-read-write"
}
"#;

#[test]
fn tf_001_judges_each_bucket_by_its_own_encryption() {
    // Upstream: one encrypted bucket (`good`) hid every other one. `split`
    // is encrypted by a companion that refers to it.
    assert_eq!(
        rule_rows(BUCKETS, "TF_001"),
        vec![
            row("TF_001", 15, "aws_s3_bucket.bad"),
            row("TF_001", 51, "aws_s3_bucket.acl_only"),
        ]
    );
}

#[test]
fn tf_002_judges_each_bucket_by_its_own_versioning() {
    // `split` is versioned by a companion naming it by its literal bucket
    // name; `bad` has `enabled = false` (line of its versioning block).
    assert_eq!(
        rule_rows(BUCKETS, "TF_002"),
        vec![
            row("TF_002", 18, "aws_s3_bucket.bad"),
            row("TF_002", 51, "aws_s3_bucket.acl_only"),
        ]
    );
}

#[test]
fn tf_003_public_acl_companion_acl_and_access_block_opt_outs() {
    // Upstream read a non-existent bucket attribute for the access block,
    // and decided document-wide.
    assert_eq!(
        rule_rows(BUCKETS, "TF_003"),
        vec![
            row("TF_003", 17, "aws_s3_bucket.bad"),
            row("TF_003", 23, "aws_s3_bucket.split"),
            row("TF_003", 51, "aws_s3_bucket.acl_only"),
        ]
    );
    let analysis = scan(BUCKETS);
    let split = analysis
        .findings
        .iter()
        .find(|f| f.rule_id == "TF_003" && f.line == Some(23))
        .unwrap();
    assert!(
        split.message.contains("block_public_policy = false"),
        "{}",
        split.message
    );
    assert_eq!(split.severity, Severity::High);
}

#[test]
fn s3_rules_do_not_fire_on_a_well_configured_bucket() {
    let tf = r#"resource "aws_s3_bucket" "ok" {
  bucket = "ok"
  acl    = "private"
}
resource "aws_s3_bucket_server_side_encryption_configuration" "ok" {
  bucket = aws_s3_bucket.ok.id
  rule {}
}
resource "aws_s3_bucket_versioning" "ok" {
  bucket = aws_s3_bucket.ok.id
  versioning_configuration { status = "Enabled" }
}
resource "aws_s3_bucket_public_access_block" "ok" {
  bucket                  = aws_s3_bucket.ok.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}
"#;
    assert_eq!(rows(&scan(tf)), vec![]);
}

#[test]
fn companions_of_another_bucket_do_not_count() {
    // `aws_s3_bucket.other.id` must not satisfy `b` (nor a prefix of its
    // name, `aws_s3_bucket.b2`).
    let tf = r#"resource "aws_s3_bucket" "b" {
  bucket = "b"
}
resource "aws_s3_bucket" "b2" {
  bucket = "b2"
}
resource "aws_s3_bucket_versioning" "b2" {
  bucket = aws_s3_bucket.b2.id
  versioning_configuration { status = "Enabled" }
}
"#;
    assert_eq!(
        rule_rows(tf, "TF_002"),
        vec![row("TF_002", 1, "aws_s3_bucket.b")]
    );
}

// ------------------------------------------------------------ TF_004/005

const DATABASES: &str = r#"resource "aws_db_instance" "plain" {
  engine   = "postgres"
  password = "hunter2hunter2"
}

resource "aws_db_instance" "managed" {
  engine                      = "postgres"
  storage_encrypted           = true
  password                    = "ignored"
  manage_master_user_password = true
}

resource "aws_db_instance" "from_var" {
  storage_encrypted = false
  password          = var.db_password
}

resource "aws_db_instance" "no_password" {
  storage_encrypted = true
}
"#;

#[test]
fn tf_004_fires_unless_storage_is_encrypted() {
    assert_eq!(
        rule_rows(DATABASES, "TF_004"),
        vec![
            row("TF_004", 1, "aws_db_instance.plain"),
            row("TF_004", 14, "aws_db_instance.from_var"),
        ]
    );
}

#[test]
fn tf_005_fires_on_a_literal_password_only() {
    // Upstream had it inverted: it fired when no password was set
    // (`no_password`). A reference and a managed password are fine.
    assert_eq!(
        rule_rows(DATABASES, "TF_005"),
        vec![row("TF_005", 3, "aws_db_instance.plain")]
    );
}

// --------------------------------------------------------------- TF_006

#[test]
fn tf_006_fires_per_open_ingress_block() {
    let tf = r#"resource "aws_security_group" "open" {
  name = "open"
  ingress {
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }
  ingress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["10.0.0.0/8", "0.0.0.0/0"]
  }
  ingress {
    from_port        = 0
    to_port          = 65535
    protocol         = "tcp"
    ipv6_cidr_blocks = ["::/0"]
  }
}

resource "aws_security_group_rule" "all" {
  type        = "ingress"
  from_port   = 22
  to_port     = 22
  protocol    = "all"
  cidr_blocks = ["0.0.0.0/0"]
}

resource "aws_vpc_security_group_ingress_rule" "v" {
  cidr_ipv4   = "0.0.0.0/0"
  ip_protocol = "-1"
}
"#;
    assert_eq!(
        rule_rows(tf, "TF_006"),
        vec![
            row("TF_006", 9, "aws_security_group.open"),
            row("TF_006", 15, "aws_security_group.open"),
            row("TF_006", 23, "aws_security_group_rule.all"),
            row("TF_006", 31, "aws_vpc_security_group_ingress_rule.v"),
        ]
    );
}

#[test]
fn tf_006_does_not_combine_cidr_and_ports_across_blocks() {
    // Upstream matched the cidr of one block with the ports of another.
    let tf = r#"resource "aws_security_group" "split" {
  ingress {
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }
  ingress {
    from_port   = 0
    to_port     = 65535
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/8"]
  }
}

resource "aws_security_group_rule" "egress" {
  type        = "egress"
  from_port   = 0
  to_port     = 0
  protocol    = "-1"
  cidr_blocks = ["0.0.0.0/0"]
}
"#;
    assert_eq!(rule_rows(tf, "TF_006"), vec![]);
}

// --------------------------------------------------------------- TF_007

#[test]
fn tf_007_fires_on_secret_names_and_credential_values() {
    let tf = r#"variable "db_password" {
  default = "hunter2"
}

variable "region" {
  default = "AKIAIOSFODNN7EXAMPLE"
}

variable "ssh_key" {
  default = <<EOT
-----BEGIN OPENSSH PRIVATE KEY-----
abc
-----END OPENSSH PRIVATE KEY-----
EOT
}
"#;
    assert_eq!(
        rule_rows(tf, "TF_007"),
        vec![
            row("TF_007", 2, "var.db_password"),
            row("TF_007", 6, "var.region"),
            row("TF_007", 10, "var.ssh_key"),
        ]
    );
}

#[test]
fn tf_007_ignores_value_substrings_long_strings_and_non_strings() {
    // Upstream matched substrings of values (`key` in "monkey"), flagged any
    // 20+ character base64-ish string and failed on non-string defaults.
    let tf = r#"variable "pet" {
  default = "monkey"
}
variable "bucket_name" {
  default = "dGhpcyBpcyBqdXN0IGEgbG9uZyBuYW1l"
}
variable "api_token" {
  default = ""
}
variable "secret_count" {
  default = 3
}
variable "password" {
  type = string
}
variable "token_list" {
  default = ["a", "b"]
}
"#;
    assert_eq!(rule_rows(tf, "TF_007"), vec![]);
}

// --------------------------------------------------------------- TF_008

#[test]
fn tf_008_fires_on_admin_policies_in_every_form() {
    let tf = r#"resource "aws_iam_policy" "encoded" {
  name = "admin"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = "*"
      Resource = "*"
    }]
  })
}

resource "aws_iam_role_policy" "heredoc" {
  role   = "r"
  policy = <<EOF
{"Version": "2012-10-17",
 "Statement": {"Effect": "Allow", "Action": ["s3:GetObject", "*"], "Resource": ["*"]}}
EOF
}

data "aws_iam_policy_document" "admin" {
  statement {
    actions   = ["*"]
    resources = ["*"]
  }
}

resource "aws_iam_user_policy" "from_document" {
  user   = "u"
  policy = data.aws_iam_policy_document.admin.json
}
"#;
    assert_eq!(
        rule_rows(tf, "TF_008"),
        vec![
            row("TF_008", 3, "aws_iam_policy.encoded"),
            row("TF_008", 15, "aws_iam_role_policy.heredoc"),
            row("TF_008", 30, "aws_iam_user_policy.from_document"),
        ]
    );
}

#[test]
fn tf_008_ignores_scoped_denied_and_unreadable_policies() {
    let tf = r#"resource "aws_iam_policy" "scoped" {
  policy = jsonencode({
    Statement = [{ Effect = "Allow", Action = "s3:*", Resource = "*" }]
  })
}

resource "aws_iam_group_policy" "deny" {
  policy = jsonencode({
    Statement = [{ Effect = "Deny", Action = "*", Resource = "*" }]
  })
}

resource "aws_iam_policy" "not_json" {
  policy = "{not json"
}

resource "aws_iam_policy" "computed" {
  policy = jsonencode({ Statement = [{ Effect = "Allow", Action = "*", Resource = var.arn }] })
}

data "aws_iam_policy_document" "scoped" {
  statement {
    effect    = "Allow"
    actions   = ["*"]
    resources = ["arn:aws:s3:::b/*"]
  }
  statement {
    effect    = "Deny"
    actions   = ["*"]
    resources = ["*"]
  }
}

resource "aws_iam_role_policy" "document" {
  policy = data.aws_iam_policy_document.scoped.json
}

resource "aws_s3_bucket_policy" "other_type" {
  policy = jsonencode({ Statement = [{ Effect = "Allow", Action = "*", Resource = "*" }] })
}
"#;
    assert_eq!(rule_rows(tf, "TF_008"), vec![]);
}

// --------------------------------------------------------- shape, fixture

#[test]
fn excluded_rules_are_dropped() {
    let tf = "resource \"aws_s3_bucket\" \"b\" {\n  bucket = \"b\"\n}\n";
    let module = parse_module(tf).unwrap();
    let excluded: BTreeSet<String> = ["TF_001".to_owned()].into();
    let analysis = builtin().scan_tf("main.tf", &module, &excluded);
    let ids: Vec<&str> = analysis
        .findings
        .iter()
        .map(|f| f.rule_id.as_str())
        .collect();
    assert_eq!(ids, ["TF_002"]);
    assert_eq!(analysis.findings[0].location(), "main.tf:1");
}

#[test]
fn hostile_shapes_are_not_evaluation_errors() {
    // Policies check types before calling builtins (regorus reports a
    // builtin's type error as an error where OPA would be undefined).
    let tf = r#"resource "aws_s3_bucket" "weird" {
  bucket = 3
  acl = ["public-read"]
  versioning = "yes"
  server_side_encryption_configuration = 1
}
resource "aws_security_group" "weird" {
  ingress = "all"
}
resource "aws_security_group" "weird2" {
  ingress = [1, "x", { cidr_blocks = "0.0.0.0/0", protocol = -1 }]
}
resource "aws_iam_policy" "weird" {
  policy = jsonencode([1, 2])
}
resource "aws_iam_policy" "weird2" {
  policy = jsonencode({ Statement = "x" })
}
resource "aws_db_instance" "weird" {
  password = ["a"]
  storage_encrypted = "true"
}
variable "password" {
  default = { a = 1 }
}
"#;
    let analysis = scan(tf);
    assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
    // The canonical `ingress = [..]` list with a literal world source and
    // protocol -1 is open.
    assert!(rows(&analysis).contains(&row("TF_006", 11, "aws_security_group.weird2")));
}

#[test]
fn upstream_bad_tf_fixture() {
    let Some(tf) =
        svbench_core::upstream_data::read(env!("CARGO_MANIFEST_DIR"), "e2/fixtures/bad.tf")
    else {
        return;
    };
    // The upstream oracle (e2/oracle/bad_tf.json) has only the semgrep
    // finding `terraform-acl-public-read`: upstream never evaluated `.tf`
    // files with OPA. Our v1 policies report the public ACL (TF_003, on the
    // `acl` line) and also the missing encryption (TF_001) and versioning
    // (TF_002), which the upstream Rego would have reported document-wide.
    assert_eq!(
        rows(&scan(&tf)),
        vec![
            row("TF_001", 1, "aws_s3_bucket.bad"),
            row("TF_002", 1, "aws_s3_bucket.bad"),
            row("TF_003", 3, "aws_s3_bucket.bad"),
        ]
    );
}
