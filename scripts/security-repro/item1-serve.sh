#!/usr/bin/env bash
# Item 1 (serve): one POST /v1/envs/e2/score whose `question` holds 20 YAML
# documents each expanding through aliases to ~900k nodes, with a completion
# carrying a JSON Patch (so the patch path reads every document), once with
# the default oracle and once with oracle=live. Reports whether the server
# survived and its peak RSS (VmHWM).
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
dir=$(mktemp -d)
python3 - "$dir" <<'PY'
import json, os, subprocess, sys
d = sys.argv[1]
question = subprocess.run(["python3", os.environ["REPRO"] + "/item1-bomb.py", "20"], capture_output=True, text=True, check=True).stdout
patch = json.dumps([{"op": "replace", "path": "/0/a/0", "value": "y"}])
completion = json.dumps({"violations": [], "patch": patch, "confidence": 0.9})
for name, args in (("dataset", {}), ("live", {"oracle": "live"})):
    body = {"answer": {"oracle": []}, "question": question, "completion": completion}
    if args:
        body["env_args"] = args
    with open(f"{d}/{name}.json", "w") as f:
        json.dump(body, f)
PY
echo "request bodies: $(wc -c < "$dir/dataset.json") and $(wc -c < "$dir/live.json") bytes"
( ulimit -v 6000000; exec timeout 120 /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o "$dir/time" \
    "$SVBENCH" serve --bind 127.0.0.1:0 > "$dir/stdout" 2> "$dir/stderr" ) &
wrapper=$!
url=""
for _ in $(seq 1 100); do
  url=$(head -1 "$dir/stdout" 2>/dev/null | grep -o 'http://[0-9.:]*' || true)
  [ -n "$url" ] && break; sleep 0.2
done
[ -n "$url" ] || { echo "RESULT item1-serve server did not start"; cat "$dir/stderr"; kill "$wrapper"; exit 1; }
pid=$(pgrep -P "$(pgrep -P "$wrapper" | head -1)" | head -1 || true)
[ -n "$pid" ] || pid=$(pgrep -n -f "$SVBENCH serve --bind 127.0.0.1:0")
hwm=0
for name in dataset live; do
  code=$(curl -s -o "$dir/resp-$name" -w '%{http_code}' --max-time 60 \
         -H 'content-type: application/json' --data-binary @"$dir/$name.json" "$url/v1/envs/e2/score" || echo "none")
  alive=no; kill -0 "$pid" 2>/dev/null && alive=yes
  h=$(awk '/VmHWM/{print $2}' /proc/$pid/status 2>/dev/null || echo "?")
  [ "$h" != "?" ] && hwm=$h
  echo "$name oracle: HTTP $code, server alive=$alive, VmHWM=${h} kB; response: $(head -c 400 "$dir/resp-$name")"
done
alive=no; kill -0 "$pid" 2>/dev/null && alive=yes
kill "$pid" 2>/dev/null; wait "$wrapper" 2>/dev/null
echo "RESULT item1-serve survived=$alive VmHWM=${hwm}kB $(tail -1 "$dir/time" 2>/dev/null)"
tail -c 600 "$dir/stderr"
rm -rf "$dir"
