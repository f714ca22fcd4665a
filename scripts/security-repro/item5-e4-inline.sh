#!/usr/bin/env bash
# Item 5 (E4 part): one inline POST /v1/envs/e4/score with a 1 MB question
# ("pay now " x 125,000), 10,000 gold spans and ten quotes found 125,000
# times each; /healthz is polled meanwhile. Prints the score's time and
# HTTP code, how many /healthz polls answered, and the server's peak RSS.
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
. $REPRO/serve-lib.sh
start_server item5-e4-inline
python3 - "$DIR/body.json" <<'PY'
import json, sys
q = "pay now " * 125_000
spans = [{"start": i * 96, "end": i * 96 + 7, "text": "pay now", "category": "payment_request", "polarity": "phish"} for i in range(10_000)]
evidence = ["pay now", "now pay", "pay now pay", "now pay now", "pay now pay now"] * 2
completion = json.dumps({"label": "Phishing", "confidence": 0.9, "evidence": evidence})
json.dump({"answer": "Phishing", "question": q, "info": {"meta": {"gold_source": "annotated", "spans": spans}}, "completion": completion}, open(sys.argv[1], "w"))
PY
echo "request body: $(wc -c < "$DIR/body.json") bytes"
start=$(date +%s.%N)
( curl -s -o "$DIR/resp" -w '%{http_code} %{time_total}' --max-time 100 -H 'content-type: application/json' \
    --data-binary @"$DIR/body.json" "$URL/v1/envs/e4/score" > "$DIR/code" 2>&1 ) &
req=$!
polls=0; answered=0
while kill -0 "$req" 2>/dev/null && [ "$polls" -lt 200 ]; do
  polls=$((polls + 1))
  [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$URL/healthz")" = 200 ] && answered=$((answered + 1))
  sleep 0.25
done
wait "$req"
echo "score: HTTP/time_total $(cat "$DIR/code"); response: $(head -c 300 "$DIR/resp")"
stop_server "score=$(cat "$DIR/code") healthz_answered=$answered/$polls"
