#!/usr/bin/env bash
# Runs every benchmark that bench/RESULTS.md reports and keeps the raw
# output: the machine and load, the executor microbenchmarks, the kernel
# microbenchmarks (with their fraction-of-reference summary) and the peer
# comparison at 1 and 2 threads.
#
#   bench/run_all.sh [--build-dir DIR] [--nice N] [--quick]
#
# DIR (default build/) is configured as Release if it does not exist yet
# and the benchmark targets are built in it. Results go to
# DIR/bench-results/<date>-<time>/. --nice N runs the measurements at that
# niceness (a negative N needs root), for a machine others are using: with
# autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled), niceness
# only ranks processes within one session and each session gets an equal
# share of the CPUs, so N is also given to this session's autogroup for the
# duration of the script. --quick cuts the minimum time per microbenchmark
# and the comparison's rounds, to check that everything runs.
#
# OpenBLAS, the matrix-product reference, picks its kernels by CPU model
# unless OPENBLAS_CORETYPE (or OPENBLAS_L2_SIZE) in the environment says
# otherwise; this script unsets both so that the reference is OpenBLAS at
# its best on this machine, and records what they were in machine.txt.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$repo/build"
nice_level=0
quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$(realpath -m "$2")"; shift 2 ;;
    --nice) nice_level="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "run_all.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" --target weft_executor_bench weft_kernels_bench \
  weft_compare_worker weft_cli

openblas_env="OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE:-unset}"
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE

autogroup=/proc/$$/autogroup
if [ "$nice_level" != 0 ] && [ -w "$autogroup" ] &&
   [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
  old_group_nice="$(awk '{print $3}' "$autogroup")"
  trap 'echo "$old_group_nice" > "$autogroup"' EXIT
  echo "$nice_level" > "$autogroup"
fi

out="$build/bench-results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
run() { nice -n "$nice_level" "$@"; }

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit: $(git -C "$repo" rev-parse HEAD)$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "cores: $(nproc)"
  echo "flags: $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "memory: $(free -g | awk '/Mem:/ {print $2 " GiB"}')"
  echo "kernel: $(uname -r)"
  echo "compiler: $(c++ --version | head -1)"
  echo "OpenBLAS environment found (unset for the runs): $openblas_env"
  echo "niceness: $nice_level ($(cat "$autogroup" 2>/dev/null || echo 'no autogroup'))"
  echo "uptime at start: $(uptime)"
} > "$out/machine.txt"
cat "$out/machine.txt"

min_time=()
compare_opts=()
if [ "$quick" = 1 ]; then
  min_time=(--benchmark_min_time=0.01)
  compare_opts=(--runs 3 --warmup 1)
fi

echo "== executor microbenchmarks" >&2
run "$build/bench/weft_executor_bench" --benchmark_counters_tabular=true \
  "${min_time[@]}" 2>&1 | tee "$out/executor.txt"
echo "uptime after executor: $(uptime)" >> "$out/machine.txt"

echo "== kernel microbenchmarks" >&2
run "$build/bench/weft_kernels_bench" "${min_time[@]}" 2>&1 | tee "$out/kernels.txt"
echo "uptime after kernels: $(uptime)" >> "$out/machine.txt"

for threads in 1 2; do
  echo "== peer comparison, $threads thread(s)" >&2
  run "$repo/bench/compare/run.sh" --build-dir "$build" --threads "$threads" \
    --json "$out/compare_t$threads.json" "${compare_opts[@]}" \
    2> "$out/compare_t$threads.log" | tee "$out/compare_t$threads.txt"
  echo "uptime after compare t$threads: $(uptime)" >> "$out/machine.txt"
done

echo "results in $out" >&2
