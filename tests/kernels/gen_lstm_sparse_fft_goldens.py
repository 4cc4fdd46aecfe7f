#!/usr/bin/env python3
"""Writes tests/kernels/testdata/lstm_sparse_fft_goldens.txt: reference
outputs of TensorFlow's own CPU kernels for the last ops of issue 13's
anchor list, replayed by cpu_lstm_sparse_fft_golden_test.cc: LSTMBlockCell,
SparseFillEmptyRows, SparseReshape, DenseToDenseSetOperation, ComplexAbs,
FFT, RFFT and RFFT2D.

The test suite reads the committed file and never needs TensorFlow; run this
only to regenerate it (TensorFlow 2.21 in the system python3):

    TF_ENABLE_ONEDNN_OPTS=0 python3 tests/kernels/gen_lstm_sparse_fft_goldens.py

Every value comes from tf.raw_ops on /CPU:0 with inputs drawn from
numpy.random.default_rng with fixed seeds, so reruns give the same file.
Tensors are written as gen_array_goldens.py writes them, except complex
tensors, which this script writes itself: two values per element, the real
and imaginary parts interleaved, each in the shortest decimal form that
reads back to the stored float (complex64) or double (complex128); see
golden_testutil.h. Attrs of kind int, bool, float, string and type.
String-valued DenseToDenseSetOperation cases are not goldens (the format
holds no strings): cpu_lstm_sparse_fft_ops_test.cc checks them.
"""

import argparse
import inspect
import os
import sys

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen_array_goldens import (ALL, DTYPES, FLOATS, INF, NAN, SIGNED,  # noqa
                               UNSIGNED, fmt_tensor, make, values)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

COMPLEX = {"complex64": tf.complex64, "complex128": tf.complex128}
TYPES = dict(DTYPES, **COMPLEX)


def fmt_part(v, single):
    f = float(v)
    if np.isnan(f):
        return "nan"
    if np.isinf(f):
        return "inf" if f > 0 else "-inf"
    text = str(np.float32(f)) if single else repr(f)
    assert (float(np.float32(text)) if single else float(text)) == f
    if f == 0 and np.signbit(f) and not text.startswith("-"):
        text = "-" + text
    return text


def fmt_any(kind, t):
    if t.dtype not in (tf.complex64, tf.complex128):
        return fmt_tensor(kind, t)
    name = "complex64" if t.dtype == tf.complex64 else "complex128"
    arr = t.numpy()
    shape = "scalar" if arr.ndim == 0 else ",".join(str(d) for d in arr.shape)
    parts = []
    for v in arr.reshape(-1):
        parts.append(fmt_part(v.real, name == "complex64"))
        parts.append(fmt_part(v.imag, name == "complex64"))
    return " ".join([kind, name, shape] + parts)


def make_any(dtype, vals):
    if dtype in COMPLEX:
        return tf.constant(np.asarray(vals).astype(
            np.complex64 if dtype == "complex64" else np.complex128))
    return make(dtype, vals)


class Writer:
    def __init__(self):
        self.lines = []
        self.names = set()
        self.ops = {}

    def case(self, name, op, inputs, attrs=None):
        """inputs: per op input arg, (dtype, values).
        attrs: name -> (kind, value), kind int|bool|float|string|type."""
        assert name not in self.names, name
        self.names.add(name)
        self.ops[op] = self.ops.get(op, 0) + 1
        attrs = attrs or {}
        params = list(inspect.signature(getattr(tf.raw_ops, op)).parameters)
        with tf.device("/CPU:0"):
            kwargs = {}
            flat = []
            for pname, arg in zip(params, inputs):
                t = make_any(*arg)
                flat.append(t)
                kwargs[pname] = t
            for key, (kind, value) in attrs.items():
                kwargs[key] = TYPES[value] if kind == "type" else value
            out = getattr(tf.raw_ops, op)(**kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        self.lines.append("case %s %s" % (name, op))
        for key, (kind, value) in sorted(attrs.items()):
            if kind == "bool":
                text = "true" if value else "false"
            elif kind == "float":
                text = str(np.float32(value))
            else:
                text = str(value)
            self.lines.append("attr %s %s %s" % (key, kind, text))
        for t in flat:
            self.lines.append(fmt_any("in", t))
        for t in outs:
            self.lines.append(fmt_any("out", t))
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


def uniform(rng, shape, lo=-1.0, hi=1.0, dtype="float"):
    v = rng.uniform(lo, hi, size=shape)
    # Values exact in the dtype, so that the input reads back unchanged.
    if dtype == "half":
        return v.astype(np.float16).astype(np.float64)
    return v.astype(np.float32).astype(np.float64)


# ---- LSTMBlockCell -----------------------------------------------------------

def lstm_case(w, name, dt, batch, inp, cell, forget_bias=1.0, cell_clip=3.0,
              peephole=False, scale=1.0, special=False):
    rng = seeded("lstm", name)
    x = uniform(rng, (batch, inp), dtype=dt)
    cs = uniform(rng, (batch, cell), -2, 2, dtype=dt)
    h = uniform(rng, (batch, cell), dtype=dt)
    wt = uniform(rng, (inp + cell, 4 * cell), -scale, scale, dtype=dt)
    wci = uniform(rng, (cell,), dtype=dt)
    wcf = uniform(rng, (cell,), dtype=dt)
    wco = uniform(rng, (cell,), dtype=dt)
    b = uniform(rng, (4 * cell,), -0.5, 0.5, dtype=dt)
    if special:
        x[0, 0] = NAN
        cs[1, 0] = INF
        cs[1, 1] = -INF
    w.case(name, "LSTMBlockCell",
           [(dt, x), (dt, cs), (dt, h), (dt, wt), (dt, wci), (dt, wcf),
            (dt, wco), (dt, b)],
           {"forget_bias": ("float", forget_bias),
            "cell_clip": ("float", cell_clip),
            "use_peephole": ("bool", peephole)})


def lstm_cases(w):
    for dt in ("float", "half"):
        lstm_case(w, "LSTMBlockCell_%s" % dt, dt, 3, 4, 5)
        lstm_case(w, "LSTMBlockCell_peephole_%s" % dt, dt, 2, 3, 4,
                  forget_bias=0.5, cell_clip=0.0, peephole=True)
        lstm_case(w, "LSTMBlockCell_clip_%s" % dt, dt, 4, 3, 3,
                  cell_clip=0.25, peephole=True, scale=3.0)
    lstm_case(w, "LSTMBlockCell_no_input", "float", 2, 0, 3)
    lstm_case(w, "LSTMBlockCell_one", "float", 1, 1, 1, forget_bias=0.0)
    lstm_case(w, "LSTMBlockCell_nan_inf", "float", 2, 2, 3, cell_clip=0.0,
              special=True)
    lstm_case(w, "LSTMBlockCell_nan_inf_clip", "float", 2, 2, 3,
              special=True, peephole=True)
    lstm_case(w, "LSTMBlockCell_large", "float", 32, 16, 32, peephole=True)
    lstm_case(w, "LSTMBlockCell_large_half", "half", 16, 8, 16)


# ---- SparseFillEmptyRows -----------------------------------------------------

def fill_cases(w):
    idx = [[0, 0], [0, 2], [2, 1], [4, 0]]
    for dt in ALL:
        rng = seeded("fill", dt)
        w.case("SparseFillEmptyRows_%s" % dt, "SparseFillEmptyRows",
               [I64(idx), (dt, values(rng, dt, (4,))), I64([6, 3]),
                (dt, values(rng, dt, ()))])
    for ct in COMPLEX:
        rng = seeded("fill", ct)
        w.case("SparseFillEmptyRows_%s" % ct, "SparseFillEmptyRows",
               [I64(idx), (ct, cplx(rng, (4,), ct == "complex64")),
                I64([6, 3]), (ct, complex(0.5, -1))])
    rng = seeded("fill", "shapes")
    w.case("SparseFillEmptyRows_unordered", "SparseFillEmptyRows",
           [I64([[3, 1], [0, 2], [3, 0], [1, 1], [0, 0]]),
            ("float", values(rng, "float", (5,))), I64([5, 3]),
            ("float", -1.5)])
    w.case("SparseFillEmptyRows_full_ordered", "SparseFillEmptyRows",
           [I64([[0, 1], [1, 0], [1, 2], [2, 2]]),
            ("int32", [1, 2, 3, 4]), I64([3, 3]), ("int32", 9)])
    w.case("SparseFillEmptyRows_full_unordered", "SparseFillEmptyRows",
           [I64([[1, 1], [0, 0], [2, 2], [1, 0]]),
            ("int32", [1, 2, 3, 4]), I64([3, 3]), ("int32", 9)])
    w.case("SparseFillEmptyRows_no_entries", "SparseFillEmptyRows",
           [I64(np.zeros((0, 2))), ("double", np.zeros(0)), I64([3, 4]),
            ("double", 0.25)])
    w.case("SparseFillEmptyRows_no_rows", "SparseFillEmptyRows",
           [I64(np.zeros((0, 2))), ("float", np.zeros(0)), I64([0, 4]),
            ("float", 1.0)])
    w.case("SparseFillEmptyRows_rank1", "SparseFillEmptyRows",
           [I64([[1], [3]]), ("int64", [10, 30]), I64([5]), ("int64", -1)])
    w.case("SparseFillEmptyRows_rank3", "SparseFillEmptyRows",
           [I64([[1, 0, 2], [1, 1, 0], [3, 2, 1]]),
            ("half", [0.5, -2, 3]), I64([4, 3, 3]), ("half", NAN)])
    w.case("SparseFillEmptyRows_nan_values", "SparseFillEmptyRows",
           [I64([[0, 0], [2, 0]]), ("float", [NAN, -INF]), I64([3, 1]),
            ("float", INF)])
    rng = seeded("fill", "large")
    rows = 4000
    r = np.sort(rng.integers(0, rows, 3000))
    c = rng.integers(0, 7, 3000)
    w.case("SparseFillEmptyRows_large", "SparseFillEmptyRows",
           [I64(np.stack([r, c], 1)),
            ("int32", rng.integers(-100, 100, 3000)), I64([rows, 7]),
            ("int32", 0)])


# ---- SparseReshape -----------------------------------------------------------

def reshape_cases(w):
    idx = [[0, 0, 1], [0, 2, 3], [1, 1, 0], [1, 2, 2]]
    w.case("SparseReshape_merge", "SparseReshape",
           [I64(idx), I64([2, 3, 4]), I64([6, 4])])
    w.case("SparseReshape_infer", "SparseReshape",
           [I64(idx), I64([2, 3, 4]), I64([-1, 8])])
    w.case("SparseReshape_split", "SparseReshape",
           [I64(idx), I64([2, 3, 4]), I64([2, 3, 2, 2])])
    w.case("SparseReshape_flatten", "SparseReshape",
           [I64(idx), I64([2, 3, 4]), I64([-1])])
    w.case("SparseReshape_same", "SparseReshape",
           [I64(idx), I64([2, 3, 4]), I64([2, 3, 4])])
    w.case("SparseReshape_same_inferred", "SparseReshape",
           [I64(idx), I64([2, 3, 4]), I64([2, -1, 4])])
    w.case("SparseReshape_no_entries", "SparseReshape",
           [I64(np.zeros((0, 2))), I64([4, 6]), I64([3, -1, 2])])
    w.case("SparseReshape_empty_shape", "SparseReshape",
           [I64(np.zeros((0, 2))), I64([0, 6]), I64([3, 0])])
    w.case("SparseReshape_to_scalar_shape", "SparseReshape",
           [I64([[0, 0]]), I64([1, 1]), I64([])])
    w.case("SparseReshape_from_scalar_shape", "SparseReshape",
           [I64(np.zeros((1, 0))), I64([]), I64([1, 1, -1])])
    rng = seeded("reshape", "large")
    flat = np.sort(rng.choice(60 * 50 * 7, 5000, replace=False))
    big = np.stack(np.unravel_index(flat, (60, 50, 7)), 1)
    w.case("SparseReshape_large", "SparseReshape",
           [I64(big), I64([60, 50, 7]), I64([-1, 14, 25])])


# ---- DenseToDenseSetOperation ------------------------------------------------

SET_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16"]
SET_OPS = ["a-b", "b-a", "intersection", "union"]


def set_cases(w):
    for dt in SET_TYPES:
        rng = seeded("set", dt)
        a = rng.integers(0, 6, (3, 5))
        b = rng.integers(0, 6, (3, 4))
        if dt not in UNSIGNED:
            a = a - 2
            b = b - 2
        for op in SET_OPS:
            w.case("DenseToDenseSetOperation_%s_%s" % (dt, op),
                   "DenseToDenseSetOperation", [(dt, a), (dt, b)],
                   {"set_operation": ("string", op)})
    rng = seeded("set", "shapes")
    a = rng.integers(0, 5, (2, 3, 4))
    b = rng.integers(0, 5, (2, 3, 2))
    for op in SET_OPS:
        w.case("DenseToDenseSetOperation_rank3_%s" % op,
               "DenseToDenseSetOperation", [("int32", a), ("int32", b)],
               {"set_operation": ("string", op)})
    w.case("DenseToDenseSetOperation_upper_case",
           "DenseToDenseSetOperation", [("int64", a), ("int64", b)],
           {"set_operation": ("string", "A-B"),
            "validate_indices": ("bool", False)})
    w.case("DenseToDenseSetOperation_empty_row",
           "DenseToDenseSetOperation",
           [("int32", np.zeros((2, 0))), ("int32", [[1, 1], [3, 2]])],
           {"set_operation": ("string", "union")})
    w.case("DenseToDenseSetOperation_empty_result",
           "DenseToDenseSetOperation",
           [("int32", [[1, 2], [3, 3]]), ("int32", [[2, 1], [3, 3]])],
           {"set_operation": ("string", "a-b")})
    w.case("DenseToDenseSetOperation_both_empty",
           "DenseToDenseSetOperation",
           [("int16", np.zeros((3, 0))), ("int16", np.zeros((3, 0)))],
           {"set_operation": ("string", "intersection")})
    w.case("DenseToDenseSetOperation_no_groups",
           "DenseToDenseSetOperation",
           [("int32", np.zeros((0, 3))), ("int32", np.zeros((0, 2)))],
           {"set_operation": ("string", "union")})
    w.case("DenseToDenseSetOperation_extremes",
           "DenseToDenseSetOperation",
           [("int64", [[-2**63, 2**63 - 1, 0]]),
            ("int64", [[2**63 - 1, 5, -2**63]])],
           {"set_operation": ("string", "union")})
    rng = seeded("set", "large")
    a = rng.integers(0, 60, (120, 40))
    b = rng.integers(0, 60, (120, 30))
    for op in ("union", "intersection"):
        w.case("DenseToDenseSetOperation_large_%s" % op,
               "DenseToDenseSetOperation", [("int32", a), ("int32", b)],
               {"set_operation": ("string", op)})


# ---- ComplexAbs --------------------------------------------------------------

def cplx(rng, shape, single):
    re = rng.uniform(-4, 4, size=shape)
    im = rng.uniform(-4, 4, size=shape)
    if single:
        re = re.astype(np.float32).astype(np.float64)
        im = im.astype(np.float32).astype(np.float64)
    return re + 1j * im


def abs_cases(w):
    for ct, rt in (("complex64", "float"), ("complex128", "double")):
        rng = seeded("abs", ct)
        single = ct == "complex64"
        x = cplx(rng, (2, 5), single)
        w.case("ComplexAbs_%s" % ct, "ComplexAbs", [(ct, x)],
               {"Tout": ("type", rt)})
        big = 3e38 if single else 1e308
        tiny = 1e-40 if single else 1e-310
        sp = np.array([complex(NAN, 1), complex(1, NAN), complex(INF, NAN),
                       complex(NAN, -INF), complex(-INF, 0), complex(0, 0),
                       complex(-0.0, -0.0), complex(big, big),
                       complex(tiny, tiny), complex(3, -4)])
        w.case("ComplexAbs_special_%s" % ct, "ComplexAbs", [(ct, sp)],
               {"Tout": ("type", rt)})
        w.case("ComplexAbs_empty_%s" % ct, "ComplexAbs",
               [(ct, np.zeros((0, 3)))], {"Tout": ("type", rt)})
    rng = seeded("abs", "large")
    w.case("ComplexAbs_large", "ComplexAbs",
           [("complex64", cplx(rng, (40, 60), True))],
           {"Tout": ("type", "float")})


# ---- FFT, RFFT, RFFT2D -------------------------------------------------------

def fft_cases(w):
    for ct in COMPLEX:
        single = ct == "complex64"
        for n in (1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 60):
            rng = seeded("fft", ct, n)
            w.case("FFT_%s_%d" % (ct, n), "FFT",
                   [(ct, cplx(rng, (3, n), single))])
        rng = seeded("fft", ct, "batch")
        w.case("FFT_%s_rank3" % ct, "FFT",
               [(ct, cplx(rng, (2, 3, 6), single))])
        w.case("FFT_%s_empty" % ct, "FFT", [(ct, np.zeros((0, 4)))])
        w.case("FFT_%s_large" % ct, "FFT",
               [(ct, cplx(rng, (4, 1024) if single else (2, 512), single))])
    rng = seeded("fft", "special")
    x = cplx(rng, (2, 8), True)
    x[1, 3] = complex(NAN, 0)
    w.case("FFT_nan", "FFT", [("complex64", x)])
    rng = seeded("fft", "prime")
    w.case("FFT_prime_large", "FFT", [("complex64", cplx(rng, (1, 1009),
                                                          True))])


def real(rng, shape, single):
    v = rng.uniform(-4, 4, size=shape)
    return v.astype(np.float32).astype(np.float64) if single else v


def rfft_cases(w):
    for rt, ct in (("float", "complex64"), ("double", "complex128")):
        single = rt == "float"
        for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 30):
            rng = seeded("rfft", rt, n)
            w.case("RFFT_%s_%d" % (rt, n), "RFFT",
                   [(rt, real(rng, (3, n), single)), I32([n])],
                   {"Tcomplex": ("type", ct)})
        rng = seeded("rfft", rt, "more")
        w.case("RFFT_%s_crop" % rt, "RFFT",
               [(rt, real(rng, (2, 10), single)), I32([8])],
               {"Tcomplex": ("type", ct)})
        w.case("RFFT_%s_crop_odd" % rt, "RFFT",
               [(rt, real(rng, (2, 10), single)), I32([7])],
               {"Tcomplex": ("type", ct)})
        # fft_length 0 for the innermost dimension of a non-empty input
        # aborts TensorFlow 2.21's process (DUCC: "axis length mismatch");
        # weft returns the empty output, checked in
        # cpu_lstm_sparse_fft_ops_test.cc.
        w.case("RFFT_%s_empty_batch" % rt, "RFFT",
               [(rt, np.zeros((0, 8))), I32([8])],
               {"Tcomplex": ("type", ct)})
        w.case("RFFT_%s_rank3" % rt, "RFFT",
               [(rt, real(rng, (2, 2, 12), single)), I32([12])],
               {"Tcomplex": ("type", ct)})
        w.case("RFFT_%s_large" % rt, "RFFT",
               [(rt, real(rng, (4, 1024) if single else (2, 1024), single)),
                I32([1024])],
               {"Tcomplex": ("type", ct)})
        for shape, lengths in (((4, 6), [4, 6]), ((5, 7), [4, 6]),
                               ((3, 5), [3, 5]), ((2, 3, 8, 8), [8, 8]),
                               ((1, 1), [1, 1]), ((4, 6), [0, 4]),
                               ((6, 9), [5, 9]),
                               ((64, 64) if single else (32, 32),
                                [64, 64] if single else [32, 32])):
            name = "RFFT2D_%s_%s_%s" % (rt, "x".join(map(str, shape)),
                                        "x".join(map(str, lengths)))
            w.case(name, "RFFT2D",
                   [(rt, real(rng, shape, single)), I32(lengths)],
                   {"Tcomplex": ("type", ct)})
    rng = seeded("rfft", "special")
    x = real(rng, (2, 8), True)
    x[0, 2] = INF
    w.case("RFFT_inf", "RFFT", [("float", x), I32([8])],
           {"Tcomplex": ("type", "complex64")})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(
        here, "testdata", "lstm_sparse_fft_goldens.txt"))
    args = parser.parse_args()
    w = Writer()
    lstm_cases(w)
    fill_cases(w)
    reshape_cases(w)
    set_cases(w)
    abs_cases(w)
    fft_cases(w)
    rfft_cases(w)
    header = [
        "# generated by tests/kernels/gen_lstm_sparse_fft_goldens.py with "
        "TensorFlow %s (TF_ENABLE_ONEDNN_OPTS=%s); do not edit" %
        (tf.__version__, os.environ["TF_ENABLE_ONEDNN_OPTS"]),
        "# %d cases" % len(w.names),
    ]
    with open(args.out, "w") as f:
        f.write("\n".join(header + w.lines) + "\n")
    print("wrote %s: %d cases, %d bytes" %
          (args.out, len(w.names), os.path.getsize(args.out)))
    for op, n in sorted(w.ops.items()):
        print("  %s: %d" % (op, n))


if __name__ == "__main__":
    sys.exit(main())
