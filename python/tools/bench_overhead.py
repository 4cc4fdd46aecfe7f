"""What a Python call adds to a weft run: per-call time of weft.Callable and
Session.run on a one-node graph (x: float[1] -> Identity), the graph of the
C++ benchmark BM_RunOneNode (bench/executor_bench.cc), at threads 0, 1, 2.

    python python/tools/bench_overhead.py [--calls 200000] [--repeats 5]

Prints the best of --repeats timings per variant, in microseconds per call,
as wall time and as the calling thread's CPU time (what Google Benchmark's
CPU column reports; on a loaded machine wall time includes waiting for a
core).
The Python overhead is this minus BM_RunOneNode's time for the same thread
count (build/bench/weft_executor_bench --benchmark_filter=BM_RunOneNode).
"""

import argparse
import os
import tempfile
import time

import numpy as np

import weft

GRAPH = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 1 } } } } }
node { name: "n0" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
"""


def best_us(fn, calls, repeats):
    """(wall, thread CPU) microseconds per call, each the best of repeats."""
    wall = cpu = float("inf")
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.thread_time()
        for _ in range(calls):
            fn()
        wall = min(wall, (time.perf_counter() - start) / calls)
        cpu = min(cpu, (time.thread_time() - start_cpu) / calls)
    return wall * 1e6, cpu * 1e6


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=200000)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "one_node.pbtxt")
        with open(path, "w") as f:
            f.write(GRAPH)
        graph = weft.Graph.load(path)
    aligned = weft.empty((1,), np.float32)
    aligned[0] = 1
    plain = np.ones(1, np.float32)  # 16-byte aligned: copied per call
    print(f"weft {weft.__version__}, numpy {np.__version__}, "
          f"{args.calls} calls x {args.repeats}, best, us per call: wall, CPU")
    for threads in (0, 1, 2):
        session = weft.Session(graph, threads=threads)
        call = session.callable(feeds=["x"], fetches=["n0"])
        rows = {
            "Callable(weft.empty array)": lambda: call(aligned),
            "Callable(numpy array, copied)": lambda: call(plain),
            "Session.run(dict, [name])": lambda: session.run({"x": aligned}, ["n0"]),
        }
        for name, fn in rows.items():
            fn()
            wall, cpu = best_us(fn, args.calls, args.repeats)
            print(f"threads={threads}  {name:32s} {wall:7.3f} {cpu:7.3f}")


if __name__ == "__main__":
    main()
