#!/usr/bin/env python3
"""One graph under several weft environment settings, interleaved.

    bench/compare/env_ab.py --worker build/bench/weft_compare_worker
        [--worker OTHER_BUILD/bench/weft_compare_worker ...] --graph G.pb
        --input NAME=IN.npy --output NAME [--output ...] [--onnx G.onnx]
        [--threads 1] [--rounds 10] [--runs 4] [--gap-ms 100]
        [--write-chain L:NxHxWxC] SETTING [SETTING ...]

A SETTING is a space-separated list of VAR=VALUE ("WEFT_CPU_ISA=avx2
WEFT_SEPARABLE_FUSION=0"); "-" is the environment as it is. Each worker
(two builds, to compare a change) under each setting is one engine, a
weft_compare_worker process of its own, and ONNX Runtime on --onnx, when
given, another (workers.py's, as compare.py runs it; set PYTHONPATH to
ort_without_avx512.py's copy for its AVX2 code); each is compare.py's
Worker, its stderr in a log under a temporary directory, loaded and warmed
once. Then every round times --runs runs of each engine in turn, pausing
--gap-ms before each so that the previous engine's spinning threads have
gone to sleep.
Each round keeps each engine's fastest run; the report gives per engine the
median of those, the fastest of all, and the median over rounds of its
round's fastest divided by the first engine's: the ratio of one interleaved
run, which on a machine whose speed moves from minute to minute
(bench/RESULTS.md section 36) is the figure to compare, with the rounds'
spread beside it.

With --write-chain L:NxHxWxC it first writes (under --graph, --onnx and
--input's file) a frozen chain of L separable layers (Relu, 3x3 depthwise,
1x1 to C channels, bias; each layer its own random weights) of an NxHxWxC
input, output "y", and its tf2onnx conversion: Xception's middle flow
without the residuals, whose weights (L x C x C floats) do not stay in
cache from one run to the next as a single layer's do.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import compare


def write_chain(spec, pb_path, onnx_path, input_path):
    import tensorflow as tf
    import tf2onnx
    import onnx
    layers, shape = spec.split(":")
    layers = int(layers)
    n, h, w, c = (int(v) for v in shape.split("x"))
    rng = np.random.default_rng(2026)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [n, h, w, c], name="x")
        y = x
        for _ in range(layers):
            depthwise = (rng.standard_normal((3, 3, c, 1)) * 0.3).astype(
                np.float32)
            pointwise = (rng.standard_normal(
                (1, 1, c, c)) / np.sqrt(c)).astype(np.float32)
            bias = (rng.standard_normal(c) * 0.1).astype(np.float32)
            y = tf.nn.bias_add(
                tf.nn.separable_conv2d(tf.nn.relu(y), tf.constant(depthwise),
                                       tf.constant(pointwise), [1, 1, 1, 1],
                                       "SAME"), tf.constant(bias))
        tf.identity(y, name="y")
    graph_def = graph.as_graph_def()
    with open(pb_path, "wb") as f:
        f.write(graph_def.SerializeToString())
    np.save(input_path, rng.standard_normal((n, h, w, c)).astype(np.float32))
    model, _ = tf2onnx.convert.from_graph_def(
        graph_def, input_names=["x:0"], output_names=["y:0"], opset=17)
    onnx.save(model, onnx_path)


def settings_of(setting):
    """The environment variables of one SETTING ("-": none)."""
    settings = {}
    for item in [] if setting == "-" else setting.split():
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise RuntimeError(f"setting {setting!r}: {item!r} is not "
                               "VAR=VALUE")
        settings[name] = value
    return settings


def start(name, command, args, log_dir, outputs, settings=None):
    """compare.py's Worker for `command` fetching `outputs`, loaded and
    warmed."""
    for spec in args.input:
        command += ["--input", spec]
    for output in outputs:
        command += ["--output", output]
    command += ["--threads", str(args.threads)]
    log = os.path.join(log_dir, f"{len(os.listdir(log_dir))}.log")
    worker = compare.Worker(name, command, log, settings)
    worker.ask("load")
    worker.ask("warm 2000")
    return worker


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="append", required=True)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--input", action="append", required=True)
    parser.add_argument("--output", action="append", required=True)
    parser.add_argument("--onnx")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--gap-ms", type=float, default=100)
    parser.add_argument("--write-chain", metavar="L:NxHxWxC")
    parser.add_argument("settings", nargs="+")
    args = parser.parse_args()
    if args.write_chain:
        if not args.onnx or len(args.input) != 1:
            sys.exit("env_ab.py: --write-chain needs --onnx and one --input")
        write_chain(args.write_chain, args.graph, args.onnx,
                    args.input[0].split("=", 1)[1])
    log_dir = tempfile.mkdtemp(prefix="env_ab-")
    engines, names = [], []
    for worker in args.worker:
        for setting in args.settings:
            engines.append(start("weft", [worker, "--graph", args.graph], args,
                                 log_dir, args.output, settings_of(setting)))
            names.append((f"{worker} " if len(args.worker) > 1 else "") +
                         setting)
    if args.onnx:
        workers_py = os.path.join(os.path.dirname(__file__), "workers.py")
        # All of its outputs: tf2onnx does not always keep the graph's
        # output names, and only the time is compared.
        engines.append(start("ort", [sys.executable, workers_py, "ort",
                                     "--model", args.onnx], args, log_dir, []))
        names.append("ONNX Runtime")
    fastest = [[] for _ in engines]
    for _ in range(args.rounds):
        for engine, times in zip(engines, fastest):
            time.sleep(args.gap_ms / 1000)
            times.append(min(engine.ask(f"run {args.runs}")["times"]))
    for engine in engines:
        engine.close()
    width = max(len(n) for n in names)
    for name, times in zip(names, fastest):
        ratios = [t / f for t, f in zip(times, fastest[0])]
        print(f"{name:<{width}}  median {1e3 * statistics.median(times):.2f}"
              f" ms  fastest {1e3 * min(times):.2f} ms  / first: median "
              f"{statistics.median(ratios):.3f} (rounds "
              f"{min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    try:
        main()
    except (OSError, RuntimeError) as e:  # no worker; its error; it exited
        sys.exit(f"env_ab.py: {e}")
