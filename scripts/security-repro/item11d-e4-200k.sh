#!/usr/bin/env bash
# Item 11d: peak RSS of `eval e4` (builtin:indicators, then its report) on
# 200,000 generated rows. Needs ~2 GB of disk in $TMPDIR for the rows and
# the run; everything is deleted at the end. The timeout is 600 s (200k E4
# samples do not finish in 120 s).
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
N=${N:-200000}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$SVBENCH" data gen e4 --split test -n "$N" --out rows.jsonl --no-progress > /dev/null 2>&1
echo "input: $(wc -l < rows.jsonl) rows, $(wc -c < rows.jsonl) bytes"
( ulimit -v 6000000; /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o time \
    timeout 600 "$SVBENCH" eval e4 --dataset rows.jsonl --no-progress --output-dir evals > out 2>&1 )
echo "RESULT item11d-e4-200k $(tail -1 time)"
head -c 600 out; echo
run=$(find evals -name metadata.json -printf '%h\n' | head -1)
[ -n "$run" ] && ls -la "$run"
