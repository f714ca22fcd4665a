#!/usr/bin/env bash
# Item 1 (model size): 400,000 Pods in one ~41 MB file: `svbench scan` on it.
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
python3 - "$dir/pods.yaml" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(400_000):
        f.write(f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: pod-{i:06d}\nspec:\n  containers:\n  - name: c\n    image: nginx:1.27\n---\n")
PY
echo "input: $(wc -c < "$dir/pods.yaml") bytes, 400000 documents"
( ulimit -v 6000000; /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o "$dir/time" \
    timeout 120 "$SVBENCH" scan "$dir/pods.yaml" > "$dir/out" 2>&1 )
echo "RESULT item1-pods $(tail -1 "$dir/time")"
echo "output: $(wc -c < "$dir/out") bytes; first and last lines:"
head -c 600 "$dir/out"; echo; echo ...; tail -c 600 "$dir/out"; echo
