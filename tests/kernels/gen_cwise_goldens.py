#!/usr/bin/env python3
"""Writes tests/kernels/testdata/cwise_goldens.txt: reference outputs of
TensorFlow's own CPU kernels for the element-wise ops cpu_cwise_golden_test.cc
replays (unary math and activations, Div/FloorDiv/FloorMod/Pow/..., AddN,
Cast, comparisons, logical ops, Select, SelectV2, IsNan, IsFinite).

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it. TensorFlow lives in a virtualenv:

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu numpy
    /tmp/tfvenv/bin/python tests/kernels/gen_cwise_goldens.py [--out FILE]

Every value comes from tf.raw_ops on /CPU:0 with inputs drawn from
numpy.random.default_rng with fixed seeds, so reruns give the same file.
oneDNN is switched off (TF_ENABLE_ONEDNN_OPTS=0) so the references are
TensorFlow's own Eigen kernels, the semantics weft follows.

Format (tests/kernels/golden_testutil.h), one record per case:

    case <name> <op>
    attr <name> bool|float|type <value>
    in <dtype> <shape> <value> <value> ...
    out <dtype> <shape> <value> <value> ...
    end

Values are written in the shortest decimal form that reads back to exactly
the stored value the way the C++ parser reads it (float: strtof; half and
bfloat16: strtod, then rounded through float): nan, inf and -inf included.
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
    "int8": tf.int8,
    "int16": tf.int16,
    "int32": tf.int32,
    "int64": tf.int64,
    "uint8": tf.uint8,
    "uint16": tf.uint16,
    "bool": tf.bool,
}
FLOATS = ["half", "bfloat16", "float", "double"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16"]
NUMERIC = FLOATS + ["int32", "int64"]
CAST_TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
              "half", "bfloat16", "float", "double"]

NAN, INF = float("nan"), float("inf")

# The names tf.raw_ops gives each op's inputs.
UNARY_X = ["Neg", "Abs", "Exp", "Log", "Log1p", "Sqrt", "Rsqrt", "Square",
           "Reciprocal", "Sign", "Floor", "Ceil", "Round", "Tanh", "Sigmoid",
           "Erf", "Erfc", "Sin", "Cos", "IsNan", "IsFinite", "LogicalNot"]
UNARY_FEATURES = ["LeakyRelu", "Elu", "Selu", "Softplus", "Softsign"]
BINARY_XY = ["Div", "DivNoNan", "FloorDiv", "FloorMod", "Pow",
             "SquaredDifference", "Equal", "NotEqual", "Less", "LessEqual",
             "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr"]


def input_names(op):
    if op in UNARY_X:
        return ("x",)
    if op in UNARY_FEATURES:
        return ("features",)
    if op in BINARY_XY:
        return ("x", "y")
    if op == "Select":
        return ("condition", "x", "y")
    if op == "SelectV2":
        return ("condition", "t", "e")
    if op == "Cast":
        return ("x",)
    raise ValueError(op)


def to_bfloat16(f32):
    """float32 array -> the float32 values of their bfloat16 roundings
    (nearest, ties to even), as Eigen converts."""
    a = np.asarray(f32, np.float32).reshape(-1)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32).copy()
    out[np.isnan(a)] = np.nan
    return out


def round_to(dtype, values):
    """float64 values -> float64 values rounded to dtype the way the C++
    parser reads a decimal into dtype (half, bfloat16: through float)."""
    v = np.asarray(values, np.float64)
    if dtype == "double":
        return v
    with np.errstate(over="ignore"):
        return _round_to(dtype, v)


def _round_to(dtype, v):
    f = v.astype(np.float32)
    if dtype == "float":
        return f.astype(np.float64)
    if dtype == "half":
        return f.astype(np.float16).astype(np.float64)
    if dtype == "bfloat16":
        return to_bfloat16(f).astype(np.float64).reshape(v.shape)
    raise ValueError(dtype)


def fmt_float(v, dtype):
    """Shortest text that reads back to exactly v in dtype."""
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    if dtype == "double":
        text = repr(float(v))
    else:
        for digits in range(1, 18):
            text = "%.*g" % (digits, v)
            if dtype == "float":
                with np.errstate(over="ignore"):
                    back = float(np.float32(text))
            else:
                back = float(round_to(dtype, [float(text)])[0])
            if back == v:
                break
        else:
            raise AssertionError((v, dtype))
    if v == 0 and np.signbit(v) and not text.startswith("-"):
        text = "-" + text
    return text


def fmt_tensor(kind, dtype, arr):
    arr = np.asarray(arr)
    shape = "scalar" if arr.ndim == 0 else ",".join(str(d) for d in arr.shape)
    flat = arr.reshape(-1)
    if dtype == "bool":
        vals = ["1" if v else "0" for v in flat]
    elif dtype in INTS:
        vals = [str(int(v)) for v in flat]
    else:
        vals = [fmt_float(float(v), dtype) for v in flat.astype(np.float64)]
    return " ".join([kind, dtype, shape] + vals)


def make_tensor(dtype, values):
    values = np.asarray(values)
    if dtype == "bool":
        return tf.constant(values.astype(bool))
    if dtype in INTS:
        return tf.cast(tf.constant(values.astype(np.int64)), DTYPES[dtype])
    # Round first, so that the stored input is exactly what TensorFlow saw.
    rounded = round_to(dtype, values.astype(np.float64))
    return tf.cast(tf.constant(rounded), DTYPES[dtype])


def numpy_of(t):
    if t.dtype == tf.bfloat16:
        return tf.cast(t, tf.float32).numpy()
    return t.numpy()


def dtype_name(tf_dtype):
    for name, d in DTYPES.items():
        if d == tf_dtype:
            return name
    raise ValueError(tf_dtype)


class Writer:
    def __init__(self):
        self.lines = []
        self.names = set()

    def case(self, name, op, inputs, attrs=None):
        """inputs: list of (dtype, values); a value list may be a list of
        arrays for AddN (one list input)."""
        assert name not in self.names, name
        self.names.add(name)
        attrs = attrs or {}
        with tf.device("/CPU:0"):
            tensors = [make_tensor(dtype, values) for dtype, values in inputs]
            if op == "AddN":
                out = tf.raw_ops.AddN(inputs=tensors)
            else:
                kwargs = dict(zip(input_names(op), tensors))
                for key, value in attrs.items():
                    kwargs[key] = DTYPES[value[1]] if value[0] == "type" \
                        else value[1]
                out = getattr(tf.raw_ops, op)(**kwargs)
        self.lines.append("case %s %s" % (name, op))
        for key, (kind, value) in sorted(attrs.items()):
            if kind == "bool":
                value = str(value).lower()
            elif kind == "float":
                value = repr(float(np.float32(value)))
            self.lines.append("attr %s %s %s" % (key, kind, value))
        for (dtype, _), t in zip(inputs, tensors):
            self.lines.append(fmt_tensor("in", dtype, numpy_of(t)))
        self.lines.append(fmt_tensor("out", dtype_name(out.dtype),
                                     numpy_of(out)))
        self.lines.append("end")


def rng_for(*parts):
    seed = 0
    for p in parts:
        for ch in str(p):
            seed = (seed * 131 + ord(ch)) % (2 ** 31)
    return np.random.default_rng(seed)


def uniform(rng, low, high, n, decimals=3):
    return np.round(rng.uniform(low, high, n), decimals)


# ---- unary ops --------------------------------------------------------------

SPECIAL = [NAN, INF, -INF, 0.0, -0.0]

# Per op: values for every dtype (moderate, within half's range), and for
# float a wider sweep of the function's range.
UNARY_VALUES = {
    "Neg": ([1.5, -2.25, 7.0, -0.125, 65504.0], None),
    "Abs": ([1.5, -2.25, 7.0, -0.125, -65504.0], None),
    "Square": ([1.5, -2.25, 7.0, -0.125, 300.0, 256.0], None),
    "Reciprocal": ([1.5, -2.25, 7.0, -0.125, 3.0, 1e-3], None),
    "Sign": ([1.5, -2.25, 1e-3, -1e-3, 7.0], None),
    "Floor": ([1.5, -1.5, 2.5, -2.5, -0.25, 0.75, 1e4 + 0.5, -3.0], None),
    "Ceil": ([1.5, -1.5, 2.5, -2.5, -0.25, 0.75, 1e4 + 0.5, -3.0], None),
    "Round": ([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.4999, -0.25, 3.75, 1e4 + 0.5],
              None),
    "Exp": ([1.0, -1.0, 0.5, -3.25, 5.0, 10.0, -10.0, 1e-3, -16.0],
            (-87.0, 88.0)),
    "Log": ([1.0, 2.0, 0.5, 10.0, 1e-3, 100.0, -1.0, 1000.0, 1.001], (0, 1e6)),
    "Log1p": ([1.0, -0.5, 0.5, 1e-3, -1e-3, 10.0, -1.0, -2.0, 1000.0],
              (-0.999, 1e4)),
    "Sqrt": ([1.0, 2.0, 0.25, 10.0, 1e-3, 100.0, -1.0, 1000.0, 3.0],
             (0, 1e6)),
    "Rsqrt": ([1.0, 2.0, 0.25, 10.0, 1e-3, 100.0, -1.0, 1000.0, 3.0],
              (1e-6, 1e6)),
    "Sin": ([1.0, -1.0, 0.5, 3.0, -3.0, 10.0, 100.0, 1e-3, 3.14159], (-100, 100)),
    "Cos": ([1.0, -1.0, 0.5, 3.0, -3.0, 10.0, 100.0, 1e-3, 1.5708], (-100, 100)),
    "Tanh": ([1.0, -1.0, 0.5, 3.0, -3.0, 10.0, -10.0, 1e-3, 0.01], (-12, 12)),
    "Sigmoid": ([1.0, -1.0, 0.5, 3.0, -3.0, 10.0, -10.0, 1e-3, -20.0],
                (-80, 30)),
    "Erf": ([1.0, -1.0, 0.5, 3.0, -3.0, 2.0, -0.25, 1e-3, 0.01], (-5, 5)),
    # Kept where erfc(x) >= 2e-5, away from the far tail's tiny values.
    "Erfc": ([1.0, -1.0, 0.5, 3.0, -3.0, 2.0, -0.25, 1e-3, 0.01], (-3, 3)),
    "Elu": ([1.0, -1.0, 0.5, 3.0, -3.0, -10.0, -0.25, -1e-3, 0.01],
            (-20, 10)),
    "Selu": ([1.0, -1.0, 0.5, 3.0, -3.0, -10.0, -0.25, -1e-3, 0.01],
             (-20, 10)),
    "Softplus": ([1.0, -1.0, 0.5, 3.0, -3.0, 10.0, -10.0, 1e-3, -20.0, 20.0,
                  6.5, -7.5, 2.9, -2.9], (-30, 30)),
    "Softsign": ([1.0, -1.0, 0.5, 3.0, -3.0, 10.0, -10.0, 1e-3, 1000.0],
                 (-100, 100)),
    "LeakyRelu": ([1.0, -1.0, 0.5, 3.0, -3.0, 10.0, -10.0, 1e-3, -1e-3],
                  None),
}

UNARY_DTYPES = {
    op: FLOATS for op in UNARY_VALUES
}
for op in ("Neg", "Abs", "Square", "Sign", "Round"):
    UNARY_DTYPES[op] = NUMERIC

INT_VALUES = [5, -7, 0, 1, -1, 123, 2 ** 31 - 1, -2 ** 31]


def unary_cases(w):
    for op, (values, sweep) in UNARY_VALUES.items():
        for dtype in UNARY_DTYPES[op]:
            if dtype in ("int32", "int64"):
                v = list(INT_VALUES)
                if dtype == "int64":
                    v += [2 ** 63 - 1, -2 ** 63, 3037000500]
                w.case("%s_%s" % (op, dtype), op, [(dtype, np.array(v))])
                continue
            v = np.array(SPECIAL + list(values))
            attrs = None
            if op == "LeakyRelu":
                attrs = {"alpha": ("float", 0.2)}
            w.case("%s_%s" % (op, dtype), op, [(dtype, v)], attrs)
        if sweep is not None:
            lo, hi = sweep
            rng = rng_for(op, "sweep")
            v = uniform(rng, lo, hi, 32, 4)
            w.case("%s_float_sweep" % op, op, [("float", v.reshape(4, 8))])
            if op in ("Exp", "Tanh", "Sigmoid", "Erf", "Erfc", "Log", "Softplus"):
                v = uniform(rng_for(op, "double"), lo, hi, 16, 4)
                w.case("%s_double_sweep" % op, op, [("double", v)])
    # LeakyRelu's alpha above 1 and negative, as TensorFlow allows.
    for alpha in (1.5, -0.5, 0.01):
        v = np.array(SPECIAL + [1.0, -1.0, 3.5, -2.25])
        for dtype in ("float", "half"):
            w.case("LeakyRelu_%s_alpha%s" % (dtype, alpha), "LeakyRelu",
                   [(dtype, v)], {"alpha": ("float", alpha)})
    # Empty and rank-0 inputs.
    w.case("Exp_float_empty", "Exp", [("float", np.zeros((0, 3)))])
    w.case("Tanh_float_scalar", "Tanh", [("float", np.array(0.75))])
    for op in ("IsNan", "IsFinite"):
        for dtype in FLOATS:
            w.case("%s_%s" % (op, dtype), op,
                   [(dtype, np.array(SPECIAL + [1.5, -3.0, 65504.0]))])
    w.case("LogicalNot", "LogicalNot",
           [("bool", np.array([[True, False, True], [False, False, True]]))])


# ---- binary ops -------------------------------------------------------------

BINARY_OPS = ["Div", "DivNoNan", "FloorDiv", "FloorMod", "Pow",
              "SquaredDifference"]


def binary_dtypes(op):
    return FLOATS if op == "DivNoNan" else NUMERIC


def binary_cases(w):
    for op in BINARY_OPS:
        for dtype in binary_dtypes(op):
            rng = rng_for(op, dtype)
            if dtype in ("int32", "int64"):
                x = rng.integers(-20, 21, (2, 1, 3))
                y = rng.integers(-6, 7, (2, 1))
                if op == "Pow":
                    x = rng.integers(-5, 6, (2, 1, 3))
                    y = rng.integers(0, 6, (2, 1))
                elif op != "SquaredDifference":
                    y[y == 0] = 3
            else:
                x = np.round(rng.uniform(-8, 8, (2, 1, 3)), 2)
                y = np.round(rng.uniform(-4, 4, (2, 1)), 2)
                if op == "Pow":
                    x = np.abs(x) + 0.25
                y[y == 0] = 0.5
            w.case("%s_%s_broadcast" % (op, dtype), op,
                   [(dtype, x), (dtype, y)])
        # Special values, element by element.
        for dtype in ("float", "half", "double"):
            if op == "Pow":
                x = [NAN, 1.0, INF, -INF, 0.0, -0.0, 2.0, -2.0, -2.0, 0.5, 4.0,
                     -8.0, 10.0]
                y = [0.0, NAN, 2.0, 3.0, -1.0, -1.0, 0.5, 3.0, 0.5, -INF, 1.5,
                     1.0 / 3.0, -2.0]
            else:
                x = [NAN, 1.0, INF, -INF, 0.0, -0.0, 5.0, -5.0, 5.0, -5.0, 1.0,
                     -1.0, 3.0, 7.5, -7.5, -0.0]
                y = [1.0, NAN, 2.0, INF, 0.0, 3.0, 3.0, 3.0, -3.0, -3.0, INF,
                     INF, -INF, 0.0, 0.0, -2.0]
            w.case("%s_%s_special" % (op, dtype), op,
                   [(dtype, np.array(x)), (dtype, np.array(y))])
        # Integer edge cases: signs, the most negative value, wrap-around.
        if op != "DivNoNan":
            for dtype in ("int32", "int64"):
                lo = -2 ** 31 if dtype == "int32" else -2 ** 63
                hi = -lo - 1
                if op == "Pow":
                    x = [2, 3, -2, 0, 1, -1, -3, 7, 2, lo, -1, 0]
                    y = [3, 40, 3, 0, 100, 7, 21, 0, 64, 2, 0, 5]
                else:
                    x = [-7, 7, -7, 7, 0, lo, lo, lo, lo + 1, 5, hi, lo, 6, -6]
                    y = [2, 2, -2, -2, 3, -1, 1, 3, -2, lo, -1, lo, -4, 4]
                w.case("%s_%s_edges" % (op, dtype), op,
                       [(dtype, np.array(x)), (dtype, np.array(y))])
        # Shapes: scalar on each side, rank 5 broadcasting, empty output.
        rng = rng_for(op, "shapes")
        pos = op == "Pow"

        def vals(shape):
            v = np.atleast_1d(np.round(rng.uniform(0.25 if pos else -4, 4,
                                                   shape), 2))
            v[v == 0] = 1.0
            return v.reshape(shape)
        for label, (xs, ys) in {
            "scalar_left": ((), (3, 2)),
            "scalar_right": ((3, 2), ()),
            "rank5": ((2, 1, 3, 1, 2), (1, 2, 1, 2, 1)),
            "empty": ((0, 3), (1, 3)),
        }.items():
            w.case("%s_float_%s" % (op, label), op,
                   [("float", vals(xs)), ("float", vals(ys))])


COMPARE_OPS = ["Equal", "NotEqual", "Less", "LessEqual", "Greater",
               "GreaterEqual"]


def compare_cases(w):
    for op in COMPARE_OPS:
        dtypes = NUMERIC + (["bool"] if op in ("Equal", "NotEqual") else [])
        for dtype in dtypes:
            rng = rng_for(op, dtype)
            if dtype == "bool":
                x = rng.integers(0, 2, (2, 1, 3)).astype(bool)
                y = rng.integers(0, 2, (4, 1)).astype(bool)
            else:
                # Few distinct values, so that ties occur.
                x = rng.integers(-2, 3, (2, 1, 3)).astype(np.float64)
                y = rng.integers(-2, 3, (4, 1)).astype(np.float64)
                if dtype in FLOATS:
                    x = x / 2
                    y = y / 2
            w.case("%s_%s_broadcast" % (op, dtype), op,
                   [(dtype, x), (dtype, y)])
        x = [NAN, NAN, 1.0, INF, -INF, 0.0, -0.0, 2.0, INF]
        y = [NAN, 1.0, NAN, INF, INF, -0.0, 0.0, 3.0, 1e30]
        w.case("%s_float_special" % op, op,
               [("float", np.array(x)), ("float", np.array(y))])
    for op in ("Equal", "NotEqual"):
        for error in (False, True):
            w.case("%s_compatible_error%d" % (op, error), op,
                   [("int32", np.array([[1], [2]])),
                    ("int32", np.array([1, 2, 3]))],
                   {"incompatible_shape_error": ("bool", error)})
        w.case("%s_incompatible_no_error" % op, op,
               [("float", np.array([1.0, 2.0, 3.0])),
                ("float", np.array([1.0, 2.0]))],
               {"incompatible_shape_error": ("bool", False)})
    for op in ("LogicalAnd", "LogicalOr"):
        w.case("%s_broadcast" % op, op,
               [("bool", np.array([[True], [False]])),
                ("bool", np.array([True, False, True]))])
        w.case("%s_scalar" % op, op,
               [("bool", np.array(True)), ("bool", np.array([True, False]))])


# ---- AddN -------------------------------------------------------------------

def add_n_cases(w):
    for dtype in NUMERIC:
        rng = rng_for("AddN", dtype)
        ins = []
        for _ in range(3):
            if dtype in ("int32", "int64"):
                ins.append((dtype, rng.integers(-100, 100, (2, 3))))
            else:
                ins.append((dtype, np.round(rng.uniform(-4, 4, (2, 3)), 3)))
        w.case("AddN_%s_3" % dtype, "AddN", ins)
    w.case("AddN_float_1", "AddN", [("float", np.array([1.5, -2.0]))])
    w.case("AddN_float_empty", "AddN",
           [("float", np.zeros((0, 2))), ("float", np.zeros((0, 2)))])
    # Orders of summation: 10 inputs (2 + a group of 8), 17 (9 + 8), with
    # magnitudes that make rounding depend on the order.
    for n in (10, 17):
        for dtype in ("float", "half"):
            rng = rng_for("AddN", dtype, n)
            ins = []
            for i in range(n):
                scale = 10.0 ** rng.integers(-3, 4)
                ins.append((dtype, np.round(rng.uniform(-1, 1, (5,)) * scale,
                                            4)))
            w.case("AddN_%s_%d" % (dtype, n), "AddN", ins)
    w.case("AddN_int32_wraps", "AddN",
           [("int32", np.array([2 ** 31 - 1, -2 ** 31])),
            ("int32", np.array([1, -1]))])


# ---- Cast -------------------------------------------------------------------

def cast_values(src, dst):
    """Values of dtype `src` that probe the conversion to `dst`: wrap-around
    and rounding witnesses, NaN, infinities and out-of-range values."""
    if src == "bool":
        return np.array([True, False, True])
    if src in INTS:
        info = np.iinfo(getattr(np, src))
        if dst in FLOATS:  # rounding: 2^24 + 1, 2^53 + 1 round in float/double
            v = [0, 1, -7, 255, 2049, 65535, 65536, 70000, 2 ** 24 + 1,
                 -2 ** 31, 2 ** 53 + 1, 2 ** 62 + 2 ** 40 + 1]
        else:
            v = [0, 1, -1, 127, 128, 255, 256, 300, -129, 32767, 32768,
                 65535, 70000, 2 ** 31 - 1, -2 ** 31, 2 ** 40 + 5]
        v = [x for x in v if info.min <= x <= info.max]
        v += [int(info.min), int(info.max)]
        return np.array(sorted(set(v)), dtype=np.int64)
    if dst == "bool":
        v = [NAN, INF, 0.0, -0.0, 0.5, -1.0, 1e-3]
    elif dst in INTS:
        v = [NAN, INF, -INF, -0.0, 2.7, -2.7, -1.5, 127.9, 128.5, 255.5,
             300.7, -129.5, 65504.0, 70000.2, 3e9, -3e9, 2147483520.0,
             -2147483648.0, 2147483648.0, 9.3e18, 1e20]
    else:
        # 1 + 2^-11 + 2^-40 and 1 + 2^-8 + 2^-40 are just above the half and
        # bfloat16 midpoints after 1: rounded directly they go up, through
        # float (as Eigen converts double) they tie and go down.
        v = [NAN, INF, -INF, -0.0, 1.0 / 3.0, -2.7, 1 + 2 ** -11 + 2 ** -40,
             1 + 2 ** -8 + 2 ** -40, 1.9990234375, 1.0009765625, 70000.0,
             65519.99, 65520.0, 6e-8, 1e-40, 1e-300, 1e300,
             3.4028235e38]
    rounded = round_to(src, v)
    if dst in INTS and dst not in ("int32", "int64") and \
            src in ("double", "bfloat16"):
        # TensorFlow's double and bfloat16 conversions to 8- and 16-bit
        # integers are position-dependent outside the destination's range:
        # Eigen's vectorized body saturates (and for uint8 goes through a
        # signed 16-bit pack), its scalar tail keeps the low bits of the
        # int32 as every other source does. Only values whose truncation
        # fits are well defined there.
        info = np.iinfo(getattr(np, dst))
        with np.errstate(invalid="ignore"):
            t = np.trunc(rounded)
            rounded = rounded[(t >= info.min) & (t <= info.max)]
    keep = []
    for x in rounded:  # drop duplicates created by rounding to src
        if not any((x == k and np.signbit(x) == np.signbit(k)) or
                   (np.isnan(x) and np.isnan(k)) for k in keep):
            keep.append(x)
    return np.array(keep)


def cast_cases(w):
    for src in CAST_TYPES:
        for dst in CAST_TYPES:
            v = cast_values(src, dst)
            w.case("Cast_%s_to_%s" % (src, dst), "Cast", [(src, v)],
                   {"DstT": ("type", dst)})
    # Truncate=true for every floating pair: TensorFlow truncates for double
    # -> float/half and float -> half/bfloat16 and ignores it elsewhere.
    for src in FLOATS:
        for dst in FLOATS:
            if src == dst:
                continue
            v = cast_values(src, dst)
            w.case("Cast_%s_to_%s_truncate" % (src, dst), "Cast", [(src, v)],
                   {"DstT": ("type", dst), "Truncate": ("bool", True)})


# ---- Select, SelectV2 -------------------------------------------------------

SELECT_TYPES = FLOATS + ["int32", "int64", "bool"]


def select_values(rng, dtype, shape):
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype in ("int32", "int64"):
        return rng.integers(-50, 50, shape)
    return np.round(rng.uniform(-10, 10, shape), 2)


def select_cases(w):
    for op in ("Select", "SelectV2"):
        for dtype in SELECT_TYPES:
            rng = rng_for(op, dtype)
            c = rng.integers(0, 2, (2, 3)).astype(bool)
            w.case("%s_%s_same" % (op, dtype), op,
                   [("bool", c), (dtype, select_values(rng, dtype, (2, 3))),
                    (dtype, select_values(rng, dtype, (2, 3)))])
        rng = rng_for(op, "shapes")
        shapes = {
            "scalar_cond": ((), (2, 3), (2, 3)),
            "vector_vector": ((4,), (4,), (4,)),
            "empty": ((0, 2), (0, 2), (0, 2)),
        }
        if op == "Select":
            # A vector condition picks rows of t and e.
            shapes.update({
                "vector_cond_rows": ((3,), (3, 2, 2), (3, 2, 2)),
                "vector_cond_matrix": ((2,), (2, 5), (2, 5)),
            })
        else:
            shapes.update({
                "broadcast_cond": ((2, 1), (2, 3), (1, 3)),
                "broadcast_all": ((1, 3, 1), (2, 1, 1), (4,)),
                "scalar_branches": ((2, 2), (), ()),
                "rank5": ((2, 1, 2, 1, 3), (1, 2, 1, 2, 1), (2, 2, 2, 2, 3)),
                "cond_vector_last": ((3,), (2, 3), (2, 3)),
            })
        for label, (cs, ts, es) in shapes.items():
            c = rng.integers(0, 2, cs).astype(bool)
            w.case("%s_float_%s" % (op, label), op,
                   [("bool", c), ("float", select_values(rng, "float", ts)),
                    ("float", select_values(rng, "float", es))])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "cwise_goldens.txt"))
    args = parser.parse_args()

    w = Writer()
    unary_cases(w)
    binary_cases(w)
    compare_cases(w)
    add_n_cases(w)
    cast_cases(w)
    select_cases(w)
    header = [
        "# generated by tests/kernels/gen_cwise_goldens.py with TensorFlow "
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
