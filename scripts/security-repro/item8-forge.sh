#!/usr/bin/env bash
# Item 8: records forged after the fact. `eval e1 -n 20`, then every record's
# reward set to the maximum (2.0) with python3; `report --check` and
# `report --verify` on the forged run (a baseline without --verify exits 2:
# unknown flag). Also `eval --resume` of a run whose kept record had its
# question, gold and reward changed under the same id.
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$SVBENCH" eval e1 -n 20 --no-progress --run-id forge --output-dir evals > run.out 2> run.err
run=$(tail -1 run.out)
python3 - "$run/results.jsonl" <<'PY'
import json, sys
p = sys.argv[1]
rs = [json.loads(l) for l in open(p)]
for r in rs:
    r["reward"] = 2.0
    r["rewards"] = {"utility": 1.0, "calibration": 1.0, "format": 1.0}
open(p, "w").writelines(json.dumps(r) + "\n" for r in rs)
PY
# Rebuild the report from the forged records, as a forger would: then
# `report --check` and `manifest validate` have nothing to object to.
"$SVBENCH" report "$run" > /dev/null 2>&1
( ulimit -v 6000000; timeout 120 "$SVBENCH" report --check "$run" > check.out 2>&1 ); check=$?
"$SVBENCH" manifest validate "$run/run_manifest.json" > manifest.out 2>&1; manifest=$?
( ulimit -v 6000000; /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o time \
    timeout 120 "$SVBENCH" report --verify "$run" > verify.out 2>&1 )
echo "RESULT item8-forge $(tail -1 time) (report --check exit=$check, manifest validate exit=$manifest)"
echo "--- report --check:"; head -c 400 check.out; echo
echo "--- report --verify:"; head -c 600 verify.out; echo
# Resume with a kept record whose question, gold and reward were changed.
"$SVBENCH" eval e1 -n 20 --no-progress --run-id part --output-dir evals > part.out 2>&1
part=$(tail -1 part.out)
python3 - "$part" <<'PY'
import json, sys
d = sys.argv[1]
rs = [json.loads(l) for l in open(d + "/results.jsonl")][:10]
r = rs[3]
r["question"] = "forged question"
r["answer"] = "Malicious" if r["answer"] == "Benign" else "Benign"
r["reward"] = 2.0
open(d + "/results.jsonl", "w").writelines(json.dumps(x) + "\n" for x in rs)
m = json.load(open(d + "/metadata.json")); m["status"] = "interrupted"
json.dump(m, open(d + "/metadata.json", "w"))
PY
( ulimit -v 6000000; timeout 120 "$SVBENCH" eval e1 --resume "$part" --no-progress > resume.out 2>&1 ); resume=$?
echo "--- eval --resume of a forged kept record: exit=$resume"; head -c 600 resume.out; echo
