#!/usr/bin/env bash
# The CPU kernel paths of one portable binary side by side with a binary
# built for the machine (-march=native), interleaved: each round runs every
# (model, threads) pair once on each of
#   native     NATIVE_CLI (WEFT_CPU_ARCH=native, its widest path)
#   portable   PORTABLE_CLI (WEFT_CPU_ARCH=x86-64-v2), the detected path
#   avx2       PORTABLE_CLI with WEFT_CPU_ISA=avx2
#   baseline   PORTABLE_CLI with WEFT_CPU_ISA=baseline
# one after the other, so that a change in the machine's load falls on all
# four alike. Prints one line per run (`weft bench`'s median), then per
# (model, threads, binary) the median over rounds and its range.
#
#   bench/isa_paths.sh NATIVE_CLI PORTABLE_CLI [ROUNDS]
#
# Models: MobileNetV2 (tests/models, 96x96, batch 1), the transformer
# encoder and the reduced ConvNeXt of tests/models at their fixtures' batch
# of 2, and ResNet50 (224x224, batch 1, the SavedModel
# bench/compare/make_saved_model.py writes to
# ~/.cache/weft-compare/resnet50_savedmodel), at 1 and 2 threads.
set -euo pipefail
cd "$(dirname "$0")/.."
native=${1:?usage: bench/isa_paths.sh NATIVE_CLI PORTABLE_CLI [ROUNDS]}
portable=${2:?usage: bench/isa_paths.sh NATIVE_CLI PORTABLE_CLI [ROUNDS]}
rounds=${3:-5}
resnet=${RESNET50:-$HOME/.cache/weft-compare/resnet50_savedmodel}

# name|bench arguments|runs
models=("mobilenet_v2|tests/models/testdata/mobilenet_v2.pb --input x=random:1,96,96,3|500"
        "transformer_encoder|tests/models/testdata/transformer_encoder.pb --input x=random:2,16,64|1000"
        "convnext_reduced|tests/models/testdata/convnext_reduced.pb --input x=random:2,32,32,3|500")
if [ -d "$resnet" ]; then
  models+=("resnet50|$resnet --signature serve --input keras_tensor=random:1,224,224,3|10")
else
  echo "isa_paths: no $resnet; ResNet50 left out" >&2
fi

results=$(mktemp)
trap 'rm -f "$results"' EXIT
uptime
for ((r = 1; r <= rounds; ++r)); do
  for m in "${models[@]}"; do
    IFS='|' read -r name args runs <<<"$m"
    for threads in 1 2; do
      for binary in native portable avx2 baseline; do
        cli=$portable isa=
        case $binary in
          native) cli=$native ;;
          avx2 | baseline) isa=$binary ;;
        esac
        # shellcheck disable=SC2086
        median=$(WEFT_CPU_ISA=$isa "$cli" bench $args --runs "$runs" \
                   --warmup 3 --threads "$threads" |
                 sed -n 's/^latency: .*median \([0-9.]*\) \([mu]\?s\).*/\1 \2/p')
        # In ms whatever the unit.
        ms=$(awk -v v="${median% *}" -v u="${median#* }" \
               'BEGIN { printf "%.3f", u == "s" ? v * 1000 : (u == "us" ? v / 1000 : v) }')
        echo "round $r $name threads=$threads $binary $ms ms"
        echo "$name $threads $binary $ms" >>"$results"
      done
    done
  done
done
uptime
echo
echo "model threads binary: median of the rounds' medians (min-max), ms"
python3 - "$results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    model, threads, binary, ms = line.split()
    key = (model, int(threads), binary)
    if key not in runs:
        order.append(key)
    runs[key].append(float(ms))
for key in order:
    v = runs[key]
    print("%s %d %s: %.3f (%.3f-%.3f)" % (*key, statistics.median(v), min(v), max(v)))
PY
