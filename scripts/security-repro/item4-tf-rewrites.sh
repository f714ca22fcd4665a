#!/usr/bin/env bash
# Item 4: Terraform rewrites that keep a finding's meaning must keep the finding.
# For each shape: a file whose flagged literal is rewritten; prints whether
# `svbench scan` still reports the rule (REPORTED) or not (MISSING).
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
n=0
case_() { # name rule hcl
  n=$((n+1)); f="$dir/c$n.tf"; printf '%s\n' "$3" > "$f"
  out=$( ( ulimit -v 6000000; timeout 120 "$SVBENCH" scan "$f" --tools opa --format json ) 2>&1 )
  if printf '%s' "$out" | grep -q "\"$2\""; then r=REPORTED; else r=MISSING; fi
  printf '%-34s %-7s %s\n' "$1" "$2" "$r"
}
B='resource "aws_s3_bucket" "b" {
  bucket = "logs"'
E='}'
case_ "acl literal (baseline)"        TF_003 "$B
  acl = \"public-read\"
$E"
case_ 'acl "${"public-read"}"'        TF_003 "$B
  acl = \"\${\"public-read\"}\"
$E"
case_ 'acl lower("PUBLIC-READ")'      TF_003 "$B
  acl = lower(\"PUBLIC-READ\")
$E"
case_ 'acl join("-", [...])'          TF_003 "$B
  acl = join(\"-\", [\"public\", \"read\"])
$E"
case_ 'acl concat(...)[0]'            TF_003 "$B
  acl = concat([\"public-read\"], [])[0]
$E"
case_ 'acl tolist(...)[0]'            TF_003 "$B
  acl = tolist([\"public-read\"])[0]
$E"
case_ 'acl local.acl'                 TF_003 "locals {
  acl = \"public-read\"
}
$B
  acl = local.acl
$E"
case_ 'acl var.acl default'           TF_003 "variable \"acl\" {
  default = \"public-read\"
}
$B
  acl = var.acl
$E"
case_ 'acl base64decode (unsupported)' TF_003 "$B
  acl = base64decode(\"cHVibGljLXJlYWQ=\")
$E"
SG='resource "aws_security_group" "sg" {'
case_ "sg ingress literal (baseline)" TF_006 "$SG
  ingress {
    from_port   = 0
    to_port     = 0
    protocol    = \"-1\"
    cidr_blocks = [\"0.0.0.0/0\"]
  }
}"
case_ 'sg dynamic for_each = [1]'     TF_006 "$SG
  dynamic \"ingress\" {
    for_each = [1]
    content {
      from_port   = 0
      to_port     = 0
      protocol    = \"-1\"
      cidr_blocks = [\"0.0.0.0/0\"]
    }
  }
}"
case_ 'sg 0.0.0.0/1 + 128.0.0.0/1'    TF_006 "$SG
  ingress {
    from_port   = 0
    to_port     = 0
    protocol    = \"-1\"
    cidr_blocks = [\"0.0.0.0/1\", \"128.0.0.0/1\"]
  }
}"
case_ 'sg tostring(-1) protocol'      TF_006 "$SG
  ingress {
    from_port   = 0
    to_port     = 0
    protocol    = tostring(-1)
    cidr_blocks = [\"0.0.0.0/0\"]
  }
}"
PAB='resource "aws_s3_bucket_public_access_block" "p" {
  bucket                  = aws_s3_bucket.b.id
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true'
case_ 'pab false (baseline)'          TF_003 "$B
$E
$PAB
  block_public_acls = false
}"
case_ 'pab tobool("false")'           TF_003 "$B
$E
$PAB
  block_public_acls = tobool(\"false\")
}"
case_ 'pab "false"'                   TF_003 "$B
$E
$PAB
  block_public_acls = \"false\"
}"
RDS='resource "aws_db_instance" "db" {
  storage_encrypted = true'
case_ 'rds password literal (baseline)' TF_005 "$RDS
  password = \"Winter2024!\"
}"
case_ 'rds password "${...}"'         TF_005 "$RDS
  password = \"\${\"Winter\"}2024!\"
}"
case_ 'rds storage_encrypted false'   TF_004 'resource "aws_db_instance" "db" {
  storage_encrypted = tobool("false")
}'
case_ 'iam jsonencode(local)'         TF_008 'locals {
  s = { Effect = "Allow", Action = "*", Resource = "*" }
}
resource "aws_iam_policy" "p" {
  policy = jsonencode({ Version = "2012-10-17", Statement = [local.s] })
}'


# The evaluator is bounded: 39 locals each doubling the previous (2^39
# elements if evaluated naively) must end in the budget error, not OOM.
{ echo 'locals {'; echo '  l0 = ["xxxxxxxxxxxxxxxx"]'
  for i in $(seq 1 39); do echo "  l$i = concat(local.l$((i-1)), local.l$((i-1)))"; done
  echo '}'; printf 'resource "aws_s3_bucket" "b" {\n  bucket = "x"\n  acl = local.l39\n}\n'; } > "$dir/doubling.tf"
/usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o "$dir/time" \
  bash -c "ulimit -v 6000000; timeout 120 \"$SVBENCH\" scan \"$dir/doubling.tf\" --tools opa" > "$dir/out" 2>&1
echo "RESULT item4-tf-rewrites $(tail -1 "$dir/time")"
head -c 400 "$dir/out"; echo
