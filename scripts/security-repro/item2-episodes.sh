#!/usr/bin/env bash
# Item 2: one client, one keep-alive connection: an E2 reset asking for
# max_turns=tool_budget=1e9 (then, if refused, the server's defaults), then
# steps whose assistant message carries ~1.9 MB (each with a tool call, so
# the episode never ends) for at most 20 s. Prints the server's peak RSS and
# whether it survived; then a second phase: 300 resets, to see the live
# episodes' total bounded.
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
. $REPRO/serve-lib.sh
start_server item2-episodes
python3 - "$URL" "$PID" <<'PY'
import http.client, json, sys, time, urllib.parse
url, pid = sys.argv[1], sys.argv[2]
u = urllib.parse.urlparse(url)
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
def post(path, body):
    data = json.dumps(body)
    conn.request("POST", path, data, {"content-type": "application/json"})
    r = conn.getresponse(); return r.status, r.read()
def hwm():
    try:
        for l in open(f"/proc/{pid}/status"):
            if l.startswith("VmHWM"): return l.split()[1] + " kB"
    except OSError: return "gone"
st, body = post("/v1/envs/e2/episodes", {"index": 0, "max_turns": 10**9, "tool_budget": 10**9})
print(f"reset with 1e9 budgets: HTTP {st} {body[:200]!r}")
if st != 201:
    st, body = post("/v1/envs/e2/episodes", {"index": 0})
    print(f"reset with defaults: HTTP {st}")
ep = json.loads(body)["episode_id"]
pad = "p" * 1_900_000
msg = {"message": {"role": "assistant", "content": pad, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[\"manifest.yaml\"]}"}}]}}
start = time.time(); codes = {}; steps = 0
try:
    while time.time() - start < 20 and steps < 5000:
        st, body = post(f"/v1/episodes/{ep}/step", msg)
        codes[st] = codes.get(st, 0) + 1; steps += 1
        if st != 200 and codes[st] == 1:
            print(f"first {st}: {body[:300]!r}")
        if st not in (200,) and sum(v for k, v in codes.items() if k != 200) >= 20:
            break
except Exception as e:
    print(f"client error after {steps} steps: {e!r}")
print(f"steps sent: {steps} in {time.time()-start:.1f} s, status counts {codes}, VmHWM {hwm()}")
# Phase 1b: messages of 0.9 MB (under a 1 MiB per-message limit) on a fresh episode.
st, body = post("/v1/envs/e2/episodes", {"index": 1, "max_turns": 64, "tool_budget": 64})
if st == 201:
    ep = json.loads(body)["episode_id"]
    msg["message"]["content"] = "p" * 900_000
    start = time.time(); codes = {}; steps = 0
    try:
        while time.time() - start < 15 and steps < 2000:
            st, body = post(f"/v1/episodes/{ep}/step", msg)
            codes[st] = codes.get(st, 0) + 1; steps += 1
            if st != 200 and codes[st] == 1:
                print(f"0.9 MB steps: first {st} after {steps - 1} accepted: {body[:300]!r}")
            if sum(v for k, v in codes.items() if k != 200) >= 20:
                break
    except Exception as e:
        print(f"client error after {steps} steps: {e!r}")
    print(f"0.9 MB steps sent: {steps}, status counts {codes}, VmHWM {hwm()}")
# Phase 2: many episodes.
conn.close(); conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
codes = {}
for i in range(300):
    try:
        st, _ = post("/v1/envs/e2/episodes", {"index": i % 20})
    except Exception as e:
        st = repr(e)[:40]; conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    codes[st] = codes.get(st, 0) + 1
conn.request("GET", "/metrics"); m = conn.getresponse().read().decode()
live = [l for l in m.splitlines() if l.startswith(("svbench_live_episodes", "svbench_episode_bytes"))]
print(f"300 resets: {codes}; {live}; VmHWM {hwm()}")
PY
stop_server
