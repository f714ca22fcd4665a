#!/usr/bin/env bash
# Item 10: the E4 fragment exploit. For each row of the embedded E4 test
# split, quote the shortest word-bounded fragment of >= 8 characters of each
# relevant gold span (`https://`, `.example`, `48 hours`) with the gold label
# and confidence 1, and score it through `svbench serve`'s
# /v1/envs/e4/score by example id; the same with the whole spans (what the
# oracle answers). Prints the mean v1 rewards and on how many rows they tie.
# E4_TEST: the split's JSONL (default: $REPO/datasets/e4/test.jsonl).
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
E4_TEST=${E4_TEST:-$REPO/datasets/e4/test.jsonl}
. $REPRO/serve-lib.sh
start_server item10-fragments
python3 - "$URL" "$E4_TEST" <<'PY' > "$DIR/summary" 2>&1
import json, sys, http.client, urllib.parse
url, path = sys.argv[1], sys.argv[2]
u = urllib.parse.urlparse(url)
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
def score(example_id, answer):
    body = json.dumps({"example_id": example_id, "completion": json.dumps(answer)})
    conn.request("POST", "/v1/envs/e4/score", body, {"content-type": "application/json"})
    r = conn.getresponse(); data = r.read()
    if r.status != 200:
        raise SystemExit(f"HTTP {r.status}: {data[:300]!r}")
    return json.loads(data)["reward"]
def isal(c): return c.isalnum()
def fragment(q, s, e):
    for L in range(8, e - s + 1):
        for a in range(s, e - L + 1):
            f = q[a:a + L]
            if f != f.strip(): continue
            if (not isal(f[0]) or a == 0 or not isal(q[a - 1])) and (not isal(f[-1]) or a + L == len(q) or not isal(q[a + L])):
                return f
    return q[s:e]
rows = [json.loads(l) for l in open(path)]
hon = frag = 0.0; ties = 0
for r in rows:
    gold, q = r["answer"], r["question"]
    spans = [s for s in r["meta"].get("spans", []) if gold == "Abstain" or s["polarity"] == ("phish" if gold == "Phishing" else "benign")]
    h = score(r["id"], {"label": gold, "confidence": 1.0, "evidence": [s["text"] for s in spans]})
    f = score(r["id"], {"label": gold, "confidence": 1.0, "evidence": [fragment(q, s["start"], s["end"]) for s in spans]})
    hon += h; frag += f; ties += abs(h - f) < 1e-9
n = len(rows)
print(f"rows={n} mean_v1_honest(oracle quotes)={hon/n:.4f} mean_v1_fragments={frag/n:.4f} ties={ties}")
PY
stop_server "$(tail -1 "$DIR/summary")"
