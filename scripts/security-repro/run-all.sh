#!/usr/bin/env bash
# Runs every reproduction of the second security round with the binary
# $SVBENCH and writes what each printed to OUT (default: results.txt in the
# current directory). Each script bounds its own memory (ulimit) and time.
#   SVBENCH=target/release/svbench bash scripts/security-repro/run-all.sh [OUT]
set -u
: "${SVBENCH:?set SVBENCH to the svbench binary}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-results.txt}"
: > "$out"
for s in item1-scan-docs item1-pods item1-serve item2-episodes item3-policy-dirs item4-tf-rewrites \
         item5-e4-inline item6-html-attrs item6-s3-buckets item7-mbox item8-forge item9-secrets \
         item10-fragments item11a-weights item11-content-length item11-halfopen item11d-e4-200k \
         item11e-bigrow; do
  echo "=== $s" >> "$out"
  timeout 900 bash "$here/$s.sh" >> "$out" 2>&1
  echo "=== rc=$?" >> "$out"
done
grep '^RESULT' "$out"
