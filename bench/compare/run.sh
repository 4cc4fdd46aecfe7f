#!/usr/bin/env bash
# Peer comparison: weft vs TensorFlow vs ONNX Runtime on the same graphs,
# inputs and thread count (see compare.py for what is measured and how).
#
#   bench/compare/run.sh [--build-dir DIR] [--threads N] [--batch 1,8]
#                        [--runs N] [--warmup N] [--json FILE] [GRAPH ...]
#
# GRAPH is a model of tests/models/testdata by name (mlp, cnn, mobilenet_v2,
# transformer_encoder, resnet50 once generated), a .model sidecar, or
# chain:N (an executor stress graph of N Identity nodes), addchain:N (N
# AddV2 nodes on a [1] float: a small real kernel's per-node cost), while:N (one
# tf.while_loop of N iterations on a [1] float: the per-iteration cost is
# the slope between the fewest and the most iterations given), lstm:UNITS or
# gru:UNITS (a Keras LSTM or GRU over [batch, 32 steps, 32 features] with a
# Dense head, generated into DIR/compare/rnn); while, lstm and gru take
# :lowered after them for TF1's lowered loop instead of TF2's functional
# While. By default every model there plus chain:10, chain:1000 and
# chain:10000. GRAPH may also be a
# SavedModel directory (--signature KEY, --tag TAGS pick what to load; one
# float input): weft and TensorFlow then load the directory itself, ONNX
# Runtime runs tf2onnx's conversion of it, and weft also runs the signature
# frozen into a GraphDef, interleaved with the rest
# (bench/compare/make_saved_model.py writes the ResNet50 of RESULTS.md
# section 9). Other options: `run.sh --help`.
#
# What it needs it makes: the weft worker (built in DIR, default build/,
# configured as Release if DIR does not exist yet), and a Python environment
# with tensorflow-cpu, onnxruntime, tf2onnx, onnx and numpy from PyPI: the
# one in $WEFT_COMPARE_VENV (default ~/.cache/weft-compare/venv), made and
# filled on first use. /tmp/tfvenv is used instead when it already has all
# of them; $WEFT_COMPARE_PYTHON, when set, is used as it is. Work files (ONNX conversions, inputs, logs, every engine's
# outputs) go to DIR/compare. The test suite never needs any of this.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${WEFT_BUILD_DIR:-$repo/build}"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$(realpath -m "$2")"; shift 2 ;;
    --build-dir=*) build="$(realpath -m "${1#*=}")"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done

modules="import tensorflow, onnxruntime, tf2onnx, onnx, numpy"
python=""
if [ -n "${WEFT_COMPARE_PYTHON:-}" ]; then
  python="$WEFT_COMPARE_PYTHON"
elif [ -x /tmp/tfvenv/bin/python ] &&
   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python -c "$modules" 2>/dev/null; then
  python=/tmp/tfvenv/bin/python
else
  venv="${WEFT_COMPARE_VENV:-$HOME/.cache/weft-compare/venv}"
  if [ ! -x "$venv/bin/python" ]; then
    echo "compare: making a Python environment in $venv" >&2
    python3 -m venv "$venv"
  fi
  if ! TF_CPP_MIN_LOG_LEVEL=3 "$venv/bin/python" -c "$modules" 2>/dev/null; then
    echo "compare: installing tensorflow-cpu onnxruntime tf2onnx onnx numpy into $venv" >&2
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet tensorflow-cpu onnxruntime tf2onnx onnx numpy
  fi
  python="$venv/bin/python"
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
if ! cmake --build "$build" --target weft_compare_worker >/dev/null; then
  echo "compare: could not build weft_compare_worker in $build" \
       "(is it configured with -DWEFT_BUILD_BENCH=ON?)" >&2
  exit 1
fi

exec "$python" "$repo/bench/compare/compare.py" \
  --work "$build/compare" --weft-worker "$build/bench/weft_compare_worker" \
  "${args[@]}"
