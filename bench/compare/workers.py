#!/usr/bin/env python3
"""TensorFlow and ONNX Runtime sides of bench/compare/run.sh, and its
preparation step.

Each engine runs in a process of its own (so that its memory high-water
mark and thread pools are its own) and speaks the protocol of
bench/compare/weft_worker.cc: one command per line on stdin, one JSON
object per line on stdout.

    (at start)   {"ready": true, "rss_kb": R}     after the engine's import
    load         {"load_s": S}                    read the model, make a session
    save DIR     {"saved": K, "run_s": S}         one run; DIR/0.npy ...
    run N        {"times": [S, ...]}              N runs, each timed alone
    warm MS      {"runs": K}                      untimed runs for MS ms, at least one
    rss          {"rss_kb": R, "peak_rss_kb": P}  VmRSS and VmHWM
    quit

    workers.py tf  --graph G.pb --input x=IN.npy --output Identity ... \\
                   --threads N [--no-optimize]
    workers.py tf  --saved-model DIR [--signature KEY] [--tag serve] \\
                   --input KEY=IN.npy --output KEY ... --threads N
    workers.py ort --model M.onnx --input x=IN.npy --output Identity ... \\
                   --threads N [--no-optimize]
    workers.py prepare --work DIR --manifest OUT.json [--signature KEY]
                       [--tag serve] SPEC ...    (SPEC: sidecar, chain:N,
                                                  addchain:N,
                                                  while:N[:lowered],
                                                  lstm:U[:lowered],
                                                  gru:U[:lowered] or
                                                  SavedModel directory)

Engine settings are what a user of each gets by default, with the thread
count pinned:

* TensorFlow: a tf.compat.v1.Session on the imported GraphDef with
  intra_op_parallelism_threads = inter_op_parallelism_threads = N; Grappler
  and oneDNN as TensorFlow ships them (oneDNN is on by default on x86).
* TensorFlow on a SavedModel directory: tf.saved_model.load and a call of
  the signature's concrete function (eager, as TF2 serves it), with
  tf.config.threading's intra- and inter-op threads = N; outputs are
  fetched with .numpy().
* ONNX Runtime: CPUExecutionProvider, intra_op_num_threads = N,
  inter_op_num_threads = 1, ORT_SEQUENTIAL, all graph optimizations.

--no-optimize (the Identity and AddV2 chains) switches off what would
delete or merge the nodes being measured: Grappler and the classic graph optimizer in
TensorFlow, graph optimizations in ONNX Runtime. The loops (while:N) run
with every engine's defaults: their input is fed, so nothing folds.

while:N is a frozen tf.function with one tf.while_loop of N iterations of
(i + 1, x * 0.999 + 0.001) on a [1] float tensor (write_while); lstm:U and
gru:U are Keras LSTM / GRU layers of U units over [batch, 32, 32] with a
Dense(10) head (write_rnn), timed as models. Both are frozen with their
loop as a functional While over library functions (TF2's form), or, with
":lowered", as convert_variables_to_constants_v2's default leaves it
(Enter/Merge/Switch/NextIteration/Exit/LoopCond, TF1's form). tf2onnx
converts either to an ONNX Loop (or an LSTM/GRU node where its rewriters
match); the notes say which.

Timing is time.perf_counter() around the engine's run call, so it includes
the Python binding's per-call cost, as a Python user of either engine pays.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time


def rss_kb():
    values = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0])
    return values.get("VmRSS", -1), values.get("VmHWM", -1)


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def parse_input(text):
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise ValueError("--input wants NAME=FILE.npy, got %r" % text)
    return name, path


def tensor_name(name):
    return name if ":" in name else name + ":0"


class TfEngine:
    def __init__(self, args):
        import numpy as np
        import tensorflow as tf

        self.np = np
        self.tf = tf
        self.args = args

    def load(self):
        if self.args.saved_model:
            return self.load_saved_model()
        tf = self.tf
        start = time.perf_counter()
        graph_def = tf.compat.v1.GraphDef()
        with open(self.args.graph, "rb") as f:
            graph_def.ParseFromString(f.read())
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.import_graph_def(graph_def, name="")
        config = tf.compat.v1.ConfigProto(
            intra_op_parallelism_threads=self.args.threads,
            inter_op_parallelism_threads=self.args.threads,
        )
        if self.args.no_optimize:
            config.graph_options.rewrite_options.disable_meta_optimizer = True
            config.graph_options.optimizer_options.opt_level = (
                tf.compat.v1.OptimizerOptions.L0
            )
            config.graph_options.optimizer_options.do_constant_folding = False
            config.graph_options.optimizer_options.do_common_subexpression_elimination = (
                False
            )
        self.session = tf.compat.v1.Session(graph=graph, config=config)
        self.feeds = {}
        for text in self.args.input:
            name, path = parse_input(text)
            self.feeds[graph.get_tensor_by_name(tensor_name(name))] = self.np.load(path)
        self.fetches = [graph.get_tensor_by_name(tensor_name(o)) for o in self.args.output]
        return time.perf_counter() - start

    def load_saved_model(self):
        tf = self.tf
        # Before anything runs: TensorFlow fixes its pools at the first op.
        tf.config.threading.set_intra_op_parallelism_threads(self.args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(self.args.threads)
        start = time.perf_counter()
        loaded = tf.saved_model.load(self.args.saved_model, tags=self.args.tag.split(","))
        self.loaded = loaded  # the signature holds its variables weakly
        self.function = loaded.signatures[self.args.signature]
        self.feeds = {}
        for text in self.args.input:
            name, path = parse_input(text)
            self.feeds[name] = tf.constant(self.np.load(path))
        self.fetches = list(self.args.output)
        self.run = self.run_signature
        return time.perf_counter() - start

    def run_signature(self):
        outputs = self.function(**self.feeds)
        return [outputs[k].numpy() for k in self.fetches]

    def run(self):
        return self.session.run(self.fetches, feed_dict=self.feeds)


class OrtEngine:
    def __init__(self, args):
        import numpy as np
        import onnxruntime as ort

        self.np = np
        self.ort = ort
        self.args = args

    def load(self):
        ort = self.ort
        start = time.perf_counter()
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.args.threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            if self.args.no_optimize
            else ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        )
        self.session = ort.InferenceSession(
            self.args.model, options, providers=["CPUExecutionProvider"]
        )
        # tf2onnx names a GraphDef's tensors "x:0", a SavedModel's by key.
        known = {i.name for i in self.session.get_inputs()}
        known |= {o.name for o in self.session.get_outputs()}
        onnx_name = lambda n: n if n in known else tensor_name(n)
        self.feeds = {}
        for text in self.args.input:
            name, path = parse_input(text)
            self.feeds[onnx_name(name)] = self.np.load(path)
        self.fetches = [onnx_name(o) for o in self.args.output]
        return time.perf_counter() - start

    def run(self):
        return self.session.run(self.fetches, self.feeds)


def serve(engine):
    np = engine.np
    reply({"ready": True, "rss_kb": rss_kb()[0]})
    loaded = False
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        try:
            if command == "load":
                reply({"load_s": engine.load()})
                loaded = True
            elif command in ("save", "run", "warm") and not loaded:
                reply({"error": "nothing loaded: send 'load' first"})
            elif command == "save":
                start = time.perf_counter()
                outputs = engine.run()
                run_s = time.perf_counter() - start
                for i, value in enumerate(outputs):
                    np.save(os.path.join(words[1], "%d.npy" % i), np.asarray(value))
                reply({"saved": len(outputs), "run_s": run_s})
            elif command == "run":
                n = int(words[1]) if len(words) > 1 else 1
                times = []
                for _ in range(n):
                    start = time.perf_counter()
                    engine.run()
                    times.append(time.perf_counter() - start)
                reply({"times": times})
            elif command == "warm":
                until = time.perf_counter() + float(words[1]) / 1e3
                runs = 0
                while True:
                    engine.run()
                    runs += 1
                    if time.perf_counter() >= until:
                        break
                reply({"runs": runs})
            elif command == "rss":
                rss, peak = rss_kb()
                reply({"rss_kb": rss, "peak_rss_kb": peak})
            elif command == "quit":
                return
            else:
                reply({"error": "unknown command %r" % command})
        except Exception as e:  # the orchestrator reports it and goes on
            reply({"error": "%s: %s" % (type(e).__name__, e)})


# ---- preparation -----------------------------------------------------------


def read_sidecar(path):
    """The .model sidecar of tests/models/testdata: graph, input, outputs."""
    directory = os.path.dirname(os.path.abspath(path))
    spec = {"outputs": []}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            words = line.split()
            if words[0] == "graph":
                spec["graph"] = os.path.join(directory, words[1])
            elif words[0] == "input":
                spec["input"] = words[1]
                spec["input_shape"] = [int(d) for d in words[2].split(",")]
                spec["input_file"] = os.path.join(directory, words[3])
            elif words[0] == "output":
                spec["outputs"].append(words[1])
    missing = [k for k in ("graph", "input", "input_file") if k not in spec]
    if missing or not spec["outputs"]:
        raise ValueError("%s: missing %s" % (path, ", ".join(missing or ["output"])))
    return spec


def up_to_date(target, source):
    return os.path.exists(target) and os.path.getmtime(target) >= os.path.getmtime(source)


def rewrite_erfc(graph_def):
    """Erfc(x) as Sub(1, Erf(x)): tf2onnx has no converter for Erfc (Keras
    3's exact GELU uses it) and would leave an op ONNX Runtime rejects. The
    node keeps its name, so its consumers are untouched. 1 - erf(x) loses
    relative precision where erfc(x) is tiny; the agreement check against
    TensorFlow says whether that matters for the model."""
    import numpy as np
    import tensorflow as tf

    rewritten = 0
    for node in list(graph_def.node):
        if node.op != "Erfc":
            continue
        dtype = node.attr["T"].type
        erf = graph_def.node.add(name=node.name + "/onnx_erf", op="Erf", input=[node.input[0]])
        erf.attr["T"].type = dtype
        one = graph_def.node.add(name=node.name + "/onnx_one", op="Const")
        one.attr["dtype"].type = dtype
        one.attr["value"].tensor.CopyFrom(
            tf.make_tensor_proto(np.array(1, dtype=tf.dtypes.as_dtype(dtype).as_numpy_dtype)))
        node.op = "Sub"
        del node.input[:]
        node.input.extend([one.name, erf.name])
        rewritten += 1
    return rewritten


def rewrite_onnx_erfc(model):
    """rewrite_erfc on an ONNX model that tf2onnx converted from a SavedModel
    directory (it leaves Erfc as an op of that name, which ONNX Runtime
    rejects): each Erfc(x) becomes Sub(1, Erf(x)) writing the same output."""
    from onnx import TensorProto, helper

    graph = model.graph
    nodes, rewritten = [], 0
    for node in graph.node:
        if node.op_type != "Erfc":
            nodes.append(node)
            continue
        erf_out = node.output[0] + "/onnx_erf"
        one = node.output[0] + "/onnx_one"
        graph.initializer.append(helper.make_tensor(one, TensorProto.FLOAT, [], [1.0]))
        nodes.append(helper.make_node("Erf", [node.input[0]], [erf_out], name=node.name + "/erf"))
        nodes.append(helper.make_node("Sub", [one, erf_out], [node.output[0]], name=node.name))
        rewritten += 1
    if rewritten:
        del graph.node[:]
        graph.node.extend(nodes)
    return rewritten


def convert_to_onnx(spec, onnx_path):
    """tf2onnx on the frozen GraphDef, cached beside the other work files.
    Returns the rewrites made for the conversion, for the report."""
    import tensorflow as tf
    import tf2onnx

    graph_def = tf.compat.v1.GraphDef()
    with open(spec["graph"], "rb") as f:
        graph_def.ParseFromString(f.read())
    notes = []
    erfc = rewrite_erfc(graph_def)
    if erfc:
        notes.append("%d Erfc node(s) as 1 - Erf for tf2onnx" % erfc)
    if up_to_date(onnx_path, spec["graph"]):
        return notes
    model, _ = tf2onnx.convert.from_graph_def(
        graph_def,
        input_names=[tensor_name(spec["input"])],
        output_names=[tensor_name(o) for o in spec["outputs"]],
        opset=17,
    )
    tmp = onnx_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(model.SerializeToString())
    os.replace(tmp, onnx_path)
    return notes


# Function-call ops that tf2onnx passes through as they are when it cannot
# inline the function.
TF_CALL_OPS = ("PartitionedCall", "StatefulPartitionedCall")


def convert_frozen_inlined(frozen_pb, meta, onnx_path):
    """tf2onnx on a frozen signature whose function calls it did not inline:
    Keras 3 wraps some layers (ConvNeXt's grouped convolutions) in functions
    marked _noinline and _XlaMustCompile, which TensorFlow's function
    optimizer leaves alone; without the marks it inlines them as it inlines
    any other call. Writes onnx_path; returns the rewrites made."""
    import tensorflow as tf
    import tf2onnx

    graph_def = tf.compat.v1.GraphDef()
    with open(frozen_pb, "rb") as f:
        graph_def.ParseFromString(f.read())
    erfc = rewrite_erfc(graph_def)
    marks = ("_noinline", "_XlaMustCompile")
    inlined = 0
    for function in graph_def.library.function:
        found = [mark for mark in marks if mark in function.attr]
        for mark in found:
            del function.attr[mark]
        inlined += bool(found)
    for node in graph_def.node:
        if node.op in TF_CALL_OPS and "_XlaMustCompile" in node.attr:
            del node.attr["_XlaMustCompile"]
    model, _ = tf2onnx.convert.from_graph_def(
        graph_def,
        input_names=[tensor_name(meta["inputs"][0])],
        output_names=[tensor_name(o) for o in meta["outputs"]],
        opset=17,
    )
    left = [n.name for n in model.graph.node if n.op_type in TF_CALL_OPS]
    if left:
        raise RuntimeError("function calls left after inlining: %s" % left[:3])
    with open(onnx_path, "wb") as f:
        f.write(model.SerializeToString())
    return {"erfc": erfc, "inlined": inlined}


def batch_input(spec, batch, path):
    """The sample input's rows repeated (or cut) to `batch` rows: the same
    distribution the model was checked on, at any batch size."""
    import numpy as np

    sample = np.load(spec["input_file"])
    rows = np.arange(batch) % sample.shape[0]
    np.save(path, np.ascontiguousarray(sample[rows]))


def write_chain(n, pb_path, onnx_path, input_path):
    """x -> Identity -> ... -> Identity (n nodes), as a GraphDef and as an
    ONNX model written directly: tf2onnx's optimizer would delete every
    Identity, leaving ONNX Runtime nothing to schedule."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from tensorflow.core.framework import graph_pb2, types_pb2

    graph = graph_pb2.GraphDef()
    x = graph.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = types_pb2.DT_FLOAT
    x.attr["shape"].shape.dim.add(size=1)
    prev = "x"
    for i in range(n):
        node = graph.node.add(name="n%d" % i, op="Identity", input=[prev])
        node.attr["T"].type = types_pb2.DT_FLOAT
        prev = node.name
    with open(pb_path, "wb") as f:
        f.write(graph.SerializeToString())

    nodes = [
        helper.make_node("Identity", ["x:0" if i == 0 else "n%d:0" % (i - 1)], ["n%d:0" % i])
        for i in range(n)
    ]
    model = helper.make_model(
        helper.make_graph(
            nodes,
            "chain%d" % n,
            [helper.make_tensor_value_info("x:0", TensorProto.FLOAT, [1])],
            [helper.make_tensor_value_info(prev + ":0", TensorProto.FLOAT, [1])],
        ),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    # The IR version of opset 17; onnx's default (its newest) may be newer
    # than the installed ONNX Runtime reads.
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, onnx_path)
    np.save(input_path, np.array([1.5], dtype=np.float32))
    return prev


def write_add_chain(n, pb_path, onnx_path, input_path):
    """x -> AddV2(., c) -> ... (n nodes) on a [1] float, c one [1] float
    constant (0.5; x is 1.5, so every partial sum is exact in float32), as
    a GraphDef and as an ONNX model of Add nodes written directly (tf2onnx
    would not change it, but writing it keeps both graphs node for node the
    same). The per-node cost of a small real kernel beside chain:N's
    Identity nodes."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from tensorflow.core.framework import graph_pb2, types_pb2

    graph = graph_pb2.GraphDef()
    x = graph.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = types_pb2.DT_FLOAT
    x.attr["shape"].shape.dim.add(size=1)
    c = graph.node.add(name="c", op="Const")
    c.attr["dtype"].type = types_pb2.DT_FLOAT
    c.attr["value"].tensor.dtype = types_pb2.DT_FLOAT
    c.attr["value"].tensor.tensor_shape.dim.add(size=1)
    c.attr["value"].tensor.float_val.append(0.5)
    prev = "x"
    for i in range(n):
        node = graph.node.add(name="a%d" % i, op="AddV2", input=[prev, "c"])
        node.attr["T"].type = types_pb2.DT_FLOAT
        prev = node.name
    with open(pb_path, "wb") as f:
        f.write(graph.SerializeToString())

    nodes = [
        helper.make_node("Add", ["x:0" if i == 0 else "a%d:0" % (i - 1), "c:0"],
                         ["a%d:0" % i])
        for i in range(n)
    ]
    model = helper.make_model(
        helper.make_graph(
            nodes,
            "addchain%d" % n,
            [helper.make_tensor_value_info("x:0", TensorProto.FLOAT, [1])],
            [helper.make_tensor_value_info(prev + ":0", TensorProto.FLOAT, [1])],
            initializer=[helper.make_tensor("c:0", TensorProto.FLOAT, [1], [0.5])],
        ),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, onnx_path)
    np.save(input_path, np.array([1.5], dtype=np.float32))
    return prev


def freeze_concrete(concrete, lowered, pb_path):
    """A concrete function's graph with variables as constants
    (convert_variables_to_constants_v2), written to pb_path. lowered=False
    keeps functional While/If over library functions (TF2's form, what
    lower_control_flow=False leaves); lowered=True is the converter's
    default, Enter/Merge/Switch/NextIteration/Exit/LoopCond (TF1's form).
    Returns the output node names."""
    from tensorflow.python.framework import convert_to_constants

    frozen = convert_to_constants.convert_variables_to_constants_v2(
        concrete, lower_control_flow=lowered)
    graph_def = frozen.graph.as_graph_def()
    tmp = pb_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    os.replace(tmp, pb_path)
    strip = lambda name: name[:-2] if name.endswith(":0") else name
    return [strip(t.name) for t in frozen.outputs]


def write_while(n, lowered, pb_path, input_path):
    """One tf.while_loop of n iterations over a 1-element float tensor:
    (i, x) -> (i + 1, x * 0.999 + 0.001) while i < n, n a constant of the
    cond function, x fed ([1] float32). Frozen from a tf.function (see
    freeze_concrete for the two forms). Returns the output node name."""
    import numpy as np
    import tensorflow as tf

    @tf.function(input_signature=[tf.TensorSpec([1], tf.float32, name="x")])
    def loop(x):
        _, y = tf.while_loop(lambda i, y: i < n,
                             lambda i, y: (i + 1, y * 0.999 + 0.001),
                             (tf.constant(0), x))
        return y

    outputs = freeze_concrete(loop.get_concrete_function(), lowered, pb_path)
    np.save(input_path, np.array([1.5], dtype=np.float32))
    return outputs[0]


# The recurrent models of the model table: a Keras layer over
# [batch, RNN_STEPS, RNN_FEATURES] and a Dense head of RNN_CLASSES.
RNN_STEPS, RNN_FEATURES, RNN_CLASSES = 32, 32, 10


def write_rnn(kind, units, lowered, directory, name):
    """Keras 3 Input([32 steps, 32 features]) -> LSTM or GRU(units)
    (return_sequences off) -> Dense(10), random weights (seed 2026),
    frozen as freeze_concrete does, with a sample input of 8 rows uniform
    in [-1, 1) and a .model sidecar like tests/models/testdata's; returns
    the sidecar's path. Keras runs the layer on the CPU as a tf.while_loop
    over TensorLists, as in tests/models/gen_rnn.py (whose fixtures are
    the same layers at 4 units over 5 steps)."""
    import keras
    import numpy as np
    import tensorflow as tf

    keras.utils.set_random_seed(2026)
    layer = {"lstm": keras.layers.LSTM, "gru": keras.layers.GRU}[kind]
    inp = keras.Input((RNN_STEPS, RNN_FEATURES))
    model = keras.Model(inp, keras.layers.Dense(RNN_CLASSES)(layer(units)(inp)))
    fn = tf.function(lambda x: model(x), input_signature=[
        tf.TensorSpec([None, RNN_STEPS, RNN_FEATURES], tf.float32, name="x")])
    pb = os.path.join(directory, name + ".pb")
    outputs = freeze_concrete(fn.get_concrete_function(), lowered, pb)
    rng = np.random.default_rng(2026)
    sample = rng.uniform(-1.0, 1.0, (8, RNN_STEPS, RNN_FEATURES)).astype(np.float32)
    np.save(os.path.join(directory, name + "_input.npy"), sample)
    sidecar = os.path.join(directory, name + ".model")
    with open(sidecar + ".tmp", "w") as f:
        f.write("# written by bench/compare/workers.py write_rnn (TensorFlow %s, "
                "Keras %s)\n" % (tf.__version__, keras.__version__))
        f.write("graph %s.pb\n" % name)
        f.write("input x 8,%d,%d %s_input.npy\n" % (RNN_STEPS, RNN_FEATURES, name))
        for o in outputs:
            f.write("output %s\n" % o)
    os.replace(sidecar + ".tmp", sidecar)
    return sidecar


def onnx_loop_note(onnx_path):
    """What tf2onnx made of a loop: its Loop, Scan, LSTM, GRU and RNN nodes
    (a Loop's body node count included), for the report's notes."""
    import onnx

    graph = onnx.load(onnx_path, load_external_data=False).graph
    found = []
    for node in graph.node:
        if node.op_type == "Loop":
            body = next((a.g for a in node.attribute if a.name == "body"), None)
            found.append("Loop (body of %d nodes: %s)" % (
                len(body.node), " ".join(sorted({b.op_type for b in body.node}))))
        elif node.op_type in ("Scan", "LSTM", "GRU", "RNN"):
            found.append(node.op_type)
    return "tf2onnx made %s from %d top-level nodes" % (
        ", ".join(found) or "no loop node", len(graph.node))


def parse_loop_spec(item):
    """while:N[:lowered], lstm:UNITS[:lowered], gru:UNITS[:lowered] ->
    (kind, number, lowered); None for anything else."""
    words = item.split(":")
    if words[0] not in ("while", "lstm", "gru") or len(words) not in (2, 3):
        return None
    if not words[1].isdigit() or int(words[1]) < 1:
        return None
    if len(words) == 3 and words[2] not in ("lowered", "functional"):
        return None
    return words[0], int(words[1]), len(words) == 3 and words[2] == "lowered"


def is_saved_model(path):
    return os.path.isdir(path) and any(
        os.path.exists(os.path.join(path, f)) for f in ("saved_model.pb", "saved_model.pbtxt"))


def freeze_signature(directory, signature, tag, pb_path):
    """The signature's graph with its variables as constants
    (convert_variables_to_constants_v2), written to pb_path; returns its
    input tensor names and output node names, outputs in the signature's
    key order (tf.nest flattens a dict in sorted key order)."""
    import tensorflow as tf
    from tensorflow.python.framework import convert_to_constants

    loaded = tf.saved_model.load(directory, tags=tag.split(","))  # owns the variables
    function = loaded.signatures[signature]
    frozen = convert_to_constants.convert_variables_to_constants_v2(function)
    # Some graphs keep function calls after freezing (ConvNeXt's layers
    # stay behind PartitionedCall): weft imports a GraphDef's function
    # library and inlines the calls, so the frozen graph keeps it.
    graph_def = frozen.graph.as_graph_def()
    strip = lambda name: name[:-2] if name.endswith(":0") else name
    tmp = pb_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    os.replace(tmp, pb_path)
    return ([strip(t.name) for t in frozen.inputs], [strip(t.name) for t in frozen.outputs],
            len(graph_def.node))


def saved_model_entries(item, args, batches):
    """A SavedModel directory: TensorFlow and weft load it by signature key;
    ONNX Runtime gets tf2onnx's conversion of the directory; weft also gets
    the signature frozen into a GraphDef (engine weft_pb), the frozen graph
    the SavedModel loader should match in latency. One float input with a
    batch dimension and fixed other dimensions; its value is uniform in
    [0, 1) from a fixed seed."""
    import numpy as np
    import onnx
    import tensorflow as tf

    directory = os.path.abspath(item)
    name = os.path.basename(os.path.normpath(directory))
    # Work files (frozen graph, ONNX conversion, inputs, logs) are keyed by
    # the directory, not its name alone: a tests/models fixture or another
    # SavedModel of the same name in one work folder must not hand this one
    # its cached ONNX model or its input file.
    work_name = "%s-%s" % (name, hashlib.sha1(directory.encode()).hexdigest()[:8])
    stamp = os.path.join(directory, "saved_model.pb")
    function = tf.saved_model.load(directory, tags=args.tag.split(",")).signatures[args.signature]
    inputs = function.structured_input_signature[1]
    if len(inputs) != 1:
        raise ValueError("%s: signature %s has %d inputs; the comparison feeds one"
                         % (directory, args.signature, len(inputs)))
    (key, spec), = inputs.items()
    dims = list(spec.shape)[1:]
    if spec.dtype != tf.float32 or any(d is None for d in dims):
        raise ValueError("%s: input %s is %s %s; want float32 [batch, fixed dims]"
                         % (directory, key, spec.dtype.name, spec.shape))
    outputs = sorted(function.structured_outputs)

    frozen_pb = os.path.join(args.work, "frozen", work_name + ".pb")
    frozen_meta = frozen_pb[:-3] + ".json"
    if up_to_date(frozen_meta, stamp):
        with open(frozen_meta) as f:
            meta = json.load(f)
    else:
        print("compare: %s: freezing signature %s" % (name, args.signature), flush=True)
        f_in, f_out, nodes = freeze_signature(directory, args.signature, args.tag, frozen_pb)
        meta = {"inputs": f_in, "outputs": f_out, "nodes": nodes}
        with open(frozen_meta, "w") as f:
            json.dump(meta, f)

    onnx_path = os.path.join(args.work, "onnx", work_name + ".onnx")
    onnx_error, onnx_input, onnx_outputs, notes = None, None, None, []
    try:
        if not up_to_date(onnx_path, stamp):
            print("compare: %s: converting the SavedModel to ONNX with tf2onnx" % name,
                  flush=True)
            done = subprocess.run(
                [sys.executable, "-m", "tf2onnx.convert", "--saved-model", directory,
                 "--signature_def", args.signature, "--tag", args.tag,
                 "--output", onnx_path + ".tmp", "--opset", "17"],
                stdout=sys.stderr, stderr=subprocess.PIPE, text=True)
            sys.stderr.write(done.stderr)
            if done.returncode != 0:
                raise RuntimeError(done.stderr.strip().splitlines()[-1])
            model = onnx.load(onnx_path + ".tmp")
            rewrites = {}
            if any(n.op_type in TF_CALL_OPS for n in model.graph.node):
                # tf2onnx left function calls it could not inline (ONNX
                # Runtime rejects them): convert the frozen graph instead,
                # its functions' no-inline marks removed.
                rewrites = convert_frozen_inlined(frozen_pb, meta, onnx_path + ".tmp")
            else:
                erfc = rewrite_onnx_erfc(model)
                if erfc:
                    onnx.save(model, onnx_path + ".tmp")
                    rewrites = {"erfc": erfc}
            if rewrites:
                with open(onnx_path + ".json", "w") as f:
                    json.dump(rewrites, f)
            elif os.path.exists(onnx_path + ".json"):
                os.remove(onnx_path + ".json")
            os.replace(onnx_path + ".tmp", onnx_path)
        if os.path.exists(onnx_path + ".json"):
            with open(onnx_path + ".json") as f:
                rewrites = json.load(f)
            if rewrites.get("inlined"):
                notes.append("converted from the frozen graph, %d function(s) marked no-inline "
                             "inlined (tf2onnx left their calls in the directory's conversion)"
                             % rewrites["inlined"])
            if rewrites.get("erfc"):
                notes.append("%d Erfc node(s) as 1 - Erf for tf2onnx" % rewrites["erfc"])
        graph = onnx.load(onnx_path, load_external_data=False).graph
        initializers = {t.name for t in graph.initializer}
        names = [i.name for i in graph.input if i.name not in initializers]
        if len(names) != 1:
            raise ValueError("ONNX model has inputs %s" % names)
        onnx_input = names[0]
        names = [o.name for o in graph.output]
        if sorted(names) == outputs:
            onnx_outputs = outputs
        elif len(names) == len(outputs):
            onnx_outputs = names
            notes.append("outputs %s taken as %s" % (names, outputs))
        else:
            raise ValueError("ONNX model has outputs %s, the signature %s" % (names, outputs))
    except Exception as e:  # reported in the table; TF and weft still run
        onnx_error = "tf2onnx: %s: %s" % (type(e).__name__, e)

    entries = []
    rng = np.random.default_rng(0)
    for batch in batches:
        input_path = os.path.join(args.work, "inputs", "%s_b%d.npy" % (work_name, batch))
        np.save(input_path, rng.uniform(0.0, 1.0, [batch] + dims).astype(np.float32))
        entries.append({
            "name": name, "work_name": work_name, "kind": "saved_model", "batch": batch,
            "saved_model": directory, "signature": args.signature, "tag": args.tag,
            "input": key, "outputs": outputs, "input_file": input_path,
            "graph": frozen_pb, "frozen_input": meta["inputs"][0],
            "frozen_outputs": meta["outputs"], "frozen_nodes": meta["nodes"],
            "onnx": None if onnx_error else onnx_path, "onnx_error": onnx_error,
            "onnx_input": onnx_input, "onnx_outputs": onnx_outputs, "onnx_notes": notes,
            "no_optimize": False,
        })
    return entries


def prepare(args):
    """Writes what the timed runs need and a manifest naming it."""
    os.makedirs(args.work, exist_ok=True)
    for sub in ("onnx", "inputs", "stress", "frozen"):
        os.makedirs(os.path.join(args.work, sub), exist_ok=True)
    batches = [int(b) for b in args.batch.split(",")]
    entries = []
    for item in args.specs:
        loop = parse_loop_spec(item)
        if loop is not None and loop[0] == "while":
            _, n, lowered = loop
            family = "while_lowered" if lowered else "while"
            base = os.path.join(args.work, "stress", "%s_%d" % (family, n))
            meta_path = base + ".json"
            # Cached: the graph is a function of (n, form) alone.
            if os.path.exists(meta_path):
                with open(meta_path) as f:
                    meta = json.load(f)
            else:
                print("compare: %s: writing the loop graph" % item, flush=True)
                meta = {"output": write_while(n, lowered, base + ".pb", base + "_input.npy")}
                with open(meta_path, "w") as f:
                    json.dump(meta, f)
            spec = {"graph": base + ".pb", "input": "x", "outputs": [meta["output"]]}
            onnx_error, notes = None, []
            try:
                notes = convert_to_onnx(spec, base + ".onnx")
                notes.append(onnx_loop_note(base + ".onnx"))
            except Exception as e:  # reported in the notes; TF and weft still run
                onnx_error = "tf2onnx: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:300])
            entries.append(
                {
                    "name": "%s_%d" % (family, n),
                    "kind": "stress",
                    "family": family,
                    "nodes": n,
                    "batch": 1,
                    "graph": base + ".pb",
                    "onnx": None if onnx_error else base + ".onnx",
                    "onnx_error": onnx_error,
                    "onnx_notes": notes,
                    "input": "x",
                    "input_file": base + "_input.npy",
                    "outputs": [meta["output"]],
                    # What a user gets: Grappler, ONNX Runtime's optimizer
                    # (nothing folds: x is fed).
                    "no_optimize": False,
                }
            )
            continue
        if loop is not None:
            kind, units, lowered = loop
            directory = os.path.join(args.work, "rnn")
            os.makedirs(directory, exist_ok=True)
            name = "%s%d%s" % (kind, units, "_lowered" if lowered else "")
            item = os.path.join(directory, name + ".model")
            if not os.path.exists(item):
                print("compare: %s: writing the Keras model" % name, flush=True)
                write_rnn(kind, units, lowered, directory, name)
        if item.startswith("chain:") or item.startswith("addchain:"):
            family, count = item.split(":", 1)
            n = int(count)
            base = os.path.join(args.work, "stress", "%s_%d" % (family, n))
            write = write_chain if family == "chain" else write_add_chain
            last = write(n, base + ".pb", base + ".onnx", base + "_input.npy")
            entries.append(
                {
                    "name": "%s_%d" % (family, n),
                    "kind": "stress",
                    "family": family,
                    "nodes": n,
                    "batch": 1,
                    "graph": base + ".pb",
                    "onnx": base + ".onnx",
                    "input": "x",
                    "input_file": base + "_input.npy",
                    "outputs": [last],
                    "no_optimize": True,
                }
            )
            continue
        if is_saved_model(item):
            entries += saved_model_entries(item, args, batches)
            continue
        spec = read_sidecar(item)
        name = os.path.splitext(os.path.basename(item))[0]
        onnx_path = os.path.join(args.work, "onnx", name + ".onnx")
        print("compare: %s: converting to ONNX with tf2onnx" % name, flush=True)
        convert_error = None
        onnx_notes = []
        try:
            onnx_notes = convert_to_onnx(spec, onnx_path)
            if loop is not None:
                onnx_notes.append(onnx_loop_note(onnx_path))
        except Exception as e:  # reported in the table; TF and weft still run
            convert_error = "tf2onnx: %s: %s" % (type(e).__name__, e)
        for batch in batches:
            input_path = os.path.join(args.work, "inputs", "%s_b%d.npy" % (name, batch))
            batch_input(spec, batch, input_path)
            entries.append(
                {
                    "name": name,
                    "kind": "model",
                    "batch": batch,
                    "graph": spec["graph"],
                    "onnx": None if convert_error else onnx_path,
                    "onnx_error": convert_error,
                    "onnx_notes": onnx_notes,
                    "input": spec["input"],
                    "input_file": input_path,
                    "outputs": spec["outputs"],
                    "no_optimize": False,
                }
            )
    with open(args.manifest, "w") as f:
        json.dump(entries, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for engine in ("tf", "ort"):
        p = sub.add_parser(engine)
        if engine == "tf":
            source = p.add_mutually_exclusive_group(required=True)
            source.add_argument("--graph")
            source.add_argument("--saved-model")
            p.add_argument("--signature", default="serving_default")
            p.add_argument("--tag", default="serve", help="comma-separated tag set")
        else:
            p.add_argument("--model", required=True)
        p.add_argument("--input", action="append", default=[])
        p.add_argument("--output", action="append", default=[])
        p.add_argument("--threads", type=int, default=1)
        p.add_argument("--no-optimize", action="store_true")
    p = sub.add_parser("prepare")
    p.add_argument("--work", required=True)
    p.add_argument("--manifest", required=True)
    p.add_argument("--batch", default="1,8")
    p.add_argument("--signature", default="serving_default")
    p.add_argument("--tag", default="serve")
    p.add_argument("specs", nargs="+")
    args = parser.parse_args()

    if args.command == "prepare":
        prepare(args)
    elif args.command == "tf":
        serve(TfEngine(args))
    else:
        serve(OrtEngine(args))


if __name__ == "__main__":
    main()
