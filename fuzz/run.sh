#!/usr/bin/env bash
# Builds svbench's fuzz targets (libFuzzer through libfuzzer-sys, sanitizer
# coverage, stable Rust: no nightly, no cargo-fuzz needed) and runs each one
# for a bounded time on its committed seed corpus. Exits non-zero when a
# target crashes (panic, abort, timeout, out of memory); the input that did it
# is left under fuzz/artifacts/<target>/. See docs/fuzzing.md.
#
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 30 s, every target)
#
# Environment: FUZZ_SEED (libFuzzer -seed, default 1: CI runs are repeatable;
# 0 picks a fresh one), FUZZ_TIMEOUT (seconds one input may take, default 10),
# FUZZ_RSS_MB (memory limit, default 2048), FUZZ_ARGS (more libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")"

secs="${1:-30}"
[ $# -gt 0 ] && shift
all_targets=(extract yaml yaml_docs hcl scan patch_diff json_patch e2_score e4_score email html_attrs mbox dataset_rows api_body episodes)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi

host="$(rustc -vV | sed -n 's/^host: //p')"
# The flags cargo-fuzz passes with `--sanitizer none`: all of them are
# stable codegen options. `--target` keeps them off build scripts and proc
# macros.
export RUSTFLAGS="-Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares \
-Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
--cfg fuzzing -Cdebug-assertions -Coverflow-checks"
unset CARGO_BUILD_RUSTFLAGS CARGO_ENCODED_RUSTFLAGS

echo "== fuzz: build (libFuzzer, sanitizer coverage, $host)"
build_start=$SECONDS
# Not --locked: the library crates' dependencies belong to the main
# workspace, and a change there (committed with the main Cargo.lock) must not
# break this build; cargo keeps the versions fuzz/Cargo.lock pins and only
# adds what is new.
cargo build --release --target "$host" --bins
echo "build: $((SECONDS - build_start)) s"

mkdir -p target/logs
failed=()
printf '%-13s %10s %8s %6s %7s %8s  %s\n' target execs exec/s cov corpus rss_mb result
for t in "${targets[@]}"; do
  bin="target/$host/release/$t"
  [ -x "$bin" ] || { echo "unknown target $t (known: ${all_targets[*]})" >&2; exit 2; }
  work="target/corpus/$t"
  mkdir -p "$work" "artifacts/$t" "corpus/$t"
  log="target/logs/$t.log"
  rc=0
  # shellcheck disable=SC2086
  "$bin" "$work" "corpus/$t" \
    -max_total_time="$secs" -timeout="${FUZZ_TIMEOUT:-10}" \
    -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -seed="${FUZZ_SEED:-1}" \
    -artifact_prefix="artifacts/$t/" -print_final_stats=1 \
    ${FUZZ_ARGS:-} >"$log" 2>&1 || rc=$?
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n1; }
  last="$(grep -E '^#[0-9]+' "$log" | tail -n1 || true)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
  corp="$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")"
  result=ok
  if [ "$rc" -ne 0 ]; then
    result="CRASH (exit $rc, see fuzz/$log and fuzz/artifacts/$t/)"
    failed+=("$t")
  fi
  printf '%-13s %10s %8s %6s %7s %8s  %s\n' "$t" "$(stat number_of_executed_units)" \
    "$(stat average_exec_per_sec)" "${cov:-?}" "${corp:-?}" "$(stat peak_rss_mb)" "$result"
done

if [ ${#failed[@]} -gt 0 ]; then
  for t in "${failed[@]}"; do
    echo "== fuzz: $t crashed; the end of its log:" >&2
    grep -v '^#[0-9]' "target/logs/$t.log" | tail -n 40 >&2
  done
  exit 1
fi
