#!/usr/bin/env python3
"""Writes tests/kernels/testdata/reduce_goldens.txt: reference outputs of
TensorFlow's own CPU kernels for the reductions (Sum, Mean, Prod, Max, Min,
All, Any, ArgMax, ArgMin) and contractions (BatchMatMulV2, Einsum) that
cpu_reduce_golden_test.cc replays.

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it. TensorFlow lives in a virtualenv:

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu numpy
    /tmp/tfvenv/bin/python tests/kernels/gen_reduce_goldens.py [--out FILE]

Every value comes from tf.raw_ops on /CPU:0 with inputs drawn from
numpy.random.default_rng with fixed seeds, so reruns give the same file.
oneDNN is switched off (TF_ENABLE_ONEDNN_OPTS=0) so the references are
TensorFlow's own Eigen kernels.

Format (see tests/kernels/golden_testutil.h), one record per case:

    case <name> <op>
    attr <name> bool|string|type <value>
    in <dtype> <shape> <value> <value> ...
    out <dtype> <shape> <value> <value> ...
    end

<shape> is "2,3", or "scalar" for rank 0. Values are written in the shortest
decimal form that reads back (as double, then rounded to <dtype> through
float) to exactly the stored value: nan, inf and -inf included.
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
    "int16": tf.int16,
    "uint16": tf.uint16,
    "int32": tf.int32,
    "int64": tf.int64,
    "bool": tf.bool,
}
FLOATS = ["half", "bfloat16", "float", "double"]
INTS = ["int16", "uint16", "int32", "int64"]
NUMERIC = FLOATS + ["int32", "int64"]

NAN, INF = float("nan"), float("inf")


def fmt_value(v, dtype):
    """Shortest text that reads back to exactly v in dtype."""
    if dtype == "bool":
        return "1" if bool(v) else "0"
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
    assert float(check.numpy()) == f, (text, f, dtype)
    if f == 0 and np.signbit(f) and not text.startswith("-"):
        text = "-" + text
    return text


def fmt_tensor(kind, dtype, arr):
    arr = np.asarray(arr)
    shape = "scalar" if arr.ndim == 0 else ",".join(str(d) for d in arr.shape)
    flat = arr.reshape(-1)
    if dtype in FLOATS:
        flat = flat.astype(np.float64)
    return " ".join([kind, dtype, shape] + [fmt_value(v, dtype) for v in flat])


def make(dtype, values):
    """A CPU tensor of dtype from a numpy array of float64, int or bool."""
    values = np.asarray(values)
    if dtype == "bool":
        return tf.constant(values.astype(bool))
    if dtype in INTS:
        return tf.constant(values.astype(np.int64).astype(
            DTYPES[dtype].as_numpy_dtype))
    return tf.cast(tf.constant(values.astype(np.float64)), DTYPES[dtype])


def dtype_name(dt):
    for name, candidate in DTYPES.items():
        if dt == candidate:
            return name
    raise ValueError(dt)


class Writer:
    def __init__(self):
        self.lines = []
        self.names = set()

    def case(self, name, op, inputs, attrs=None, list_input=None):
        """inputs: list of (dtype, values) in the op's input order, or, for
        an op with one list input (Einsum), the list's members.
        attrs: {name: value}; a bool is written as bool, a tf.DType as type,
        anything else as string."""
        assert name not in self.names, name
        self.names.add(name)
        attrs = attrs or {}
        with tf.device("/CPU:0"):
            tensors = [make(dtype, values) for dtype, values in inputs]
            kwargs = dict(attrs)
            if list_input:
                kwargs[list_input] = tensors
            else:
                kwargs.update(zip(INPUT_NAMES[op], tensors))
            out = getattr(tf.raw_ops, op)(**kwargs)
        self.lines.append("case %s %s" % (name, op))
        for key, value in sorted(attrs.items()):
            if isinstance(value, bool):
                self.lines.append("attr %s bool %s" % (key, str(value).lower()))
            elif isinstance(value, tf.DType):
                self.lines.append("attr %s type %s" % (key, dtype_name(value)))
            else:
                self.lines.append("attr %s string %s" % (key, value))
        for (dtype, _), t in zip(inputs, tensors):
            self.lines.append(fmt_tensor("in", dtype, t.numpy()))
        self.lines.append(fmt_tensor("out", dtype_name(out.dtype), out.numpy()))
        self.lines.append("end")


INPUT_NAMES = {
    "Sum": ("input", "axis"),
    "Mean": ("input", "axis"),
    "Prod": ("input", "axis"),
    "Max": ("input", "axis"),
    "Min": ("input", "axis"),
    "All": ("input", "axis"),
    "Any": ("input", "axis"),
    "ArgMax": ("input", "dimension"),
    "ArgMin": ("input", "dimension"),
    "BatchMatMulV2": ("x", "y"),
}


def reals(rng, shape, low=-2.0, high=2.0):
    # Three decimals keep the file small; the dtype rounding happens after.
    return np.round(rng.uniform(low, high, size=shape), 3)


def ints(rng, shape, low=-9, high=10):
    return rng.integers(low, high, size=shape)


def numeric(rng, dtype, shape):
    return ints(rng, shape) if dtype in INTS else reals(rng, shape)


def prod_values(rng, dtype, shape):
    # Magnitudes near 1 keep products of a dozen terms well inside half.
    if dtype in INTS:
        return rng.choice([-3, -2, -1, 1, 2, 3], size=shape)
    return (np.round(rng.uniform(0.6, 1.5, size=shape), 3) *
            rng.choice([-1, 1], size=shape))


def reduction_cases(w):
    # (shape, axes, keep_dims, Tidx): every plan shape the kernels take.
    plans = [
        ((2, 3, 4), [1], False, "int32"),
        ((2, 3, 2), [0, 2], True, "int32"),
        ((2, 2, 3), [-1], False, "int64"),
        ((2, 3), [], True, "int32"),
        ((4, 1, 3), [0, 1], False, "int64"),
        ((2, 3, 2, 3), [1, 3], False, "int32"),
        ((5,), [0], True, "int32"),
        ((3, 40), [1], False, "int32"),
        ((40, 3), [0], False, "int32"),
    ]
    for i, op in enumerate(["Sum", "Mean", "Prod", "Max", "Min"]):
        for j, dtype in enumerate(NUMERIC):
            for k, (shape, axes, keep, tidx) in enumerate(plans):
                if shape[0] * shape[-1] == 120:
                    if dtype not in ("half", "float"):
                        # The long groups check summation error bounds,
                        # which matter most for half and float.
                        continue
                elif dtype != "float" and (k + j) % 2:
                    # Other dtypes take every other plan, alternating.
                    continue
                rng = np.random.default_rng(1000 * i + 100 * j + k)
                values = (prod_values(rng, dtype, shape) if op == "Prod"
                          else numeric(rng, dtype, shape))
                w.case("%s_%s_%d" % (op, dtype, k), op,
                       [(dtype, values), (tidx, np.array(axes, np.int64))],
                       {"keep_dims": keep})
        # Empty inputs give the identities; empty outputs stay empty.
        for dtype in NUMERIC:
            w.case("%s_%s_empty_input" % (op, dtype), op,
                   [(dtype, np.zeros((0, 3))), ("int32", [0])],
                   {"keep_dims": False})
        w.case("%s_float_empty_all" % op, op,
               [("float", np.zeros((2, 0))), ("int32", [0, 1])],
               {"keep_dims": True})
        w.case("%s_float_empty_output" % op, op,
               [("float", np.zeros((0, 3))), ("int32", [1])],
               {"keep_dims": False})
        # Non-finite values, on the rows path (axis 1) and the columns path
        # (axis 0).
        special = np.array([[NAN, 1.0, -2.0, INF],
                            [3.0, -INF, INF, 0.5],
                            [-1.0, 2.0, -INF, 1.0]])
        for dtype in FLOATS:
            for axis in (0, 1) if dtype == "float" else (i % 2,):
                w.case("%s_%s_special_axis%d" % (op, dtype, axis), op,
                       [(dtype, special), ("int32", [axis])],
                       {"keep_dims": False})
    # Integer wrapping and truncation.
    big = 2**31 - 1
    w.case("Sum_int32_wraps", "Sum",
           [("int32", [big, big, 5]), ("int32", [0])], {"keep_dims": False})
    w.case("Mean_int32_sums_in_64_bits", "Mean",
           [("int32", [big, big, big]), ("int32", [0])], {"keep_dims": False})
    w.case("Mean_int32_truncates", "Mean",
           [("int32", [[-5, 2], [1, 1], [-1, 4]]), ("int32", [0])],
           {"keep_dims": False})
    w.case("Prod_int32_wraps", "Prod",
           [("int32", [65536, 65536, 3, 7]), ("int32", [0])],
           {"keep_dims": False})
    w.case("Sum_int64_wraps", "Sum",
           [("int64", [2**62, 2**62, 2**62]), ("int32", [0])],
           {"keep_dims": False})


def bool_cases(w):
    for op in ["All", "Any"]:
        for k, (shape, axes, keep) in enumerate([
                ((3, 4), [1], False), ((2, 3, 4), [0, 2], True),
                ((4, 5), [], False), ((2, 3, 2), [-1, 0], False),
                ((6,), [0], False)]):
            rng = np.random.default_rng(5000 + k + (100 if op == "Any" else 0))
            values = rng.uniform(size=shape) < (0.8 if op == "All" else 0.2)
            w.case("%s_%d" % (op, k), op,
                   [("bool", values), ("int32", np.array(axes, np.int64))],
                   {"keep_dims": keep})
        w.case("%s_empty_input" % op, op,
               [("bool", np.zeros((0, 2), bool)), ("int64", [0])],
               {"keep_dims": False})


def arg_cases(w):
    outputs = {"ArgMax": [tf.int64, tf.int32, tf.int16, tf.uint16],
               "ArgMin": [tf.int64, tf.int32]}
    for op, out_types in outputs.items():
        for j, dtype in enumerate(NUMERIC + ["bool"]):
            rng = np.random.default_rng(6000 + j + (50 if op == "ArgMin" else 0))
            # Few distinct values, so ties are common.
            if dtype == "bool":
                values = rng.integers(0, 2, size=(3, 4, 3))
            else:
                values = rng.integers(-2, 3, size=(3, 4, 3))
            for k, axis in enumerate([0, 1, -1]):
                out_type = out_types[k % len(out_types)]
                w.case("%s_%s_axis%d" % (op, dtype, axis), op,
                       [(dtype, values), ("int32", axis)],
                       {"output_type": out_type})
            for out_type in out_types if dtype in ("float", "int32") else []:
                w.case("%s_%s_%s" % (op, dtype, out_type.name), op,
                       [(dtype, values[0]), ("int64", 1)],
                       {"output_type": out_type})
        # NaN and infinities: skipped / ordinary, per TensorFlow's scan.
        special = np.array([[1, NAN, 3], [NAN, 1, 3], [NAN, -INF, 0],
                            [NAN, NAN, NAN], [-INF, NAN, -INF],
                            [3, NAN, NAN], [-INF, -INF, 5],
                            [INF, INF, NAN]])
        for dtype in FLOATS:
            for axis in (0, 1):
                w.case("%s_%s_special_axis%d" % (op, dtype, axis), op,
                       [(dtype, special), ("int32", axis)],
                       {"output_type": tf.int64})
        lowest = float(np.finfo(np.float32).min)
        w.case("%s_float_extremes" % op, op,
               [("float", [[-INF, lowest, INF],
                           [lowest, -INF, -lowest],
                           [INF, -lowest, lowest]]), ("int32", 1)],
               {"output_type": tf.int64})


def batch_matmul_cases(w):
    shapes = [  # x, y (before adjoints), as [..., m, k] and [..., k, n]
        ((2, 3, 4), (2, 4, 5)),
        ((3, 4), (2, 4, 2)),
        ((2, 3, 4), (4, 5)),
        ((2, 1, 3, 2), (3, 2, 2)),
        ((1, 2, 6), (3, 6, 1)),
        ((0, 2, 3), (3, 4)),
        ((2, 3, 0), (2, 0, 4)),
    ]
    for j, dtype in enumerate(NUMERIC):
        for k, (xs, ys) in enumerate(shapes):
            if dtype != "float" and k >= 4:
                # The first four cover every adjoint combination.
                continue
            adj_x, adj_y = bool(k % 2), bool((k // 2) % 2)
            rng = np.random.default_rng(7000 + 10 * j + k)
            x = numeric(rng, dtype, xs)
            y = numeric(rng, dtype, ys)
            if adj_x:
                x = np.swapaxes(x, -1, -2)
            if adj_y:
                y = np.swapaxes(y, -1, -2)
            w.case("BatchMatMulV2_%s_%d" % (dtype, k), "BatchMatMulV2",
                   [(dtype, x), (dtype, y)], {"adj_x": adj_x, "adj_y": adj_y})


def einsum_cases(w):
    cases = [
        ("abc,cd->abd", [(2, 3, 4), (4, 3)]),
        ("abcd,cde->abe", [(2, 3, 2, 3), (2, 3, 2)]),
        ("abc,cde->abde", [(2, 2, 4), (4, 2, 3)]),
        ("aecd,abcd->acbe", [(2, 3, 2, 4), (2, 2, 2, 4)]),
        ("acbe,aecd->abcd", [(2, 2, 2, 3), (2, 3, 2, 3)]),
        ("ab,bc->ac", [(3, 4), (4, 5)]),
        ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]),
        ("ij,jk->ki", [(3, 4), (4, 2)]),
        ("ij->ji", [(2, 3)]),
        ("ijk->ki", [(2, 3, 2)]),
        ("ii->i", [(3, 3)]),
        ("ij,jk->ikk", [(2, 3), (3, 2)]),
        ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),
        ("ab...,b->...a", [(2, 3, 2), (3,)]),
        ("ab,bc->ac", [(2, 0), (0, 3)]),
    ]
    for j, dtype in enumerate(NUMERIC):
        for k, (eq, shapes) in enumerate(cases):
            if dtype != "float" and k % 3 != j % 3:
                # Other dtypes: every third equation, rotating.
                continue
            rng = np.random.default_rng(8000 + 20 * j + k)
            w.case("Einsum_%s_%d" % (dtype, k), "Einsum",
                   [(dtype, numeric(rng, dtype, s)) for s in shapes],
                   {"equation": eq}, list_input="inputs")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "reduce_goldens.txt"))
    args = parser.parse_args()

    w = Writer()
    reduction_cases(w)
    bool_cases(w)
    arg_cases(w)
    batch_matmul_cases(w)
    einsum_cases(w)
    header = [
        "# generated by tests/kernels/gen_reduce_goldens.py with TensorFlow "
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
