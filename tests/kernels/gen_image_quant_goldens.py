#!/usr/bin/env python3
"""Writes tests/kernels/testdata/image_quant_goldens.txt: reference outputs
of TensorFlow's own CPU kernels for AdjustContrastv2, AdjustHue,
AdjustSaturation, FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars and
CTCGreedyDecoder, replayed by cpu_image_quant_golden_test.cc.

    TF_ENABLE_ONEDNN_OPTS=0 python3 tests/kernels/gen_image_quant_goldens.py [--out FILE]

Inputs come from numpy.random.default_rng with fixed seeds (the helpers of
gen_inference_goldens.py); outputs from tf.raw_ops on /CPU:0.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen_array_goldens import INF, NAN  # noqa: E402
from gen_inference_goldens import Writer, seeded  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def F(v):
    return ("float", np.array(v, dtype=np.float64))


def f32(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def adjust_cases(w):
    rng = seeded("adjust")
    img = f32(rng.uniform(0, 1, (2, 3, 4, 3)))
    for factor in (0.0, 0.5, 1.7, -1.0):
        w.case("AdjustContrastv2_%g" % factor, "AdjustContrastv2",
               [F(img), F(factor)])
    w.case("AdjustContrastv2_odd_plane", "AdjustContrastv2",
           [F(f32(rng.uniform(-3, 3, (5, 7, 2)))), F(2.0)])
    w.case("AdjustContrastv2_one_pixel", "AdjustContrastv2",
           [F(f32(rng.uniform(0, 1, (3, 1, 1, 4)))), F(3.0)])
    w.case("AdjustContrastv2_rank5", "AdjustContrastv2",
           [F(f32(rng.uniform(0, 1, (2, 2, 3, 3, 1)))), F(0.3)])
    w.case("AdjustContrastv2_large", "AdjustContrastv2",
           [F(f32(rng.uniform(0, 255, (2, 20, 21, 3)))), F(1.3)])
    w.case("AdjustContrastv2_empty", "AdjustContrastv2",
           [F(np.zeros((0, 2, 2, 3))), F(1.0)])
    w.case("AdjustContrastv2_special", "AdjustContrastv2",
           [F(np.array([[[1.0, NAN], [2.0, 3.0]], [[INF, 1.0], [0.0, -1.0]]])),
            F(2.0)])
    greys = np.array([[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0],
                      [0.2, 0.2, 0.7], [0.7, 0.2, 0.2], [0.2, 0.7, 0.2],
                      [0.7, 0.7, 0.2], [0.2, 0.7, 0.7], [0.7, 0.2, 0.7]])
    for op, arg in (("AdjustHue", (0.0, 0.2, -0.7, 1.5, 0.5)),
                    ("AdjustSaturation", (0.0, 0.4, 1.0, 2.5))):
        for v in arg:
            w.case("%s_%g" % (op, v), op, [F(img), F(v)])
        w.case("%s_edges" % op, op, [F(greys.reshape(3, 3, 3)), F(arg[1])])
        w.case("%s_large" % op, op,
               [F(f32(rng.uniform(0, 1, (2, 20, 25, 3)))), F(arg[1])])
        w.case("%s_outside_unit" % op, op,
               [F(f32(rng.uniform(-2, 3, (2, 5, 3)))), F(arg[-1])])
        w.case("%s_empty" % op, op, [F(np.zeros((2, 0, 3))), F(arg[1])])


def fake_quant_cases(w):
    rng = seeded("fakequant")
    x = f32(rng.uniform(-8, 8, (4, 25)))
    x[0, :6] = [0.0, -0.0, 6.0, -6.0, 100.0, -100.0]
    for mn, mx, bits, narrow in ((-6.0, 6.0, 8, False), (-6.0, 6.0, 8, True),
                                 (0.0, 1.0, 8, False), (-1.0, 0.0, 4, False),
                                 (-0.3, 2.9, 5, True), (0.5, 3.0, 2, False),
                                 (-3.0, -0.5, 16, False),
                                 (-1.234, 5.678, 7, False)):
        tag = "%g_%g_%d_%d" % (mn, mx, bits, narrow)
        w.case("FakeQuantWithMinMaxArgs_%s" % tag, "FakeQuantWithMinMaxArgs",
               [F(x)], {"min": ("float", mn), "max": ("float", mx),
                        "num_bits": ("int", bits),
                        "narrow_range": ("bool", narrow)})
        w.case("FakeQuantWithMinMaxVars_%s" % tag, "FakeQuantWithMinMaxVars",
               [F(x), F(mn), F(mx)], {"num_bits": ("int", bits),
                                      "narrow_range": ("bool", narrow)})
    w.case("FakeQuantWithMinMaxVars_zero_range", "FakeQuantWithMinMaxVars",
           [F(x), F(0.0), F(0.0)])
    w.case("FakeQuantWithMinMaxArgs_default", "FakeQuantWithMinMaxArgs",
           [F(x)])
    w.case("FakeQuantWithMinMaxArgs_large", "FakeQuantWithMinMaxArgs",
           [F(f32(rng.uniform(-7, 7, (20, 101))))])
    w.case("FakeQuantWithMinMaxVars_large", "FakeQuantWithMinMaxVars",
           [F(f32(rng.uniform(-7, 7, (20, 101)))), F(-2.5), F(4.0)])
    w.case("FakeQuantWithMinMaxArgs_empty", "FakeQuantWithMinMaxArgs",
           [F(np.zeros((0, 3)))])
    w.case("FakeQuantWithMinMaxArgs_special", "FakeQuantWithMinMaxArgs",
           [F(np.array([INF, -INF, 5.99, -5.99]))])


def ctc_cases(w):
    rng = seeded("ctc")
    for dt in ("float", "double"):
        x = np.round(rng.uniform(-3, 0, (6, 3, 4)), 2)
        x[1, 0, :] = x[0, 0, :]  # a repeat
        for merge in (False, True):
            for blank in (-1, 0, 2, -4):
                w.case("CTCGreedyDecoder_%s_m%d_b%d" % (dt, merge, blank),
                       "CTCGreedyDecoder",
                       [(dt, x), ("int32", np.array([6, 3, 0]))],
                       {"merge_repeated": ("bool", merge),
                        "blank_index": ("int", blank)})
    ties = np.zeros((3, 2, 3))
    ties[:, 1, :] = [[1, 1, 0], [0, 2, 2], [-1, -1, -1]]
    w.case("CTCGreedyDecoder_ties", "CTCGreedyDecoder",
           [("float", ties), ("int32", np.array([3, 3]))],
           {"merge_repeated": ("bool", True)})
    w.case("CTCGreedyDecoder_all_blank", "CTCGreedyDecoder",
           [("float", np.tile([0.0, 0.0, 1.0], (2, 2, 1))),
            ("int32", np.array([2, 1]))])
    w.case("CTCGreedyDecoder_negative_length", "CTCGreedyDecoder",
           [("float", np.ones((2, 2, 3))), ("int32", np.array([-1, 2]))])
    big = np.round(rng.uniform(-5, 0, (20, 32, 8)), 3)
    w.case("CTCGreedyDecoder_large", "CTCGreedyDecoder",
           [("float", big), ("int32", rng.integers(0, 21, 32))],
           {"merge_repeated": ("bool", True)})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "image_quant_goldens.txt"))
    args = parser.parse_args()
    w = Writer()
    adjust_cases(w)
    fake_quant_cases(w)
    ctc_cases(w)
    header = [
        "# generated by tests/kernels/gen_image_quant_goldens.py with "
        "TensorFlow %s (TF_ENABLE_ONEDNN_OPTS=%s); do not edit" %
        (tf.__version__, os.environ.get("TF_ENABLE_ONEDNN_OPTS")),
        "# %d cases" % len(w.names),
    ]
    with open(args.out, "w") as f:
        f.write("\n".join(header + w.lines) + "\n")
    print("wrote %s: %d cases, %d bytes" %
          (args.out, len(w.names), sum(len(x) + 1 for x in w.lines)))


if __name__ == "__main__":
    sys.exit(main())
