#!/usr/bin/env bash
# Two weft binaries side by side on the same models, interleaved: each round
# runs every (model, threads) pair once on OLD_CLI and then on NEW_CLI, so
# that a change in the machine's load falls on both alike. Written for the
# constant-weight packing of issue 15 (bench/RESULTS.md section 14); any two
# builds compare the same way. Prints one line per run (`weft bench`'s
# median, and the wall time of a session load plus one run), then per
# (model, threads, binary) the median over rounds and its range.
#
#   bench/prepack_compare.sh OLD_CLI NEW_CLI [ROUNDS]
#
# Models: MobileNetV2 of tests/models (96x96, its fixture input) and the
# keras.applications SavedModels under $KERAS_APPS (default
# ~/.cache/weft-compare/keras_apps, 96x96, batch 1; the ones present of
# $MODELS), at 1 and 2 threads.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bench/prepack_compare.sh OLD_CLI NEW_CLI [ROUNDS]}
new=${2:?usage: bench/prepack_compare.sh OLD_CLI NEW_CLI [ROUNDS]}
rounds=${3:-3}
apps=${KERAS_APPS:-$HOME/.cache/weft-compare/keras_apps}
keras=${MODELS:-mobilenet resnet50_v2 vgg16 xception densenet121 efficientnet_b0 inception_v3}

# name|bench arguments|runs
models=("mobilenet_v2.pb|tests/models/testdata/mobilenet_v2.pb --input x=tests/models/testdata/mobilenet_v2_input.npy|300")
for m in $keras; do
  [ -d "$apps/$m" ] || { echo "prepack_compare: no $apps/$m" >&2; continue; }
  key=$("$old" inspect "$apps/$m" | sed -n 's/^ *\(keras_tensor[_0-9]*\): float.*/\1/p' | head -1)
  models+=("$m|$apps/$m --input $key=random:1,96,96,3|50")
done

results=$(mktemp)
trap 'rm -f "$results"' EXIT
uptime
for ((r = 1; r <= rounds; ++r)); do
  for m in "${models[@]}"; do
    IFS='|' read -r name args runs <<<"$m"
    for threads in 1 2; do
      for binary in old new; do
        cli=$old
        [ "$binary" = new ] && cli=$new
        # shellcheck disable=SC2086
        median=$("$cli" bench $args --runs "$runs" --warmup 5 \
                   --threads "$threads" |
                 sed -n 's/^latency: .*median \([0-9.]*\) \([mu]\?s\).*/\1 \2/p')
        ms=$(awk -v v="${median% *}" -v u="${median#* }" \
               'BEGIN { printf "%.3f", u == "s" ? v * 1000 : (u == "us" ? v / 1000 : v) }')
        # Load (file to a prepared session) plus one run, wall time.
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$cli" bench $args --runs 1 --warmup 0 --threads "$threads" >/dev/null
        load=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
        echo "round $r $name threads=$threads $binary $ms ms (load+1 run $load ms)"
        echo "$name $threads $binary $ms $load" >>"$results"
      done
    done
  done
done
uptime
echo
echo "model threads: old, new (median of the rounds' medians, min-max, ms), new/old; load+1 run old, new (ms)"
python3 - "$results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
loads = collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    model, threads, binary, ms, load = line.split()
    key = (model, int(threads))
    if key not in order:
        order.append(key)
    runs[key + (binary,)].append(float(ms))
    loads[key + (binary,)].append(float(load))
for key in order:
    o, n = runs[key + ("old",)], runs[key + ("new",)]
    mo, mn = statistics.median(o), statistics.median(n)
    print("| %s | %d | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %.2f | %.0f | %.0f |" % (
        *key, mo, min(o), max(o), mn, min(n), max(n), mn / mo,
        statistics.median(loads[key + ("old",)]),
        statistics.median(loads[key + ("new",)])))
PY
