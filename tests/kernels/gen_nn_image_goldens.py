#!/usr/bin/env python3
"""Writes tests/kernels/testdata/nn_image_goldens.txt: reference outputs of
TensorFlow's own CPU kernels for the NN and image ops of issue 13 that
cpu_nn_image_golden_test.cc replays: FusedBatchNorm, FusedBatchNormV2,
BiasAddV1, MaxPoolV2, SpaceToBatchND, BatchToSpaceND, SpaceToDepth,
DepthToSpace, LRN, ExtractImagePatches, ResizeBicubic, ResizeArea,
CropAndResize, MaxPoolWithArgmax, Conv3D, MaxPool3D, AvgPool3D and
CombinedNonMaxSuppression.

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it (TensorFlow 2.21 in the system python3):

    TF_ENABLE_ONEDNN_OPTS=0 python3 tests/kernels/gen_nn_image_goldens.py

Every value comes from tf.raw_ops on /CPU:0 with inputs drawn from
numpy.random.default_rng with fixed seeds, so reruns give the same file.
The case writer and tensor format are gen_inference_goldens.py's. Errors
(bad block sizes, out-of-range box indices, NCHW on the CPU) are not goldens:
cpu_nn_image_ops_test.cc checks them.
"""

import argparse
import os
import sys

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen_array_goldens import ALL, FLOATS, INF, NAN, values  # noqa: E402
import gen_inference_goldens  # noqa: E402
from gen_inference_goldens import I32, I64, Writer, seeded  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


class _RawOps:
    """tf.raw_ops, except that FusedBatchNorm and FusedBatchNormV2 in
    inference give zeros for reserve_space_1/2, which TensorFlow leaves
    unwritten (whatever the allocator held) and weft fills with zeros; the
    test checks those outputs' shapes and zeros."""

    def __getattr__(self, name):
        op = getattr(tf.raw_ops, name)
        if name not in ("FusedBatchNorm", "FusedBatchNormV2"):
            return op

        def run(x, scale, offset, mean, variance, epsilon=0.0001,
                exponential_avg_factor=1, data_format="NHWC",
                is_training=True, name=None):
            outs = list(op(x=x, scale=scale, offset=offset, mean=mean,
                           variance=variance, epsilon=epsilon,
                           exponential_avg_factor=exponential_avg_factor,
                           data_format=data_format, is_training=is_training))
            if not is_training:
                outs[3] = tf.zeros_like(outs[3])
                outs[4] = tf.zeros_like(outs[4])
            return outs
        return run


class _TfWithRawOps:
    raw_ops = _RawOps()

    def __getattr__(self, name):
        return getattr(tf, name)


gen_inference_goldens.tf = _TfWithRawOps()

# The dtypes weft's CPU kernels of MaxPool (and so MaxPoolV2) take.
MAXPOOL_DTYPES = ["half", "bfloat16", "float", "double", "int32", "int64",
                  "uint8", "int8", "int16", "uint16"]
REAL = FLOATS + ["int8", "int16", "int32", "int64", "uint8", "uint16",
                 "uint32", "uint64"]


def floats(rng, shape, lo=-5, hi=5, digits=2):
    return np.round(rng.uniform(lo, hi, size=shape), digits)


# ---- older forms: FusedBatchNorm, FusedBatchNormV2, BiasAddV1, MaxPoolV2 ----

def older_form_cases(w):
    for op, dts in (("FusedBatchNorm", ["float"]),
                    ("FusedBatchNormV2", ["half", "bfloat16", "float"])):
        for dt in dts:
            for fmt in ("NHWC", "NCHW"):
                for training in (False,):
                    rng = seeded(op, dt, fmt, training)
                    x = floats(rng, (2, 3, 4, 5) if fmt == "NHWC"
                               else (2, 5, 3, 4))
                    u = dt if op == "FusedBatchNorm" else "float"
                    vecs = [(u, floats(rng, 5)), (u, floats(rng, 5)),
                            (u, floats(rng, 5)),
                            (u, np.round(rng.uniform(0.1, 3, 5), 2))]
                    w.case("%s_%s_%s_%s" % (op, dt, fmt,
                                            "train" if training else "infer"),
                           op, [(dt, x)] + vecs,
                           {"is_training": ("bool", training),
                            "data_format": ("string", fmt),
                            "epsilon": ("float", 0.001)})
        rng = seeded(op, "nan")
        x = floats(rng, (1, 2, 2, 3))
        x[0, 0, 0, 0] = NAN
        x[0, 1, 1, 1] = INF
        w.case("%s_nan_inf" % op, op,
               [("float", x), ("float", floats(rng, 3)),
                ("float", floats(rng, 3)), ("float", floats(rng, 3)),
                ("float", np.array([0.5, 1.0, 2.0]))],
               {"is_training": ("bool", False)})
    rng = seeded("FusedBatchNormV2_large")
    w.case("FusedBatchNormV2_large", "FusedBatchNormV2",
           [("float", floats(rng, (2, 12, 12, 8)))] +
           [("float", floats(rng, 8)) for _ in range(3)] +
           [("float", np.round(rng.uniform(0.1, 3, 8), 2))],
           {"is_training": ("bool", False)})
    w.case("FusedBatchNormV2_empty", "FusedBatchNormV2",
           [("float", np.zeros((0, 2, 2, 3)))] +
           [("float", np.ones(3)) for _ in range(4)],
           {"is_training": ("bool", False)})

    for dt in ["half", "bfloat16", "float", "double", "int32", "int64"]:
        rng = seeded("BiasAddV1", dt)
        w.case("BiasAddV1_%s" % dt, "BiasAddV1",
               [(dt, values(rng, dt, (2, 3, 4), special=True)),
                (dt, values(rng, dt, (4,)))])
    rng = seeded("BiasAddV1_large")
    w.case("BiasAddV1_large", "BiasAddV1",
           [("float", floats(rng, (200, 17))), ("float", floats(rng, 17))])
    w.case("BiasAddV1_empty", "BiasAddV1",
           [("float", np.zeros((0, 3))), ("float", np.ones(3))])

    for dt in MAXPOOL_DTYPES:
        rng = seeded("MaxPoolV2", dt)
        x = values(rng, dt, (2, 5, 6, 3), special=True)
        w.case("MaxPoolV2_%s" % dt, "MaxPoolV2",
               [(dt, x), I32([1, 2, 3, 1]), I32([1, 2, 2, 1])],
               {"padding": ("string", "SAME")})
    rng = seeded("MaxPoolV2_more")
    # TensorFlow's CPU kernel is NHWC-only; weft's NCHW (as for MaxPool) is
    # checked against NHWC in cpu_nn_image_ops_test.cc.
    x = floats(rng, (2, 7, 5, 3))
    w.case("MaxPoolV2_valid", "MaxPoolV2",
           [("float", x), I32([1, 3, 2, 1]), I32([1, 2, 1, 1])],
           {"padding": ("string", "VALID")})
    w.case("MaxPoolV2_depth", "MaxPoolV2",
           [("float", floats(rng, (2, 3, 3, 6))), I32([1, 1, 1, 3]),
            I32([1, 1, 1, 3])], {"padding": ("string", "VALID")})
    w.case("MaxPoolV2_large", "MaxPoolV2",
           [("float", floats(rng, (2, 20, 20, 4))), I32([1, 3, 3, 1]),
            I32([1, 1, 1, 1])], {"padding": ("string", "SAME")})


# ---- SpaceToBatchND, BatchToSpaceND, SpaceToDepth, DepthToSpace ----------

def space_batch_cases(w):
    for dt in REAL:
        rng = seeded("SpaceToBatchND", dt)
        x = values(rng, dt, (2, 3, 5, 2), special=True)
        w.case("SpaceToBatchND_%s" % dt, "SpaceToBatchND",
               [(dt, x), I32([2, 3]), I32([[1, 0], [0, 1]])])
        y = values(rng, dt, (8, 2, 3, 2), special=True)
        w.case("BatchToSpaceND_%s" % dt, "BatchToSpaceND",
               [(dt, y), I32([2, 4]), I32([[1, 1], [0, 3]])])
    rng = seeded("space_batch_more")
    # One block dimension with two remaining dimensions; int64 indices.
    w.case("SpaceToBatchND_1d_int64", "SpaceToBatchND",
           [("float", floats(rng, (2, 6, 3, 2))), I64([3]), I64([[2, 1]])])
    w.case("BatchToSpaceND_1d_int64", "BatchToSpaceND",
           [("float", floats(rng, (6, 3, 3, 2))), I64([3]), I64([[2, 1]])])
    # Three block dimensions, no remaining dimensions.
    w.case("SpaceToBatchND_3d", "SpaceToBatchND",
           [("float", floats(rng, (1, 2, 4, 3))), I32([2, 2, 3]),
            I32([[0, 0], [1, 1], [0, 0]])])
    w.case("BatchToSpaceND_3d", "BatchToSpaceND",
           [("float", floats(rng, (12, 1, 3, 1))), I32([2, 2, 3]),
            I32([[0, 1], [1, 1], [0, 2]])])
    # Dilated-convolution style (block 2x2, SAME-like padding), large.
    w.case("SpaceToBatchND_large", "SpaceToBatchND",
           [("float", floats(rng, (2, 16, 16, 4))), I32([2, 2]),
            I32([[2, 2], [2, 2]])])
    w.case("BatchToSpaceND_large", "BatchToSpaceND",
           [("float", floats(rng, (8, 11, 11, 4))), I32([2, 2]),
            I32([[2, 2], [2, 2]])])
    w.case("SpaceToBatchND_empty", "SpaceToBatchND",
           [("float", np.zeros((0, 4, 4, 2))), I32([2, 2]),
            I32([[0, 0], [0, 0]])])
    w.case("BatchToSpaceND_empty", "BatchToSpaceND",
           [("float", np.zeros((4, 0, 2, 1))), I32([2, 2]),
            I32([[0, 0], [0, 0]])])
    for dt in ALL:
        rng = seeded("SpaceToDepth", dt)
        w.case("SpaceToDepth_%s" % dt, "SpaceToDepth",
               [(dt, values(rng, dt, (2, 4, 6, 3), special=True))],
               {"block_size": ("int", 2)})
        w.case("DepthToSpace_%s" % dt, "DepthToSpace",
               [(dt, values(rng, dt, (2, 2, 3, 8), special=True))],
               {"block_size": ("int", 2)})
    rng = seeded("space_depth_more")
    w.case("SpaceToDepth_block3", "SpaceToDepth",
           [("float", floats(rng, (1, 6, 3, 2)))], {"block_size": ("int", 3)})
    w.case("DepthToSpace_block3", "DepthToSpace",
           [("float", floats(rng, (1, 2, 1, 18)))], {"block_size": ("int", 3)})
    w.case("SpaceToDepth_large", "SpaceToDepth",
           [("float", floats(rng, (2, 24, 24, 3)))], {"block_size": ("int", 2)})
    w.case("DepthToSpace_large", "DepthToSpace",
           [("float", floats(rng, (2, 12, 12, 12)))],
           {"block_size": ("int", 2)})
    w.case("DepthToSpace_empty", "DepthToSpace",
           [("float", np.zeros((0, 2, 2, 4)))], {"block_size": ("int", 2)})


# ---- Conv3D, MaxPool3D, AvgPool3D -------------------------------------------

def conv3d_pool3d_cases(w):
    for dt in ["half", "bfloat16", "float", "double"]:
        rng = seeded("Conv3D", dt)
        for pad in ("VALID", "SAME"):
            w.case("Conv3D_%s_%s" % (dt, pad), "Conv3D",
                   [(dt, floats(rng, (2, 4, 5, 3, 3), -2, 2, 1)),
                    (dt, floats(rng, (2, 3, 2, 3, 4), -2, 2, 1))],
                   {"strides": ("ints", [1, 1, 2, 1, 1]),
                    "padding": ("string", pad)})
    rng = seeded("Conv3D_more")
    w.case("Conv3D_strided", "Conv3D",
           [("float", floats(rng, (1, 7, 6, 5, 2))),
            ("float", floats(rng, (3, 3, 3, 2, 3)))],
           {"strides": ("ints", [1, 2, 3, 2, 1]),
            "padding": ("string", "SAME")})
    w.case("Conv3D_large", "Conv3D",
           [("float", floats(rng, (1, 6, 8, 8, 4))),
            ("float", floats(rng, (3, 3, 3, 4, 8)))],
           {"strides": ("ints", [1, 1, 1, 1, 1]),
            "padding": ("string", "SAME")})
    x = floats(rng, (1, 2, 3, 3, 2))
    x[0, 0, 0, 0, 0] = NAN
    x[0, 1, 1, 1, 1] = INF
    w.case("Conv3D_nan_inf", "Conv3D",
           [("float", x), ("float", floats(rng, (1, 2, 2, 2, 2)))],
           {"strides": ("ints", [1, 1, 1, 1, 1]),
            "padding": ("string", "VALID")})
    w.case("Conv3D_empty", "Conv3D",
           [("float", np.zeros((0, 3, 3, 3, 2))),
            ("float", floats(rng, (2, 2, 2, 2, 3)))],
           {"strides": ("ints", [1, 1, 1, 1, 1]),
            "padding": ("string", "SAME")})
    # Conv3DBackpropInputV2: out_backprop has Conv3D's output shape for
    # input_sizes.
    for dt in ["half", "bfloat16", "float", "double"]:
        rng = seeded("Conv3DBackpropInputV2", dt)
        for pad, dy_shape in (("VALID", (2, 3, 2, 2, 4)),
                              ("SAME", (2, 4, 3, 3, 4))):
            w.case("Conv3DBackpropInputV2_%s_%s" % (dt, pad),
                   "Conv3DBackpropInputV2",
                   [I32([2, 4, 5, 3, 3]),
                    (dt, floats(rng, (2, 3, 2, 3, 4), -2, 2, 1)),
                    (dt, floats(rng, dy_shape, -2, 2, 1))],
                   {"strides": ("ints", [1, 1, 2, 1, 1]),
                    "padding": ("string", pad)})
    rng = seeded("Conv3DBackpropInputV2_more")
    w.case("Conv3DBackpropInputV2_strided_int64", "Conv3DBackpropInputV2",
           [I64([1, 7, 6, 5, 2]), ("float", floats(rng, (3, 3, 3, 2, 3))),
            ("float", floats(rng, (1, 4, 2, 3, 3)))],
           {"strides": ("ints", [1, 2, 3, 2, 1]),
            "padding": ("string", "SAME")})
    w.case("Conv3DBackpropInputV2_large", "Conv3DBackpropInputV2",
           [I32([1, 6, 8, 8, 4]), ("float", floats(rng, (3, 3, 3, 4, 8))),
            ("float", floats(rng, (1, 6, 8, 8, 8)))],
           {"strides": ("ints", [1, 1, 1, 1, 1]),
            "padding": ("string", "SAME")})
    w.case("Conv3DBackpropInputV2_empty", "Conv3DBackpropInputV2",
           [I32([0, 3, 3, 3, 2]), ("float", floats(rng, (2, 2, 2, 2, 3))),
            ("float", np.zeros((0, 3, 3, 3, 3)))],
           {"strides": ("ints", [1, 1, 1, 1, 1]),
            "padding": ("string", "SAME")})
    for op in ("MaxPool3D", "AvgPool3D"):
        for dt in ["float", "bfloat16"]:
            rng = seeded(op, dt)
            for pad in ("VALID", "SAME"):
                x = floats(rng, (2, 5, 4, 5, 3))
                x.reshape(-1)[:4] = [NAN, INF, -INF, -0.0]
                w.case("%s_%s_%s" % (op, dt, pad), op, [(dt, x)],
                       {"ksize": ("ints", [1, 2, 3, 2, 1]),
                        "strides": ("ints", [1, 2, 1, 2, 1]),
                        "padding": ("string", pad)})
        rng = seeded(op, "more")
        # A window of -inf values only, and one reaching into the padding.
        x = floats(rng, (1, 3, 3, 3, 1))
        x[0, 2, 2, 2, 0] = -INF
        x[0, 2, 2, 1, 0] = -INF
        w.case("%s_neg_inf" % op, op, [("float", x)],
               {"ksize": ("ints", [1, 2, 2, 2, 1]),
                "strides": ("ints", [1, 2, 2, 2, 1]),
                "padding": ("string", "SAME")})
        w.case("%s_large" % op, op, [("float", floats(rng, (1, 6, 12, 12, 4)))],
               {"ksize": ("ints", [1, 3, 3, 3, 1]),
                "strides": ("ints", [1, 1, 2, 2, 1]),
                "padding": ("string", "SAME")})
        w.case("%s_empty" % op, op, [("float", np.zeros((0, 4, 4, 4, 2)))],
               {"ksize": ("ints", [1, 2, 2, 2, 1]),
                "strides": ("ints", [1, 1, 1, 1, 1]),
                "padding": ("string", "VALID")})


# ---- ResizeBicubic, ResizeArea, CropAndResize -------------------------------

RESIZE_DTYPES = ["half", "bfloat16", "float", "double", "int8", "uint8",
                 "int16", "uint16", "int32", "int64"]


def image_values(rng, dt, shape):
    if dt in FLOATS:
        return floats(rng, shape, -10, 10, 2)
    lo = 0 if dt.startswith("u") else -100
    return rng.integers(lo, 100, size=shape)


def resize_crop_cases(w):
    for dt in RESIZE_DTYPES:
        rng = seeded("resize", dt)
        x = image_values(rng, dt, (2, 5, 7, 3))
        w.case("ResizeBicubic_%s" % dt, "ResizeBicubic", [(dt, x), I32([8, 4])])
        w.case("ResizeArea_%s" % dt, "ResizeArea", [(dt, x), I32([3, 9])])
    rng = seeded("resize_more")
    x = floats(rng, (1, 6, 5, 2))
    for (h, wd) in ((11, 3), (3, 11), (6, 5), (1, 1), (4, 4)):
        for ac, hp in ((False, False), (True, False), (False, True)):
            tag = "%dx%d_%s" % (h, wd, "ac" if ac else ("hp" if hp else "plain"))
            w.case("ResizeBicubic_%s" % tag, "ResizeBicubic",
                   [("float", x), I32([h, wd])],
                   {"align_corners": ("bool", ac),
                    "half_pixel_centers": ("bool", hp)})
            if not hp:
                w.case("ResizeArea_%s" % tag, "ResizeArea",
                       [("float", x), I32([h, wd])],
                       {"align_corners": ("bool", ac)})
    x = floats(rng, (1, 4, 4, 1))
    x[0, 1, 1, 0] = NAN
    x[0, 2, 3, 0] = INF
    w.case("ResizeBicubic_nan_inf", "ResizeBicubic", [("float", x), I32([7, 7])])
    w.case("ResizeArea_nan_inf", "ResizeArea", [("float", x), I32([3, 2])])
    big = floats(rng, (1, 20, 30, 3))
    w.case("ResizeBicubic_large", "ResizeBicubic",
           [("float", big), I32([31, 33])],
           {"half_pixel_centers": ("bool", True)})
    w.case("ResizeArea_large", "ResizeArea", [("float", big), I32([13, 17])])
    w.case("ResizeBicubic_empty", "ResizeBicubic",
           [("float", np.zeros((0, 3, 3, 2))), I32([5, 5])])

    for dt in ["half", "float", "double", "int8", "uint8", "int16", "uint16",
               "int32", "int64"]:
        rng = seeded("CropAndResize", dt)
        img = image_values(rng, dt, (2, 6, 8, 3))
        boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, 0.5, 0.2, 0.1],
                          [-0.2, 0.3, 1.1, 1.4], [0.25, 0.25, 0.25, 0.75]],
                         np.float32)
        for method in ("bilinear", "nearest"):
            w.case("CropAndResize_%s_%s" % (dt, method), "CropAndResize",
                   [(dt, img), ("float", boxes), I32([0, 1, 1, 0]),
                    I32([3, 5])],
                   {"method": ("string", method),
                    "extrapolation_value": ("float", -1.5)})
    rng = seeded("CropAndResize_more")
    img = floats(rng, (3, 10, 12, 2))
    img[1, 4, 4, 0] = NAN
    boxes = np.round(rng.uniform(-0.3, 1.3, (40, 4)), 3).astype(np.float32)
    ind = rng.integers(0, 3, 40)
    for (h, wd) in ((1, 1), (1, 4), (7, 6)):
        for method in ("bilinear", "nearest"):
            w.case("CropAndResize_%dx%d_%s" % (h, wd, method), "CropAndResize",
                   [("float", img), ("float", boxes), I32(ind), I32([h, wd])],
                   {"method": ("string", method)})
    w.case("CropAndResize_large", "CropAndResize",
           [("float", img), ("float", boxes), I32(ind), I32([6, 6])])
    w.case("CropAndResize_no_boxes", "CropAndResize",
           [("float", img), ("float", np.zeros((0, 4))), I32(np.zeros(0)),
            I32([3, 3])])


# ---- LRN, ExtractImagePatches, MaxPoolWithArgmax ----------------------------

def lrn_patches_argmax_cases(w):
    for dt in ["float", "half"]:
        rng = seeded("LRN", dt)
        x = floats(rng, (2, 3, 4, 12), -3, 3, 2)
        for radius, bias, alpha, beta in ((5, 1.0, 1.0, 0.5), (2, 2.0, 1e-4, 0.75),
                                          (1, 1.0, 0.5, 1.0), (0, 0.5, 0.1, 0.3),
                                          (20, 1.5, 0.01, 2.0)):
            w.case("LRN_%s_r%d_b%g" % (dt, radius, beta), "LRN", [(dt, x)],
                   {"depth_radius": ("int", radius), "bias": ("float", bias),
                    "alpha": ("float", alpha), "beta": ("float", beta)})
    rng = seeded("LRN_more")
    x = floats(rng, (1, 2, 2, 5))
    x[0, 0, 0, 1] = NAN
    x[0, 1, 1, 2] = INF
    w.case("LRN_nan_inf", "LRN", [("float", x)])
    w.case("LRN_large", "LRN", [("float", floats(rng, (2, 8, 8, 32), -3, 3))],
           {"depth_radius": ("int", 3), "alpha": ("float", 0.001),
            "beta": ("float", 0.75)})
    w.case("LRN_empty", "LRN", [("float", np.zeros((0, 2, 2, 3)))])

    for dt in REAL:
        rng = seeded("ExtractImagePatches", dt)
        w.case("ExtractImagePatches_%s" % dt, "ExtractImagePatches",
               [(dt, values(rng, dt, (2, 5, 6, 2), special=True))],
               {"ksizes": ("ints", [1, 2, 3, 1]),
                "strides": ("ints", [1, 2, 1, 1]),
                "rates": ("ints", [1, 1, 2, 1]),
                "padding": ("string", "SAME")})
    rng = seeded("ExtractImagePatches_more")
    x = floats(rng, (1, 7, 6, 3))
    for pad in ("VALID", "SAME"):
        w.case("ExtractImagePatches_3x3_%s" % pad, "ExtractImagePatches",
               [("float", x)],
               {"ksizes": ("ints", [1, 3, 3, 1]),
                "strides": ("ints", [1, 2, 3, 1]),
                "rates": ("ints", [1, 2, 1, 1]),
                "padding": ("string", pad)})
    w.case("ExtractImagePatches_large", "ExtractImagePatches",
           [("float", floats(rng, (2, 16, 16, 3)))],
           {"ksizes": ("ints", [1, 3, 3, 1]), "strides": ("ints", [1, 2, 2, 1]),
            "rates": ("ints", [1, 1, 1, 1]), "padding": ("string", "SAME")})
    w.case("ExtractImagePatches_empty", "ExtractImagePatches",
           [("float", np.zeros((0, 4, 4, 2)))],
           {"ksizes": ("ints", [1, 2, 2, 1]), "strides": ("ints", [1, 1, 1, 1]),
            "rates": ("ints", [1, 1, 1, 1]), "padding": ("string", "VALID")})

    for dt in REAL:
        rng = seeded("MaxPoolWithArgmax", dt)
        x = values(rng, dt, (2, 5, 6, 3), special=True)
        for with_batch in (False, True):
            w.case("MaxPoolWithArgmax_%s_%s" % (dt, with_batch),
                   "MaxPoolWithArgmax", [(dt, x)],
                   {"ksize": ("ints", [1, 2, 3, 1]),
                    "strides": ("ints", [1, 2, 2, 1]),
                    "padding": ("string", "SAME"),
                    "include_batch_in_index": ("bool", with_batch)})
    rng = seeded("MaxPoolWithArgmax_more")
    # Ties keep the first index; int32 indices; VALID.
    x = rng.integers(0, 3, (1, 6, 6, 2)).astype(np.float64)
    w.case("MaxPoolWithArgmax_ties_int32", "MaxPoolWithArgmax", [("float", x)],
           {"ksize": ("ints", [1, 3, 3, 1]), "strides": ("ints", [1, 1, 1, 1]),
            "padding": ("string", "VALID"), "Targmax": ("type", "int32")})
    w.case("MaxPoolWithArgmax_large", "MaxPoolWithArgmax",
           [("float", floats(rng, (2, 16, 16, 4)))],
           {"ksize": ("ints", [1, 3, 3, 1]), "strides": ("ints", [1, 2, 2, 1]),
            "padding": ("string", "SAME"),
            "include_batch_in_index": ("bool", True)})


# ---- CombinedNonMaxSuppression -----------------------------------------------

def nms_boxes(rng, shape):
    """Boxes [..., 4] in about [-0.2, 1.2] (so clipping matters), some with
    their corners swapped; distinct random scores avoid ties, whose order
    TensorFlow leaves to std::sort."""
    centers = rng.uniform(-0.1, 1.1, shape[:-1] + (2,))
    sizes = rng.uniform(0.05, 0.5, shape[:-1] + (2,))
    lo = centers - sizes / 2
    hi = centers + sizes / 2
    b = np.concatenate([lo, hi], axis=-1)
    flip = rng.uniform(0, 1, shape[:-1]) < 0.2
    b[flip] = b[flip][:, [2, 3, 0, 1]]
    return np.round(b, 4).astype(np.float32)


def combined_nms_cases(w):
    rng = seeded("CombinedNonMaxSuppression")
    for q_is_classes in (False, True):
        for pad in (False, True):
            for clip in (True, False):
                boxes = nms_boxes(rng, (2, 30, 4 if q_is_classes else 1, 4))
                scores = rng.permutation(2 * 30 * 4).reshape(2, 30, 4) / 240.0
                name = "CombinedNonMaxSuppression_q%s_%s_%s" % (
                    "c" if q_is_classes else "1",
                    "pad" if pad else "nopad", "clip" if clip else "noclip")
                w.case(name, "CombinedNonMaxSuppression",
                       [("float", boxes), ("float", scores), I32(6), I32(15),
                        ("float", np.array(0.4)), ("float", np.array(0.1))],
                       {"pad_per_class": ("bool", pad),
                        "clip_boxes": ("bool", clip)})
    boxes = nms_boxes(rng, (1, 12, 1, 4))
    scores = rng.permutation(12 * 3).reshape(1, 12, 3) / 36.0
    for per_class, total, iou, thr in ((20, 100, 0.5, 0.0), (2, 4, 0.0, 0.5),
                                       (3, 50, 1.0, -INF), (12, 5, 0.7, 0.9)):
        w.case("CombinedNonMaxSuppression_%d_%d_%g_%g" % (per_class, total, iou,
                                                          thr),
               "CombinedNonMaxSuppression",
               [("float", boxes), ("float", scores), I32(per_class),
                I32(total), ("float", np.array(iou)),
                ("float", np.array(thr))],
               {"pad_per_class": ("bool", True)})
    boxes = nms_boxes(rng, (2, 300, 1, 4))
    scores = rng.permutation(2 * 300 * 8).reshape(2, 300, 8) / 4800.0
    w.case("CombinedNonMaxSuppression_large", "CombinedNonMaxSuppression",
           [("float", boxes), ("float", scores), I32(20), I32(100),
            ("float", np.array(0.5)), ("float", np.array(0.05))])
    w.case("CombinedNonMaxSuppression_no_boxes", "CombinedNonMaxSuppression",
           [("float", np.zeros((2, 0, 1, 4))), ("float", np.zeros((2, 0, 3))),
            I32(5), I32(7), ("float", np.array(0.5)),
            ("float", np.array(0.0))])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "nn_image_goldens.txt"))
    args = parser.parse_args()
    w = Writer()
    older_form_cases(w)
    space_batch_cases(w)
    conv3d_pool3d_cases(w)
    resize_crop_cases(w)
    lrn_patches_argmax_cases(w)
    combined_nms_cases(w)
    header = [
        "# generated by tests/kernels/gen_nn_image_goldens.py with "
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
