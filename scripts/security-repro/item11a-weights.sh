#!/usr/bin/env bash
# Item 11a: reward weights of 1e308 (each finite, their total is not):
# a baseline records `reward: null` and exits 0; the fix refuses the config.
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
printf '[v1]\nw_calibration = 1e308\nw_format = 1e308\n' > huge.toml
( ulimit -v 6000000; /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o time \
    timeout 120 "$SVBENCH" eval e1 -n 5 --reward-config huge.toml --no-progress --output-dir evals > out 2>&1 )
echo "RESULT item11a-weights $(tail -1 time)"
head -c 800 out; echo
for f in $(find evals -name results.jsonl 2>/dev/null); do
  echo "records with reward null: $(grep -c '"reward":null' "$f") of $(wc -l < "$f")"
done
