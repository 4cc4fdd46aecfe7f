#!/usr/bin/env python3
"""Writes tests/kernels/testdata/random_goldens.txt: reference outputs of
TensorFlow's own CPU kernels for the random ops that
cpu_random_golden_test.cc replays: the stateless ops (V1 seeded by a seed
pair, V2 by key/counter/alg, StatelessRandomGetKeyCounter[Alg],
StatelessRandomGetAlg) and the stateful RandomUniform, RandomStandardNormal,
RandomUniformInt and Multinomial with nonzero seeds.

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it:

    TF_ENABLE_ONEDNN_OPTS=0 python3 tests/kernels/gen_random_goldens.py [--out FILE]

Stateless cases come from tf.raw_ops on /CPU:0. A stateful kernel's output
depends on how often it ran, so each stateful case is one node in a fresh
tf.compat.v1 graph run twice in one Session: the case has two "out" lines,
the first run's and the second's, which the test compares with two runs of
one weft kernel. Multinomial batches are kept small so that TensorFlow does
not split them over threads (its shards start at split-dependent offsets).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen_array_goldens import DTYPES, FLOATS, fmt_tensor, make  # noqa: E402
from gen_inference_goldens import Writer  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1
I64_MIN, I64_MAX = -2 ** 63, 2 ** 63 - 1


def I32(v):
    return ("int32", np.array(v))


def I64(v):
    return ("int64", np.array(v))


def U64(v):
    return ("uint64", np.array(v, dtype=np.uint64))


def key_counter(seed, dtype="int64"):
    """The key and counter TensorFlow derives from a seed pair."""
    with tf.device("/CPU:0"):
        k, c = tf.raw_ops.StatelessRandomGetKeyCounter(
            seed=tf.constant(seed, DTYPES[dtype]))
    return k.numpy(), c.numpy()


class RandomWriter(Writer):
    def stateful(self, name, op, inputs, attrs):
        """One node in a fresh graph, run twice; two out lines."""
        assert name not in self.names, name
        self.names.add(name)
        self.ops[op] = self.ops.get(op, 0) + 1
        g = tf.Graph()
        with g.as_default(), tf.device("/CPU:0"):
            ts = [make(*arg) for arg in inputs]
            kwargs = {}
            import inspect
            params = list(
                inspect.signature(getattr(tf.raw_ops, op)).parameters)
            for pname, t in zip(params, ts):
                kwargs[pname] = t
            for key, (kind, value) in attrs.items():
                kwargs[key] = DTYPES[value] if kind == "type" else value
            out = getattr(tf.raw_ops, op)(**kwargs)
            with tf.compat.v1.Session(graph=g) as sess:
                feeds = sess.run(ts)
                first = sess.run(out)
                second = sess.run(out)
        self.lines.append("case %s %s" % (name, op))
        for key, (kind, value) in sorted(attrs.items()):
            self.lines.append("attr %s %s %s" % (key, kind, value))
        for arg, v in zip(inputs, feeds):
            self.lines.append(fmt_tensor("in", make(arg[0], v)))
        out_dt = out.dtype
        for v in (first, second):
            t = tf.constant(v, out_dt) if out_dt not in (tf.bfloat16,) \
                else tf.cast(tf.constant(v.astype(np.float32)), tf.bfloat16)
            self.lines.append(fmt_tensor("out", t))
        self.lines.append("end")


# ---- key, counter, alg -------------------------------------------------------

def key_counter_cases(w):
    for seed, dt in (([1, 2], "int64"), ([-7, 123456789], "int32"),
                     ([I64_MAX, I64_MIN], "int64"), ([0, 0], "int32")):
        label = "_".join(str(s).replace("-", "m") for s in seed)
        w.case("StatelessRandomGetKeyCounter_%s_%s" % (dt, label),
               "StatelessRandomGetKeyCounter", [(dt, np.array(seed))])
        w.case("StatelessRandomGetKeyCounterAlg_%s_%s" % (dt, label),
               "StatelessRandomGetKeyCounterAlg", [(dt, np.array(seed))])
    w.case("StatelessRandomGetAlg", "StatelessRandomGetAlg", [])


# ---- stateless V2 ------------------------------------------------------------

def v2_cases(w):
    key, counter = key_counter([5, 9])
    kc = [U64(key), U64(counter), I32(1)]
    for op in ("StatelessRandomUniformV2", "StatelessRandomNormalV2",
               "StatelessTruncatedNormalV2"):
        for dt in FLOATS:
            w.case("%s_%s" % (op, dt), op, [I32([3, 5])] + kc,
                   {"dtype": ("type", dt)})
        w.case("%s_empty" % op, op, [I32([0, 3])] + kc,
               {"dtype": ("type", "float")})
        w.case("%s_scalar" % op, op, [I32([])] + kc,
               {"dtype": ("type", "double")})
        # A counter about to wrap its low 64 bits: the skips carry into the
        # high word. Tshape int64, auto-selected algorithm.
        w.case("%s_carry" % op, op,
               [I64([9, 7]), U64([2 ** 63 + 12345]),
                U64([2 ** 64 - 3, 2 ** 40 + 1]), I32(3)],
               {"dtype": ("type", "float")})
    # Large: many groups, split over threads.
    w.case("StatelessRandomUniformV2_large", "StatelessRandomUniformV2",
           [I32([100, 101])] + kc, {"dtype": ("type", "float")})
    w.case("StatelessRandomUniformV2_large_half", "StatelessRandomUniformV2",
           [I32([3001])] + kc, {"dtype": ("type", "half")})
    w.case("StatelessRandomNormalV2_large", "StatelessRandomNormalV2",
           [I32([2001])] + kc, {"dtype": ("type", "float")})
    w.case("StatelessRandomNormalV2_large_double", "StatelessRandomNormalV2",
           [I32([1001])] + kc, {"dtype": ("type", "double")})
    w.case("StatelessTruncatedNormalV2_large", "StatelessTruncatedNormalV2",
           [I32([4003])] + kc, {"dtype": ("type", "float")})
    w.case("StatelessTruncatedNormalV2_large_double",
           "StatelessTruncatedNormalV2", [I32([1003])] + kc,
           {"dtype": ("type", "double")})
    w.case("StatelessTruncatedNormalV2_large_bfloat16",
           "StatelessTruncatedNormalV2", [I32([1003])] + kc,
           {"dtype": ("type", "bfloat16")})
    for dt, lo, hi in (("int32", -5, 17), ("int32", INT_MIN, INT_MAX),
                       ("int32", 0, 1), ("int64", -10 ** 12, 3 * 10 ** 12),
                       ("int64", I64_MIN, I64_MAX), ("int64", 7, 10)):
        w.case("StatelessRandomUniformIntV2_%s_%d_%d" % (dt, lo, hi),
               "StatelessRandomUniformIntV2",
               [I32([2, 7])] + kc + [(dt, lo), (dt, hi)])
    w.case("StatelessRandomUniformIntV2_large", "StatelessRandomUniformIntV2",
           [I64([5000])] + kc + [I64(-1000), I64(1000)])
    # An empty output is fine whatever the bounds.
    w.case("StatelessRandomUniformIntV2_empty_bad_bounds",
           "StatelessRandomUniformIntV2",
           [I32([0])] + kc + [I32(5), I32(5)])
    for dt in ("int32", "int64", "uint32", "uint64"):
        w.case("StatelessRandomUniformFullIntV2_%s" % dt,
               "StatelessRandomUniformFullIntV2", [I32([3, 3])] + kc,
               {"dtype": ("type", dt)})


# ---- stateless V1 ------------------------------------------------------------

def v1_cases(w):
    for op in ("StatelessRandomUniform", "StatelessRandomNormal",
               "StatelessTruncatedNormal"):
        for dt in FLOATS:
            w.case("%s_%s" % (op, dt), op, [I32([2, 5]), I64([3, -4])],
                   {"dtype": ("type", dt)})
        w.case("%s_seed_int32" % op, op, [I64([7]), I32([-1, 2 ** 30])],
               {"dtype": ("type", "float")})
        w.case("%s_empty" % op, op, [I32([4, 0]), I64([1, 1])],
               {"dtype": ("type", "float")})
    w.case("StatelessRandomNormal_large", "StatelessRandomNormal",
           [I32([50, 41]), I64([11, 12])], {"dtype": ("type", "float")})
    for dt, lo, hi in (("int32", -3, 4), ("int64", I64_MIN, I64_MAX),
                       ("int32", INT_MIN, INT_MAX)):
        w.case("StatelessRandomUniformInt_%s_%d_%d" % (dt, lo, hi),
               "StatelessRandomUniformInt",
               [I32([9]), I64([21, 22]), (dt, lo), (dt, hi)])
    w.case("StatelessRandomUniformInt_seed_int32",
           "StatelessRandomUniformInt",
           [I64([2, 3]), I32([21, 22]), I64(0), I64(100)])
    w.case("StatelessRandomUniformInt_empty_bad_bounds",
           "StatelessRandomUniformInt",
           [I32([0]), I64([1, 2]), I32(3), I32(1)])


# ---- stateful ----------------------------------------------------------------

def stateful_cases(w):
    for op in ("RandomUniform", "RandomStandardNormal"):
        for dt in FLOATS:
            w.stateful("%s_%s" % (op, dt), op, [I32([2, 5])],
                       {"seed": ("int", 1), "seed2": ("int", 2),
                        "dtype": ("type", dt)})
        for s1, s2 in ((0, 5), (-3, 0), (87654321, -99)):
            w.stateful("%s_seeds_%d_%d" % (op, s1, s2), op, [I64([7])],
                       {"seed": ("int", s1), "seed2": ("int", s2),
                        "dtype": ("type", "float")})
        w.stateful("%s_large" % op, op, [I32([3000])],
                   {"seed": ("int", 4), "seed2": ("int", 4),
                    "dtype": ("type", "float")})
    for dt, lo, hi in (("int32", -5, 9), ("int64", -10 ** 15, 10 ** 15),
                       ("int32", INT_MIN, INT_MAX)):
        w.stateful("RandomUniformInt_%s_%d_%d" % (dt, lo, hi),
                   "RandomUniformInt", [I32([3, 3]), (dt, lo), (dt, hi)],
                   {"seed": ("int", 10), "seed2": ("int", 20)})
    for dt in FLOATS:
        for out in ("int32", "int64"):
            logits = np.array([[0.0, 1.0, -1.0, 2.0],
                               [-np.inf, 0.5, 0.5, -np.inf]])
            w.stateful("Multinomial_%s_%s" % (dt, out), "Multinomial",
                       [(dt, logits), I32(6)],
                       {"seed": ("int", 3), "seed2": ("int", 7),
                        "output_dtype": ("type", out)})
    w.stateful("Multinomial_one_class", "Multinomial",
               [("float", np.zeros((3, 1))), I32(2)],
               {"seed": ("int", 1), "seed2": ("int", 1),
                "output_dtype": ("type", "int64")})
    w.stateful("Multinomial_zero_samples", "Multinomial",
               [("float", np.zeros((2, 3))), I32(0)],
               {"seed": ("int", 1), "seed2": ("int", 1),
                "output_dtype": ("type", "int64")})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "random_goldens.txt"))
    args = parser.parse_args()
    w = RandomWriter()
    key_counter_cases(w)
    v2_cases(w)
    v1_cases(w)
    stateful_cases(w)
    header = [
        "# generated by tests/kernels/gen_random_goldens.py with "
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
