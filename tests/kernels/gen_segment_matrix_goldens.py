#!/usr/bin/env python3
"""Writes tests/kernels/testdata/segment_matrix_goldens.txt: reference
outputs of TensorFlow's own CPU kernels for the segment and matrix ops of
issue 13 that cpu_segment_matrix_golden_test.cc replays: SegmentSum, Mean,
Prod, Max, Min; UnsortedSegmentSum, Prod, Max, Min; SparseSegmentSum, Mean,
SqrtN and their WithNumSegments forms; MatrixDiag, MatrixDiagPart,
MatrixSetDiag and their V2 and V3 forms; MatrixDeterminant; BatchMatMul and
BatchMatMulV3.

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it (TensorFlow 2.21 in the system python3):

    TF_ENABLE_ONEDNN_OPTS=0 python3 tests/kernels/gen_segment_matrix_goldens.py

Every value comes from tf.raw_ops on /CPU:0 with inputs drawn from
numpy.random.default_rng with fixed seeds, so reruns give the same file.
Tensors are written as gen_array_goldens.py writes them (its helpers are
imported); the format is golden_testutil.h's. Errors (unsorted or
out-of-range ids, bad k, non-square matrices) are not goldens:
cpu_segment_matrix_ops_test.cc checks them.
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

    def case(self, name, op, inputs, attrs=None):
        """inputs: per op input arg, (dtype, values).
        attrs: name -> (kind, value), kind int|bool|string|type."""
        assert name not in self.names, name
        self.names.add(name)
        attrs = attrs or {}
        params = list(inspect.signature(getattr(tf.raw_ops, op)).parameters)
        with tf.device("/CPU:0"):
            kwargs = {}
            flat = []
            for pname, arg in zip(params, inputs):
                t = make(*arg)
                flat.append(t)
                kwargs[pname] = t
            for key, (kind, value) in attrs.items():
                kwargs[key] = DTYPES[value] if kind == "type" else value
            out = getattr(tf.raw_ops, op)(**kwargs)
        self.lines.append("case %s %s" % (name, op))
        for key, (kind, value) in sorted(attrs.items()):
            if kind == "bool":
                text = "true" if value else "false"
            else:
                text = str(value)
            self.lines.append("attr %s %s %s" % (key, kind, text))
        for t in flat:
            self.lines.append(fmt_tensor("in", t))
        self.lines.append(fmt_tensor("out", out))
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


def small(rng, dt, shape):
    """Values whose sums and products stay small and exact in every dtype."""
    if dt in UNSIGNED:
        return rng.integers(0, 4, shape)
    if dt in SIGNED:
        return rng.integers(-3, 4, shape)
    return rng.integers(-6, 7, shape) / 2.0


def sorted_ids(rng, n, segments):
    return np.sort(rng.integers(0, segments, n))


# ---- Segment* ----------------------------------------------------------------

SEGMENT_OPS = ["SegmentSum", "SegmentMean", "SegmentProd", "SegmentMax",
               "SegmentMin"]


def segment_cases(w):
    for op in SEGMENT_OPS:
        for dt in REAL:
            rng = seeded(op, dt)
            # Segment 2 is empty; 0 and 3 have several rows.
            w.case("%s_%s" % (op, dt), op,
                   [(dt, small(rng, dt, (6, 3))), I32([0, 0, 1, 3, 3, 3])])
        rng = seeded(op, "shapes")
        x = np.round(rng.uniform(-3, 3, (7, 2, 2)), 2)
        w.case("%s_rank3_int64_ids" % op, op,
               [("float", x), I64([0, 1, 1, 1, 4, 4, 6])])
        w.case("%s_vector" % op, op,
               [("double", np.round(rng.uniform(-3, 3, 8), 3)),
                I32([1, 1, 2, 2, 2, 2, 5, 5])])
        w.case("%s_one_row_each" % op, op,
               [("int32", rng.integers(-9, 9, (4, 2))), I32([0, 1, 2, 3])])
        w.case("%s_empty" % op, op,
               [("float", np.zeros((0, 3))), I32(np.zeros(0, np.int32))])
        w.case("%s_empty_inner" % op, op,
               [("float", np.zeros((3, 0))), I32([0, 2, 2])])
        # NaN and infinities in multi-row segments, inner sizes 1 and 9
        # (Eigen vectorizes the wider one).
        for inner in (1, 9):
            x = np.round(rng.uniform(-3, 3, (8, inner)), 2)
            x[1, 0] = NAN
            x[3, -1] = INF
            x[4, -1] = -INF
            x[6, 0] = NAN
            x[7, 0] = NAN
            w.case("%s_special_inner%d" % (op, inner), op,
                   [("float", x), I32([0, 0, 1, 1, 1, 2, 2, 2])])
        # Whole AVX packets of columns (8 floats, 4 doubles) ignore NaN in
        # TensorFlow's max/min; the columns after them take it.
        for dt, inner in (("float", 17), ("double", 6), ("half", 9)):
            x = np.round(rng.uniform(-3, 3, (7, inner)), 2)
            x[0:2, :] = NAN
            x[3, ::2] = NAN
            x[5, 1::2] = NAN
            w.case("%s_special_packets_%s" % (op, dt), op,
                   [(dt, x), I32([0, 0, 1, 1, 1, 2, 2])])
        w.case("%s_half_rounding" % op, op,
               [("half", np.round(rng.uniform(-2, 2, (12, 4)), 3)),
                I32([0] * 5 + [1] * 7)])
        big = np.round(rng.uniform(-2, 2, (2000, 2)), 3)
        if op == "SegmentProd":
            big = np.round(rng.uniform(0.9, 1.1, (2000, 2)), 3)
        w.case("%s_large" % op, op,
               [("float", big), I32(sorted_ids(rng, 2000, 300))])


# ---- UnsortedSegment* -------------------------------------------------------

UNSORTED_OPS = ["UnsortedSegmentSum", "UnsortedSegmentProd",
                "UnsortedSegmentMax", "UnsortedSegmentMin"]


def unsorted_cases(w):
    for op in UNSORTED_OPS:
        for dt in REAL:
            rng = seeded(op, dt)
            # Segments 1 and 3 are empty; id -1 is dropped.
            w.case("%s_%s" % (op, dt), op,
                   [(dt, small(rng, dt, (6, 3))), I32([2, 0, -1, 2, 4, 0]),
                    I32(5)])
        rng = seeded(op, "shapes")
        w.case("%s_ids_matrix" % op, op,
               [("float", np.round(rng.uniform(-3, 3, (2, 3, 2)), 2)),
                I32([[1, 0, 1], [3, -2, 1]]), I32(4)])
        w.case("%s_ids_same_shape" % op, op,
               [("double", np.round(rng.uniform(-3, 3, (2, 3)), 2)),
                I64([[1, 0, 1], [0, 0, 1]]), I64(2)])
        w.case("%s_scalar" % op, op,
               [("int32", np.array(7)), I32(1), I32(3)])
        w.case("%s_all_dropped" % op, op,
               [("float", np.ones((3, 2))), I32([-1, -5, -1]), I32(0)])
        w.case("%s_empty_data" % op, op,
               [("float", np.zeros((0, 2))), I32(np.zeros(0, np.int32)),
                I32(3)])
        w.case("%s_empty_inner_ids_unchecked" % op, op,
               [("float", np.zeros((2, 0))), I32([7, 0]), I32(2)])
        x = np.round(rng.uniform(-3, 3, (8, 5)), 2)
        x[1, 0] = NAN
        x[2, 1] = NAN
        x[3, 4] = INF
        x[5, 4] = -INF
        w.case("%s_special" % op, op,
               [("float", x), I32([0, 0, 1, 0, 2, 2, 1, 0]), I32(3)])
        x = np.round(rng.uniform(-3, 3, (6, 9)), 2)
        x[0:2, :] = NAN
        x[3, ::2] = NAN
        w.case("%s_special_wide" % op, op,
               [("float", x), I32([0, 0, 1, 1, 1, 0]), I32(2)])
        big = np.round(rng.uniform(-2, 2, (2000, 2)), 3)
        if op == "UnsortedSegmentProd":
            big = np.round(rng.uniform(0.95, 1.05, (2000, 2)), 3)
        w.case("%s_large" % op, op,
               [("float", big), I32(rng.integers(-1, 100, 2000)), I32(100)])
        w.case("%s_large_wide" % op, op,
               [("double", np.round(rng.uniform(-2, 2, (100, 24)), 3)),
                I64(rng.integers(0, 20, 100)), I32(25)])
    rng = seeded("unsorted", "int16")
    w.case("UnsortedSegmentSum_int16_ids", "UnsortedSegmentSum",
           [("float", small(rng, "float", (5, 2))), ("int16",
                                                     np.array([1, 1, 0, 3, -1])),
            I64(4)])


# ---- SparseSegment* ----------------------------------------------------------

SPARSE_OPS = ["SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"]


def sparse_cases(w):
    for base in SPARSE_OPS:
        for op in (base, base + "WithNumSegments"):
            num = op.endswith("WithNumSegments")
            extra = [I32(6)] if num else []
            for dt in (REAL if base == "SparseSegmentSum" else FLOATS):
                rng = seeded(op, dt)
                w.case("%s_%s" % (op, dt), op,
                       [(dt, small(rng, dt, (5, 3))),
                        I32([0, 2, 1, 4, 4, 3, 0]),
                        I32([0, 0, 0, 2, 2, 3, 3])] + extra)
            rng = seeded(op, "shapes")
            x = np.round(rng.uniform(-3, 3, (6, 2, 2)), 3)
            w.case("%s_int64_indices_ids" % op, op,
                   [("float", x), I64([5, 0, 0, 3]), I64([1, 1, 2, 2])] +
                   ([I64(4)] if num else []),
                   {"sparse_gradient": ("bool", True)} if num else None)
            # Segments of 1 to 20 rows: the first group of up to 9 rows,
            # then groups of 8, and the count-10 switch from a reciprocal
            # to a division.
            lengths = list(range(1, 21))
            ids = np.repeat(np.arange(20), lengths)
            data = np.round(rng.uniform(-2, 2, (30, 3)), 4)
            idx = rng.integers(0, 30, len(ids))
            for dt in ("float", "double", "half", "bfloat16"):
                w.case("%s_lengths_1_to_20_%s" % (op, dt), op,
                       [(dt, data), I32(idx), I32(ids)] +
                       ([I32(22)] if num else []))
            w.case("%s_empty" % op, op,
                   [("float", np.zeros((3, 2))), I32(np.zeros(0, np.int32)),
                    I32(np.zeros(0, np.int32))] + ([I32(3)] if num else []))
            x = np.round(rng.uniform(-3, 3, (4, 2)), 2)
            x[1, 0] = NAN
            x[2, 1] = INF
            w.case("%s_special" % op, op,
                   [("float", x), I32([1, 2, 0, 3]), I32([0, 0, 1, 1])] +
                   ([I32(2)] if num else []))
            big = np.round(rng.uniform(-2, 2, (300, 4)), 3)
            w.case("%s_large" % op, op,
                   [("float", big), I32(rng.integers(0, 300, 2000)),
                    I32(sorted_ids(rng, 2000, 600))] +
                   ([I32(700)] if num else []))


# ---- MatrixDiag* --------------------------------------------------------------

ALIGNS = ["LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT"]


def diag_cases(w):
    for dt in ALL:
        rng = seeded("diag", dt)
        w.case("MatrixDiag_%s" % dt, "MatrixDiag",
               [(dt, values(rng, dt, (2, 3)))])
        w.case("MatrixDiagPart_%s" % dt, "MatrixDiagPart",
               [(dt, values(rng, dt, (2, 3, 4)))])
        w.case("MatrixSetDiag_%s" % dt, "MatrixSetDiag",
               [(dt, values(rng, dt, (4, 3))), (dt, values(rng, dt, (3,)))])
        pad = values(rng, dt, ())
        w.case("MatrixDiagV2_%s" % dt, "MatrixDiagV2",
               [(dt, values(rng, dt, (2, 3))), I32([-1, 0]), I32(-1),
                I32(-1), (dt, pad)])
        w.case("MatrixDiagV3_%s" % dt, "MatrixDiagV3",
               [(dt, values(rng, dt, (3, 3))), I32([-1, 1]), I32(-1),
                I32(4), (dt, pad)])
        w.case("MatrixDiagPartV2_%s" % dt, "MatrixDiagPartV2",
               [(dt, values(rng, dt, (3, 4))), I32([-1, 2]), (dt, pad)])
        w.case("MatrixDiagPartV3_%s" % dt, "MatrixDiagPartV3",
               [(dt, values(rng, dt, (2, 4, 3))), I32([-2, 1]), (dt, pad)])
        w.case("MatrixSetDiagV2_%s" % dt, "MatrixSetDiagV2",
               [(dt, values(rng, dt, (3, 4))), (dt, values(rng, dt, (2, 3))),
                I32([0, 1])])
        w.case("MatrixSetDiagV3_%s" % dt, "MatrixSetDiagV3",
               [(dt, values(rng, dt, (4, 3))), (dt, values(rng, dt, (3, 3))),
                I32([-2, 0])])
    rng = seeded("diag", "shapes")
    # Every alignment on tall, wide and square matrices, with ranges of
    # diagonals above, below and across the main one.
    for rows, cols in ((3, 5), (5, 3), (4, 4)):
        m = np.round(rng.uniform(-5, 5, (2, rows, cols)), 1)
        for lo, hi in ((-2, 1), (0, 2), (-2, -1), (1, 1), (-1, -1), (0, 0),
                       (-(rows - 1), cols - 1)):
            for align in ALIGNS:
                name = "%dx%d_k%d_%d_%s" % (rows, cols, lo, hi, align)
                w.case("MatrixDiagPartV3_" + name, "MatrixDiagPartV3",
                       [("float", m), I32([lo, hi]), ("float", 9.5)],
                       {"align": ("string", align)})
                with tf.device("/CPU:0"):
                    part = tf.raw_ops.MatrixDiagPartV3(
                        input=tf.constant(m, tf.float32), k=[lo, hi],
                        padding_value=0.0, align=align).numpy()
                d = np.round(rng.uniform(-5, 5, part.shape), 1)
                w.case("MatrixSetDiagV3_" + name, "MatrixSetDiagV3",
                       [("float", m), ("float", d), I32([lo, hi])],
                       {"align": ("string", align)})
                w.case("MatrixDiagV3_" + name, "MatrixDiagV3",
                       [("float", d), I32([lo, hi]), I32(rows), I32(cols),
                        ("float", -1.0)], {"align": ("string", align)})
            w.case("MatrixDiagPartV2_%dx%d_k%d_%d" % (rows, cols, lo, hi),
                   "MatrixDiagPartV2",
                   [("float", m), I32([lo, hi]), ("float", 7.0)])
    # num_rows / num_cols inferred from one another.
    d = np.round(rng.uniform(-5, 5, (2, 3)), 1)
    for k, r, c in ((0, -1, -1), (1, -1, -1), (-2, -1, -1), (0, 3, 5),
                    (0, 5, 3), (1, -1, 6), (1, 5, -1), (-1, -1, 3),
                    (2, 3, -1)):
        w.case("MatrixDiagV3_k%d_r%d_c%d" % (k, r, c), "MatrixDiagV3",
               [("double", d), I32(k), I32(r), I32(c), ("double", 0.5)])
    w.case("MatrixDiagV2_k_vector_of_one", "MatrixDiagV2",
           [("float", d), I32([1]), I32(-1), I32(-1), ("float", 0.0)])
    w.case("MatrixDiag_empty", "MatrixDiag", [("float", np.zeros((2, 0)))])
    w.case("MatrixDiag_vector", "MatrixDiag",
           [("int32", np.array([3, -1, 4, 1]))])
    w.case("MatrixDiagPart_empty", "MatrixDiagPart",
           [("float", np.zeros((3, 0, 2)))])
    w.case("MatrixDiagPartV3_empty_k0", "MatrixDiagPartV3",
           [("float", np.zeros((0, 0))), I32(0), ("float", 1.0)])
    w.case("MatrixDiagPartV3_empty_range", "MatrixDiagPartV3",
           [("float", np.zeros((2, 0, 3))), I32([0, 1]), ("float", 1.0)])
    w.case("MatrixSetDiag_empty_batch", "MatrixSetDiag",
           [("float", np.zeros((0, 2, 2))), ("float", np.zeros((0, 2)))])
    x = np.round(rng.uniform(-5, 5, (3, 3)), 1)
    x[0, 0] = NAN
    x[1, 2] = INF
    w.case("MatrixDiagPartV3_special", "MatrixDiagPartV3",
           [("float", x), I32([0, 1]), ("float", NAN)])
    w.case("MatrixSetDiagV3_special", "MatrixSetDiagV3",
           [("float", x), ("float", [NAN, -INF, 2.0]), I32(0)])
    # Large: ParallelFor over rows and matrices.
    w.case("MatrixDiagV3_large", "MatrixDiagV3",
           [("float", np.round(rng.uniform(-5, 5, (2, 5, 60)), 2)),
            I32([-2, 2]), I32(-1), I32(-1), ("float", 0.0)])
    w.case("MatrixDiagPartV3_large", "MatrixDiagPartV3",
           [("float", np.round(rng.uniform(-5, 5, (2, 40, 50)), 2)),
            I32([-3, 10]), ("float", 0.0)], {"align": ("string", "LEFT_RIGHT")})
    w.case("MatrixSetDiagV3_large", "MatrixSetDiagV3",
           [("float", np.round(rng.uniform(-5, 5, (2, 50, 50)), 2)),
            ("float", np.round(rng.uniform(-5, 5, (2, 3, 50)), 2)),
            I32([-1, 1])])


# ---- MatrixDeterminant -------------------------------------------------------

def det_cases(w):
    for dt in ("float", "double"):
        rng = seeded("det", dt)
        for n in (1, 2, 3, 4, 5, 8):
            w.case("MatrixDeterminant_%s_%d" % (dt, n), "MatrixDeterminant",
                   [(dt, np.round(rng.uniform(-2, 2, (3, n, n)), 3))])
        w.case("MatrixDeterminant_%s_empty_matrices" % dt, "MatrixDeterminant",
               [(dt, np.zeros((2, 0, 0)))])
        w.case("MatrixDeterminant_%s_empty_batch" % dt, "MatrixDeterminant",
               [(dt, np.zeros((0, 3, 3)))])
        w.case("MatrixDeterminant_%s_singular" % dt, "MatrixDeterminant",
               [(dt, np.array([[1.0, 2.0], [2.0, 4.0]]))])
        w.case("MatrixDeterminant_%s_pivoting" % dt, "MatrixDeterminant",
               [(dt, np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 1.0],
                               [1.0, 5.0, 0.0]]))])
        w.case("MatrixDeterminant_%s_large" % dt, "MatrixDeterminant",
               [(dt, np.round(rng.uniform(-1, 1, (2, 40, 40)), 3))])
    x = np.eye(3)
    x[1, 1] = NAN
    w.case("MatrixDeterminant_nan", "MatrixDeterminant", [("float", x)])


# ---- BatchMatMul, BatchMatMulV3 ----------------------------------------------

def bmm_cases(w):
    for dt in ("half", "bfloat16", "float", "double", "int32", "int64"):
        rng = seeded("bmm", dt)
        w.case("BatchMatMul_%s" % dt, "BatchMatMul",
               [(dt, small(rng, dt, (2, 3, 4))), (dt, small(rng, dt, (2, 4, 2)))])
    rng = seeded("bmm", "shapes")
    x = np.round(rng.uniform(-2, 2, (2, 3, 4, 5)), 2)
    for ax, ay in ((False, False), (True, False), (False, True), (True, True)):
        a = np.swapaxes(x, -1, -2) if ax else x
        b = np.round(rng.uniform(-2, 2, (2, 3, 5, 2)), 2)
        if ay:
            b = np.swapaxes(b, -1, -2)
        w.case("BatchMatMul_adj_%d%d" % (ax, ay), "BatchMatMul",
               [("float", a), ("float", b)],
               {"adj_x": ("bool", ax), "adj_y": ("bool", ay)})
    w.case("BatchMatMul_matrices", "BatchMatMul",
           [("double", np.round(rng.uniform(-2, 2, (3, 4)), 2)),
            ("double", np.round(rng.uniform(-2, 2, (4, 2)), 2))])
    w.case("BatchMatMul_empty_batch", "BatchMatMul",
           [("float", np.zeros((0, 3, 4))), ("float", np.zeros((0, 4, 2)))])
    w.case("BatchMatMul_empty_inner", "BatchMatMul",
           [("float", np.zeros((2, 3, 0))), ("float", np.zeros((2, 0, 2)))])
    w.case("BatchMatMul_large", "BatchMatMul",
           [("float", small(rng, "float", (4, 24, 30))),
            ("float", small(rng, "float", (4, 30, 20)))])
    # V3: the dtypes TensorFlow's CPU kernels take (same-type operands, or
    # int8/uint8 operands into int32).
    same = ("bfloat16", "float", "double", "int16", "int32", "int64")
    for dt in same:
        rng = seeded("bmm3", dt)
        w.case("BatchMatMulV3_%s" % dt, "BatchMatMulV3",
               [(dt, small(rng, dt, (2, 3, 4))), (dt, small(rng, dt, (1, 4, 2)))],
               {"Tout": ("type", dt)})
    for ta, tb in (("int8", "int8"), ("uint8", "uint8"), ("uint8", "int8"),
                   ("int8", "uint8")):
        rng = seeded("bmm3", ta, tb)
        a = rng.integers(0 if ta == "uint8" else -128,
                         256 if ta == "uint8" else 128, (2, 3, 4))
        b = rng.integers(0 if tb == "uint8" else -128,
                         256 if tb == "uint8" else 128, (4, 5))
        w.case("BatchMatMulV3_%s_%s_int32" % (ta, tb), "BatchMatMulV3",
               [(ta, a), (tb, b)], {"Tout": ("type", "int32")})
    x = np.round(rng.uniform(-2, 2, (3, 1, 4, 5)), 2)
    y = np.round(rng.uniform(-2, 2, (2, 4, 5)), 2)
    w.case("BatchMatMulV3_broadcast_adj_y", "BatchMatMulV3",
           [("float", x), ("float", y)],
           {"Tout": ("type", "float"), "adj_y": ("bool", True)})
    w.case("BatchMatMulV3_int16_wraps", "BatchMatMulV3",
           [("int16", np.full((2, 3), 300)), ("int16", np.full((3, 2), 200))],
           {"Tout": ("type", "int16")})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "segment_matrix_goldens.txt"))
    args = parser.parse_args()
    w = Writer()
    segment_cases(w)
    unsorted_cases(w)
    sparse_cases(w)
    diag_cases(w)
    det_cases(w)
    bmm_cases(w)
    header = [
        "# generated by tests/kernels/gen_segment_matrix_goldens.py with "
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
