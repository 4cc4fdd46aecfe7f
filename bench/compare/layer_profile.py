#!/usr/bin/env python3
"""Where weft and ONNX Runtime spend one run, layer by layer.

    bench/compare/layer_profile.py --weft build/tools/weft \\
        --graph G.pb --onnx M.onnx --input NAME=IN.npy [--threads 1] \\
        [--group REGEX] [--runs 50] [--top 25] [--ort-statistic min]

Runs the frozen graph G.pb with `weft run --warmup 10 --trace` --traces
times (the per-node times of a warm run, each node's minimum over the
traces) and M.onnx under ONNX Runtime's profiler (each node's median over
--runs runs, after 20 warm runs, or with --ort-statistic min its fastest),
the two taking turns, on the same input and thread count, then groups both
engines' nodes by the first match of --group in their names (ONNX Runtime
names a fused node after its last original node or after an output of the
converted model, which is traced back to the layer that made it; weft
after its first and lists the ops it absorbed; so a group is a layer: by
default Keras layer names such as conv4_block2_2 or block3_conv1) and
prints the groups that differ most. Nodes that match no group are grouped
by their last name component. Where the layers' boundaries differ
(Xception's ReLU before each separable convolution, which ONNX Runtime
fuses into the convolution before it), a coarser --group such as
'(block\\d+)_' compares like with like. The work files of
bench/compare/run.sh (DIR/compare/frozen, onnx, inputs) are what it is
meant for: run.sh converts the models.

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
                 r"|expanded_conv_[a-z]+|conv_(?:dw|pw)_\d+|conv\d_|Conv1_"
                 r"|stem_[a-z]+|predictions|fc\d|pool\d)")


def group_of(name, pattern):
    m = pattern.search(name)
    return m.group(1) if m else name.split("/")[-1][:40]


def weft_trace(args, pattern, path):
    """The per-layer sums of one warm weft run, traced into `path`."""
    cmd = [args.weft, "run", args.graph, "--threads", str(args.threads),
           "--warmup", "10", "--trace", path]
    for spec in args.input:
        cmd += ["--input", spec]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    sums = collections.defaultdict(float)
    for e in events:
        if e.get("ph") == "X":
            sums[group_of(e["name"], pattern)] += e["dur"]
    return sums


def profile_both(args, pattern):
    """Per-layer microseconds of weft and of ONNX Runtime.

    The two take turns: each of --traces rounds traces one weft run (in a
    process of its own) and then profiles its share of ONNX Runtime's
    --runs runs in this one, so that a machine whose speed drifts from
    minute to minute (the Intel Xeon VMs of RESULTS.md sections 16-25 and
    36) slows both alike, rather than whichever engine ran second."""
    import numpy as np
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    weft = {}
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
        done = 0
        for i in range(args.traces):
            sums = weft_trace(args, pattern,
                              os.path.join(tmp, "trace%d.json" % i))
            for k, v in sums.items():
                weft[k] = min(weft.get(k, v), v)
            share = (args.runs * (i + 1)) // args.traces - done
            for _ in range(share):
                session.run(None, feeds)
            done += share
        with open(session.end_profiling()) as f:
            events = json.load(f)
    per_node = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            per_node[e["name"][:-len("_kernel_time")]].append(e["dur"])
    layer_of = ort_layer_names(args.onnx, pattern)
    layers = collections.defaultdict(float)
    for name, durs in per_node.items():
        # The warm-up runs are profiled too: the median (or the fastest) of
        # the last --runs.
        durs = sorted(durs[-args.runs:])
        pick = 0 if args.ort_statistic == "min" else len(durs) // 2
        layers[layer_of(name)] += durs[pick]
    return weft, layers


def ort_layer_names(path, pattern):
    """A function from ONNX Runtime's profiled node names to layers.

    ONNX Runtime's optimized nodes are often named after an output of the
    converted model rather than a layer: tf2onnx names the 1x1 products it
    makes from TensorFlow's convolutions Conv__N, and the NCHWc transformer
    renames a node after its output with "_nchwc" appended (Conv__361:0_nchwc,
    Relu:0_nchwc). Those names are traced back through the converted model:
    the node that produced that output, then the names of its weights
    (named after the layer) and of its data input, then the nodes that
    produced its inputs; the first name that matches the pattern wins."""
    import onnx
    model = onnx.load(path, load_external_data=False)
    producer = {}
    for node in model.graph.node:
        for out in node.output:
            producer[out] = node

    def layer_of(name):
        if pattern.search(name):
            return group_of(name, pattern)
        base = re.sub(r"_nchwc$", "", name)
        start = producer.get(base) or producer.get(base + ":0")
        frontier = [start] if start is not None else []
        seen = set()
        for _ in range(2):  # the node, then the nodes that made its inputs
            following = []
            for node in frontier:
                if id(node) in seen:
                    continue
                seen.add(id(node))
                # Weights and biases (a node's later inputs) before the
                # data it reads, which another layer made.
                names = [node.name] + list(node.output) + list(node.input[1:])
                for candidate in names + list(node.input[:1]):
                    if pattern.search(candidate):
                        return group_of(candidate, pattern)
                following += [producer[i] for i in node.input if i in producer]
            frontier = following
        return group_of(name, pattern)

    return layer_of


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
    p.add_argument("--ort-statistic", choices=("median", "min"),
                   default="median",
                   help="ONNX Runtime's time per node: the median of its "
                   "runs, or the fastest, as weft's (on a VM whose speed "
                   "moves from run to run, the two minima compare like "
                   "with like)")
    args = p.parse_args()
    pattern = re.compile(args.group)
    weft, ort = profile_both(args, pattern)
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
