#!/usr/bin/env bash
# Item 6b: an .eml whose HTML body has one tag with 300,000 distinct
# attributes (~2 MiB): `svbench scan msg.eml`, then with `--time-budget 2`.
# Also (found while fixing 6b): 10,000 unclosed <b> tags with distinct
# attributes (~1 MB), which the tree builder compares with each other, and
# 500 open <b> tags re-created at each of 5,000 paragraphs (44 KB).
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
hdr = "From: Bank <alerts@bank.test>\r\nSubject: x\r\nContent-Type: text/html\r\n\r\n"
with open(f"{d}/msg.eml", "w") as f:
    f.write(hdr + "<p>before</p><p " + " ".join(f"a{i}" for i in range(300_000)) + ">after</p>")
attrs = " ".join(f"a{j}" for j in range(20))
with open(f"{d}/bold.eml", "w") as f:
    f.write(hdr + "".join(f"<b x={i} {attrs}>" for i in range(10_000)) + "tail")
with open(f"{d}/reopen.eml", "w") as f:
    f.write(hdr + "<div>" + "".join(f"<b x={i}>" for i in range(500)) + "</div>" + "<p>x</p>" * 5000)
PY
echo "input: msg.eml $(wc -c < "$dir/msg.eml") bytes (one tag, 300000 attributes); bold.eml $(wc -c < "$dir/bold.eml") bytes"
run() {
  local label=$1; shift
  ( ulimit -v 6000000; /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o "$dir/time" \
      timeout 120 "$SVBENCH" scan "$@" > "$dir/out" 2>&1 )
  echo "RESULT item6-html-attrs $label $(tail -1 "$dir/time")"
  echo "output: $(head -c 400 "$dir/out")"
}
run "scan" "$dir/msg.eml"
run "scan --time-budget 2" "$dir/msg.eml" --time-budget 2
run "scan bold.eml" "$dir/bold.eml"
run "scan bold.eml --time-budget 2" "$dir/bold.eml" --time-budget 2
# 44 KB: 500 <b> tags left open, then 5,000 paragraphs (each re-creates them).
run "scan reopen.eml" "$dir/reopen.eml"
