#!/usr/bin/env python3
"""Refreshes the measured tables of bench/RESULTS.md from a results folder
written by bench/run_all.sh.

    python3 bench/update_results.py build/bench-results/20261121-072531

RESULTS.md keeps its prose; only the text between each pair of markers

    <!-- begin:NAME -->
    ...
    <!-- end:NAME -->

is replaced, with NAME one of: machine, executor, executor-slopes, matmul,
conv, cwise, reduce, compare-t1, compare-t2. The prose quotes figures too:
reread it against the new tables.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read(path):
    with open(path) as f:
        return f.read()


def machine(results):
    fields = {}
    uptimes = []
    for line in read(os.path.join(results, "machine.txt")).splitlines():
        key, _, value = line.partition(": ")
        if key.startswith("uptime"):
            uptimes.append("- %s: `%s`" % (key, value.strip()))
        else:
            fields[key] = value
    flags = fields.get("flags", "")
    simd = [f for f in flags.split() if re.match(r"(sse|avx|fma|amx)", f)]
    lines = [
        "| | |",
        "|---|---|",
        "| date | %s |" % fields.get("date", "?"),
        "| commit | `%s` |" % fields.get("commit", "?"),
        "| CPU | %s, %s cores (`nproc`) |" % (fields.get("cpu", "?"), fields.get("cores", "?")),
        "| SIMD flags | %s |" % " ".join(simd),
        "| memory | %s |" % fields.get("memory", "?"),
        "| kernel, compiler | %s; %s |" % (fields.get("kernel", "?"), fields.get("compiler", "?")),
        "| scheduling | niceness %s |" % fields.get("niceness", "?"),
        "| OpenBLAS variables found, unset for the runs | %s |" % fields.get("OpenBLAS environment found (unset for the runs)", "?"),
        "",
        "Load while measuring (`uptime`):",
        "",
    ]
    return "\n".join(lines + uptimes)


BM_LINE = re.compile(r"^(BM_\S+)\s+([\d.]+) (\w+)\s+([\d.]+) (\w+)\s+(\d+)\s+(.*)$")


def executor_rows(results):
    rows = []
    for line in read(os.path.join(results, "executor.txt")).splitlines():
        m = BM_LINE.match(line)
        if m:
            counters = m.group(7).split()
            rows.append((m.group(1), float(m.group(2)), m.group(3), counters[-1]))
    return rows


def to_ns(value, unit):
    return value * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def executor(results):
    lines = ["| benchmark | real time | ns per node (time / nodes) |", "|---|---:|---:|"]
    for name, value, unit, per_node in executor_rows(results):
        lines.append("| %s | %g %s | %s |" % (name, value, unit, per_node))
    return "\n".join(lines)


def executor_slopes(results):
    times = {}
    for name, value, unit, _ in executor_rows(results):
        m = re.match(r"BM_(Chain|FanOut)/nodes:(\d+)/threads:(\d+)", name)
        if m:
            times[(m.group(1), int(m.group(3)), int(m.group(2)))] = to_ns(value, unit)
    lines = ["| graph | threads | per-node cost: slope 10 to 10,000 nodes | fixed part (intercept) |",
             "|---|---:|---:|---:|"]
    for kind in ("Chain", "FanOut"):
        for threads in (0, 1, 2):
            lo, hi = times.get((kind, threads, 10)), times.get((kind, threads, 10000))
            if lo is None or hi is None:
                continue
            # A fan-out of N runs N + 1 nodes (the join); the slope is the same.
            slope = (hi - lo) / (10000 - 10)
            lines.append("| %s | %d | %.1f ns | %.0f ns |" % (
                "chain" if kind == "Chain" else "fan-out", threads, slope, lo - 10 * slope))
    return "\n".join(lines)


def kernel_summary(results):
    text = read(os.path.join(results, "kernels.txt"))
    rows = [l for l in text.splitlines() if l.startswith("| ") and not l.startswith("| benchmark")]
    return rows


HEADER = "| benchmark | weft | reference | reference figure | fraction |\n|---|---:|---|---:|---:|"


def kernel_section(results, prefixes):
    rows = [r for r in kernel_summary(results)
            if any(r.startswith("| " + p) for p in prefixes)]
    return HEADER + "\n" + "\n".join(rows)


def compare(results, threads):
    path = os.path.join(results, "compare_t%d.txt" % threads)
    if not os.path.exists(path):
        return "(not run)"
    out = []
    for line in read(path).strip().splitlines():
        if re.match(r"(machine|engines|threads|load average at the end): ", line):
            line = "- " + line  # the run's header, one item a line
        elif line and not line.startswith(("|", "- ")):
            line = "**%s**" % line  # a table's title
        out.append(line)
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results = sys.argv[1]
    sections = {
        "machine": machine(results),
        "executor": executor(results),
        "executor-slopes": executor_slopes(results),
        "matmul": kernel_section(results, ["MatMul", "BatchMatMulV2"]),
        "conv": kernel_section(results, ["Conv2D", "DepthwiseConv2dNative"]),
        "cwise": kernel_section(results, ["Relu", "Exp", "Tanh", "Sigmoid", "AddV2", "Mul/"]),
        "reduce": kernel_section(results, ["Sum", "Max", "Mean", "Softmax", "Transpose"]),
        "compare-t1": compare(results, 1),
        "compare-t2": compare(results, 2),
    }
    path = os.path.join(HERE, "RESULTS.md")
    text = read(path)
    for name, body in sections.items():
        pattern = re.compile(r"(<!-- begin:%s -->\n).*?(<!-- end:%s -->)" % (name, name), re.S)
        if not pattern.search(text):
            sys.exit("update_results: RESULTS.md has no markers for '%s'" % name)
        text = pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
