#!/usr/bin/env python3
"""Writes tests/kernels/testdata/scatter_goldens.txt: reference outputs of
TensorFlow's own CPU kernels for the indexing and scatter ops of issue 13,
replayed by cpu_scatter_golden_test.cc: GatherNd, ScatterNd,
TensorScatterUpdate, TensorScatterAdd, TensorScatterSub, TensorScatterMin,
TensorScatterMax, Unique, UniqueWithCounts, ReverseSequence,
DynamicPartition, DynamicStitch, ParallelDynamicStitch, Bincount,
DenseBincount, SparseToDense, and the legacy Gather and Concat.

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it (TensorFlow 2.21, oneDNN off):

    TF_ENABLE_ONEDNN_OPTS=0 python3 tests/kernels/gen_scatter_goldens.py

Every value comes from tf.raw_ops on /CPU:0 with inputs drawn from
numpy.random.default_rng with fixed seeds, so reruns give the same file.
Tensors are written as gen_array_goldens.py writes them (its helpers are
imported) through gen_inference_goldens.py's Writer. Errors (indices out of
range, bad shapes) are not goldens: cpu_scatter_ops_test.cc checks them.
Duplicate indices appear only where TensorFlow defines the result (sums,
min/max, and assignments whose duplicates carry equal values).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen_array_goldens import (ALL, FLOATS, INF, NAN, SIGNED,  # noqa
                               UNSIGNED, values)
from gen_inference_goldens import I32, I64, Writer, seeded  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

REAL = FLOATS + SIGNED + UNSIGNED
COUNT_TYPES = ["int32", "int64", "float", "double"]


# ---- GatherNd, Gather --------------------------------------------------------

def gather_cases(w):
    for dt in ALL:
        x = values(seeded("gnd", dt), dt, (3, 4))
        w.case("GatherNd_%s" % dt, "GatherNd",
               [(dt, x), I32([[0, 1], [2, 3], [1, 0]])])
        w.case("Gather_%s" % dt, "Gather", [(dt, x), I32([2, 0, 2])])
    rng = seeded("gnd", "shapes")
    x = values(rng, "float", (3, 4, 5), special=True)
    w.case("GatherNd_slices", "GatherNd", [("float", x), I64([[2], [0]])])
    w.case("GatherNd_full_rank", "GatherNd",
           [("float", x), I32([[[0, 1, 2], [2, 3, 4]], [[1, 1, 1], [0, 0, 0]]])])
    w.case("GatherNd_depth2", "GatherNd",
           [("float", x), ("int16", np.array([[1, 3], [0, 0], [2, 1]]))])
    w.case("GatherNd_k0", "GatherNd",
           [("float", x[:2, :2, :2]), ("int32", np.zeros((3, 0)))])
    w.case("GatherNd_empty_indices", "GatherNd",
           [("float", x), ("int32", np.zeros((0, 2)))])
    w.case("GatherNd_empty_params", "GatherNd",
           [("float", np.zeros((0, 3))), ("int32", np.zeros((0, 1)))])
    w.case("GatherNd_vector_index", "GatherNd", [("float", x), I32([1, 2])])
    w.case("GatherNd_ignore_bad", "GatherNd",
           [("int32", values(rng, "int32", (3, 2))), I32([[0, 1], [5, 0],
                                                          [2, -1], [2, 1]])],
           {"bad_indices_policy": ("string", "IGNORE")})
    big = values(rng, "float", (200, 6))
    w.case("GatherNd_large", "GatherNd",
           [("float", big), I32(rng.integers(0, 200, (150, 1)))])
    w.case("GatherNd_large_scalars", "GatherNd",
           [("int64", values(rng, "int64", (60, 70))),
            I64(np.stack([rng.integers(0, 60, 3000),
                          rng.integers(0, 70, 3000)], axis=1))])
    w.case("Gather_rank3_indices", "Gather",
           [("double", values(rng, "double", (4, 3))), I64([[[0, 3]], [[1, 1]]])])
    w.case("Gather_scalar_index", "Gather", [("float", x), I32(1)])
    w.case("Gather_empty", "Gather", [("float", x), ("int32", np.zeros(0))])
    w.case("Gather_large", "Gather",
           [("float", big), I32(rng.integers(0, 200, 400))])


# ---- ScatterNd, TensorScatter* -----------------------------------------------

def scatter_cases(w):
    add_types = [d for d in ALL if d != "bool"]
    for dt in ALL:
        rng = seeded("snd", dt)
        upd = values(rng, dt, (4, 3))
        # Duplicates (index 1 twice) sum; bools OR.
        w.case("ScatterNd_%s" % dt, "ScatterNd",
               [I32([[1], [3], [1], [0]]), (dt, upd), I32([5, 3])])
        t = values(rng, dt, (5, 3))
        w.case("TensorScatterUpdate_%s" % dt, "TensorScatterUpdate",
               [(dt, t), I64([[4], [0], [2]]), (dt, upd[:3])])
    for op, types in (("TensorScatterAdd", add_types),
                      ("TensorScatterSub", add_types),
                      ("TensorScatterMin", REAL),
                      ("TensorScatterMax", REAL)):
        for dt in types:
            rng = seeded(op, dt)
            t = values(rng, dt, (4, 3))
            upd = values(rng, dt, (3, 3))
            w.case("%s_%s" % (op, dt), op,
                   [(dt, t), I32([[2], [0], [2]]), (dt, upd)])
        rng = seeded(op, "shapes")
        t = values(rng, "float", (3, 4), special=True)
        w.case("%s_special" % op, op,
               [("float", t), I64([[0, 1], [1, 2], [2, 3], [0, 1]]),
                ("float", np.array([NAN, INF, -INF, 2.0]))])
        w.case("%s_empty" % op, op,
               [("float", t), ("int32", np.zeros((0, 2))),
                ("float", np.zeros(0))])
        w.case("%s_ignore_bad" % op, op,
               [("int32", values(rng, "int32", (4,))),
                I32([[1], [9], [-2], [3]]), I32([5, 6, 7, 8])],
               {"bad_indices_policy": ("string", "IGNORE")})
        big = values(rng, "float", (120, 10))
        w.case("%s_large" % op, op,
               [("float", big), I32(rng.integers(0, 120, (300, 1))),
                ("float", values(rng, "float", (300, 10)))])
    rng = seeded("snd", "shapes")
    w.case("ScatterNd_full_rank", "ScatterNd",
           [I64([[0, 1], [2, 2], [0, 1]]), ("double", np.array([1.5, 2, 3])),
            I64([3, 3])])
    w.case("ScatterNd_rank3_indices", "ScatterNd",
           [I32([[[0], [1]], [[3], [1]]]), ("float", values(rng, "float",
                                                           (2, 2, 2))),
            I32([4, 2])])
    w.case("ScatterNd_special", "ScatterNd",
           [I32([[0], [0], [1], [2], [2]]),
            ("float", np.array([NAN, 1.0, INF, INF, -INF])), I32([4])])
    w.case("ScatterNd_empty", "ScatterNd",
           [("int32", np.zeros((0, 1))), ("float", np.zeros((0, 2))),
            I32([3, 2])])
    w.case("ScatterNd_empty_output", "ScatterNd",
           [("int32", np.zeros((0, 1))), ("float", np.zeros((0,))), I32([0])])
    w.case("TensorScatterAdd_int32_wraps", "TensorScatterAdd",
           [("int32", np.array([2 ** 31 - 1, -2 ** 31])), I32([[0], [1]]),
            ("int32", np.array([1, -1]))])
    w.case("TensorScatterSub_int64_wraps", "TensorScatterSub",
           [("int64", np.array([-2 ** 63])), I32([[0]]),
            ("int64", np.array([1]))])
    w.case("ScatterNd_int8_wraps", "ScatterNd",
           [I32([[0], [0], [0]]), ("int8", np.array([100, 100, 100])),
            I32([1])])
    w.case("ScatterNd_ignore_bad", "ScatterNd",
           [I32([[0], [4], [1]]), ("int32", np.array([1, 2, 3])), I32([3])],
           {"bad_indices_policy": ("string", "IGNORE")})
    w.case("ScatterNd_large", "ScatterNd",
           [I32(rng.integers(0, 100, (4000, 1))),
            ("int32", rng.integers(-5, 5, (4000, 3))), I32([100, 3])])
    w.case("ScatterNd_large_slices", "ScatterNd",
           [I32([[3], [1], [3]]), ("double", values(rng, "double",
                                                    (3, 600))),
            I32([5, 600])])
    w.case("TensorScatterUpdate_slices", "TensorScatterUpdate",
           [("float", values(rng, "float", (3, 2, 2))), I32([[1, 0], [2, 1]]),
            ("float", values(rng, "float", (2, 2)))])
    w.case("TensorScatterUpdate_ignore_bad", "TensorScatterUpdate",
           [("int32", np.array([1, 2, 3])), I32([[0], [-1], [2]]),
            ("int32", np.array([7, 8, 9]))],
           {"bad_indices_policy": ("string", "IGNORE")})


# ---- Unique, UniqueWithCounts ------------------------------------------------

def unique_cases(w):
    for op in ("Unique", "UniqueWithCounts"):
        for dt in ALL:
            rng = seeded(op, dt)
            if dt == "bool":
                x = rng.integers(0, 2, 9)
            elif dt in UNSIGNED:
                x = rng.integers(0, 4, 9)
            else:
                x = rng.integers(-3, 3, 9).astype(np.float64)
                if dt in FLOATS:
                    x = x / 2
            w.case("%s_%s" % (op, dt), op, [(dt, x)])
        w.case("%s_int64_idx" % op, op,
               [("int32", np.array([5, 5, 1, 2, 1]))],
               {"out_idx": ("type", "int64")})
        w.case("%s_special" % op, op,
               [("float", np.array([0.0, -0.0, NAN, 1.0, NAN, INF, -INF, INF,
                                    -0.0]))])
        w.case("%s_neg_zero_first" % op, op,
               [("double", np.array([-0.0, 0.0, 1.0]))])
        w.case("%s_empty" % op, op, [("float", np.zeros(0))])
        rng = seeded(op, "large")
        w.case("%s_large" % op, op, [("int64", rng.integers(0, 500, 5000))])


# ---- ReverseSequence ---------------------------------------------------------

def reverse_sequence_cases(w):
    for dt in ALL:
        x = values(seeded("rs", dt), dt, (3, 4))
        w.case("ReverseSequence_%s" % dt, "ReverseSequence",
               [(dt, x), I64([4, 0, 2])], {"seq_dim": ("int", 1)})
    rng = seeded("rs", "shapes")
    x = values(rng, "float", (2, 3, 4, 2), special=True)
    for seq_dim, batch_dim, lens in ((1, 0, [3, 1]), (0, 1, [2, 0, 1]),
                                     (2, 0, [4, 3]), (0, 2, [1, 2, 2, 0]),
                                     (3, 1, [2, 1, 0]), (2, 3, [4, 2])):
        w.case("ReverseSequence_seq%d_batch%d" % (seq_dim, batch_dim),
               "ReverseSequence", [("float", x), I32(lens)],
               {"seq_dim": ("int", seq_dim), "batch_dim": ("int", batch_dim)})
    w.case("ReverseSequence_empty", "ReverseSequence",
           [("float", np.zeros((2, 0))), I32([0, 0])],
           {"seq_dim": ("int", 1)})
    big = values(rng, "float", (20, 60, 2))
    w.case("ReverseSequence_large", "ReverseSequence",
           [("float", big), I64(rng.integers(0, 61, 20))],
           {"seq_dim": ("int", 1)})


# ---- DynamicPartition, DynamicStitch -----------------------------------------

def partition_stitch_cases(w):
    for dt in ALL:
        rng = seeded("dp", dt)
        x = values(rng, dt, (5, 2))
        w.case("DynamicPartition_%s" % dt, "DynamicPartition",
               [(dt, x), I32([1, 0, 2, 1, 1])],
               {"num_partitions": ("int", 3)})
        for op in ("DynamicStitch", "ParallelDynamicStitch"):
            w.case("%s_%s" % (op, dt), op,
                   [[I32([0, 3]), I32([[2], [1]])],
                    [(dt, x[:2]), (dt, x[2:4].reshape(2, 1, 2))]])
    rng = seeded("dp", "shapes")
    x = values(rng, "float", (2, 3, 2), special=True)
    w.case("DynamicPartition_rank2", "DynamicPartition",
           [("float", x), I32([[0, 1, 0], [1, 1, 0]])],
           {"num_partitions": ("int", 2)})
    w.case("DynamicPartition_empty_part", "DynamicPartition",
           [("float", x), I32([0, 0])], {"num_partitions": ("int", 3)})
    w.case("DynamicPartition_scalar_rows", "DynamicPartition",
           [("int32", np.array([4, 5, 6])), I32([1, 0, 1])],
           {"num_partitions": ("int", 2)})
    w.case("DynamicPartition_empty", "DynamicPartition",
           [("float", np.zeros((0, 3))), ("int32", np.zeros(0))],
           {"num_partitions": ("int", 2)})
    w.case("DynamicPartition_large", "DynamicPartition",
           [("float", values(rng, "float", (1500, 2))),
            I32(rng.integers(0, 4, 1500))], {"num_partitions": ("int", 4)})
    for op in ("DynamicStitch", "ParallelDynamicStitch"):
        w.case("%s_gap" % op, op,
               [[I32([0, 5]), I32([2])],
                [("float", np.array([[1.0, 2], [3, 4]])),
                 ("float", np.array([[5.0, 6]]))]])
        w.case("%s_scalars" % op, op,
               [[I32(2), I32([0, 1])],
                [("int32", np.array(7)), ("int32", np.array([8, 9]))]])
        w.case("%s_empty" % op, op,
               [[("int32", np.zeros(0)), ("int32", np.zeros(0))],
                [("float", np.zeros((0, 3))), ("float", np.zeros((0, 3)))]])
        perm = rng.permutation(1500)
        w.case("%s_large" % op, op,
               [[I32(perm[:500]), I32(perm[500:])],
                [("float", values(rng, "float", (500, 2))),
                 ("float", values(rng, "float", (1000, 2)))]])
    # Duplicate indices: the later data wins in DynamicStitch.
    w.case("DynamicStitch_duplicates", "DynamicStitch",
           [[I32([0, 1, 2]), I32([1, 1])],
            [("int32", np.array([1, 2, 3])), ("int32", np.array([4, 5]))]])


# ---- Bincount, DenseBincount -------------------------------------------------

def bincount_cases(w):
    for dt in COUNT_TYPES:
        rng = seeded("bc", dt)
        arr = rng.integers(0, 6, 12)
        wts = values(rng, dt, (12,))
        w.case("Bincount_%s" % dt, "Bincount",
               [I32(arr), I32(5), (dt, wts)])
        w.case("Bincount_%s_counts" % dt, "Bincount",
               [I32(arr), I32(7), (dt, np.zeros(0))])
        for idx in ("int32", "int64"):
            w.case("DenseBincount_%s_%s" % (dt, idx), "DenseBincount",
                   [(idx, arr), (idx, np.array(5)), (dt, wts)])
            w.case("DenseBincount_%s_%s_2d" % (dt, idx), "DenseBincount",
                   [(idx, arr.reshape(3, 4)), (idx, np.array(6)),
                    (dt, np.zeros(0))])
            w.case("DenseBincount_%s_%s_binary" % (dt, idx), "DenseBincount",
                   [(idx, arr.reshape(3, 4)), (idx, np.array(4)),
                    (dt, wts.reshape(3, 4))],
                   {"binary_output": ("bool", True)})
    rng = seeded("bc", "shapes")
    w.case("Bincount_matrix", "Bincount",
           [I32(rng.integers(0, 4, (3, 5))), I32(4), ("float", np.zeros(0))])
    w.case("Bincount_size0", "Bincount",
           [I32([1, 2]), I32(0), ("float", np.zeros(0))])
    w.case("Bincount_empty", "Bincount",
           [("int32", np.zeros(0)), I32(3), ("float", np.zeros(0))])
    w.case("Bincount_special", "Bincount",
           [I32([0, 1, 1, 2]), I32(3),
            ("float", np.array([NAN, INF, -INF, 1.0]))])
    # Integer sums wrap, as TensorFlow's do.
    w.case("Bincount_int32_wraps", "Bincount",
           [I32([0, 0, 1]), I32(2),
            ("int32", np.array([2 ** 31 - 1, 2, -2 ** 31]))])
    w.case("DenseBincount_int64_wraps", "DenseBincount",
           [I32([1, 1]), I32(2), ("int64", np.array([2 ** 63 - 1, 1]))])
    arr = rng.integers(0, 300, 5000)
    w.case("Bincount_large", "Bincount",
           [I32(arr), I32(250), ("float", np.round(rng.uniform(0, 1, 5000),
                                                   3))])
    w.case("DenseBincount_large_2d", "DenseBincount",
           [I64(arr.reshape(50, 100)), I64(280), ("int64", np.zeros(0))])
    w.case("DenseBincount_empty_rows", "DenseBincount",
           [("int32", np.zeros((0, 4))), I32(3), ("float", np.zeros(0))])


# ---- SparseToDense -----------------------------------------------------------

def sparse_to_dense_cases(w):
    for dt in ALL:
        rng = seeded("s2d", dt)
        vals = values(rng, dt, (3,))
        w.case("SparseToDense_%s" % dt, "SparseToDense",
               [I32([[0, 1], [1, 0], [2, 3]]), I32([3, 4]), (dt, vals),
                (dt, vals[0])])
    rng = seeded("s2d", "shapes")
    w.case("SparseToDense_scalar_value", "SparseToDense",
           [I64([[0, 0], [1, 2]]), I64([2, 3]), ("float", np.array(INF)),
            ("float", np.array(NAN))])
    w.case("SparseToDense_vector_indices", "SparseToDense",
           [I32([1, 3, 4]), I32([6]), ("int32", np.array([7, 8, 9])),
            ("int32", np.array(-1))])
    w.case("SparseToDense_scalar_index", "SparseToDense",
           [I32(2), I32([4]), ("float", np.array(1.5)),
            ("float", np.array(0.0))])
    w.case("SparseToDense_unsorted_unvalidated", "SparseToDense",
           [I32([[2], [0]]), I32([3]), ("float", np.array([1.0, 2.0])),
            ("float", np.array(0.0))],
           {"validate_indices": ("bool", False)})
    w.case("SparseToDense_empty", "SparseToDense",
           [("int32", np.zeros((0, 2))), I32([2, 2]), ("float", np.zeros(0)),
            ("float", np.array(3.0))])
    w.case("SparseToDense_rank3", "SparseToDense",
           [I64([[0, 0, 1], [1, 2, 0]]), I64([2, 3, 2]),
            ("double", np.array([1.0, 2.0])), ("double", np.array(0.5))])
    idx = np.sort(rng.choice(100 * 60, 1500, replace=False))
    w.case("SparseToDense_large", "SparseToDense",
           [I64(np.stack([idx // 60, idx % 60], axis=1)), I64([100, 60]),
            ("float", values(rng, "float", (1500,))),
            ("float", np.array(0.0))])


# ---- Concat ------------------------------------------------------------------

def concat_cases(w):
    for dt in ALL:
        rng = seeded("concat", dt)
        w.case("Concat_%s" % dt, "Concat",
               [I32(1), [(dt, values(rng, dt, (2, 3))),
                         (dt, values(rng, dt, (2, 1)))]])
    rng = seeded("concat", "shapes")
    x = values(rng, "float", (2, 3), special=True)
    w.case("Concat_axis0", "Concat", [I32(0), [("float", x), ("float", x)]])
    w.case("Concat_negative_axis", "Concat",
           [I32(-1), [("float", x), ("float", x[:, :1]), ("float", x)]])
    w.case("Concat_empty_input", "Concat",
           [I32(0), [("float", np.zeros((0, 3))), ("float", x)]])
    w.case("Concat_large", "Concat",
           [I32(1), [("float", values(rng, "float", (60, 10))),
                     ("float", values(rng, "float", (60, 8)))]])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "scatter_goldens.txt"))
    args = parser.parse_args()
    w = Writer()
    gather_cases(w)
    scatter_cases(w)
    unique_cases(w)
    reverse_sequence_cases(w)
    partition_stitch_cases(w)
    bincount_cases(w)
    sparse_to_dense_cases(w)
    concat_cases(w)
    header = [
        "# generated by tests/kernels/gen_scatter_goldens.py with "
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
