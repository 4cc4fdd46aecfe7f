#!/usr/bin/env python3
"""Single convolution layers, weft against ONNX Runtime, alternated.

    bench/compare/conv_layers.py --weft build/tools/weft [--threads 1]
        [--rounds 2] [--runs 100] [--out DIR] [LAYER ...]

A LAYER is NxHxWxC:OUT:kK:dD[:sS], e.g. 1x33x33x256:256:k3:d12 (batch 1,
33x33x256 input, 256 output channels, a KxK filter dilated by D, stride S,
SAME padding, bias and Relu after); OUT `dw` makes it a depthwise layer
(tf.nn.depthwise_conv2d, multiplier 1; an ONNX Conv with one group per
channel), e.g. 1x33x33x1024:dw:k3:d2. For each one the script writes, under
DIR (default ~/.cache/weft-compare/conv_layers), a frozen TensorFlow
GraphDef (NHWC, tf.nn.conv2d with dilations: one Conv2D node; a dilated
depthwise layer is TensorFlow's SpaceToBatchND pair, which weft's optimizer
makes one dilated convolution) and the same
convolution as an NCHW ONNX model (Conv + Relu, no transposes), with one
random input; checks weft's output against TensorFlow's (the model tests'
bound, |a - b| <= 1e-4 |b| + 5e-5 max|B|); then times `weft bench --runs
N` and N ONNX Runtime runs (after 10 warm ones), the two alternated
--rounds times, and prints their medians and ratio. Without LAYERs it runs
the atrous layers of bench/RESULTS.md section 35 (DeepLab's rates 6, 12
and 18 on 33x33 maps, and denser ones).
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

DEFAULT_LAYERS = [
    "1x33x33x256:256:k3:d6", "1x33x33x256:256:k3:d12",
    "1x33x33x256:256:k3:d18", "8x33x33x256:256:k3:d12",
    "1x64x64x128:128:k3:d2", "1x65x65x320:256:k3:d12",
    "8x17x17x256:256:k3:d2",
]


def parse(spec):
    m = re.fullmatch(
        r"(\d+)x(\d+)x(\d+)x(\d+):(\d+|dw):k(\d+):d(\d+)(?::s(\d+))?", spec)
    if not m:
        raise SystemExit("bad layer %r: want NxHxWxC:OUT:kK:dD[:sS], OUT a "
                         "channel count or dw" % spec)
    n, h, w, c = (int(v) for v in m.groups()[:4])
    o = 0 if m.group(5) == "dw" else int(m.group(5))
    k, d = int(m.group(6)), int(m.group(7))
    return n, h, w, c, o, k, d, int(m.group(8) or 1)


def write(spec, out):
    """The layer's files under `out`; returns their common path prefix."""
    import onnx
    import tensorflow as tf
    from onnx import TensorProto, helper, numpy_helper
    n, h, w, c, o, k, d, s = parse(spec)
    base = os.path.join(out, spec.replace(":", "_"))
    if os.path.exists(base + ".onnx"):
        return base
    depthwise = o == 0
    if depthwise:
        o = c
    rng = np.random.default_rng(0)
    fan_in = k * k * (1 if depthwise else c)
    f = (rng.standard_normal((k, k, c, 1 if depthwise else o)) /
         np.sqrt(fan_in)).astype(np.float32)
    b = (rng.standard_normal(o) * 0.1).astype(np.float32)
    x = rng.standard_normal((n, h, w, c)).astype(np.float32)

    @tf.function(input_signature=[tf.TensorSpec((n, h, w, c), tf.float32)])
    def layer(t):
        if depthwise:
            y = tf.nn.depthwise_conv2d(t, f, [1, s, s, 1], "SAME",
                                       dilations=[d, d])
        else:
            y = tf.nn.conv2d(t, f, s, "SAME", dilations=d)
        return tf.nn.relu(tf.nn.bias_add(y, b))

    graph = layer.get_concrete_function().graph.as_graph_def()
    with open(base + ".pb", "wb") as fh:
        fh.write(graph.SerializeToString())
    np.save(base + "_x.npy", x)
    np.save(base + "_want.npy", layer(x).numpy())
    # SAME padding as TensorFlow computes it, extra on the bottom/right.
    pads = []
    for size in (h, w):
        out_size = -(-size // s)
        total = max(0, (out_size - 1) * s + (k - 1) * d + 1 - size)
        pads.append((total // 2, total - total // 2))
    conv = helper.make_node(
        "Conv", ["x", "w", "b"], ["c"], dilations=[d, d], strides=[s, s],
        kernel_shape=[k, k], group=c if depthwise else 1,
        pads=[pads[0][0], pads[1][0], pads[0][1], pads[1][1]])
    model = helper.make_model(
        helper.make_graph(
            [conv, helper.make_node("Relu", ["c"], ["y"])], "layer",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                           [n, c, h, w])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            # [out, in / groups, k, k]; a depthwise filter's one input
            # channel per group is TensorFlow's multiplier axis.
            [numpy_helper.from_array(
                f.transpose((2, 3, 0, 1) if depthwise else (3, 2, 0, 1))
                .copy(), "w"),
             numpy_helper.from_array(b, "b")]),
        opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    np.save(base + "_xc.npy", x.transpose(0, 3, 1, 2).copy())
    onnx.save(model, base + ".onnx")
    return base


def input_name(base):
    import tensorflow as tf
    graph = tf.compat.v1.GraphDef()
    with open(base + ".pb", "rb") as fh:
        graph.ParseFromString(fh.read())
    return next(nd.name for nd in graph.node if nd.op == "Placeholder")


def check(weft, base, threads):
    """weft's output against TensorFlow's, in units of the bound."""
    out = base + "_weft"
    subprocess.run([weft, "run", base + ".pb", "--threads", str(threads),
                    "--input", "%s=%s_x.npy" % (input_name(base), base),
                    "--save", out], check=True, capture_output=True)
    got = np.load(os.path.join(out, sorted(os.listdir(out))[0]))
    want = np.load(base + "_want.npy")
    bound = 1e-4 * np.abs(want) + 5e-5 * np.abs(want).max()
    return float(np.max(np.abs(got - want) / bound))


def weft_median(weft, base, threads, runs):
    r = subprocess.run([weft, "bench", base + ".pb", "--threads", str(threads),
                        "--runs", str(runs), "--input",
                        "%s=%s_x.npy" % (input_name(base), base)],
                       check=True, capture_output=True, text=True)
    m = re.search(r"median ([0-9.]+) (ms|us)", r.stdout + r.stderr)
    return float(m.group(1)) * (1.0 if m.group(2) == "ms" else 1e-3)


def ort_median(base, threads, runs):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(base + ".onnx", options,
                                   providers=["CPUExecutionProvider"])
    x = np.load(base + "_xc.npy")
    for _ in range(10):
        session.run(None, {"x": x})
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        session.run(None, {"x": x})
        times.append(time.perf_counter() - t)
    return float(np.median(times)) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weft", required=True, help="the weft binary")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--out", default=os.path.expanduser(
        "~/.cache/weft-compare/conv_layers"))
    parser.add_argument("layers", nargs="*", default=DEFAULT_LAYERS)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    print("| layer | threads | weft ms | ORT ms | weft / ORT | weft vs TF (x bound) |")
    print("|---|---:|---:|---:|---:|---:|")
    for spec in args.layers:
        base = write(spec, args.out)
        agreement = check(args.weft, base, args.threads)
        for _ in range(args.rounds):
            a = weft_median(args.weft, base, args.threads, args.runs)
            b = ort_median(base, args.threads, args.runs)
            print("| %s | %d | %.3g | %.3g | %.3f | %.2g |" % (
                spec, args.threads, a, b, a / b, agreement), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
