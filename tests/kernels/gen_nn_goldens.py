#!/usr/bin/env python3
"""Writes tests/kernels/testdata/nn_goldens.txt: TensorFlow's outputs for the
image ops (Conv2D, DepthwiseConv2dNative, Conv2DBackpropInput, MaxPool,
AvgPool, FusedBatchNormV3, ResizeBilinear, ResizeNearestNeighbor) in the
cases cpu_nn_golden_test.cc replays.

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it. TensorFlow lives in a virtualenv:

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu numpy
    /tmp/tfvenv/bin/python tests/kernels/gen_nn_goldens.py [--out FILE]

Every value comes from tf.raw_ops on /CPU:0 with inputs drawn from
numpy.random.default_rng with fixed seeds, so reruns give the same file.
oneDNN is switched off (TF_ENABLE_ONEDNN_OPTS=0): the references are
TensorFlow's own Eigen kernels, whose semantics weft follows.

TensorFlow's CPU kernels lack some configurations that its GPU kernels and
weft have. Their references are still TensorFlow's arithmetic, obtained
through exact rewrites:
  - NCHW (every op here but FusedBatchNormV3 is NHWC-only on the CPU): the
    NHWC op on the transposed input, its output transposed back (transposes
    move values, they do not round).
  - DepthwiseConv2dNative with dilations or unequal strides: Conv2D with one
    group per input channel, whose filter [h, w, 1, C * M] is the depthwise
    filter [h, w, C, M] reshaped (output channel c * M + m in both).
FusedBatchNormV3 in inference leaves reserve_space_1/2 unwritten (whatever
the allocator held); those outputs are written as zeros, what weft returns,
and the test checks only their shape.

Format: see tests/kernels/golden_testutil.h.
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
    "uint8": tf.uint8,
    "int16": tf.int16,
    "uint16": tf.uint16,
    "int32": tf.int32,
    "int64": tf.int64,
}
FLOATS = ["half", "bfloat16", "float", "double"]
INTS = ["int8", "uint8", "int16", "uint16", "int32", "int64"]
NAN, INF = float("nan"), float("inf")


def fmt_value(v, dtype):
    """Shortest text that reads back (as double, then rounded to dtype) to
    exactly v."""
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
            if float(tf.cast(tf.constant(float(text), tf.float32),
                             tf.bfloat16).numpy()) == f:
                break
    back = float(tf.cast(tf.constant(float(text), tf.float64),
                         DTYPES[dtype]).numpy())
    assert back == f, (text, f, dtype)
    if f == 0 and np.signbit(f) and not text.startswith("-"):
        text = "-" + text
    return text


def fmt_tensor(kind, dtype, arr):
    arr = np.asarray(arr)
    shape = "scalar" if arr.ndim == 0 else ",".join(str(d) for d in arr.shape)
    flat = arr.reshape(-1)
    if dtype not in INTS:
        flat = flat.astype(np.float64)
    return " ".join([kind, dtype, shape] + [fmt_value(v, dtype) for v in flat])


def to_tf(dtype, values):
    values = np.asarray(values)
    if dtype in INTS:
        return tf.constant(values.astype(np.int64).astype(
            DTYPES[dtype].as_numpy_dtype))
    return tf.cast(tf.constant(values.astype(np.float64)), DTYPES[dtype])


def from_tf(t):
    arr = t.numpy()
    if arr.dtype.kind == "f" or t.dtype == tf.bfloat16:
        return arr.astype(np.float64)
    return arr.astype(np.int64)


class Writer:
    def __init__(self):
        self.lines = []
        self.names = set()

    def case(self, name, op, inputs, attrs, outputs):
        """inputs: (dtype, values) pairs as the node gets them; outputs:
        (dtype, values) pairs, computed by TensorFlow from the same values."""
        assert name not in self.names, name
        self.names.add(name)
        self.lines.append("case %s %s" % (name, op))
        for key, value in sorted(attrs.items()):
            if isinstance(value, bool):
                self.lines.append("attr %s bool %s" % (key, str(value).lower()))
            elif isinstance(value, int):
                self.lines.append("attr %s int %d" % (key, value))
            elif isinstance(value, float):
                self.lines.append("attr %s float %r" % (key, value))
            elif isinstance(value, (list, tuple)):
                self.lines.append("attr %s ints %s" % (
                    key, ",".join(str(v) for v in value) if value else "-"))
            else:
                self.lines.append("attr %s string %s" % (key, value))
        for dtype, values in inputs:
            self.lines.append(fmt_tensor("in", dtype, values))
        for dtype, values in outputs:
            self.lines.append(fmt_tensor("out", dtype, values))
        self.lines.append("end")


def rounded(rng, shape, low=-3.0, high=3.0, decimals=2):
    return np.round(rng.uniform(low, high, size=shape), decimals)


def values(rng, dtype, shape):
    """Inputs exactly representable in dtype (read back from TensorFlow)."""
    if dtype in INTS:
        info = np.iinfo(DTYPES[dtype].as_numpy_dtype)
        lo, hi = max(info.min, -100), min(info.max, 100)
        return rng.integers(lo, hi + 1, size=shape)
    return from_tf(to_tf(dtype, rounded(rng, shape)))


def nchw(a):
    return np.transpose(a, (0, 3, 1, 2))


def nhwc(a):
    return np.transpose(a, (0, 2, 3, 1))


def spatial(fmt, values4):
    """A per-dimension list [n, h, w, c] in data_format order."""
    n, h, w, c = values4
    return [n, h, w, c] if fmt == "NHWC" else [n, c, h, w]


def run(op, **kwargs):
    with tf.device("/CPU:0"):
        return getattr(tf.raw_ops, op)(**kwargs)


# ---- convolutions -----------------------------------------------------------

def conv_case(w, name, dtype, x, f, strides=(1, 1), padding="SAME",
              dilations=(1, 1), explicit=None, fmt="NHWC"):
    """x is NHWC; the case is written in `fmt`."""
    pads = explicit or []
    out = run("Conv2D", input=to_tf(dtype, x), filter=to_tf(dtype, f),
              strides=[1, strides[0], strides[1], 1], padding=padding,
              explicit_paddings=spatial_pads(pads, "NHWC"),
              dilations=[1, dilations[0], dilations[1], 1])
    y = from_tf(out)
    attrs = {"strides": spatial(fmt, [1, strides[0], strides[1], 1]),
             "dilations": spatial(fmt, [1, dilations[0], dilations[1], 1]),
             "padding": padding, "data_format": fmt}
    if explicit:
        attrs["explicit_paddings"] = spatial_pads(pads, fmt)
    if fmt == "NCHW":
        x, y = nchw(x), nchw(y)
    w.case(name, "Conv2D", [(dtype, x), (dtype, f)], attrs, [(dtype, y)])


def spatial_pads(pads, fmt):
    """pads = [top, bottom, left, right] -> 8 values in data_format order."""
    if not pads:
        return []
    t, b, l, r = pads
    if fmt == "NHWC":
        return [0, 0, t, b, l, r, 0, 0]
    return [0, 0, 0, 0, t, b, l, r]


def conv2d_cases(w):
    seed = 100
    for dtype in ["float", "double", "half", "bfloat16", "int32"]:
        seed += 1
        rng = np.random.default_rng(seed)
        conv_case(w, "Conv2D_%s_same" % dtype, dtype,
                  values(rng, dtype, (1, 4, 4, 2)),
                  values(rng, dtype, (3, 3, 2, 3)))
    rng = np.random.default_rng(120)
    v = lambda *s: values(rng, "float", s)  # noqa: E731
    conv_case(w, "Conv2D_float_valid_stride2", "float", v(1, 7, 6, 2),
              v(3, 3, 2, 3), strides=(2, 2), padding="VALID")
    conv_case(w, "Conv2D_float_same_stride2_even", "float", v(1, 6, 6, 2),
              v(3, 3, 2, 3), strides=(2, 2))
    conv_case(w, "Conv2D_float_same_dilated", "float", v(1, 6, 6, 2),
              v(3, 3, 2, 2), dilations=(2, 2))
    conv_case(w, "Conv2D_float_valid_dilation_rows", "float", v(1, 7, 6, 2),
              v(2, 2, 2, 2), padding="VALID", dilations=(3, 1))
    conv_case(w, "Conv2D_float_explicit", "float", v(1, 4, 5, 2),
              v(3, 2, 2, 3), padding="EXPLICIT", explicit=[1, 2, 2, 0])
    conv_case(w, "Conv2D_float_pointwise", "float", v(2, 3, 3, 4),
              v(1, 1, 4, 3), padding="VALID")
    conv_case(w, "Conv2D_float_pointwise_stride2", "float", v(1, 5, 5, 3),
              v(1, 1, 3, 2), strides=(2, 2))
    conv_case(w, "Conv2D_float_grouped", "float", v(1, 3, 4, 4),
              v(3, 3, 2, 6), padding="SAME")
    conv_case(w, "Conv2D_float_rect_strides", "float", v(2, 5, 6, 2),
              v(2, 3, 2, 2), strides=(1, 2), padding="SAME")
    conv_case(w, "Conv2D_float_window_exceeds_input", "float", v(1, 2, 2, 1),
              v(3, 3, 1, 2), padding="SAME")
    conv_case(w, "Conv2D_float_nchw_same_stride2", "float", v(1, 5, 6, 3),
              v(3, 3, 3, 2), strides=(2, 2), fmt="NCHW")
    conv_case(w, "Conv2D_float_nchw_explicit_dilated", "float", v(1, 6, 5, 2),
              v(2, 2, 2, 2), padding="EXPLICIT", explicit=[0, 1, 1, 1],
              dilations=(2, 2), fmt="NCHW")
    conv_case(w, "Conv2D_float_empty_batch", "float", v(0, 4, 4, 2),
              v(3, 3, 2, 2))
    conv_case(w, "Conv2D_float_no_out_channels", "float", v(1, 3, 3, 2),
              np.zeros((2, 2, 2, 0)))
    x = v(1, 3, 3, 2)
    x[0, 1, 1, 0] = NAN
    x[0, 0, 2, 1] = INF
    conv_case(w, "Conv2D_float_nan_inf", "float", x, v(2, 2, 2, 2),
              padding="VALID")
    conv_case(w, "Conv2D_float_larger", "float", v(1, 6, 6, 4),
              v(3, 3, 4, 4))
    # int32 products and sums wrap modulo 2^32.
    conv_case(w, "Conv2D_int32_wraps", "int32",
              np.array([2**30, 2**30 - 1, -2**31, 7]).reshape(1, 1, 2, 2),
              np.array([2, 3, 5, -1]).reshape(1, 1, 2, 2), padding="VALID")


def depthwise_case(w, name, dtype, x, f, strides=(1, 1), padding="SAME",
                   dilations=(1, 1), explicit=None, fmt="NHWC"):
    pads = explicit or []
    if dilations == (1, 1) and strides[0] == strides[1]:
        out = run("DepthwiseConv2dNative", input=to_tf(dtype, x),
                  filter=to_tf(dtype, f),
                  strides=[1, strides[0], strides[1], 1], padding=padding,
                  explicit_paddings=spatial_pads(pads, "NHWC"))
    else:
        kh, kw, c, m = f.shape
        out = run("Conv2D", input=to_tf(dtype, x),
                  filter=to_tf(dtype, f.reshape(kh, kw, 1, c * m)),
                  strides=[1, strides[0], strides[1], 1], padding=padding,
                  explicit_paddings=spatial_pads(pads, "NHWC"),
                  dilations=[1, dilations[0], dilations[1], 1])
    y = from_tf(out)
    attrs = {"strides": spatial(fmt, [1, strides[0], strides[1], 1]),
             "dilations": spatial(fmt, [1, dilations[0], dilations[1], 1]),
             "padding": padding, "data_format": fmt}
    if explicit:
        attrs["explicit_paddings"] = spatial_pads(pads, fmt)
    if fmt == "NCHW":
        x, y = nchw(x), nchw(y)
    w.case(name, "DepthwiseConv2dNative", [(dtype, x), (dtype, f)], attrs,
           [(dtype, y)])


def depthwise_cases(w):
    seed = 200
    for dtype in FLOATS:
        seed += 1
        rng = np.random.default_rng(seed)
        depthwise_case(w, "Depthwise_%s_same" % dtype, dtype,
                       values(rng, dtype, (1, 4, 4, 3)),
                       values(rng, dtype, (3, 3, 3, 2)))
    rng = np.random.default_rng(220)
    v = lambda *s: values(rng, "float", s)  # noqa: E731
    depthwise_case(w, "Depthwise_float_valid_stride2", "float", v(2, 6, 7, 2),
                   v(3, 3, 2, 1), strides=(2, 2), padding="VALID")
    depthwise_case(w, "Depthwise_float_same_stride2", "float", v(1, 6, 6, 4),
                   v(3, 3, 4, 1), strides=(2, 2))
    depthwise_case(w, "Depthwise_float_explicit", "float", v(1, 4, 4, 2),
                   v(2, 3, 2, 2), padding="EXPLICIT", explicit=[2, 0, 1, 1])
    depthwise_case(w, "Depthwise_float_dilated", "float", v(1, 5, 5, 2),
                   v(3, 3, 2, 1), dilations=(2, 2))
    depthwise_case(w, "Depthwise_float_nchw", "float", v(1, 5, 4, 3),
                   v(3, 3, 3, 2), strides=(2, 1), fmt="NCHW")
    depthwise_case(w, "Depthwise_float_nchw_dilated_valid", "float",
                   v(1, 7, 6, 2), v(2, 2, 2, 1), padding="VALID",
                   dilations=(3, 2), fmt="NCHW")
    depthwise_case(w, "Depthwise_float_empty_batch", "float", v(0, 3, 3, 2),
                   v(2, 2, 2, 1))


def backprop_case(w, name, dtype, sizes, f, dy, strides=(1, 1),
                  padding="SAME", explicit=None, fmt="NHWC", two_sizes=False):
    """sizes (NHWC) and dy are NHWC; the case is written in `fmt`."""
    pads = explicit or []
    out = run("Conv2DBackpropInput", input_sizes=tf.constant(sizes, tf.int32),
              filter=to_tf(dtype, f), out_backprop=to_tf(dtype, dy),
              strides=[1, strides[0], strides[1], 1], padding=padding,
              explicit_paddings=spatial_pads(pads, "NHWC"))
    y = from_tf(out)
    attrs = {"strides": spatial(fmt, [1, strides[0], strides[1], 1]),
             "padding": padding, "data_format": fmt}
    if explicit:
        attrs["explicit_paddings"] = spatial_pads(pads, fmt)
    if fmt == "NCHW":
        dy, y = nchw(dy), nchw(y)
    given = [sizes[1], sizes[2]] if two_sizes else spatial(fmt, sizes)
    w.case(name, "Conv2DBackpropInput",
           [("int32", np.array(given)), (dtype, f), (dtype, dy)], attrs,
           [(dtype, y)])


def backprop_cases(w):
    seed = 300
    for dtype in ["float", "double", "half", "bfloat16", "int32"]:
        seed += 1
        rng = np.random.default_rng(seed)
        backprop_case(w, "BackpropInput_%s_same_stride2" % dtype, dtype,
                      [1, 5, 5, 3], values(rng, dtype, (3, 3, 3, 4)),
                      values(rng, dtype, (1, 3, 3, 4)), strides=(2, 2))
    rng = np.random.default_rng(320)
    v = lambda *s: values(rng, "float", s)  # noqa: E731
    backprop_case(w, "BackpropInput_float_valid_stride2", "float",
                  [1, 7, 8, 2], v(3, 3, 2, 3), v(1, 3, 3, 3), strides=(2, 2),
                  padding="VALID")
    backprop_case(w, "BackpropInput_float_transpose_4x4_s2", "float",
                  [1, 6, 6, 2], v(4, 4, 2, 3), v(1, 3, 3, 3), strides=(2, 2))
    backprop_case(w, "BackpropInput_float_same_stride1", "float",
                  [1, 4, 4, 2], v(3, 3, 2, 2), v(1, 4, 4, 2))
    backprop_case(w, "BackpropInput_float_explicit", "float", [1, 5, 4, 2],
                  v(2, 3, 2, 2), v(1, 3, 5, 2), strides=(2, 1),
                  padding="EXPLICIT", explicit=[1, 0, 1, 2])
    backprop_case(w, "BackpropInput_float_two_sizes", "float", [1, 5, 5, 2],
                  v(3, 3, 2, 2), v(1, 3, 3, 2), strides=(2, 2),
                  two_sizes=True)
    backprop_case(w, "BackpropInput_float_nchw", "float", [1, 6, 5, 2],
                  v(3, 2, 2, 3), v(1, 3, 3, 3), strides=(2, 2), fmt="NCHW")
    backprop_case(w, "BackpropInput_float_empty_batch", "float", [0, 4, 4, 2],
                  v(2, 2, 2, 2), v(0, 4, 4, 2))


# ---- pooling ----------------------------------------------------------------

def pool_case(w, name, op, dtype, x, ksize, strides, padding="VALID",
              explicit=None, fmt="NHWC", depth=None):
    """x is NHWC; ksize/strides are (h, w); depth = (window, stride)."""
    pads = explicit or []
    kc, sc = depth or (1, 1)
    k4, s4 = [1, ksize[0], ksize[1], kc], [1, strides[0], strides[1], sc]
    kwargs = {"ksize": k4, "strides": s4, "padding": padding}
    if op == "MaxPool":
        kwargs["explicit_paddings"] = spatial_pads(pads, "NHWC")
        out = run(op, input=to_tf(dtype, x), **kwargs)
    else:
        out = run(op, value=to_tf(dtype, x), **kwargs)
    y = from_tf(out)
    attrs = {"ksize": spatial(fmt, k4), "strides": spatial(fmt, s4),
             "padding": padding, "data_format": fmt}
    if explicit:
        attrs["explicit_paddings"] = spatial_pads(pads, fmt)
    if fmt == "NCHW":
        x, y = nchw(x), nchw(y)
    w.case(name, op, [(dtype, x)], attrs, [(dtype, y)])


def pooling_cases(w):
    seed = 400
    for dtype in FLOATS + INTS:
        seed += 1
        rng = np.random.default_rng(seed)
        pool_case(w, "MaxPool_%s_same_3x3_s2" % dtype, "MaxPool", dtype,
                  values(rng, dtype, (1, 5, 5, 2)), (3, 3), (2, 2), "SAME")
    for dtype in FLOATS:
        seed += 1
        rng = np.random.default_rng(seed)
        pool_case(w, "AvgPool_%s_same_3x3_s2" % dtype, "AvgPool", dtype,
                  values(rng, dtype, (1, 5, 5, 2)), (3, 3), (2, 2), "SAME")
    rng = np.random.default_rng(430)
    v = lambda *s: values(rng, "float", s)  # noqa: E731
    for op in ("MaxPool", "AvgPool"):
        pool_case(w, op + "_float_valid_2x2", op, "float", v(2, 4, 5, 3),
                  (2, 2), (2, 2))
        pool_case(w, op + "_float_same_even", op, "float", v(1, 6, 6, 2),
                  (2, 3), (2, 2), "SAME")
        pool_case(w, op + "_float_window_exceeds_input", op, "float",
                  v(1, 3, 4, 1), (5, 5), (1, 1), "SAME")
        pool_case(w, op + "_float_nchw_same", op, "float", v(1, 5, 4, 3),
                  (3, 2), (2, 1), "SAME", fmt="NCHW")
        pool_case(w, op + "_float_empty_batch", op, "float", v(0, 4, 4, 2),
                  (2, 2), (2, 2))
    pool_case(w, "MaxPool_float_explicit", "MaxPool", "float", v(1, 4, 5, 2),
              (3, 3), (2, 2), "EXPLICIT", explicit=[2, 1, 0, 2])
    pool_case(w, "MaxPool_float_nchw_explicit", "MaxPool", "float",
              v(1, 4, 4, 2), (2, 2), (1, 2), "EXPLICIT", explicit=[1, 0, 1, 1],
              fmt="NCHW")
    pool_case(w, "MaxPool_float_depth", "MaxPool", "float", v(1, 2, 3, 6),
              (1, 1), (1, 1), depth=(3, 3))
    x = np.array([NAN, 1, -INF, NAN, 2, -INF, -INF, NAN, NAN, NAN, 3, -0.0,
                  -INF, -INF, -0.0, 0.0]).reshape(1, 2, 2, 4)
    pool_case(w, "MaxPool_float_nan_inf", "MaxPool", "float", x, (2, 2),
              (1, 1))
    pool_case(w, "MaxPool_float_nan_inf_1x1", "MaxPool", "float", x, (1, 2),
              (1, 1))
    pool_case(w, "MaxPool_float_depth_nan_inf", "MaxPool", "float", x, (1, 1),
              (1, 1), depth=(2, 2))
    pool_case(w, "AvgPool_float_nan_inf", "AvgPool", "float", x, (1, 2),
              (1, 1), "SAME")


# ---- batch norm -------------------------------------------------------------

def batch_norm_case(w, name, dtype, x, scale, offset, mean, var, epsilon,
                    is_training, fmt, factor=1.0):
    scale, offset, mean, var = [from_tf(to_tf("float", a))
                                for a in (scale, offset, mean, var)]
    outs = run("FusedBatchNormV3", x=to_tf(dtype, x),
               scale=to_tf("float", scale), offset=to_tf("float", offset),
               mean=to_tf("float", mean), variance=to_tf("float", var),
               epsilon=epsilon, exponential_avg_factor=factor,
               data_format=fmt, is_training=is_training)
    outs = [from_tf(t) for t in outs]
    if not is_training:
        outs[3] = np.zeros_like(outs[3])
        outs[4] = np.zeros_like(outs[4])
    attrs = {"epsilon": float(np.float32(epsilon)), "is_training": is_training,
             "data_format": fmt, "exponential_avg_factor": factor}
    w.case(name, "FusedBatchNormV3",
           [(dtype, x), ("float", scale), ("float", offset), ("float", mean),
            ("float", var)], attrs,
           [(dtype, outs[0])] + [("float", o) for o in outs[1:]])


def batch_norm_cases(w):
    seed = 500
    shapes = {"NHWC": (2, 3, 2, 3), "NCHW": (2, 3, 2, 3),
              "NDHWC": (1, 2, 2, 2, 3), "NCDHW": (1, 3, 2, 2, 2)}
    for dtype in ["float", "half", "bfloat16"]:
        for fmt in (["NHWC", "NCHW", "NDHWC", "NCDHW"] if dtype == "float"
                    else ["NHWC"]):
            seed += 1
            rng = np.random.default_rng(seed)
            c = shapes[fmt][-1] if fmt.endswith("C") else shapes[fmt][1]
            batch_norm_case(
                w, "FusedBatchNormV3_%s_%s_inference" % (dtype, fmt), dtype,
                values(rng, dtype, shapes[fmt]), rounded(rng, c, 0.5, 2),
                rounded(rng, c), rounded(rng, c), rounded(rng, c, 0.1, 3),
                0.001, False, fmt)
    rng = np.random.default_rng(520)
    c = 3
    args = lambda: (rounded(rng, c, 0.5, 2), rounded(rng, c),  # noqa: E731
                    rounded(rng, c), rounded(rng, c, 0.1, 3))
    batch_norm_case(w, "FusedBatchNormV3_float_NHWC_training", "float",
                    values(rng, "float", (2, 3, 3, c)), *args(), 0.001, True,
                    "NHWC")
    batch_norm_case(w, "FusedBatchNormV3_float_NCHW_training_avg", "float",
                    values(rng, "float", (2, c, 3, 2)), *args(), 0.01, True,
                    "NCHW", factor=0.25)
    batch_norm_case(w, "FusedBatchNormV3_half_NHWC_training", "half",
                    values(rng, "half", (1, 4, 2, c)), *args(), 0.001, True,
                    "NHWC")
    batch_norm_case(w, "FusedBatchNormV3_float_NHWC_training_one_value",
                    "float", values(rng, "float", (1, 1, 1, c)), *args(),
                    0.001, True, "NHWC")
    batch_norm_case(w, "FusedBatchNormV3_float_empty_inference", "float",
                    np.zeros((0, 2, 2, c)), *args(), 0.001, False, "NHWC")
    x = values(rng, "float", (1, 2, 2, c))
    x[0, 0, 0, 0] = NAN
    x[0, 1, 0, 1] = INF
    batch_norm_case(w, "FusedBatchNormV3_float_nan_inf_inference", "float",
                    x, *args(), 0.001, False, "NHWC")


# ---- resizing ---------------------------------------------------------------

def resize_case(w, name, op, dtype, x, size, align_corners=False,
                half_pixel_centers=False):
    out = run(op, images=to_tf(dtype, x), size=tf.constant(size, tf.int32),
              align_corners=align_corners,
              half_pixel_centers=half_pixel_centers)
    out_dtype = "float" if op == "ResizeBilinear" else dtype
    w.case(name, op, [(dtype, x), ("int32", np.array(size))],
           {"align_corners": align_corners,
            "half_pixel_centers": half_pixel_centers},
           [(out_dtype, from_tf(out))])


def resize_cases(w):
    seed = 600
    for op in ("ResizeBilinear", "ResizeNearestNeighbor"):
        for dtype in FLOATS + INTS:
            seed += 1
            rng = np.random.default_rng(seed)
            resize_case(w, "%s_%s_up" % (op, dtype), op, dtype,
                        values(rng, dtype, (1, 3, 4, 2)), [5, 6])
        rng = np.random.default_rng(seed + 50)
        v = lambda *s: values(rng, "float", s)  # noqa: E731
        resize_case(w, op + "_float_align_corners", op, "float", v(1, 3, 4, 2),
                    [5, 7], align_corners=True)
        resize_case(w, op + "_float_half_pixel", op, "float", v(2, 3, 4, 1),
                    [7, 5], half_pixel_centers=True)
        resize_case(w, op + "_float_down", op, "float", v(1, 6, 7, 2), [4, 3])
        resize_case(w, op + "_float_down_half_pixel", op, "float",
                    v(1, 6, 7, 1), [2, 3], half_pixel_centers=True)
        resize_case(w, op + "_float_align_corners_to_1", op, "float",
                    v(1, 3, 4, 1), [1, 2], align_corners=True)
        resize_case(w, op + "_float_three_channels", op, "float",
                    v(1, 2, 3, 3), [3, 5])
        resize_case(w, op + "_float_same_size", op, "float", v(1, 2, 3, 2),
                    [2, 3])
        resize_case(w, op + "_float_empty_batch", op, "float", v(0, 2, 2, 1),
                    [3, 3])
    rng = np.random.default_rng(700)
    resize_case(w, "ResizeBilinear_double_same_size", "ResizeBilinear",
                "double", rng.uniform(-3, 3, (1, 2, 2, 1)), [2, 2])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "nn_goldens.txt"))
    args = parser.parse_args()

    w = Writer()
    conv2d_cases(w)
    depthwise_cases(w)
    backprop_cases(w)
    pooling_cases(w)
    batch_norm_cases(w)
    resize_cases(w)
    header = [
        "# generated by tests/kernels/gen_nn_goldens.py with TensorFlow "
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
