#!/usr/bin/env python3
"""Writes tests/kernels/testdata/array_goldens.txt: reference outputs of
TensorFlow's own CPU kernels for the shape and layout ops ("array" family:
Reshape, Shape, Size, Rank, ExpandDims, Squeeze, Transpose, ConcatV2, Pack,
Unpack, Split, SplitV, Slice, StridedSlice, Pad, PadV2, MirrorPad, Tile, Fill,
ZerosLike, OnesLike, Range, GatherV2, OneHot, BroadcastTo), replayed by
cpu_array_golden_test.cc.

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it. TensorFlow lives in a virtualenv:

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu numpy
    /tmp/tfvenv/bin/python tests/kernels/gen_array_goldens.py [--out FILE]

Every value comes from tf.raw_ops on /CPU:0 with inputs drawn from
numpy.random.default_rng with fixed seeds, so reruns give the same file.
oneDNN is switched off (TF_ENABLE_ONEDNN_OPTS=0) so the references are
TensorFlow's own kernels.

The format is golden_testutil.h's: "case <name> <op>", "attr <name> <kind>
<value>" (kinds int, ints, string, type), one "in" line per input tensor
(list inputs flattened in order), one "out" line per output, "end". Values
are written so they read back exactly: integers and bools as integers,
floating values in the shortest decimal form that rounds back to the stored
value of their dtype (nan, inf, -inf included).
"""

import argparse
import inspect
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
    "uint32": tf.uint32,
    "uint64": tf.uint64,
    "bool": tf.bool,
}
NAMES = {v: k for k, v in DTYPES.items()}
FLOATS = ["half", "bfloat16", "float", "double"]
SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
# Every dtype the golden format can hold; complex, string and quantized
# tensors are covered by the unit tests instead.
ALL = FLOATS + SIGNED + UNSIGNED + ["bool"]

# weft attr name -> the keyword tf.raw_ops uses for it, where they differ.
PY_ATTR = {("Squeeze", "squeeze_dims"): "axis"}

NAN, INF = float("nan"), float("inf")


def fmt_value(v, dtype):
    """Shortest text that reads back to exactly v in dtype."""
    if dtype == "bool":
        return "1" if v else "0"
    if dtype not in FLOATS:
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


def fmt_tensor(kind, t):
    dtype = NAMES[t.dtype]
    arr = t.numpy()
    shape = "scalar" if arr.ndim == 0 else ",".join(str(d) for d in arr.shape)
    flat = arr.reshape(-1)
    if dtype in FLOATS:
        flat = flat.astype(np.float64)
    return " ".join([kind, dtype, shape] + [fmt_value(v, dtype) for v in flat])


def make(dtype, values):
    """A CPU tensor of dtype from a numpy array of exact values."""
    values = np.asarray(values)
    if dtype in FLOATS:
        return tf.cast(tf.constant(values.astype(np.float64)), DTYPES[dtype])
    if dtype == "bool":
        return tf.constant(values.astype(bool))
    if dtype == "uint64":
        return tf.constant(values.astype(np.uint64), tf.uint64)
    return tf.cast(tf.constant(values.astype(np.int64)), DTYPES[dtype])


class Writer:
    def __init__(self):
        self.lines = []
        self.names = set()
        self.ops = {}

    def case(self, name, op, inputs, attrs=None):
        """inputs: per op input arg, (dtype, values) or a list of them.
        attrs: weft attr name -> (kind, value) with kind int|ints|string|type."""
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
                py = PY_ATTR.get((op, key), key)
                kwargs[py] = DTYPES[value] if kind == "type" else value
            out = getattr(tf.raw_ops, op)(**kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        self.lines.append("case %s %s" % (name, op))
        for key, (kind, value) in sorted(attrs.items()):
            if kind == "ints":
                text = ",".join(str(v) for v in value) if value else "-"
            else:
                text = str(value)
            self.lines.append("attr %s %s %s" % (key, kind, text))
        for t in flat:
            self.lines.append(fmt_tensor("in", t))
        for t in outs:
            self.lines.append(fmt_tensor("out", t))
        self.lines.append("end")


def values(rng, dtype, shape, special=False):
    """Exact small values of dtype; special adds nan/inf/-0 for floats."""
    shape = tuple(shape)
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        v = rng.integers(0, 2, size=n)
    elif dtype in UNSIGNED:
        v = rng.integers(0, 50, size=n)
    elif dtype in SIGNED:
        v = rng.integers(-40, 40, size=n)
    else:
        v = np.round(rng.uniform(-5, 5, size=n), 2)
        if special and n >= 4:
            v[:4] = [NAN, INF, -INF, -0.0]
    return v.reshape(shape)


def I32(v):
    return ("int32", np.array(v))


def I64(v):
    return ("int64", np.array(v))


def seeded(seed):
    return np.random.default_rng(seed)


# ---- metadata ops ------------------------------------------------------------


def reshape_cases(w):
    for k, dt in enumerate(ALL):
        rng = seeded(100 + k)
        w.case("Reshape_%s" % dt, "Reshape",
               [(dt, values(rng, dt, (2, 3))), I32([3, -1])])
    rng = seeded(120)
    w.case("Reshape_int64_shape", "Reshape",
           [("float", values(rng, "float", (2, 2, 3))), I64([-1, 6])])
    w.case("Reshape_to_scalar", "Reshape", [("float", [[2.5]]), I32([])])
    # TensorFlow's legacy forms: a scalar shape, a one-element vector axis or
    # value, a dim of any one-element shape.
    w.case("Reshape_scalar_shape", "Reshape",
           [("int16", values(rng, "int16", (2, 2))), I32(4)])
    w.case("Reshape_scalar_to_rank3", "Reshape",
           [("int32", np.array(7)), I32([1, 1, 1])])
    w.case("Reshape_empty_infer", "Reshape",
           [("float", np.zeros((0, 3))), I32([0, -1])])
    w.case("Reshape_empty_to_empty", "Reshape",
           [("float", np.zeros((2, 0, 3))), I32([3, 0, 5])])


def shape_cases(w):
    rng = seeded(130)
    for k, dt in enumerate(["float", "bool", "int8", "half"]):
        x = values(rng, dt, (2, 1, 3))
        w.case("Shape_%s" % dt, "Shape", [(dt, x)], {"out_type": ("type", "int32")})
        w.case("Size_%s" % dt, "Size", [(dt, x)], {"out_type": ("type", "int32")})
        w.case("Rank_%s" % dt, "Rank", [(dt, x)])
    for out in ("int32", "int64"):
        w.case("Shape_scalar_%s" % out, "Shape", [("float", np.array(1.5))],
               {"out_type": ("type", out)})
        w.case("Shape_empty_%s" % out, "Shape", [("double", np.zeros((3, 0)))],
               {"out_type": ("type", out)})
        w.case("Size_empty_%s" % out, "Size", [("int64", np.zeros((4, 0, 2)))],
               {"out_type": ("type", out)})
        w.case("Size_scalar_%s" % out, "Size", [("uint16", np.array(3))],
               {"out_type": ("type", out)})
    w.case("Rank_scalar", "Rank", [("int32", np.array(5))])


def expand_squeeze_cases(w):
    for k, dt in enumerate(ALL):
        rng = seeded(140 + k)
        w.case("ExpandDims_%s" % dt, "ExpandDims",
               [(dt, values(rng, dt, (2, 3))), I32(1)])
        w.case("Squeeze_%s" % dt, "Squeeze", [(dt, values(rng, dt, (1, 3, 1)))])
    rng = seeded(160)
    x = values(rng, "float", (2, 3))
    for dim in (0, 2, -1, -3):
        w.case("ExpandDims_dim%d" % dim, "ExpandDims", [("float", x), I32(dim)])
    w.case("ExpandDims_int64_dim", "ExpandDims", [("float", x), I64(-2)])
    w.case("ExpandDims_dim_vector", "ExpandDims", [("float", x), I32([1])])
    w.case("ExpandDims_dim_matrix", "ExpandDims", [("float", x), I32([[-1]])])
    w.case("ExpandDims_scalar", "ExpandDims", [("int32", np.array(4)), I32(0)])
    y = values(rng, "float", (1, 2, 1, 3, 1))
    w.case("Squeeze_listed", "Squeeze", [("float", y)],
           {"squeeze_dims": ("ints", [0, 2])})
    w.case("Squeeze_negative", "Squeeze", [("float", y)],
           {"squeeze_dims": ("ints", [-1])})
    w.case("Squeeze_all_ones_to_scalar", "Squeeze", [("float", [[[3.0]]])])
    w.case("Squeeze_empty_dim_kept", "Squeeze", [("float", np.zeros((1, 0, 1)))])


# ---- Transpose ---------------------------------------------------------------


def transpose_cases(w):
    for k, dt in enumerate(ALL):
        rng = seeded(200 + k)
        w.case("Transpose_%s" % dt, "Transpose",
               [(dt, values(rng, dt, (2, 3, 4), special=True)), I32([2, 0, 1])])
    rng = seeded(220)
    w.case("Transpose_2d", "Transpose",
           [("float", values(rng, "float", (5, 7))), I32([1, 0])])
    # Larger than one cache-blocked tile (16 x 16 doubles) in both
    # directions, with ragged edges.
    w.case("Transpose_2d_blocked", "Transpose",
           [("double", values(rng, "double", (18, 35))), I32([1, 0])])
    w.case("Transpose_nhwc_to_nchw", "Transpose",
           [("float", values(rng, "float", (2, 3, 4, 5))), I32([0, 3, 1, 2])])
    w.case("Transpose_nchw_to_nhwc_int64_perm", "Transpose",
           [("double", values(rng, "double", (2, 5, 3, 4))), I64([0, 2, 3, 1])])
    w.case("Transpose_negative_perm", "Transpose",
           [("float", values(rng, "float", (2, 3, 4))), I32([-1, 0, -2])])
    w.case("Transpose_rank5", "Transpose",
           [("int32", values(rng, "int32", (2, 3, 1, 2, 3))),
            I32([4, 2, 0, 3, 1])])
    w.case("Transpose_identity", "Transpose",
           [("float", values(rng, "float", (2, 3))), I32([0, 1])])
    w.case("Transpose_only_unit_dims_move", "Transpose",
           [("float", values(rng, "float", (1, 4, 1, 3))), I32([2, 1, 0, 3])])
    w.case("Transpose_keep_last", "Transpose",
           [("uint8", values(rng, "uint8", (3, 4, 5))), I32([1, 0, 2])])
    w.case("Transpose_empty", "Transpose",
           [("float", np.zeros((0, 3))), I32([1, 0])])
    w.case("Transpose_scalar", "Transpose", [("float", np.array(2.0)), I32([])])


# ---- ConcatV2, Pack, Unpack, Split, SplitV -----------------------------------


def concat_pack_cases(w):
    for k, dt in enumerate(ALL):
        rng = seeded(300 + k)
        w.case("ConcatV2_%s" % dt, "ConcatV2",
               [[(dt, values(rng, dt, (2, 1))), (dt, values(rng, dt, (2, 3))),
                 (dt, values(rng, dt, (2, 2)))], I32(1)])
        w.case("Pack_%s" % dt, "Pack",
               [[(dt, values(rng, dt, (2, 3))), (dt, values(rng, dt, (2, 3)))]],
               {"axis": ("int", 1)})
        w.case("Unpack_%s" % dt, "Unpack", [(dt, values(rng, dt, (2, 3)))],
               {"num": ("int", 3), "axis": ("int", -1)})
    rng = seeded(330)
    a = values(rng, "float", (2, 3, 2))
    b = values(rng, "float", (2, 3, 2))
    w.case("ConcatV2_axis0", "ConcatV2", [[("float", a), ("float", b)], I32(0)])
    w.case("ConcatV2_axis_neg1_int64", "ConcatV2",
           [[("float", a), ("float", b)], I64(-1)])
    w.case("ConcatV2_with_empty", "ConcatV2",
           [[("float", np.zeros((2, 0, 2))), ("float", a),
             ("float", np.zeros((2, 0, 2)))], I32(1)])
    w.case("ConcatV2_axis_vector", "ConcatV2",
           [[("float", a), ("float", b)], I32([2])])
    w.case("ConcatV2_all_empty", "ConcatV2",
           [[("float", np.zeros((0, 3))), ("float", np.zeros((0, 3)))], I32(1)])
    w.case("ConcatV2_many", "ConcatV2",
           [[("int32", values(rng, "int32", (3, n))) for n in (1, 4, 2, 1, 3)],
            I32(-1)])
    w.case("Pack_axis0", "Pack", [[("float", a), ("float", b)]],
           {"axis": ("int", 0)})
    w.case("Pack_axis_last_neg", "Pack", [[("float", a), ("float", b)]],
           {"axis": ("int", -1)})
    w.case("Pack_scalars", "Pack",
           [[("int64", np.array(v)) for v in (3, -1, 7)]], {"axis": ("int", 0)})
    w.case("Pack_one", "Pack", [[("float", a)]], {"axis": ("int", 2)})
    w.case("Pack_empty", "Pack",
           [[("float", np.zeros((0, 2))), ("float", np.zeros((0, 2)))]],
           {"axis": ("int", 1)})
    c = values(rng, "float", (3, 2, 4))
    w.case("Unpack_axis0", "Unpack", [("float", c)],
           {"num": ("int", 3), "axis": ("int", 0)})
    w.case("Unpack_axis1", "Unpack", [("float", c)],
           {"num": ("int", 2), "axis": ("int", 1)})
    w.case("Unpack_one", "Unpack", [("float", values(rng, "float", (1, 3)))],
           {"num": ("int", 1), "axis": ("int", 0)})
    w.case("Unpack_vector", "Unpack", [("int32", values(rng, "int32", (4,)))],
           {"num": ("int", 4), "axis": ("int", 0)})


def split_cases(w):
    for k, dt in enumerate(ALL):
        rng = seeded(400 + k)
        w.case("Split_%s" % dt, "Split", [I32(1), (dt, values(rng, dt, (2, 6)))],
               {"num_split": ("int", 3)})
        w.case("SplitV_%s" % dt, "SplitV",
               [(dt, values(rng, dt, (5, 2))), I32([2, -1, 1]), I32(0)],
               {"num_split": ("int", 3)})
    rng = seeded(430)
    x = values(rng, "float", (4, 6, 2))
    w.case("Split_axis0", "Split", [I32(0), ("float", x)],
           {"num_split": ("int", 2)})
    w.case("Split_negative_axis", "Split", [I32(-1), ("float", x)],
           {"num_split": ("int", 2)})
    w.case("Split_one", "Split", [I32(1), ("float", x)],
           {"num_split": ("int", 1)})
    w.case("Split_empty", "Split", [I32(1), ("float", np.zeros((0, 4)))],
           {"num_split": ("int", 2)})
    w.case("SplitV_int64_sizes", "SplitV", [("float", x), I64([1, 3, 2]), I32(1)],
           {"num_split": ("int", 3)})
    w.case("SplitV_int8_sizes", "SplitV",
           [("float", x), ("int8", np.array([2, 2])), I32(-3)],
           {"num_split": ("int", 2)})
    w.case("SplitV_zero_part", "SplitV", [("float", x), I32([0, 6, 0]), I32(1)],
           {"num_split": ("int", 3)})
    w.case("SplitV_wildcard_empty", "SplitV",
           [("float", x), I32([-1, 2]), I32(-1)], {"num_split": ("int", 2)})
    w.case("SplitV_one", "SplitV", [("float", x), I32([4]), I32(0)],
           {"num_split": ("int", 1)})


# ---- Slice, StridedSlice -----------------------------------------------------


def slice_cases(w):
    for k, dt in enumerate(ALL):
        rng = seeded(500 + k)
        x = values(rng, dt, (3, 4, 2))
        w.case("Slice_%s" % dt, "Slice", [(dt, x), I32([1, 1, 0]), I32([2, -1, 1])])
        w.case("StridedSlice_%s" % dt, "StridedSlice",
               [(dt, x), I32([2, 0, 1]), I32([0, 4, 2]), I32([-1, 2, 1])])
    rng = seeded(530)
    x = values(rng, "float", (4, 5, 3))
    w.case("Slice_int64_index", "Slice", [("float", x), I64([0, 2, 1]), I64([4, 2, 2])])
    w.case("Slice_whole", "Slice", [("float", x), I32([0, 0, 0]), I32([-1, -1, -1])])
    w.case("Slice_empty", "Slice", [("float", x), I32([1, 5, 0]), I32([2, 0, 3])])
    w.case("Slice_scalar", "Slice", [("float", np.array(1.25)), I32([]), I32([])])

    # Distinct labels 0..59 make every selected element identifiable.
    labels = np.arange(60).reshape(4, 5, 3)

    def ss(name, begin, end, strides, index="int32", dtype="int32", data=labels,
           **masks):
        attrs = {k: ("int", v) for k, v in masks.items()}
        w.case("StridedSlice_" + name, "StridedSlice",
               [(dtype, data), (index, np.array(begin)), (index, np.array(end)),
                (index, np.array(strides))], attrs)

    ss("basic", [1, 0, 0], [3, 5, 3], [1, 2, 1])
    ss("negative_stride", [-1, -1, -1], [-5, -6, -4], [-1, -2, -1])
    ss("negative_bounds", [-3, 1, -2], [-1, -1, 3], [1, 1, 1])
    ss("clamped", [-10, 2, 0], [10, 100, 2], [2, 1, 1])
    ss("clamped_reverse", [100, 3, 2], [-100, 0, -100], [-1, -1, -1])
    ss("begin_end_mask", [2, 3, 1], [3, 4, 2], [1, 1, 1], begin_mask=5, end_mask=2)
    ss("begin_mask_reverse", [0, 0, 0], [0, 0, 0], [-1, 1, -2], begin_mask=7,
       end_mask=7)
    ss("ellipsis_last", [1, 0], [2, 0], [1, 1], ellipsis_mask=2, shrink_axis_mask=1)
    ss("ellipsis_first", [0, 1], [0, 3], [1, 1], ellipsis_mask=1)
    ss("ellipsis_middle", [1, 0, 2], [3, 0, 3], [1, 1, 1], ellipsis_mask=2)
    ss("new_axis", [0, 1, 0], [0, 3, 0], [1, 1, 1], new_axis_mask=5)
    ss("new_axis_after_ellipsis", [0, 0], [0, 0], [1, 1], ellipsis_mask=1,
       new_axis_mask=2)
    ss("shrink_all", [1, -1, 2], [2, 0, 3], [1, 1, 1], shrink_axis_mask=7)
    ss("shrink_middle", [0, 3, 0], [4, 4, 3], [1, 1, 1], shrink_axis_mask=2)
    ss("shrink_negative_index", [-2], [-1], [1], shrink_axis_mask=1)
    ss("fewer_terms", [1], [3], [1])
    ss("empty_result", [3, 0, 0], [1, 5, 3], [1, 1, 1])
    ss("int64_index", [0, 4, 0], [4, 0, 3], [2, -2, 3], index="int64")
    ss("int16_index", [1, 0, 0], [4, 5, 3], [1, 1, 2], index="int16")
    ss("identity", [0, 0, 0], [4, 5, 3], [1, 1, 1])
    ss("keras_last_step", [0, -1, 0], [0, 0, 0], [1, 1, 1], begin_mask=5,
       end_mask=5, shrink_axis_mask=2)
    ss("rank1_reverse", [0], [0], [-1], data=values(rng, "int32", (7,)),
       dtype="int32", begin_mask=1, end_mask=1)


# ---- Pad, PadV2, MirrorPad ---------------------------------------------------


def pad_cases(w):
    for k, dt in enumerate(ALL):
        rng = seeded(600 + k)
        x = values(rng, dt, (2, 3))
        w.case("Pad_%s" % dt, "Pad", [(dt, x), I32([[1, 0], [2, 1]])])
        w.case("PadV2_%s" % dt, "PadV2",
               [(dt, x), I32([[0, 1], [1, 2]]), (dt, values(rng, dt, ()))])
        for mode in ("REFLECT", "SYMMETRIC"):
            w.case("MirrorPad_%s_%s" % (mode.lower(), dt), "MirrorPad",
                   [(dt, x), I32([[1, 1], [2, 2]])], {"mode": ("string", mode)})
    rng = seeded(630)
    x = values(rng, "float", (2, 3, 4, 2))
    w.case("Pad_nhwc_spatial", "Pad", [("float", x), I32([[0, 0], [1, 2], [2, 1], [0, 0]])])
    w.case("Pad_int64_paddings", "Pad",
           [("float", x), I64([[1, 1], [0, 0], [0, 0], [0, 1]])])
    w.case("Pad_outer_only", "Pad", [("float", x), I32([[2, 1], [0, 0], [0, 0], [0, 0]])])
    w.case("Pad_zero", "Pad", [("float", x), I32([[0, 0]] * 4)])
    w.case("Pad_scalar", "Pad", [("float", np.array(3.5)), ("int32", np.zeros((0, 2)))])
    w.case("Pad_empty_input", "Pad", [("float", np.zeros((0, 2))), I32([[1, 1], [0, 1]])])
    w.case("PadV2_nan_value", "PadV2",
           [("float", values(rng, "float", (2, 2))), I32([[1, 1], [1, 0]]),
            ("float", np.array(NAN))])
    w.case("PadV2_int64_paddings", "PadV2",
           [("int64", values(rng, "int64", (3,))), I64([[2, 3]]),
            ("int64", np.array(-7))])
    y = values(rng, "float", (3, 4, 2))
    for mode in ("REFLECT", "SYMMETRIC"):
        m = mode.lower()
        w.case("MirrorPad_%s_3d" % m, "MirrorPad",
               [("float", y), I32([[2, 2], [1, 3], [0, 0]])], {"mode": ("string", mode)})
        w.case("MirrorPad_%s_int64_paddings" % m, "MirrorPad",
               [("int32", values(rng, "int32", (4,))), I64([[3, 1]])],
               {"mode": ("string", mode)})
        w.case("MirrorPad_%s_inner" % m, "MirrorPad",
               [("float", y), I32([[0, 0], [0, 0], [1, 1]])], {"mode": ("string", mode)})
    w.case("MirrorPad_symmetric_full", "MirrorPad",
           [("float", values(rng, "float", (2, 3, 2))),
            I32([[2, 2], [3, 3], [2, 2]])],
           {"mode": ("string", "SYMMETRIC")})


# ---- Tile, BroadcastTo, Fill, ZerosLike, OnesLike ----------------------------


def tile_broadcast_fill_cases(w):
    for k, dt in enumerate(ALL):
        rng = seeded(700 + k)
        x = values(rng, dt, (2, 3))
        if dt != "uint16":  # TensorFlow's Tile has no uint16 kernel
            w.case("Tile_%s" % dt, "Tile", [(dt, x), I32([2, 2])])
        w.case("BroadcastTo_%s" % dt, "BroadcastTo",
               [(dt, values(rng, dt, (3, 1))), I32([2, 3, 4])])
        w.case("Fill_%s" % dt, "Fill", [I32([2, 3]), (dt, values(rng, dt, ()))])
        w.case("ZerosLike_%s" % dt, "ZerosLike", [(dt, x)])
        w.case("OnesLike_%s" % dt, "OnesLike", [(dt, x)])
    rng = seeded(730)
    x = values(rng, "float", (2, 1, 3))
    w.case("Tile_int64_multiples", "Tile", [("float", x), I64([1, 4, 2])])
    w.case("Tile_zero", "Tile", [("float", x), I32([2, 0, 1])])
    w.case("Tile_ones", "Tile", [("float", x), I32([1, 1, 1])])
    w.case("Tile_inner_repeat", "Tile",
           [("int8", values(rng, "int8", (3, 1))), I32([1, 5])])
    w.case("Tile_scalar", "Tile", [("float", np.array(2.0)), I32([])])
    w.case("BroadcastTo_same", "BroadcastTo", [("float", x), I32([2, 1, 3])])
    w.case("BroadcastTo_int64_shape", "BroadcastTo",
           [("float", values(rng, "float", (4,))), I64([3, 2, 4])])
    w.case("BroadcastTo_scalar", "BroadcastTo",
           [("int32", np.array(9)), I32([2, 2])])
    w.case("BroadcastTo_middle", "BroadcastTo", [("float", x), I32([2, 5, 3])])
    w.case("BroadcastTo_empty", "BroadcastTo", [("float", x), I32([0, 2, 4, 3])])
    w.case("Fill_int64_dims", "Fill", [I64([3, 1, 2]), ("float", np.array(NAN))])
    w.case("Fill_scalar", "Fill", [I32([]), ("int64", np.array(-3))])
    w.case("Fill_value_vector", "Fill", [I32([2, 2]), ("int8", np.array([5]))])
    w.case("Fill_empty", "Fill", [I32([0, 4]), ("float", np.array(1.0))])
    w.case("ZerosLike_special", "ZerosLike",
           [("float", np.array([NAN, INF, -INF, -0.0, 2.0]))])
    w.case("OnesLike_empty", "OnesLike", [("double", np.zeros((2, 0)))])


# ---- Range, GatherV2, OneHot -------------------------------------------------


def range_cases(w):
    specs = {
        "up": (0, 10, 3),
        "down": (5, -4, -2),
        "exact": (2, 14, 4),
        "empty": (3, 3, 1),
    }
    for dt in ("int32", "int64"):
        for label, (s, l, d) in specs.items():
            w.case("Range_%s_%s" % (dt, label), "Range",
                   [(dt, np.array(s)), (dt, np.array(l)), (dt, np.array(d))])
    w.case("Range_int32_extremes", "Range",
           [I32(-2147483648), I32(2147483647), I32(1073741824)])
    w.case("Range_int64_big_step", "Range",
           [I64(-9000000000000000000), I64(9000000000000000000),
            I64(4000000000000000000)])
    w.case("Range_vector_bounds", "Range", [I32([1]), I32([7]), I32(2)])
    fspecs = {
        "fraction": (0.5, 3.7, 0.3),
        "down": (2.0, -1.5, -0.25),
        "long": (0.1, 12.5, 0.1),
        "empty": (1.5, 1.5, 0.5),
        "single": (1.0, 1.25, 0.5),
    }
    for dt in FLOATS:
        for label, (s, l, d) in fspecs.items():
            if label == "long" and dt in ("half", "bfloat16"):
                s, l, d = 0.5, 20.0, 0.3
            w.case("Range_%s_%s" % (dt, label), "Range",
                   [(dt, np.array(s)), (dt, np.array(l)), (dt, np.array(d))])


def gather_cases(w):
    for k, dt in enumerate(ALL):
        rng = seeded(800 + k)
        w.case("GatherV2_%s" % dt, "GatherV2",
               [(dt, values(rng, dt, (4, 3))), I32([[3, 0], [1, 1]]), I32(0)])
    rng = seeded(830)
    p = values(rng, "float", (3, 5, 2))
    w.case("GatherV2_axis1", "GatherV2", [("float", p), I32([4, 0, 2, 2]), I32(1)])
    w.case("GatherV2_axis_last_neg", "GatherV2",
           [("float", p), I64([[1], [0]]), I64(-1)])
    w.case("GatherV2_scalar_index", "GatherV2", [("float", p), I32(2), I32(1)])
    w.case("GatherV2_empty_indices", "GatherV2",
           [("float", p), ("int32", np.zeros((0,))), I32(1)])
    w.case("GatherV2_int64_indices_int32_axis", "GatherV2",
           [("double", values(rng, "double", (6,))), I64([5, 0, 5, 3]), I32(0)])
    bp = values(rng, "float", (2, 4, 3))
    w.case("GatherV2_batch_dims1", "GatherV2",
           [("float", bp), I32([[3, 0, 1], [2, 2, 0]]), I32(1)],
           {"batch_dims": ("int", 1)})
    w.case("GatherV2_batch_dims_negative", "GatherV2",
           [("float", bp), I32([[1, 0], [2, 2]]), I32(-1)],
           {"batch_dims": ("int", -1)})
    bp2 = values(rng, "int32", (2, 3, 4, 2))
    w.case("GatherV2_batch_dims2_axis3", "GatherV2",
           [("int32", bp2), I32(np.array([[[1], [0], [1]], [[0], [0], [1]]])),
            I32(3)], {"batch_dims": ("int", 2)})
    w.case("GatherV2_batch_dims1_axis2", "GatherV2",
           [("int32", bp2), I64([[3, 0], [1, 2]]), I32(2)],
           {"batch_dims": ("int", 1)})


def one_hot_cases(w):
    for k, dt in enumerate(ALL):
        rng = seeded(900 + k)
        w.case("OneHot_%s" % dt, "OneHot",
               [I32([[0, 2], [3, 1]]), I32(3), (dt, values(rng, dt, ())),
                (dt, values(rng, dt, ()))])
    idx = np.array([[1, -1, 3], [0, 4, 2]])
    for ti in ("uint8", "int8", "int32", "int64"):
        v = np.abs(idx) if ti == "uint8" else idx
        for axis in (-1, 0, 1):
            w.case("OneHot_%s_axis%d" % (ti, axis), "OneHot",
                   [(ti, v), I32(4), ("float", np.array(1.0)),
                    ("float", np.array(0.0))], {"axis": ("int", axis)})
    w.case("OneHot_depth0", "OneHot",
           [I32([1, 0]), I32(0), ("float", np.array(1.0)), ("float", np.array(0.0))])
    w.case("OneHot_scalar_index", "OneHot",
           [I64(2), I32(3), ("int32", np.array(5)), ("int32", np.array(-1))])
    w.case("OneHot_empty", "OneHot",
           [("int32", np.zeros((0, 2))), I32(3), ("float", np.array(1.0)),
            ("float", np.array(0.0))], {"axis": ("int", 1)})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "array_goldens.txt"))
    args = parser.parse_args()

    w = Writer()
    reshape_cases(w)
    shape_cases(w)
    expand_squeeze_cases(w)
    transpose_cases(w)
    concat_pack_cases(w)
    split_cases(w)
    slice_cases(w)
    pad_cases(w)
    tile_broadcast_fill_cases(w)
    range_cases(w)
    gather_cases(w)
    one_hot_cases(w)
    header = [
        "# generated by tests/kernels/gen_array_goldens.py with TensorFlow "
        "%s (TF_ENABLE_ONEDNN_OPTS=%s); do not edit" %
        (tf.__version__, os.environ["TF_ENABLE_ONEDNN_OPTS"]),
        "# %d cases" % len(w.names),
    ]
    with open(args.out, "w") as f:
        f.write("\n".join(header + w.lines) + "\n")
    print("wrote %s: %d cases, %d bytes" %
          (args.out, len(w.names), os.path.getsize(args.out)))
    for op, n in sorted(w.ops.items()):
        print("  %-13s %d" % (op, n))


if __name__ == "__main__":
    sys.exit(main())
