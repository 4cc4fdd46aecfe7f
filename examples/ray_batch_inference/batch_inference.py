"""Batch inference of a TensorFlow graph file with weft, scaled out on Ray Data.

    python batch_inference.py --graph model.pb --input images.npy \
        --input-name x --fetch Identity_1 --output predictions/ \
        --actors 4 --threads-per-actor 2 --batch-size 64

Ray Data reads the inputs (a .npy file or folder, or Parquet), hands batches
to a pool of actors, each holding one weft session with its own threads
(`map_batches` with a callable class), and writes the outputs as Parquet (or
.npy), with Ray Data's progress bar. Outputs keep the inputs' order.

The script is the same on one machine and on a cluster: without --address it
starts a local Ray; with --address auto (on a cluster node) or
ray://HEAD:10001 it runs on that cluster, as a KubeRay job does (README.md).
The graph file is read once by the driver and shipped to the actors through
Ray's object store, so workers need no copy of it; inputs and outputs must be
paths every node can reach (shared storage, s3://, gs://).
"""

import argparse
import os
import sys
import time

import numpy as np
import ray


def column_name(fetch):
    """A tensor name as a column name: 'node:1' becomes 'node_1'."""
    return fetch.replace(":", "_").replace("/", "_")


class WeftPredictor:
    """One weft session per Ray actor; Ray Data calls it once per batch."""

    def __init__(self, graph, graph_name, input_name, fetches, threads, column):
        import weft  # imported in the actor's process

        if isinstance(graph, ray.ObjectRef):
            graph = ray.get(graph)
        loaded = weft.Graph.from_bytes(graph, graph_name)
        specs = {t.name: t for t in loaded.inputs}
        if input_name not in specs:
            raise ValueError(
                f"{graph_name}: no input '{input_name}'; inputs: {sorted(specs)}"
            )
        spec = specs[input_name]
        self.dtype = spec.dtype
        # Each row is one example: the input's shape without its batch size.
        self.row_shape = None
        if spec.shape is not None and all(d is not None for d in spec.shape[1:]):
            self.row_shape = tuple(spec.shape[1:])
        self.session = weft.Session(loaded, threads=threads)
        self.predict = self.session.callable(feeds=[input_name], fetches=fetches)
        self.columns = [column_name(f) for f in fetches]
        self.column = column

    def __call__(self, batch):
        x = batch[self.column]
        if x.dtype == object:  # Parquet list columns: one array per row
            x = np.stack([np.asarray(row) for row in x])
        x = np.asarray(x, dtype=self.dtype)
        if self.row_shape is not None:
            x = x.reshape((-1,) + self.row_shape)
        return dict(zip(self.columns, self.predict(x)))


def read_inputs(path, column):
    """A Ray dataset of the inputs: .npy (file or folder) or Parquet."""
    if path.endswith(".parquet") or os.path.isdir(path) and any(
        f.endswith(".parquet") for f in os.listdir(path)
    ):
        return ray.data.read_parquet(path).select_columns([column])
    # read_numpy makes one row per slice of the leading axis, column 'data'.
    return ray.data.read_numpy(path).rename_columns({"data": column})


def run(args):
    """Runs the pipeline; returns (rows, seconds)."""
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = not args.no_progress

    with open(args.graph, "rb") as f:
        graph = ray.put(f.read())
    inputs = read_inputs(args.input, args.input_column)
    rows = inputs.count()
    start = time.monotonic()
    outputs = inputs.map_batches(
        WeftPredictor,
        fn_constructor_kwargs=dict(
            graph=graph,
            graph_name=os.path.basename(args.graph),
            input_name=args.input_name,
            fetches=args.fetch,
            threads=args.threads_per_actor,
            column=args.input_column,
        ),
        batch_size=args.batch_size,
        batch_format="numpy",
        concurrency=args.actors,
        num_cpus=(args.threads_per_actor if args.cpus_per_actor is None
                  else args.cpus_per_actor),
    )
    if args.output_format == "npy":
        if len(args.fetch) != 1:
            raise SystemExit("--output-format npy writes one --fetch; use parquet")
        outputs.write_numpy(args.output, column=column_name(args.fetch[0]))
    else:
        outputs.write_parquet(args.output)
    return rows, time.monotonic() - start


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--graph", required=True, help="GraphDef file (.pb, .pbtxt)")
    p.add_argument("--input", required=True, help=".npy file/folder or Parquet")
    p.add_argument("--input-name", required=True, help="placeholder to feed")
    p.add_argument("--input-column", default="input",
                   help="Parquet column holding the inputs (default: input)")
    p.add_argument("--fetch", action="append", required=True,
                   help="tensor to fetch; repeat for more")
    p.add_argument("--output", required=True, help="output folder")
    p.add_argument("--output-format", choices=["parquet", "npy"],
                   default="parquet")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--actors", type=int, default=2,
                   help="actors, each with one weft session")
    p.add_argument("--threads-per-actor", type=int, default=1,
                   help="weft threads per session (and CPUs Ray reserves)")
    p.add_argument("--cpus-per-actor", type=float, default=None,
                   help="CPUs Ray reserves per actor (default: "
                        "--threads-per-actor). Reading and writing need CPUs "
                        "too: on a small machine, reserve less than the "
                        "threads, or the actors take every CPU and the "
                        "pipeline waits")
    p.add_argument("--address", default=None,
                   help="Ray cluster: auto, ray://HOST:10001; none starts a "
                        "local Ray")
    p.add_argument("--num-cpus", type=int, default=None,
                   help="CPUs of the local Ray (ignored with --address)")
    p.add_argument("--no-progress", action="store_true")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    # Ship WeftPredictor's code to the workers with the pipeline, also when
    # this file is imported as a module (by the tests) rather than run: then
    # workers could not import it by name.
    if __name__ != "__main__":
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus)
    try:
        rows, seconds = run(args)
    finally:
        ray.shutdown()
    print(f"{rows} inputs in {seconds:.2f} s: {rows / seconds:.1f} inputs/s "
          f"({args.actors} actors x {args.threads_per_actor} threads, "
          f"batch {args.batch_size}) -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
