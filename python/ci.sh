#!/usr/bin/env bash
# Python CI step: builds the svbench wheel with maturin in a fresh virtualenv,
# installs it with verifiers (classic API, < 0.4), pytest, hypothesis and
# numpy, and runs python/tests. Expects the release CLI to be built already
# (`cargo test --workspace --release` or `cargo build --release`): the parity
# tests compare against `svbench eval --model builtin:replay:FILE`.
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
echo "== python: fresh virtualenv ($("$python" --version))"
"$python" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install maturin 'verifiers>=0.1.9,<0.4' datasets pytest hypothesis numpy

echo "== python: maturin build --release (abi3 wheel)"
"$work/venv/bin/maturin" build --release --locked -m python/Cargo.toml \
  -i "$work/venv/bin/python" --out "$work/wheels"
"${pip[@]}" install --no-index --no-deps "$work"/wheels/svbench-*.whl

echo "== python: pytest"
cd python/tests
SVBENCH_BIN="$svbench_bin" NO_COLOR=1 "$work/venv/bin/python" -m pytest -q -p no:cacheprovider .
