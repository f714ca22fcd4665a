#!/usr/bin/env bash
# Item 1 (scan): one file of 5 YAML documents, each expanding through aliases
# to ~900k nodes (under the old per-document limit): `svbench scan` on it.
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
python3 $REPRO/item1-bomb.py 5 > "$dir/bomb.yaml"
echo "input: $(wc -c < "$dir/bomb.yaml") bytes, 5 documents"
( ulimit -v 6000000; /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o "$dir/time" \
    timeout 120 "$SVBENCH" scan "$dir/bomb.yaml" > "$dir/out" 2>&1 )
echo "RESULT item1-scan-docs $(tail -1 "$dir/time")"
head -c 1500 "$dir/out"; echo
