#!/usr/bin/env python3
"""Makes a copy of the installed ONNX Runtime that runs its AVX2 code on an
AVX-512 machine, so that weft's AVX2 path (WEFT_CPU_ISA=avx2) can be
measured against ONNX Runtime's own AVX2 code on one machine:

    python3 bench/compare/ort_without_avx512.py DIR
    WEFT_CPU_ISA=avx2 PYTHONPATH=DIR python3 bench/compare/compare.py ...

ONNX Runtime has no switch for its instruction set: its kernels (MLAS) and
its CPU description read the CPU, and a VM without CPUID faulting cannot
hide AVX-512 from a process. What decides AVX-512 there is XCR0, the
register (read by the XGETBV instruction) that says which vector state the
operating system saves: AVX-512 is used only when bits 5-7 (opmask and
ZMM state) are set. This script copies the onnxruntime package to
DIR/onnxruntime and, in the copy's Python extension, replaces each XGETBV
whose result is then moved to a 64-bit register (`xgetbv; mov eax, eax`)
by `mov eax, 7`: x87, SSE and AVX state, as on a CPU without AVX-512. The
installed package is not touched. The patched sites are listed; a build
with none is refused.

It then checks the effect: a 1024 x 1024 x 1024 MatMul on one thread,
stock and patched, in fresh processes. On a core that runs AVX-512 at full
width the patched copy runs at about half the stock speed (on the AMD EPYC
of bench/RESULTS.md section 34: 242 against 127 GFLOP/s), the AVX2 code's
peak; the outputs must agree.

What this measures is AVX2 code on an AVX-512 core, not an AVX2-only CPU:
the caches, clocks and memory are this machine's. It compares the two
engines' AVX2 code like for like, which is what an AVX2-only machine's
table would show up to those differences.
"""

import argparse
import os
import shutil
import subprocess
import sys

XGETBV = bytes.fromhex("0f01d0")
MOV_EAX_EAX = bytes.fromhex("89c0")
MOV_EAX_7 = bytes.fromhex("b807000000")

CHECK = r"""
import sys, time, numpy as np
from onnx import helper, TensorProto, numpy_helper
import onnxruntime as ort
n = 1024
rng = np.random.default_rng(0)
w = rng.standard_normal((n, n)).astype(np.float32)
g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])],
    [numpy_helper.from_array(w, "w")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
o = ort.SessionOptions()
o.intra_op_num_threads = 1
s = ort.InferenceSession(m.SerializeToString(), o,
                         providers=["CPUExecutionProvider"])
x = rng.standard_normal((n, n)).astype(np.float32)
y = s.run(None, {"x": x})[0]
ref = x.astype(np.float64) @ w.astype(np.float64)
err = float(np.max(np.abs(y - ref)) / np.max(np.abs(ref)))
best = min(
    (lambda t: (s.run(None, {"x": x}), time.perf_counter() - t)[1])(
        time.perf_counter()) for _ in range(10))
print("%s %.1f GFLOP/s, max relative error %.2g" %
      (ort.__file__, 2 * n**3 / best / 1e9, err))
"""


def patch(path):
    data = bytearray(open(path, "rb").read())
    sites = []
    at = data.find(XGETBV)
    while at >= 0:
        if data[at + 3:at + 5] == MOV_EAX_EAX:
            data[at:at + 5] = MOV_EAX_7
            sites.append(at)
        at = data.find(XGETBV, at + 1)
    if sites:
        with open(path, "wb") as f:
            f.write(data)
    return sites


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", help="where the patched onnxruntime package goes")
    args = p.parse_args()
    import onnxruntime
    src = os.path.dirname(onnxruntime.__file__)
    dst = os.path.join(os.path.abspath(args.dir), "onnxruntime")
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    capi = os.path.join(dst, "capi")
    patched = 0
    for name in sorted(os.listdir(capi)):
        if name.startswith("onnxruntime_pybind11_state") and \
                name.endswith(".so"):
            sites = patch(os.path.join(capi, name))
            patched += len(sites)
            print("%s: XGETBV replaced at file offsets %s" %
                  (name, ", ".join(hex(s) for s in sites) or "none"))
    if patched == 0:
        shutil.rmtree(dst)
        sys.exit("no XGETBV site of the expected form in ONNX Runtime %s's "
                 "extension: this build is not supported" %
                 onnxruntime.__version__)
    for env in (None, os.path.abspath(args.dir)):
        e = dict(os.environ)
        e.pop("PYTHONPATH", None)
        if env:
            e["PYTHONPATH"] = env
        r = subprocess.run([sys.executable, "-c", CHECK], env=e,
                           capture_output=True, text=True)
        print(("patched: " if env else "stock:   ") +
              (r.stdout.strip() or r.stderr.strip()[-500:]))
    print("use it with: PYTHONPATH=%s" % os.path.abspath(args.dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
