#!/usr/bin/env bash
# Item 3: env_args keys padded with whitespace ("policy_dirs ", "\tpolicy_dirs",
# ...) naming a directory outside the server's allowed one: is it accepted
# (200: the client's path was used), and does an existing directory answer
# differently from a missing one?
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
. $REPRO/serve-lib.sh
allowed=$(mktemp -d); outside=$(mktemp -d)
printf 'package sv.k8s\n\ndeny contains {"id": "USR_NAME", "severity": "low", "message": "x"} if {\n    count(input.object.metadata.name) < 400\n}\n' > "$outside/p.rego"
start_server item3-policy-dirs --allow-policy-dir "$allowed"
python3 - "$URL" "$outside" <<'PY'
import json, sys, urllib.request
url, outside = sys.argv[1], sys.argv[2]
def score(args):
    body = {"example_id": "e2-k8s-000003", "completion": "{\"violations\":[],\"patch\":\"\",\"confidence\":0.9}", "env_args": args}
    req = urllib.request.Request(url + "/v1/envs/e2/score", json.dumps(body).encode(), {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r: return r.status, r.read().decode()
    except urllib.error.HTTPError as e: return e.code, e.read().decode()
accepted = 0; leaks = 0
keys = ["policy_dirs", "policy_dirs ", "\tpolicy_dirs", " policy_dirs\n", "policy_dirs\u00a0", "Policy_Dirs"]
for key in keys:
    s1, b1 = score({key: outside}); s2, b2 = score({key: outside + "/missing"})
    if s1 == 200: accepted += 1
    if (s1, b1.replace(outside, "P")) != (s2, b2.replace(outside + "/missing", "P")): leaks += 1
    print(f"{key!r}: existing dir -> {s1}, missing -> {s2}; {b1[:160]}")
print(f"padded keys accepted: {accepted}/{len(keys)}; keys whose answers tell existing from missing: {leaks}")
PY
stop_server
rm -rf "$allowed" "$outside"
