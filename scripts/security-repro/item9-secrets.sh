#!/usr/bin/env bash
# Item 9: secrets in a base URL (a key in the path, `?code=…`, `?x=sk-…`)
# against an endpoint where nothing listens: are they written into
# metadata.json (endpoint.base_url, argv), results.jsonl or printed?
set -u
REPRO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; export REPRO
REPO="$(cd "$REPRO/../.." && pwd)"
: "${SVBENCH:?set SVBENCH to the svbench binary}"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
url='http://127.0.0.1:9/v1/key/sk-abc123def456ghi789?code=s3cret-c0de-value&x=sk-qwerty12345zz&api-version=2024-06-01'
( ulimit -v 6000000; /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o time \
    timeout 120 env XDG_CACHE_HOME="$dir/cache" "$SVBENCH" eval e1 --model m --base-url "$url" -n 2 \
    --max-retries 0 --max-consecutive-errors 1 --no-progress --output-dir evals > out 2>&1 )
leaks=0
for s in sk-abc123def456ghi789 s3cret-c0de-value sk-qwerty12345zz; do
  n=$( { cat out; find evals cache -type f -exec cat {} + 2>/dev/null; } | grep -a -o -- "$s" | wc -l)
  echo "secret $s: $n occurrence(s) in output and files"
  leaks=$((leaks + n))
done
echo "RESULT item9-secrets $(tail -1 time) leaks=$leaks"
echo "--- endpoint.base_url and argv recorded:"
find evals -name metadata.json -exec python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["endpoint"]); print(m["argv"])' {} \;
echo "--- printed:"; head -c 800 out; echo
