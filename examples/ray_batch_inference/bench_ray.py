"""Throughput of batch_inference.py on Ray against the same sessions in one
process, and what Ray costs per batch.

    python bench_ray.py --graph ../../tests/models/testdata/mobilenet_v2.pb \
        --rows 2048 --batch-size 32 --actors 2 --threads-per-actor 1

Three timings over the same random inputs (written to a temporary .npy):

  local      `--actors` weft sessions with `--threads-per-actor` threads
             each, in one process, one Python thread per session taking
             batches from the in-memory array (runs release the GIL).
  ray        batch_inference.run(): read the .npy, map_batches over
             `--actors` actors, write Parquet; actor start-up (importing
             weft, loading the graph) included.
  ray-noop   the same pipeline with a map_batches class that returns its
             batch: what Ray Data costs without inference (read, batching,
             moving batches to actors and back, writing).

Ray's cost per batch is ray-noop's time over the number of batches.
"""

import argparse
import os
import queue
import sys
import tempfile
import threading
import time

import numpy as np
import ray

import batch_inference
import weft


class Passthrough:
    """A map_batches class that does no work: Ray Data's own cost."""

    def __call__(self, batch):
        return batch


def local(graph_path, x, args):
    graph = weft.Graph.load(graph_path)
    sessions = [weft.Session(graph, threads=args.threads_per_actor)
                for _ in range(args.actors)]
    calls = [s.callable(feeds=[args.input_name], fetches=args.fetch)
             for s in sessions]
    for c in calls:  # first runs size the memory caches, as Ray's warm up
        c(x[: args.batch_size])
    batches = queue.Queue()
    for i in range(0, len(x), args.batch_size):
        batches.put(x[i : i + args.batch_size])

    def work(call):
        while True:
            try:
                b = batches.get_nowait()
            except queue.Empty:
                return
            call(b)

    threads = [threading.Thread(target=work, args=(c,)) for c in calls]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - start


def noop(path, out, args):
    ds = ray.data.read_numpy(path).rename_columns({"data": "input"})
    start = time.monotonic()
    ds.map_batches(
        Passthrough, batch_size=args.batch_size, batch_format="numpy",
        concurrency=args.actors, num_cpus=args.cpus_per_actor,
    ).write_parquet(out)
    return time.monotonic() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graph", required=True)
    p.add_argument("--input-name", default="x")
    p.add_argument("--fetch", action="append", default=None)
    p.add_argument("--rows", type=int, default=2048)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--actors", type=int, default=2)
    p.add_argument("--threads-per-actor", type=int, default=1)
    p.add_argument("--cpus-per-actor", type=float, default=0.5)
    p.add_argument("--num-cpus", type=int, default=os.cpu_count())
    args = p.parse_args()
    args.fetch = args.fetch or ["Identity_1"]

    spec = {t.name: t for t in weft.Graph.load(args.graph).inputs}[args.input_name]
    row_shape = tuple(d if d is not None else 1 for d in spec.shape[1:])
    x = np.random.default_rng(0).uniform(-1, 1, (args.rows,) + row_shape)
    x = x.astype(spec.dtype)
    batches = -(-args.rows // args.batch_size)

    t_local = local(args.graph, x, args)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "inputs.npy")
        np.save(path, x)
        ray.init(num_cpus=args.num_cpus)
        ray.data.DataContext.get_current().enable_progress_bars = False
        ray.data.DataContext.get_current().execution_options.preserve_order = True
        try:
            run_args = batch_inference.parse_args([
                "--graph", args.graph, "--input", path,
                "--input-name", args.input_name, "--output", os.path.join(d, "out"),
                "--batch-size", str(args.batch_size), "--actors", str(args.actors),
                "--threads-per-actor", str(args.threads_per_actor),
                "--cpus-per-actor", str(args.cpus_per_actor), "--no-progress",
            ] + sum((["--fetch", f] for f in args.fetch), []))
            ray.cloudpickle.register_pickle_by_value(batch_inference)
            ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
            _, t_ray = batch_inference.run(run_args)
            t_noop = noop(path, os.path.join(d, "noop"), args)
        finally:
            ray.shutdown()

    print(f"{args.rows} rows of {row_shape}, batch {args.batch_size} "
          f"({batches} batches), {args.actors} sessions x "
          f"{args.threads_per_actor} threads")
    for name, t in (("local", t_local), ("ray", t_ray), ("ray-noop", t_noop)):
        print(f"{name:9s} {t:7.2f} s  {args.rows / t:8.1f} inputs/s")
    print(f"ray / local: {t_ray / t_local:.2f}x; Ray Data without inference: "
          f"{1e3 * t_noop / batches:.1f} ms per batch")


if __name__ == "__main__":
    main()
