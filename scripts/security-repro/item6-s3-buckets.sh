#!/usr/bin/env bash
# Item 6a: Terraform cross-resource lookups that were pairwise.
#  1. 2,000 aws_s3_bucket resources sharing one literal `bucket` name (~200 KB;
#     the issue's 113 KB shape took 106 s in release).
#  2. 1,000 buckets + 1,000 aws_s3_bucket_acl companions of that one name.
#  3. 1,000 IAM policies referring to one 1,000-statement policy document.
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
N=${N:-2000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() { # label file
  /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o "$dir/time" \
    bash -c "ulimit -v 6000000; timeout 120 \"$SVBENCH\" scan \"$2\" --tools opa --format json" > "$dir/out" 2>&1
  echo "RESULT $1 $(tail -1 "$dir/time") input=$(wc -c < "$2")B"
  printf '  findings: %s; errors mentioning budget: %s\n' "$(grep -c '"rule_id"' "$dir/out")" "$(grep -c 'budget' "$dir/out")"
}
f="$dir/buckets.tf"
for i in $(seq 0 $((N-1))); do
  printf 'resource "aws_s3_bucket" "bucket_%d" {\n  bucket = "shared-bucket-name"\n  tags = { Name = "b%d" }\n}\n\n' "$i" "$i"
done > "$f"
printf 'resource "aws_s3_bucket_versioning" "v" {\n  bucket = "shared-bucket-name"\n  versioning_configuration {\n    status = "Enabled"\n  }\n}\n' >> "$f"
run item6-s3-buckets "$f"
g="$dir/companions.tf"
for i in $(seq 0 999); do
  printf 'resource "aws_s3_bucket" "b%d" {\n  bucket = "shared"\n}\nresource "aws_s3_bucket_acl" "a%d" {\n  bucket = "shared"\n  acl = "private"\n}\n' "$i" "$i"
done > "$g"
run item6-s3-bucket-companions "$g"
h="$dir/iam.tf"
{ echo 'data "aws_iam_policy_document" "d" {'
  for i in $(seq 0 999); do printf '  statement {\n    actions = ["s3:Get%d"]\n    resources = ["*"]\n  }\n' "$i"; done
  echo '}'
  for i in $(seq 0 999); do printf 'resource "aws_iam_policy" "p%d" {\n  policy = data.aws_iam_policy_document.d.json\n}\n' "$i"; done
} > "$h"
run item6-iam-one-document "$h"
