#!/usr/bin/env bash
# Item 11b: a request declaring a 1 GB Content-Length and sending no body:
# how long until the server answers (413 expected at once)?
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
. $REPRO/serve-lib.sh
start_server item11-content-length
python3 - "$URL" <<'PY'
import socket, sys, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
for path in ("/v1/envs/e1/score", "/v1/envs/e2/episodes"):
    s = socket.create_connection((u.hostname, u.port)); s.settimeout(60)
    t = time.time()
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 1000000000\r\n\r\n{{".encode())
    try:
        data = s.recv(4096)
    except socket.timeout:
        data = b"(no answer in 60 s)"
    print(f"{path}: answer after {time.time()-t:.3f} s: {data.splitlines()[0] if data else b'(closed)'}; {data[-160:]!r}")
    s.close()
PY
stop_server
