#!/usr/bin/env python3
"""Writes tests/kernels/testdata/cpu_kernel_goldens.txt: reference outputs of
TensorFlow's own CPU kernels for the cases cpu_golden_test.cc replays.

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it (pip install tensorflow-cpu numpy):

    python3 tests/kernels/gen_kernel_goldens.py [--out FILE]

Every value comes from tf.raw_ops on /CPU:0 with inputs drawn from
numpy.random.default_rng with fixed seeds, so reruns give the same file.
oneDNN is switched off (TF_ENABLE_ONEDNN_OPTS=0) so the references are
TensorFlow's own Eigen kernels, the semantics weft follows; oneDNN's float32
Softmax differs on rows holding NaN or +inf.

Format, one record per case:

    case <name> <op>
    attr <name> bool|string <value>
    in <dtype> <shape> <value> <value> ...
    out <dtype> <shape> <value> <value> ...
    end

<shape> is "2,3", or "scalar" for rank 0. Values are written in the shortest
decimal form that reads back (as double, then rounded to <dtype>) to exactly
the stored value: nan, inf and -inf included.
"""

import argparse
import os
import sys

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

DTYPES = {
    "half": tf.float16,
    "bfloat16": tf.bfloat16,
    "float": tf.float32,
    "double": tf.float64,
    "int32": tf.int32,
    "int64": tf.int64,
}
FLOATS = ["half", "bfloat16", "float", "double"]
INTS = ["int32", "int64"]

# The names tf.raw_ops gives each op's inputs.
INPUT_NAMES = {
    "Add": ("x", "y"),
    "AddV2": ("x", "y"),
    "Sub": ("x", "y"),
    "Mul": ("x", "y"),
    "RealDiv": ("x", "y"),
    "Maximum": ("x", "y"),
    "Minimum": ("x", "y"),
    "MatMul": ("a", "b"),
    "BiasAdd": ("value", "bias"),
    "Relu": ("features",),
    "Relu6": ("features",),
    "Softmax": ("logits",),
    "LogSoftmax": ("logits",),
}


def fmt_value(v, dtype):
    """Shortest text that reads back to exactly v in dtype."""
    if dtype in INTS:
        return str(int(v))
    f = float(v)
    if np.isnan(f):
        return "nan"
    if np.isinf(f):
        return "inf" if f > 0 else "-inf"
    if dtype == "double":
        text = repr(f)
    elif dtype == "float":
        text = str(np.float32(f))
    elif dtype == "half":
        text = str(np.float16(f))
    else:  # bfloat16: the shortest of increasing precision that rounds back
        for digits in range(1, 10):
            text = "%.*g" % (digits, f)
            back = tf.cast(tf.constant(float(text), tf.float32), tf.bfloat16)
            if float(back.numpy()) == f:
                break
    check = tf.cast(tf.constant(float(text), tf.float64), DTYPES[dtype])
    assert float(check.numpy()) == f or (f == 0 and float(check.numpy()) == 0), (
        text, f, dtype)
    if f == 0 and np.signbit(f) and not text.startswith("-"):
        text = "-" + text
    return text


def fmt_tensor(kind, dtype, t):
    arr = t.numpy()
    shape = "scalar" if arr.ndim == 0 else ",".join(str(d) for d in arr.shape)
    flat = arr.reshape(-1)
    if dtype not in INTS:
        flat = flat.astype(np.float64)
    return " ".join([kind, dtype, shape] + [fmt_value(v, dtype) for v in flat])


class Writer:
    def __init__(self):
        self.lines = []
        self.names = set()

    def case(self, name, op, inputs, attrs=None):
        """inputs: list of (dtype, numpy array of float64 or int values)."""
        assert name not in self.names, name
        self.names.add(name)
        attrs = attrs or {}
        with tf.device("/CPU:0"):
            tensors = []
            for dtype, values in inputs:
                values = np.asarray(values)
                if dtype in INTS:
                    tensors.append(tf.constant(values.astype(np.int64),
                                               DTYPES[dtype]))
                else:
                    tensors.append(tf.cast(
                        tf.constant(values.astype(np.float64)), DTYPES[dtype]))
            kwargs = dict(zip(INPUT_NAMES[op], tensors))
            kwargs.update(attrs)
            out = getattr(tf.raw_ops, op)(**kwargs)
        self.lines.append("case %s %s" % (name, op))
        for key, value in sorted(attrs.items()):
            if isinstance(value, bool):
                self.lines.append("attr %s bool %s" % (key, str(value).lower()))
            else:
                self.lines.append("attr %s string %s" % (key, value))
        for (dtype, _), t in zip(inputs, tensors):
            self.lines.append(fmt_tensor("in", dtype, t))
        self.lines.append(fmt_tensor("out", inputs[0][0], out))
        self.lines.append("end")


def floats(rng, shape, low=-3.0, high=3.0, decimals=2, nonzero=False):
    v = np.atleast_1d(np.round(rng.uniform(low, high, size=shape), decimals))
    if nonzero:
        v[v == 0] = 0.5
    return v.reshape(shape)


def ints(rng, shape, low=-20, high=20, nonzero=False):
    v = np.atleast_1d(rng.integers(low, high, size=shape))
    if nonzero:
        v[v == 0] = 1
    return v.reshape(shape)


def values(rng, dtype, shape, nonzero=False):
    if dtype in INTS:
        return ints(rng, shape, nonzero=nonzero)
    return floats(rng, shape, nonzero=nonzero)


NAN, INF = float("nan"), float("inf")


def binary_cases(w):
    ops = ["Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"]
    for i, op in enumerate(ops):
        div = op == "RealDiv"
        for j, dtype in enumerate(FLOATS + INTS):
            if div and dtype in INTS:
                continue  # TensorFlow has no integer RealDiv kernel
            rng = np.random.default_rng(100 * i + j)
            w.case("%s_%s_broadcast" % (op, dtype), op,
                   [(dtype, values(rng, dtype, (2, 1, 3))),
                    (dtype, values(rng, dtype, (4, 1), nonzero=div))])
        rng = np.random.default_rng(1000 + i)
        shape_pairs = {
            "same": ((2, 3), (2, 3)),
            "scalar_left": ((), (3, 2)),
            "scalar_right": ((3, 2), ()),
            "rank5": ((2, 1, 3, 1, 2), (1, 2, 1, 2, 1)),
            "empty": ((0, 3), (1, 3)),
        }
        for label, (xs, ys) in shape_pairs.items():
            w.case("%s_float_%s" % (op, label), op,
                   [("float", floats(rng, xs)),
                    ("float", floats(rng, ys, nonzero=div))])
        w.case("%s_float_special" % op, op,
               [("float", [NAN, INF, -INF, 0.0, -0.0, 1.0, INF, 3.0, -2.0]),
                ("float", [1.0, INF, INF, 0.0, 0.0, NAN, -INF, 0.0, -0.0])])


def matmul_cases(w):
    def mm(name, dtype, m, k, n, ta=False, tb=False, seed=0):
        rng = np.random.default_rng(seed)
        a = floats(rng, (k, m) if ta else (m, k), -1, 1, 3)
        b = floats(rng, (n, k) if tb else (k, n), -1, 1, 3)
        w.case(name, "MatMul", [(dtype, a), (dtype, b)],
               {"transpose_a": ta, "transpose_b": tb})

    seed = 2000
    for ta in (False, True):
        for tb in (False, True):
            seed += 1
            mm("MatMul_float_3x5x4_ta%d_tb%d" % (ta, tb), "float", 3, 5, 4,
               ta, tb, seed)
    mm("MatMul_float_row", "float", 1, 7, 6, seed=2010)
    mm("MatMul_float_k1", "float", 6, 1, 2, seed=2011)
    mm("MatMul_float_k0", "float", 2, 0, 3, seed=2012)
    mm("MatMul_float_m0", "float", 0, 3, 2, seed=2013)
    mm("MatMul_float_16x24x8", "float", 16, 24, 8, seed=2014)
    mm("MatMul_double_ta", "double", 4, 6, 5, ta=True, seed=2015)
    mm("MatMul_half", "half", 3, 8, 4, seed=2016)
    mm("MatMul_bfloat16_tb", "bfloat16", 3, 8, 4, tb=True, seed=2017)


def bias_add_cases(w):
    seed = 3000
    for dtype in FLOATS + INTS:
        shapes = [("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 2, 2))]
        if dtype == "float":
            shapes += [("NHWC", (3, 5)), ("NHWC", (2, 2, 2, 3)),
                       ("NCHW", (2, 4)), ("NCHW", (2, 3, 5)),
                       ("NHWC", (0, 4))]
        for fmt, shape in shapes:
            seed += 1
            rng = np.random.default_rng(seed)
            c = shape[1] if fmt == "NCHW" else shape[-1]
            w.case("BiasAdd_%s_%s_%s" % (dtype, fmt, "x".join(map(str, shape))),
                   "BiasAdd",
                   [(dtype, values(rng, dtype, shape)),
                    (dtype, values(rng, dtype, (c,)))],
                   {"data_format": fmt})


def activation_cases(w):
    seed = 4000
    for op in ("Relu", "Relu6"):
        for dtype in FLOATS + INTS:
            seed += 1
            rng = np.random.default_rng(seed)
            if dtype in INTS:
                v = list(ints(rng, (8,), -10, 10)) + [0, 6, 7, -1]
            else:
                v = list(floats(rng, (8,), -8, 8)) + [NAN, INF, -INF, -0.0]
            w.case("%s_%s" % (op, dtype), op, [(dtype, np.array(v).reshape(3, 4))])


def softmax_cases(w):
    seed = 5000
    for op in ("Softmax", "LogSoftmax"):
        for dtype in FLOATS:
            shapes = [(3, 5)]
            if dtype == "float":
                shapes += [(2, 2, 4), (1, 1), (7,), (2, 16), (4, 0)]
            for shape in shapes:
                seed += 1
                rng = np.random.default_rng(seed)
                w.case("%s_%s_%s" % (op, dtype, "x".join(map(str, shape))), op,
                       [(dtype, floats(rng, shape, -5, 5))])
        w.case("%s_float_special_rows" % op, op,
               [("float", np.array([[-INF, -INF, -INF], [NAN, 1, 2],
                                    [1, INF, 2], [0.5, -1.5, -INF],
                                    [80, 80.5, 79]]))])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "cpu_kernel_goldens.txt"))
    args = parser.parse_args()

    w = Writer()
    binary_cases(w)
    matmul_cases(w)
    bias_add_cases(w)
    activation_cases(w)
    softmax_cases(w)
    header = [
        "# generated by tests/kernels/gen_kernel_goldens.py with TensorFlow "
        "%s (TF_ENABLE_ONEDNN_OPTS=%s); do not edit" %
        (tf.__version__, os.environ["TF_ENABLE_ONEDNN_OPTS"]),
        "# %d cases" % len(w.names),
    ]
    with open(args.out, "w") as f:
        f.write("\n".join(header + w.lines) + "\n")
    print("wrote %s: %d cases, %d bytes" %
          (args.out, len(w.names), os.path.getsize(args.out)))


if __name__ == "__main__":
    sys.exit(main())
