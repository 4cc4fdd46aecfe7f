#!/usr/bin/env python3
"""Writes the TF1 TensorArray fixtures of tests/models/testdata/tensor_array
with TensorFlow's v1 graph mode (tf.compat.v1.disable_v2_behavior(): control
flow v1, TensorArrayV3, reference variables), frozen with
tf.compat.v1.graph_util.convert_variables_to_constants, so the loops stay in
their lowered Enter / Merge / Switch / NextIteration / Exit / LoopCond form
and the arrays are TensorArrayV3 resources:

    dynamic_lstm     tf.compat.v1.nn.dynamic_rnn over an LSTMCell(4) on a
                     [2, 5, 3] input (outputs and final state)
    dynamic_gru      the same with a GRUCell(4)
    dynamic_lstm_len an LSTMCell(4) with sequence_length (steps past a row's
                     length keep the state and output zeros)
    ta_loop          a tf.while_loop that writes one element per iteration
                     (a data-dependent trip count), then stacks the array;
                     a second, dynamic_size array grows in the same loop
    ta_ops           every TensorArray op outside loops: Scatter, Gather
                     (repeated indices with clear_after_read=False), Read,
                     Size, Split and Concat (with lengths), a dynamic_size
                     array with a gap read as zeros, Close, and arrays of
                     int32, int64, double, bool, half and uint8
    plumbing         Bitcast (to wider, narrower and equal element sizes) and
                     an Assert that holds
    map_scan         tf.map_fn and tf.scan (TensorArrays in their loops)
    nested_ta        a TensorArray made in a loop body, filled by an inner
                     loop, stacked into the outer loop's array

Each graph gets NAME.pb and one sidecar NAME_CASE.cf in gen_control_flow.py's
format, with TensorFlow's outputs; tests/models/tensor_array_test.cc reads
them and never needs Python. assert.pb holds an Assert that fails for the
input of assert_fail.txt, whose second line is TensorFlow's message. Run this
only to regenerate them (TF_ENABLE_ONEDNN_OPTS=0 is set here):

    python3 tests/models/gen_tensor_array.py
"""

import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.compat.v1.disable_v2_behavior()
v1 = tf.compat.v1

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "testdata", "tensor_array")
BATCH, STEPS, FEATURES, UNITS = 2, 5, 3, 4

NO_GRAPPLER = v1.ConfigProto()
NO_GRAPPLER.graph_options.rewrite_options.disable_meta_optimizer = True
_opts = NO_GRAPPLER.graph_options.optimizer_options
_opts.opt_level = v1.OptimizerOptions.L0
_opts.do_constant_folding = False
_opts.do_function_inlining = False


class Cell:
    """TF1's LSTMCell / GRUCell math (no peepholes, forget bias 1), for
    TensorFlow builds whose tf.compat.v1.nn.rnn_cell needs tf_keras: what
    dynamic_rnn asks of a cell (state_size, output_size, zero_state, a call)
    and nothing else. Its variables freeze into constants all the same."""

    def __init__(self, kind):
        self.kind = kind

    @property
    def state_size(self):
        return (UNITS, UNITS) if self.kind == "lstm" else UNITS

    @property
    def output_size(self):
        return UNITS

    def zero_state(self, batch_size, dtype):
        z = tf.zeros([batch_size, UNITS], dtype)
        return (z, z) if self.kind == "lstm" else z

    def __call__(self, x, state):
        init = v1.random_uniform_initializer(-0.5, 0.5)
        with v1.variable_scope("cell", reuse=v1.AUTO_REUSE):
            if self.kind == "lstm":
                c, h = state
                w = v1.get_variable("kernel", [FEATURES + UNITS, 4 * UNITS],
                                    initializer=init)
                b = v1.get_variable("bias", [4 * UNITS], initializer=init)
                z = tf.matmul(tf.concat([x, h], 1), w) + b
                i, j, f, o = tf.split(z, 4, axis=1)
                c = tf.sigmoid(f + 1.0) * c + tf.sigmoid(i) * tf.tanh(j)
                h = tf.sigmoid(o) * tf.tanh(c)
                return h, (c, h)
            h = state
            wg = v1.get_variable("gates_kernel", [FEATURES + UNITS, 2 * UNITS],
                                 initializer=init)
            bg = v1.get_variable("gates_bias", [2 * UNITS], initializer=init)
            wc = v1.get_variable("candidate_kernel", [FEATURES + UNITS, UNITS],
                                 initializer=init)
            bc = v1.get_variable("candidate_bias", [UNITS], initializer=init)
            r, u = tf.split(tf.sigmoid(
                tf.matmul(tf.concat([x, h], 1), wg) + bg), 2, axis=1)
            cand = tf.tanh(tf.matmul(tf.concat([x, r * h], 1), wc) + bc)
            h = u * h + (1 - u) * cand
            return h, h


def legacy_cell(name):
    try:
        return getattr(v1.nn.rnn_cell, name)(UNITS)
    except Exception as e:  # noqa: BLE001 (any failure: use Cell)
        print("tf.compat.v1.nn.rnn_cell.%s unavailable (%s): using Cell" % (
            name, type(e).__name__))
        return None


def lstm_cell():
    return legacy_cell("LSTMCell") or Cell("lstm")


def gru_cell():
    return legacy_cell("GRUCell") or Cell("gru")


def rnn(make_cell, with_length=False):
    def build():
        x = v1.placeholder(tf.float32, [None, STEPS, FEATURES], name="x")
        feeds = {"x": x}
        length = None
        if with_length:
            length = v1.placeholder(tf.int32, [None], name="length")
            feeds["length"] = length
        outputs, state = v1.nn.dynamic_rnn(
            make_cell(), x, sequence_length=length, dtype=tf.float32)
        if isinstance(state, tuple):
            state = state[1]  # LSTMStateTuple: h
        return feeds, [tf.identity(outputs, name="outputs"),
                       tf.identity(state, name="state")]
    return build


def ta_loop():
    x = v1.placeholder(tf.float32, [None], name="x")
    n = tf.shape(x)[0]
    ta = tf.TensorArray(tf.float32, size=n)
    grow = tf.TensorArray(tf.int32, size=0, dynamic_size=True)

    def body(i, ta, grow, acc):
        v = tf.sin(x * tf.cast(i + 1, tf.float32)) + acc
        return (i + 1, ta.write(i, v), grow.write(i, [i, i * i]),
                acc + tf.reduce_sum(v))

    _, ta, grow, acc = tf.while_loop(
        lambda i, *_: i < n, body, [0, ta, grow, tf.constant(0.0)])
    return {"x": x}, [tf.identity(ta.stack(), name="stacked"),
                      tf.identity(grow.stack(), name="grown"),
                      tf.identity(grow.size(), name="grown_size"),
                      tf.identity(acc, name="acc")]


def ta_ops():
    x = v1.placeholder(tf.float32, [4, 3], name="x")
    outs = []
    ta = tf.TensorArray(tf.float32, size=4, element_shape=[3],
                        clear_after_read=False)
    ta = ta.scatter([3, 1, 0, 2], x)
    gathered = ta.gather([0, 2, 2])
    read = ta.read(1)
    size = ta.size()
    stacked = ta.stack()
    with tf.control_dependencies([gathered, read, stacked]):
        close = ta.close()
    with tf.control_dependencies([close]):
        outs.append(tf.identity(gathered, name="gathered"))
    outs += [tf.identity(read, name="read"), tf.identity(size, name="size"),
             tf.identity(stacked, name="stacked")]
    # Split into pieces of different lengths (infer_shape off), concat back.
    parts = tf.TensorArray(tf.float32, size=3, infer_shape=False)
    parts = parts.split(tf.reshape(x, [12, 1]) * 2.0, [5, 0, 7])
    concat = tf.raw_ops.TensorArrayConcatV3(
        handle=parts.handle, flow_in=parts.flow, dtype=tf.float32,
        element_shape_except0=[1])
    outs += [tf.identity(concat.value, name="concat"),
             tf.identity(concat.lengths, name="lengths")]
    # A dynamic array written at 2 and 0: element 1 reads as zeros once the
    # element shape is known (the gather's element_shape attr).
    gap = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    gap = gap.write(2, tf.cast(x[0, :2], tf.int32) + 7)
    gap = gap.write(0, [1, 2])
    outs += [tf.identity(gap.stack(), name="gap"),
             tf.identity(gap.size(), name="gap_size")]
    for dtype in (tf.int64, tf.float64, tf.bool, tf.float16, tf.uint8):
        # |x| keeps the casts to unsigned types defined.
        values = (tf.cast(tf.abs(x) * 3.0, dtype) if dtype != tf.bool
                  else x > 0.0)
        t = tf.TensorArray(dtype, size=2)
        t = t.unstack(values[1:3])
        name = "typed_" + dtype.name
        outs.append(tf.identity(t.gather([1, 0]), name=name))
    return {"x": x}, outs


def map_scan():
    """tf.map_fn and tf.scan: TensorArrays unstacked, read, written and
    stacked in a loop."""
    x = v1.placeholder(tf.float32, [None, 4], name="x")
    mapped = tf.map_fn(lambda r: tf.reduce_sum(r * r) + r, x)
    scanned = tf.scan(lambda acc, r: 0.5 * acc + tf.sin(r), x)
    return {"x": x}, [tf.identity(mapped, name="mapped"),
                      tf.identity(scanned, name="scanned")]


def nested_ta():
    """A TensorArray made inside a loop body (a new one each iteration),
    filled by an inner loop, stacked and summed into the outer array."""
    x = v1.placeholder(tf.float32, [None], name="x")
    n = tf.shape(x)[0]

    def outer(i, out):
        inner = tf.TensorArray(tf.float32, size=i + 1)

        def step(j, ta):
            return j + 1, ta.write(j, x[i] * tf.cast(j + 1, tf.float32))

        _, inner = tf.while_loop(lambda j, _: j <= i, step, [0, inner])
        return i + 1, out.write(i, tf.reduce_sum(inner.stack()))

    _, out = tf.while_loop(lambda i, _: i < n, outer,
                           [0, tf.TensorArray(tf.float32, size=n)])
    return {"x": x}, [tf.identity(out.stack(), name="sums")]


def plumbing():
    x = v1.placeholder(tf.float32, [2, 3], name="x")
    check = v1.Assert(tf.reduce_all(tf.math.is_finite(x)), [x], summarize=6)
    with tf.control_dependencies([check]):
        y = tf.identity(x)
    outs = [tf.identity(tf.bitcast(y, tf.int32), name="to_int32"),
            tf.identity(tf.bitcast(y, tf.uint8), name="to_uint8"),
            tf.identity(tf.bitcast(tf.bitcast(y, tf.uint8), tf.float32),
                        name="round_trip"),
            tf.identity(tf.bitcast(tf.reshape(y, [3, 2]), tf.int64),
                        name="to_int64"),
            tf.identity(tf.bitcast(y, tf.float16), name="to_half")]
    return {"x": x}, outs


def assert_graph():
    x = v1.placeholder(tf.float32, [None], name="x")
    check = v1.Assert(tf.reduce_all(x > 0.0),
                      ["x must be positive:", x, tf.shape(x)], summarize=4)
    with tf.control_dependencies([check]):
        y = tf.identity(x * 2.0, name="y")
    return {"x": x}, [y]


def rng_input(rng, shape, dtype=np.float32):
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(2027)
    seq = rng_input(rng, (BATCH, STEPS, FEATURES))
    graphs = {
        "dynamic_lstm": (rnn(lstm_cell), [("a", {"x": seq})]),
        "dynamic_gru": (rnn(gru_cell), [("a", {"x": seq})]),
        "dynamic_lstm_len": (rnn(lstm_cell, with_length=True), [
            ("a", {"x": seq, "length": np.array([5, 3], np.int32)})]),
        "ta_loop": (ta_loop, [("a", {"x": rng_input(rng, (6,))}),
                              ("one", {"x": rng_input(rng, (1,))})]),
        "ta_ops": (ta_ops, [("a", {"x": rng_input(rng, (4, 3)) * 4.0})]),
        "plumbing": (plumbing, [("a", {"x": rng_input(rng, (2, 3))})]),
    }
    more = np.random.default_rng(2028)
    graphs["map_scan"] = (map_scan, [("a", {"x": rng_input(more, (3, 4))})])
    graphs["nested_ta"] = (nested_ta, [("a", {"x": rng_input(more, (4,))})])
    for name, (build, cases) in graphs.items():
        graph_def, outputs = freeze(build, seed=7)
        with open(os.path.join(OUT, name + ".pb"), "wb") as f:
            f.write(graph_def.SerializeToString())
        ops = sorted({n.op for n in graph_def.node})
        print("%s: %d bytes, outputs %s\n  ops %s" % (
            name, len(graph_def.SerializeToString()), outputs, " ".join(ops)))
        for case, feeds in cases:
            values = run(graph_def, feeds, outputs)
            lines = ["# written by tests/models/gen_tensor_array.py "
                     "(TensorFlow %s)" % tf.__version__,
                     "graph %s.pb" % name]
            for k, v in feeds.items():
                file = "%s_%s_in_%s.npy" % (name, case, k)
                np.save(os.path.join(OUT, file), v)
                lines.append("input %s %s" % (k, file))
            for i, (o, v) in enumerate(zip(outputs, values)):
                file = "%s_%s_out%d.npy" % (name, case, i)
                np.save(os.path.join(OUT, file), np.asarray(v))
                lines.append("output %s %s" % (o, file))
            with open(os.path.join(OUT, "%s_%s.cf" % (name, case)), "w") as f:
                f.write("\n".join(lines) + "\n")
            print("  %s: %s" % (case, [np.asarray(v).shape for v in values]))
    # The failing Assert: its graph, input and TensorFlow's message.
    graph_def, outputs = freeze(assert_graph, seed=7)
    with open(os.path.join(OUT, "assert.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    x = np.array([1.5, -2.0, 3.0, 4.0, 5.0], np.float32)
    try:
        run(graph_def, {"x": x}, outputs)
        raise AssertionError("the Assert held")
    except tf.errors.InvalidArgumentError as e:
        message = [line for line in e.message.splitlines()
                   if line.startswith("assertion failed:")][0]
    with open(os.path.join(OUT, "assert_fail.txt"), "w") as f:
        f.write(" ".join(str(v) for v in x.tolist()) + "\n" + message + "\n")
    print("assert: %s" % message)


def freeze(build, seed):
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(seed)
        feeds, outs = build()
        outputs = [t.name[:-2] for t in outs]
        with v1.Session(graph=graph, config=NO_GRAPPLER) as session:
            session.run(v1.global_variables_initializer())
            frozen = v1.graph_util.convert_variables_to_constants(
                session, graph.as_graph_def(), outputs)
    return frozen, outputs


def run(graph_def, feeds, outputs):
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    with v1.Session(graph=graph, config=NO_GRAPPLER) as session:
        return session.run([o + ":0" for o in outputs],
                           {k + ":0": v for k, v in feeds.items()})


if __name__ == "__main__":
    main()
