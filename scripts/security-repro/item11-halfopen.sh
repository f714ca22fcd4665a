#!/usr/bin/env bash
# Item 11c: a bounded flood of half-open loopback sockets (at most 2,000
# held, for at most 20 s; some silent, some with half a request head)
# while /healthz is asked on fresh connections: fraction of failures.
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
. $REPRO/serve-lib.sh
start_server item11-halfopen
python3 - "$URL" <<'PY'
import socket, sys, time, threading, urllib.parse
u = urllib.parse.urlparse(sys.argv[1]); addr = (u.hostname, u.port)
stop = time.time() + 20; held = []; opened = [0]
def flood():
    while time.time() < stop:
        try:
            s = socket.create_connection(addr, timeout=2)
            if opened[0] % 2: s.sendall(b"GET /healthz HTT")
            held.append(s); opened[0] += 1
        except OSError:
            time.sleep(0.01)
        while len(held) > 2000:
            held.pop(0).close()
t = threading.Thread(target=flood, daemon=True); t.start()
time.sleep(1)
ok = fail = 0; worst = 0.0
while time.time() < stop:
    t0 = time.time()
    try:
        s = socket.create_connection(addr, timeout=5); s.settimeout(5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = s.recv(64); s.close()
        if data.startswith(b"HTTP/1.1 200"): ok += 1
        else: fail += 1
    except OSError:
        fail += 1
    worst = max(worst, time.time() - t0)
    time.sleep(0.05)
t.join()
for s in held: s.close()
print(f"flood sockets opened: {opened[0]} (≤ 2000 held); healthz ok={ok} failed={fail} "
      f"failure fraction={fail/max(1,ok+fail):.2%}; slowest healthz {worst*1000:.0f} ms")
PY
stop_server
