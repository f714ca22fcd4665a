#!/usr/bin/env bash
# Item 11e: one 500 MB single-line E1 row after 30 good rows, as
# `--dataset FILE`: peak RSS and exit (the fix refuses it at 16 MiB,
# naming file and line). The file is deleted at the end.
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$SVBENCH" data gen e1 --split test -n 30 --out good.jsonl --no-progress > /dev/null 2>&1
{ cat good.jsonl
  printf '{"question": "q", "answer": "Benign", "meta": {"pad": "'
  head -c 500000000 /dev/zero | tr '\0' x
  printf '"}}\n'; } > big.jsonl
rm good.jsonl
echo "input: $(wc -c < big.jsonl) bytes, $(wc -l < big.jsonl) lines"
( ulimit -v 6000000; /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o time \
    timeout 120 "$SVBENCH" eval e1 --dataset big.jsonl --split all --no-progress --output-dir evals > out 2>&1 )
echo "RESULT item11e-bigrow $(tail -1 time)"
head -c 600 out; echo
