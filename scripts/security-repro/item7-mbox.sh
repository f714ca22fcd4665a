#!/usr/bin/env bash
# Item 7: 60 MB of bare `From ` lines (10,000,000 empty messages) as an
# mbox: `svbench scan FILE.mbox`.
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
python3 - "$dir/box.mbox" <<'PY'
import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"From \n" * 10_000_000)
PY
echo "input: $(wc -c < "$dir/box.mbox") bytes, 10000000 separator lines"
( ulimit -v 6000000; /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o "$dir/time" \
    timeout 120 "$SVBENCH" scan "$dir/box.mbox" > "$dir/out" 2>&1 )
echo "RESULT item7-mbox $(tail -1 "$dir/time")"
echo "output: $(wc -c < "$dir/out") bytes; last lines:"
tail -c 400 "$dir/out"; echo
