#!/usr/bin/env python3
"""Where weft and ONNX Runtime spend one run, layer by layer.

    bench/compare/layer_profile.py --weft build/tools/weft \\
        --graph G.pb --onnx M.onnx --input NAME=IN.npy [--threads 1] \\
        [--group REGEX] [--runs 50] [--top 25]

Runs the frozen graph G.pb with `weft run --warmup 10 --trace` a few times
(the per-node times of a warm run, each node's minimum over the traces) and
M.onnx under ONNX Runtime's profiler (each node's median over --runs runs,
after 20 warm runs), on the same input and thread count, then groups both
engines' nodes by the first match of --group in their names (ONNX Runtime
names a fused node after its last original node, weft after its first and
lists the ops it absorbed, so a group is a layer: by default Keras layer
names such as conv4_block2_2 or block3_conv1) and prints the groups that
differ most. Nodes that match no group are grouped by their last name
component. The work files of bench/compare/run.sh (DIR/compare/frozen,
onnx, inputs) are what it is meant for: run.sh converts the models.

What it shows is one warm run's time per layer; the totals differ from a
timed run's by the engines' per-node overhead and by the trace's own cost
(a clock read per node for weft).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

DEFAULT_GROUP = (r"(conv\d_block\d+_\d|block_\d+_[a-z]+|block\d+[a-z]?_[a-z]+\d?"
                 r"|conv_(?:dw|pw)_\d+|conv\d_|stem_[a-z]+|predictions|fc\d"
                 r"|pool\d)")


def group_of(name, pattern):
    m = pattern.search(name)
    return m.group(1) if m else name.split("/")[-1][:40]


def weft_layers(args, pattern):
    best = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.traces):
            trace = os.path.join(tmp, "trace%d.json" % i)
            cmd = [args.weft, "run", args.graph, "--threads", str(args.threads),
                   "--warmup", "10", "--trace", trace]
            for spec in args.input:
                cmd += ["--input", spec]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            with open(trace) as f:
                events = json.load(f)["traceEvents"]
            sums = collections.defaultdict(float)
            for e in events:
                if e.get("ph") == "X":
                    sums[group_of(e["name"], pattern)] += e["dur"]
            for k, v in sums.items():
                best[k] = min(best.get(k, v), v)
    return best


def ort_layers(args, pattern):
    import numpy as np
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    with tempfile.TemporaryDirectory() as tmp:
        options.profile_file_prefix = os.path.join(tmp, "ort")
        session = ort.InferenceSession(args.onnx, options,
                                       providers=["CPUExecutionProvider"])
        feeds = {}
        inputs = [i.name for i in session.get_inputs()]
        for k, spec in enumerate(args.input):
            _, path = spec.split("=", 1)
            feeds[inputs[k]] = np.load(path)
        for _ in range(20):
            session.run(None, feeds)
        for _ in range(args.runs):
            session.run(None, feeds)
        with open(session.end_profiling()) as f:
            events = json.load(f)
    per_node = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            per_node[e["name"][:-len("_kernel_time")]].append(e["dur"])
    layers = collections.defaultdict(float)
    for name, durs in per_node.items():
        # The warm-up runs are profiled too: the median of the last --runs.
        durs = sorted(durs[-args.runs:])
        layers[group_of(name, pattern)] += durs[len(durs) // 2]
    return layers


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--weft", required=True, help="the weft CLI")
    p.add_argument("--graph", required=True, help="frozen GraphDef for weft")
    p.add_argument("--onnx", required=True, help="ONNX model for ORT")
    p.add_argument("--input", action="append", required=True,
                   help="NAME=FILE.npy (weft's name; ORT takes its inputs "
                   "in order)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--group", default=DEFAULT_GROUP,
                   help="regex whose first group names a layer")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--traces", type=int, default=3)
    p.add_argument("--top", type=int, default=25)
    args = p.parse_args()
    pattern = re.compile(args.group)
    weft = weft_layers(args, pattern)
    ort = ort_layers(args, pattern)
    print("sum of layers: weft %.2f ms, ONNX Runtime %.2f ms" %
          (sum(weft.values()) / 1e3, sum(ort.values()) / 1e3))
    print("| layer | weft us | ORT us | weft - ORT |")
    print("|---|---:|---:|---:|")
    keys = sorted(set(weft) | set(ort),
                  key=lambda k: -abs(weft.get(k, 0) - ort.get(k, 0)))
    for k in keys[:args.top]:
        w, o = weft.get(k, 0.0), ort.get(k, 0.0)
        print("| %s | %.0f | %.0f | %+.0f |" % (k, w, o, w - o))
    return 0


if __name__ == "__main__":
    sys.exit(main())
