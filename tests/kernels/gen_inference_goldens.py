#!/usr/bin/env python3
"""Writes tests/kernels/testdata/inference_goldens.txt: reference outputs of
TensorFlow's own CPU kernels for the inference ops of issue 13 that
cpu_inference_golden_test.cc replays: MatrixBandPart, TopKV2, Cumsum,
Cumprod, ReverseV2, Roll, InvertPermutation, Where, ClipByValue,
CheckNumerics, EnsureShape, ShapeN, BroadcastArgs; Acos, Acosh, Asin, Asinh,
Atan, Atan2, Atanh, Cosh, Sinh, Tan, Expm1, IsInf, Rint, TruncateDiv;
BitwiseAnd, BitwiseOr, BitwiseXor, Invert, LeftShift, RightShift;
NonMaxSuppression, NonMaxSuppressionV2 to V5, NonMaxSuppressionWithOverlaps.

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it. TensorFlow lives in a virtualenv:

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu numpy
    /tmp/tfvenv/bin/python tests/kernels/gen_inference_goldens.py [--out FILE]

Every value comes from tf.raw_ops on /CPU:0 with inputs drawn from
numpy.random.default_rng with fixed seeds, so reruns give the same file.
oneDNN is switched off (TF_ENABLE_ONEDNN_OPTS=0). Tensors are written as
gen_array_goldens.py writes them (its helpers are imported); the format is
golden_testutil.h's, attrs of kind int, ints, bool, string, type and shape.
Errors (bad axis, k > n, a non-permutation, NaN for CheckNumerics) are not
goldens: cpu_inference_ops_test.cc checks them.
"""

import argparse
import inspect
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen_array_goldens import (ALL, DTYPES, FLOATS, INF, NAN, SIGNED,  # noqa
                               UNSIGNED, fmt_tensor, make, values)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

INTS = SIGNED + UNSIGNED
REAL = FLOATS + INTS


class Writer:
    def __init__(self):
        self.lines = []
        self.names = set()
        self.ops = {}

    def case(self, name, op, inputs, attrs=None):
        """inputs: per op input arg, (dtype, values) or a list of them.
        attrs: name -> (kind, value), kind int|ints|bool|string|type|shape."""
        assert name not in self.names, name
        self.names.add(name)
        self.ops[op] = self.ops.get(op, 0) + 1
        attrs = attrs or {}
        params = list(inspect.signature(getattr(tf.raw_ops, op)).parameters)
        with tf.device("/CPU:0"):
            kwargs = {}
            flat = []
            for pname, arg in zip(params, inputs):
                if isinstance(arg, list):
                    ts = [make(d, v) for d, v in arg]
                    flat.extend(ts)
                    kwargs[pname] = ts
                else:
                    t = make(*arg)
                    flat.append(t)
                    kwargs[pname] = t
            for key, (kind, value) in attrs.items():
                kwargs[key] = DTYPES[value] if kind == "type" else value
            out = getattr(tf.raw_ops, op)(**kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        self.lines.append("case %s %s" % (name, op))
        for key, (kind, value) in sorted(attrs.items()):
            if kind == "bool":
                text = "true" if value else "false"
            elif kind == "ints":
                text = ",".join(str(v) for v in value) if value else "-"
            elif kind == "shape":
                if value is None:
                    text = "?"
                elif len(value) == 0:
                    text = "scalar"
                else:
                    text = ",".join(str(-1 if v is None else v) for v in value)
            else:
                text = str(value)
            self.lines.append("attr %s %s %s" % (key, kind, text))
        for t in flat:
            self.lines.append(fmt_tensor("in", t))
        for t in outs:
            self.lines.append(fmt_tensor("out", t))
        self.lines.append("end")


def I32(v):
    return ("int32", np.array(v))


def I64(v):
    return ("int64", np.array(v))


def seeded(*parts):
    seed = 0
    for p in parts:
        for ch in str(p):
            seed = (seed * 131 + ord(ch)) % (2 ** 31)
    return np.random.default_rng(seed)


# ---- MatrixBandPart ----------------------------------------------------------

def band_cases(w):
    for dt in ALL:
        x = values(seeded("band", dt), dt, (3, 4))
        w.case("MatrixBandPart_%s" % dt, "MatrixBandPart",
               [(dt, x), I64(1), I64(0)])
    rng = seeded("band", "shapes")
    x = values(rng, "float", (2, 3, 4), special=True)
    for lo, up in ((-1, 0), (0, -1), (-1, -1), (0, 0), (2, 1), (3, 4),
                   (1, 3)):
        w.case("MatrixBandPart_batch_%d_%d" % (lo, up), "MatrixBandPart",
               [("float", x), I64(lo), I64(up)])
    w.case("MatrixBandPart_int32_bounds", "MatrixBandPart",
           [("float", x), I32(1), I32(2)])
    w.case("MatrixBandPart_tall", "MatrixBandPart",
           [("double", values(rng, "double", (5, 2))), I64(1), I64(0)])
    w.case("MatrixBandPart_wide", "MatrixBandPart",
           [("int32", values(rng, "int32", (2, 6))), I64(0), I64(2)])
    w.case("MatrixBandPart_empty_batch", "MatrixBandPart",
           [("float", np.zeros((0, 3, 3))), I64(1), I64(1)])
    w.case("MatrixBandPart_empty_rows", "MatrixBandPart",
           [("float", np.zeros((2, 0, 3))), I64(0), I64(1)])
    w.case("MatrixBandPart_rank4", "MatrixBandPart",
           [("half", values(rng, "half", (2, 1, 3, 3))), I64(0), I64(-1)])


# ---- TopKV2 ------------------------------------------------------------------

def topk_cases(w):
    for dt in REAL:
        rng = seeded("topk", dt)
        # Few distinct values, so that ties occur.
        if dt in UNSIGNED:
            x = rng.integers(0, 5, (2, 6))
        else:
            x = rng.integers(-3, 3, (2, 6)).astype(np.float64)
            if dt in FLOATS:
                x = x / 2
        w.case("TopKV2_%s" % dt, "TopKV2", [(dt, x), I32(3)])
    rng = seeded("topk", "shapes")
    x = rng.integers(-2, 3, (3, 7)).astype(np.float64)
    w.case("TopKV2_k_equals_n_ties", "TopKV2", [("float", x), I32(7)])
    w.case("TopKV2_k0", "TopKV2", [("float", x), I32(0)])
    w.case("TopKV2_k1", "TopKV2", [("float", x), I32(1)])
    w.case("TopKV2_index_int64", "TopKV2", [("float", x), I64(4)],
           {"index_type": ("type", "int64")})
    w.case("TopKV2_index_int16", "TopKV2", [("double", x), ("int16", 2)],
           {"index_type": ("type", "int16")})
    w.case("TopKV2_vector", "TopKV2",
           [("int32", np.array([5, 1, 5, 3, 5, 1])), I32(4)])
    w.case("TopKV2_special", "TopKV2",
           [("float", np.array([1.0, INF, -INF, -0.0, 0.0, -1.0, INF, 0.0])),
            I32(8)])
    w.case("TopKV2_rank3", "TopKV2",
           [("half", np.round(rng.uniform(-4, 4, (2, 2, 5)), 1)), I32(2)])
    w.case("TopKV2_empty_rows", "TopKV2", [("float", np.zeros((0, 5))), I32(2)])
    w.case("TopKV2_empty_row_k0", "TopKV2", [("float", np.zeros((3, 0))),
                                             I32(0)])
    big = rng.integers(0, 50, (2, 1000)).astype(np.float64)
    w.case("TopKV2_large_k_equals_n", "TopKV2", [("float", big), I32(1000)])
    w.case("TopKV2_large_k10", "TopKV2", [("float", big), I32(10)])
    w.case("TopKV2_large_k300", "TopKV2", [("int64", big), I32(300)])


# ---- Cumsum, Cumprod ---------------------------------------------------------

def scan_cases(w):
    for op in ("Cumsum", "Cumprod"):
        for dt in REAL:
            rng = seeded(op, dt)
            if dt in UNSIGNED:
                x = rng.integers(0, 4, (2, 4))
            elif dt in SIGNED:
                x = rng.integers(-3, 4, (2, 4))
            else:
                x = np.round(rng.uniform(-2, 2, (2, 4)), 2)
            w.case("%s_%s" % (op, dt), op, [(dt, x), I32(1)])
        rng = seeded(op, "attrs")
        x = np.round(rng.uniform(0.5, 1.5, (3, 4, 5)), 3)
        for axis in (0, 1, 2, -1, -3):
            for exclusive in (False, True):
                for reverse in (False, True):
                    w.case("%s_axis%d_ex%d_rev%d" % (op, axis, exclusive,
                                                    reverse), op,
                           [("float", x), I32(axis)],
                           {"exclusive": ("bool", exclusive),
                            "reverse": ("bool", reverse)})
        w.case("%s_int64_axis" % op, op, [("double", x), I64(-2)])
        w.case("%s_vector" % op, op, [("int32", np.array([1, 2, 3, 4, 5])),
                                      I32(0)],
               {"exclusive": ("bool", True)})
        w.case("%s_empty" % op, op, [("float", np.zeros((0, 3))), I32(1)])
        w.case("%s_empty_axis" % op, op, [("float", np.zeros((2, 0))), I32(1)])
        w.case("%s_special" % op, op,
               [("float", np.array([1.0, NAN, 2.0, INF, -INF, -0.0])), I32(0)])
        w.case("%s_int8_wraps" % op, op,
               [("int8", np.array([100, 100, 100, -7, 90])), I32(0)])
        w.case("%s_uint8_wraps" % op, op,
               [("uint8", np.array([200, 100, 3, 250])), I32(0)])
    # A long axis: every partial sum rounded in order, in float and in half.
    rng = seeded("Cumsum", "long")
    w.case("Cumsum_long_axis_float", "Cumsum",
           [("float", np.round(rng.uniform(-1, 1, 2500), 4)), I32(0)])
    w.case("Cumsum_long_axis_half", "Cumsum",
           [("half", np.round(rng.uniform(0, 1, 700), 3)), I32(0)])
    w.case("Cumsum_long_axis_strided", "Cumsum",
           [("float", np.round(rng.uniform(-1, 1, (800, 2)), 4)), I32(0)],
           {"reverse": ("bool", True)})
    w.case("Cumprod_long_axis_double", "Cumprod",
           [("double", np.round(rng.uniform(0.99, 1.01, 400), 5)), I32(0)])
    w.case("Cumsum_wide_inner", "Cumsum",
           [("float", np.round(rng.uniform(-1, 1, (3, 300)), 3)), I32(0)],
           {"exclusive": ("bool", True)})


# ---- ReverseV2, Roll ---------------------------------------------------------

def reverse_roll_cases(w):
    for dt in ALL:
        x = values(seeded("rev", dt), dt, (2, 3, 2))
        w.case("ReverseV2_%s" % dt, "ReverseV2", [(dt, x), I32([1])])
        w.case("Roll_%s" % dt, "Roll", [(dt, x), I32(1), I32(1)])
    rng = seeded("rev", "shapes")
    x = values(rng, "float", (2, 3, 4))
    for axes in ([0], [2], [-1], [0, 2], [-3, 1, 2], []):
        w.case("ReverseV2_axes_%s" % "_".join(str(a) for a in axes) if axes
               else "ReverseV2_axes_none", "ReverseV2", [("float", x),
                                                        I32(axes)])
    w.case("ReverseV2_int64_axis", "ReverseV2", [("float", x), I64([1, -1])])
    w.case("ReverseV2_empty", "ReverseV2", [("float", np.zeros((2, 0))),
                                            I32([0])])
    w.case("ReverseV2_scalar", "ReverseV2", [("float", np.array(2.5)),
                                             ("int32", np.zeros(0))])
    w.case("ReverseV2_rank5", "ReverseV2",
           [("int32", values(rng, "int32", (2, 1, 3, 2, 2))), I32([0, 2, 4])])
    for shift, axis in ((1, 0), (-1, 2), (5, 1), (-7, -1), (0, 0),
                        ([1, 2], [0, 2]), ([1, -4], [-1, 0]),
                        ([2, 3], [1, 1]), ([4, 1, -1], [0, 1, 2])):
        label = ("%s_%s" % (shift, axis)).replace(" ", "").replace(
            "[", "").replace("]", "").replace(",", "_").replace("-", "m")
        w.case("Roll_%s" % label, "Roll", [("float", x), I32(shift),
                                           I32(axis)])
    w.case("Roll_int64_shift", "Roll", [("float", x), I64([2]), I32([1])])
    w.case("Roll_int64_axis", "Roll", [("float", x), I32(-1), I64(1)])
    w.case("Roll_vector", "Roll", [("int64", np.arange(10)), I32(3), I32(0)])
    w.case("Roll_empty", "Roll", [("float", np.zeros((0, 3))), I32(1), I32(1)])
    w.case("Roll_empty_axis", "Roll", [("float", np.zeros((3, 0))), I32(2),
                                       I32(1)])


# ---- InvertPermutation, Where ------------------------------------------------

def perm_where_cases(w):
    for dt in ("int32", "int64"):
        w.case("InvertPermutation_%s" % dt, "InvertPermutation",
               [(dt, np.array([3, 4, 0, 2, 1]))])
        w.case("InvertPermutation_%s_empty" % dt, "InvertPermutation",
               [(dt, np.zeros(0))])
    w.case("InvertPermutation_one", "InvertPermutation", [I32([0])])
    w.case("InvertPermutation_large", "InvertPermutation",
           [I32(seeded("perm").permutation(300))])
    for dt in [d for d in ALL if d != "half"]:  # no CPU kernel for half
        x = values(seeded("where", dt), dt, (2, 3))
        if dt not in FLOATS and dt != "bool":
            x = x % 3
        w.case("Where_%s" % dt, "Where", [(dt, x)])
    rng = seeded("where", "shapes")
    w.case("Where_bool_rank3", "Where",
           [("bool", rng.integers(0, 2, (2, 3, 4)))])
    w.case("Where_float_special", "Where",
           [("float", np.array([0.0, -0.0, NAN, INF, -INF, 1e-30, 0.0]))])
    w.case("Where_all_false", "Where", [("bool", np.zeros((3, 2)))])
    w.case("Where_empty", "Where", [("bool", np.zeros((0, 4)))])
    w.case("Where_large", "Where", [("bool", rng.integers(0, 2, (40, 50)))])


# ---- ClipByValue -------------------------------------------------------------

CLIP_TYPES = FLOATS + SIGNED + ["uint8", "uint16"]


def clip_cases(w):
    for dt in CLIP_TYPES:
        rng = seeded("clip", dt)
        x = values(rng, dt, (2, 4))
        lo, hi = (5, 30) if dt in UNSIGNED else (-2, 2)
        w.case("ClipByValue_%s" % dt, "ClipByValue",
               [(dt, x), (dt, np.array(lo)), (dt, np.array(hi))])
    rng = seeded("clip", "shapes")
    x = values(rng, "float", (2, 3), special=True)
    w.case("ClipByValue_tensor_bounds", "ClipByValue",
           [("float", x), ("float", values(rng, "float", (2, 3)) - 2),
            ("float", values(rng, "float", (2, 3)) + 2)])
    w.case("ClipByValue_tensor_min_scalar_max", "ClipByValue",
           [("float", x), ("float", values(rng, "float", (2, 3))),
            ("float", np.array(1.0))])
    w.case("ClipByValue_min_above_max", "ClipByValue",
           [("float", x), ("float", np.array(1.0)), ("float", np.array(-1.0))])
    w.case("ClipByValue_infinite_bounds", "ClipByValue",
           [("double", x), ("double", np.array(-INF)),
            ("double", np.array(0.5))])
    w.case("ClipByValue_empty", "ClipByValue",
           [("float", np.zeros((0, 2))), ("float", np.array(0.0)),
            ("float", np.array(1.0))])
    w.case("ClipByValue_scalar", "ClipByValue",
           [("int32", np.array(7)), ("int32", np.array(0)),
            ("int32", np.array(5))])


# ---- CheckNumerics, EnsureShape, ShapeN, BroadcastArgs -----------------------

def plumbing_cases(w):
    for dt in FLOATS:
        x = values(seeded("check", dt), dt, (2, 3))
        w.case("CheckNumerics_%s" % dt, "CheckNumerics", [(dt, x)],
               {"message": ("string", "fine")})
    w.case("CheckNumerics_empty", "CheckNumerics",
           [("float", np.zeros((0, 2)))], {"message": ("string", "empty")})
    rng = seeded("ensure")
    for label, shape in (("exact", [2, 3]), ("unknown_dim", [None, 3]),
                         ("unknown_rank", None)):
        w.case("EnsureShape_%s" % label, "EnsureShape",
               [("float", values(rng, "float", (2, 3)))],
               {"shape": ("shape", shape)})
    w.case("EnsureShape_scalar", "EnsureShape", [("int32", np.array(3))],
           {"shape": ("shape", [])})
    w.case("EnsureShape_bool", "EnsureShape",
           [("bool", np.array([True, False]))], {"shape": ("shape", [2])})
    for out in ("int32", "int64"):
        w.case("ShapeN_%s" % out, "ShapeN",
               [[("float", np.zeros((2, 3))), ("float", np.zeros((4,))),
                 ("float", np.array(1.0)), ("float", np.zeros((0, 5, 1)))]],
               {"out_type": ("type", out)})
    w.case("ShapeN_one_int8", "ShapeN", [[("int8", np.zeros((3, 1)))]])
    for dt in ("int32", "int64"):
        for label, (a, b) in {
            "same": ([2, 3], [2, 3]),
            "ones": ([2, 1, 3], [4, 1, 1, 1]),
            "longer_right": ([3], [5, 1, 3]),
            "zero": ([0, 1], [1]),
            "zero_vs_one": ([1, 0], [3, 1]),
            "empty": ([], [2, 2]),
            "both_empty": ([], []),
        }.items():
            w.case("BroadcastArgs_%s_%s" % (dt, label), "BroadcastArgs",
                   [(dt, np.array(a)), (dt, np.array(b))])


# ---- element-wise math -------------------------------------------------------

SPECIAL = [NAN, INF, -INF, 0.0, -0.0]

UNARY = {
    "Acos": ([1.0, -1.0, 0.5, -0.5, 0.99, -0.999, 1e-3, 1.5, -2.0], (-1, 1)),
    "Asin": ([1.0, -1.0, 0.5, -0.5, 0.99, -0.999, 1e-3, 1.5, -2.0], (-1, 1)),
    "Atan": ([1.0, -1.0, 0.5, 3.0, -30.0, 1e4, 1e-3, -1e-3, 2.0], (-20, 20)),
    "Acosh": ([1.0, 1.5, 2.0, 10.0, 1000.0, 1.001, 0.5, -1.0, 3.0],
              (1, 100)),
    "Asinh": ([1.0, -1.0, 0.5, 3.0, -30.0, 1e4, 1e-3, -1e-3, 2.0], (-50, 50)),
    "Atanh": ([1.0, -1.0, 0.5, -0.5, 0.99, -0.999, 1e-3, 1.5, 0.25],
              (-0.999, 0.999)),
    "Cosh": ([1.0, -1.0, 0.5, 3.0, -3.0, 10.0, -10.0, 1e-3, 0.01], (-11, 11)),
    "Sinh": ([1.0, -1.0, 0.5, 3.0, -3.0, 10.0, -10.0, 1e-3, 0.01], (-11, 11)),
    "Tan": ([1.0, -1.0, 0.5, 1.5, -1.5, 3.0, 10.0, 1e-3, 0.01], (-1.5, 1.5)),
    "Expm1": ([1.0, -1.0, 0.5, 3.0, -3.0, 10.0, -10.0, 1e-3, -1e-4],
              (-10, 10)),
}


def math_cases(w):
    for op, (vals, sweep) in UNARY.items():
        for dt in FLOATS:
            w.case("%s_%s" % (op, dt), op,
                   [(dt, np.array(SPECIAL + vals))])
        lo, hi = sweep
        w.case("%s_float_sweep" % op, op,
               [("float", np.round(seeded(op, "sweep").uniform(lo, hi, (4, 8)),
                                   4))])
        w.case("%s_double_sweep" % op, op,
               [("double", np.round(seeded(op, "d").uniform(lo, hi, 16), 4))])
    w.case("Acos_float_empty", "Acos", [("float", np.zeros((0, 2)))])
    w.case("Sinh_float_scalar", "Sinh", [("float", np.array(0.75))])
    for dt in FLOATS:
        w.case("IsInf_%s" % dt, "IsInf",
               [(dt, np.array(SPECIAL + [1.5, -3.0, 65504.0]))])
        if dt not in ("float", "double"):
            continue  # TensorFlow's CPU Rint: float and double only
        w.case("Rint_%s" % dt, "Rint",
               [(dt, np.array(SPECIAL + [0.5, 1.5, 2.5, -0.5, -1.5, -2.5,
                                         0.4999, 2.6, -2.6, 1e4 + 0.5]))])
    # Atan2(y, x): every quadrant, the axes and signed zeros, infinities.
    ys = [NAN, 1.0, 0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 1.0, -1.0, INF, INF, -INF,
          2.0, 3.5]
    xs = [1.0, NAN, 1.0, 1.0, -1.0, -1.0, 0.0, 0.0, -2.0, -2.0, INF, -INF, 3.0,
          INF, -INF]
    for dt in FLOATS:
        w.case("Atan2_%s_special" % dt, "Atan2",
               [(dt, np.array(ys)), (dt, np.array(xs))])
        rng = seeded("Atan2", dt)
        w.case("Atan2_%s_broadcast" % dt, "Atan2",
               [(dt, np.round(rng.uniform(-4, 4, (2, 1, 3)), 2)),
                (dt, np.round(rng.uniform(-4, 4, (4, 1)), 2))])
    w.case("Atan2_float_empty", "Atan2",
           [("float", np.zeros((0, 3))), ("float", np.ones((1, 3)))])
    # TruncateDiv.
    for dt in REAL:
        rng = seeded("TruncateDiv", dt)
        if dt in UNSIGNED:
            x = rng.integers(0, 40, (2, 1, 3))
            y = rng.integers(1, 7, (2, 1))
        elif dt in SIGNED:
            x = rng.integers(-20, 21, (2, 1, 3))
            y = rng.integers(1, 7, (2, 1)) * rng.choice([-1, 1], (2, 1))
        else:
            x = np.round(rng.uniform(-8, 8, (2, 1, 3)), 2)
            y = np.round(rng.uniform(0.5, 4, (2, 1)), 2) * \
                rng.choice([-1, 1], (2, 1))
        w.case("TruncateDiv_%s_broadcast" % dt, "TruncateDiv",
               [(dt, x), (dt, y)])
    for dt in ("int32", "int64", "int8"):
        lo = int(np.iinfo(getattr(np, dt)).min)
        x = [-7, 7, -7, 7, 0, lo, lo, lo + 1, 5, 6, -6]
        y = [2, 2, -2, -2, 3, -1, 1, -2, lo, -4, 4]
        w.case("TruncateDiv_%s_edges" % dt, "TruncateDiv",
               [(dt, np.array(x)), (dt, np.array(y))])
    w.case("TruncateDiv_uint64_edges", "TruncateDiv",
           [("uint64", np.array([2 ** 64 - 1, 2 ** 64 - 1, 7, 0],
                                dtype=np.uint64)),
            ("uint64", np.array([2 ** 64 - 1, 2, 2 ** 63, 5],
                                dtype=np.uint64))])
    for dt in ("float", "half", "double"):
        w.case("TruncateDiv_%s_special" % dt, "TruncateDiv",
               [(dt, np.array([NAN, 1.0, INF, -INF, 0.0, -0.0, 5.0, -5.0, 1.0,
                               -1.0, 7.5, -7.5, -0.0])),
                (dt, np.array([1.0, NAN, 2.0, INF, 0.0, 3.0, 0.0, 0.0, INF,
                               INF, 2.5, 2.5, -2.0]))])
    w.case("TruncateDiv_float_scalar_left", "TruncateDiv",
           [("float", np.array(7.0)), ("float", np.array([2.0, -3.0, 0.5]))])


# ---- bitwise -----------------------------------------------------------------

def int_values(rng, dt, shape):
    info = np.iinfo(getattr(np, dt))
    v = rng.integers(int(info.min), int(info.max), shape, dtype=np.int64
                     if dt != "uint64" else np.uint64, endpoint=True)
    return v


def bitwise_cases(w):
    for dt in INTS:
        rng = seeded("bitwise", dt)
        info = np.iinfo(getattr(np, dt))
        x = int_values(rng, dt, (2, 1, 4))
        y = int_values(rng, dt, (3, 1))
        for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
            w.case("%s_%s_broadcast" % (op, dt), op, [(dt, x), (dt, y)])
        edges = np.array([0, 1, int(info.max), int(info.min)] +
                         ([-1, -2] if dt in SIGNED else [2, 3]),
                         dtype=np.uint64 if dt == "uint64" else np.int64)
        w.case("Invert_%s" % dt, "Invert", [(dt, edges)])
        bits = info.bits
        amounts = [0, 1, bits - 1, bits, bits + 1, 100 % 128, 3, 2]
        if dt in SIGNED:
            amounts += [-1, -bits]
        xs = [1, -1 if dt in SIGNED else int(info.max), int(info.max),
              int(info.min), 5, 96, 3, 7] + ([-128 % 256 - 128, -5]
                                             if dt in SIGNED else [])
        n = min(len(amounts), len(xs))
        npt = np.uint64 if dt == "uint64" else np.int64
        for op in ("LeftShift", "RightShift"):
            w.case("%s_%s_edges" % (op, dt), op,
                   [(dt, np.array(xs[:n], dtype=npt)),
                    (dt, np.array(amounts[:n], dtype=npt))])
            w.case("%s_%s_broadcast" % (op, dt), op,
                   [(dt, x), (dt, np.array([[1], [bits - 2], [0]]))])
    w.case("BitwiseAnd_int32_scalar", "BitwiseAnd",
           [I32(0x0F0F), I32([0xFF, 0x1234, -1])])
    w.case("BitwiseOr_empty", "BitwiseOr",
           [("int32", np.zeros((0, 3))), ("int32", np.ones((1, 3)))])


# ---- non-max suppression -----------------------------------------------------

def random_boxes(rng, n, flip=False):
    """n boxes [y1, x1, y2, x2] in the unit square, overlapping often."""
    corner = rng.uniform(0.0, 0.8, (n, 2))
    size = rng.uniform(0.05, 0.4, (n, 2))
    boxes = np.round(np.concatenate([corner, corner + size], 1), 3)
    if flip:  # corners in either order
        boxes[::2] = boxes[::2][:, [2, 3, 0, 1]]
        boxes[1::3] = boxes[1::3][:, [0, 3, 2, 1]]
    return boxes


def nms_inputs(op, dt, boxes, scores, max_out, iou, score=None, sigma=None,
               tt=None):
    tt = tt or dt
    ins = [(dt, boxes), (dt, scores), I32(max_out)]
    if op != "NonMaxSuppression":
        ins.append((tt, np.array(iou)))
    if score is not None:
        ins.append((tt, np.array(score)))
    if sigma is not None:
        ins.append((tt, np.array(sigma)))
    return ins


def nms_cases(w):
    # Hard NMS, every version and dtype, thresholds of either dtype.
    for dt in ("float", "half"):
        rng = seeded("nms", dt)
        for k, (iou, score, max_out) in enumerate(
                ((0.5, 0.0, 10), (0.3, 0.4, 30), (0.7, -INF, 5),
                 (1.0, 0.2, 40), (0.0, 0.1, 40))):
            n = 30
            boxes = random_boxes(rng, n, flip=k % 2 == 1)
            scores = np.round(rng.uniform(0, 1, n), 3)
            if k == 3:
                scores = np.round(scores * 4) / 4  # ties
            w.case("NonMaxSuppressionV2_%s_%d" % (dt, k), "NonMaxSuppressionV2",
                   nms_inputs("V2", dt, boxes, scores, max_out, iou))
            for tt in ("float", "half"):
                w.case("NonMaxSuppressionV3_%s_%s_%d" % (dt, tt, k),
                       "NonMaxSuppressionV3",
                       nms_inputs("V3", dt, boxes, scores, max_out, iou, score,
                                  tt=tt))
                for pad in (False, True):
                    w.case("NonMaxSuppressionV4_%s_%s_%d%s" % (
                        dt, tt, k, "_pad" if pad else ""),
                        "NonMaxSuppressionV4",
                        nms_inputs("V4", dt, boxes, scores, max_out, iou,
                                   score, tt=tt),
                        {"pad_to_max_output_size": ("bool", pad)})
            # V5 hard (sigma 0) and soft.
            for sigma in (0.0, 0.1, 0.5, 2.0):
                for pad in (False, True):
                    w.case("NonMaxSuppressionV5_%s_%d_s%g%s" % (
                        dt, k, sigma, "_pad" if pad else ""),
                        "NonMaxSuppressionV5",
                        nms_inputs("V5", dt, boxes, scores, max_out, iou,
                                   max(score, 0.0) if sigma else score, sigma),
                        {"pad_to_max_output_size": ("bool", pad)})
    # Edges: an IoU exactly at the threshold is kept (strictly above drops);
    # a score exactly at the threshold is not a candidate; equal scores go
    # by index; zero-area and identical boxes; NaN and -inf scores; nothing
    # to select; max_output_size 0 and above the box count.
    edge = np.array([[0, 0, 1, 2], [0, 0, 1, 1], [0, 0, 1, 1], [1, 1, 1, 3],
                     [2, 2, 3, 3], [3, 3, 2, 2], [0, 0, 0.5, 1]])
    edge_scores = np.array([0.9, 0.8, 0.8, 0.95, 0.5, 0.6, 0.8])
    for dt in ("float", "half"):
        for iou in (0.5, 0.49, 1.0, 0.0):
            w.case("NonMaxSuppressionV3_%s_edge_%g" % (dt, iou),
                   "NonMaxSuppressionV3",
                   nms_inputs("V3", dt, edge, edge_scores, 10, iou, 0.5))
        w.case("NonMaxSuppressionV3_%s_all_below" % dt, "NonMaxSuppressionV3",
               nms_inputs("V3", dt, edge, edge_scores, 10, 0.5, 0.95))
        w.case("NonMaxSuppressionV3_%s_max0" % dt, "NonMaxSuppressionV3",
               nms_inputs("V3", dt, edge, edge_scores, 0, 0.5, 0.0))
        w.case("NonMaxSuppressionV3_%s_empty" % dt, "NonMaxSuppressionV3",
               nms_inputs("V3", dt, np.zeros((0, 4)), np.zeros(0), 3, 0.5,
                          0.0))
        w.case("NonMaxSuppressionV4_%s_empty_pad" % dt, "NonMaxSuppressionV4",
               nms_inputs("V4", dt, np.zeros((0, 4)), np.zeros(0), 3, 0.5,
                          0.0), {"pad_to_max_output_size": ("bool", True)})
        w.case("NonMaxSuppressionV5_%s_edge_soft" % dt, "NonMaxSuppressionV5",
               nms_inputs("V5", dt, edge, edge_scores, 10, 0.5, 0.0, 0.5),
               {"pad_to_max_output_size": ("bool", True)})
        w.case("NonMaxSuppressionV5_%s_edge_soft_threshold" % dt,
               "NonMaxSuppressionV5",
               nms_inputs("V5", dt, edge, edge_scores, 10, 0.3, 0.55, 1.0),
               {"pad_to_max_output_size": ("bool", False)})
        special = np.array([NAN, -INF, 0.3, -65504.0, INF, 0.3, -1.0])
        w.case("NonMaxSuppressionV2_%s_special_scores" % dt,
               "NonMaxSuppressionV2",
               nms_inputs("V2", dt, edge, special, 10, 0.5))
        w.case("NonMaxSuppressionV3_%s_special_scores" % dt,
               "NonMaxSuppressionV3",
               nms_inputs("V3", dt, edge, special, 10, 0.5, -INF))
    # A threshold that half rounds: the V3 thresholds are converted to T.
    w.case("NonMaxSuppressionV3_half_float_threshold_rounds",
           "NonMaxSuppressionV3",
           nms_inputs("V3", "half", edge, edge_scores, 10, 0.49999, 0.79999,
                      tt="float"))
    rng = seeded("nms", "v1")
    boxes = random_boxes(rng, 25, flip=True)
    scores = np.round(rng.uniform(0, 1, 25), 3)
    w.case("NonMaxSuppression_default", "NonMaxSuppression",
           nms_inputs("NonMaxSuppression", "float", boxes, scores, 20, None))
    for iou in (0.2, 0.8):
        w.case("NonMaxSuppression_iou_%g" % iou, "NonMaxSuppression",
               nms_inputs("NonMaxSuppression", "float", boxes, scores, 7,
                          None), {"iou_threshold": ("float", iou)})
    # WithOverlaps: any similarity matrix, any threshold.
    overlaps = np.round(rng.uniform(0, 1, (12, 12)), 3)
    scores = np.round(rng.uniform(0, 1, 12), 3)
    for thr, score in ((0.5, 0.0), (0.8, 0.3), (1.5, -INF), (0.0, 0.5)):
        w.case("NonMaxSuppressionWithOverlaps_%g_%g" % (thr, score),
               "NonMaxSuppressionWithOverlaps",
               [("float", overlaps), ("float", scores), I32(8),
                ("float", np.array(thr)), ("float", np.array(score))])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "inference_goldens.txt"))
    args = parser.parse_args()
    w = Writer()
    band_cases(w)
    topk_cases(w)
    scan_cases(w)
    reverse_roll_cases(w)
    perm_where_cases(w)
    clip_cases(w)
    plumbing_cases(w)
    math_cases(w)
    bitwise_cases(w)
    nms_cases(w)
    header = [
        "# generated by tests/kernels/gen_inference_goldens.py with "
        "TensorFlow %s (TF_ENABLE_ONEDNN_OPTS=%s); do not edit" %
        (tf.__version__, os.environ["TF_ENABLE_ONEDNN_OPTS"]),
        "# %d cases" % len(w.names),
    ]
    with open(args.out, "w") as f:
        f.write("\n".join(header + w.lines) + "\n")
    print("wrote %s: %d cases, %d bytes" %
          (args.out, len(w.names), os.path.getsize(args.out)))


if __name__ == "__main__":
    sys.exit(main())
