#!/usr/bin/env python3
"""Writes the Keras RNN fixtures of tests/models/testdata/rnn with TensorFlow
and Keras 3: small LSTM, GRU and SimpleRNN models (4 units over 5 steps of 3
features, random weights), each with return_sequences off and on, frozen,
and what TensorFlow computes for a sample batch. Then, each with
return_sequences off and on: Bidirectional(LSTM) (bilstm), an
Embedding(mask_zero=True) over token ids feeding an LSTM (masked_lstm) and a
Bidirectional(LSTM) (masked_bilstm); their sample batch has padding (id 0)
at the end of one row and at the start and middle of the other. Last, two
LSTMs with sequences: without a bias (lstm_nobias) and with relu for tanh
(lstm_relu).
tests/models/control_flow_test.cc reads them and never needs Python; run this
only to regenerate them:

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu numpy
    /tmp/tfvenv/bin/python tests/models/gen_rnn.py

Keras runs these layers on the CPU as a tf.while_loop over TensorLists
(TensorListFromTensor unstacks the time steps, TensorListGetItem reads one
per iteration, TensorListSetItem writes the outputs, TensorListStack stacks
them). Each model is written in two binary forms (binary: a third of the
text's size):

    NAME.pb             convert_variables_to_constants_v2 with
                        lower_control_flow=False: the loop stays a While
                        over library functions.
    NAME_lowered.pb     its default: the loop lowered to Enter / Merge /
                        Switch / NextIteration / Exit / LoopCond, which weft
                        raises back into a While at import.

and one sidecar NAME_a.cf per model in gen_control_flow.py's format. The
references are TensorFlow running the functional GraphDef with Grappler off;
the script checks that the lowered form and the Keras model itself agree.
"""

import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import convert_to_constants  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "testdata", "rnn")
STEPS, FEATURES, UNITS, BATCH = 5, 3, 4, 2
VOCAB = 7

LAYERS = {"lstm": keras.layers.LSTM, "gru": keras.layers.GRU,
          "simple_rnn": keras.layers.SimpleRNN}

NO_GRAPPLER = tf.compat.v1.ConfigProto()
NO_GRAPPLER.graph_options.rewrite_options.disable_meta_optimizer = True
_opts = NO_GRAPPLER.graph_options.optimizer_options
_opts.opt_level = tf.compat.v1.OptimizerOptions.L0
_opts.do_constant_folding = False
_opts.do_function_inlining = False


def run(graph_def, feeds, outputs):
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph, config=NO_GRAPPLER) as session:
        return session.run([o + ":0" for o in outputs],
                           {k + ":0": v for k, v in feeds.items()})


def bidirectional(sequences):
    inp = keras.Input((STEPS, FEATURES))
    layer = keras.layers.Bidirectional(
        keras.layers.LSTM(UNITS, return_sequences=sequences))
    return keras.Model(inp, layer(inp))


def masked(sequences, bidi=False):
    # Token ids, 0 is padding: Embedding(mask_zero=True) hands the mask to
    # the LSTM, which keeps its state (and, with return_sequences, outputs
    # zeros) at masked steps.
    inp = keras.Input((STEPS,), dtype="int32")
    h = keras.layers.Embedding(VOCAB, FEATURES, mask_zero=True)(inp)
    layer = keras.layers.LSTM(UNITS, return_sequences=sequences)
    if bidi:
        layer = keras.layers.Bidirectional(layer)
    return keras.Model(inp, layer(h))


def variant(**options):
    # An LSTM with sequences and one option changed: without a bias (which
    # weft runs as one recurrence too) or with relu for tanh (which it
    # leaves to the loop's nodes).
    inp = keras.Input((STEPS, FEATURES))
    layer = keras.layers.LSTM(UNITS, return_sequences=True, **options)
    return keras.Model(inp, layer(inp))


# name -> (build, input dtype), after the single-layer models of LAYERS.
MORE = {
    "bilstm": (lambda: bidirectional(False), tf.float32),
    "bilstm_seq": (lambda: bidirectional(True), tf.float32),
    "masked_lstm": (lambda: masked(False), tf.int32),
    "masked_lstm_seq": (lambda: masked(True), tf.int32),
    "masked_bilstm": (lambda: masked(False, bidi=True), tf.int32),
    "masked_bilstm_seq": (lambda: masked(True, bidi=True), tf.int32),
    # Written after the others so that their weights stay as they were.
    "lstm_nobias": (lambda: variant(use_bias=False), tf.float32),
    "lstm_relu": (lambda: variant(activation="relu"), tf.float32),
}


def tokens(rng):
    """[BATCH, STEPS] ids: row 0 padded at the end, row 1 with padding in
    the middle and at the start too (Keras masks each step on its own)."""
    x = rng.integers(1, VOCAB, (BATCH, STEPS)).astype(np.int32)
    x[0, 3:] = 0
    x[1, 0] = 0
    x[1, 2] = 0
    return x


def write(name, model, dtype, x, keras_version=None):
    shape = [None] + list(x.shape[1:])
    fn = tf.function(lambda x: model(x), input_signature=[
        tf.TensorSpec(shape, dtype, name="x")])
    concrete = fn.get_concrete_function()
    forms = {}
    for suffix, lower in (("", False), ("_lowered", True)):
        frozen = convert_to_constants.convert_variables_to_constants_v2(
            concrete, lower_control_flow=lower)
        forms[suffix] = frozen.graph.as_graph_def()
        with open(os.path.join(OUT, name + suffix + ".pb"), "wb") as f:
            f.write(forms[suffix].SerializeToString())
    outputs = [t.name[:-2] for t in concrete.outputs]
    feeds = {"x": x}
    values = run(forms[""], feeds, outputs)
    again = run(forms["_lowered"], feeds, outputs)
    keras_out = model(x).numpy()
    for v, w in zip(values, again):
        np.testing.assert_allclose(v, w, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(values[0], keras_out, rtol=1e-5, atol=1e-6)
    lines = ["# written by tests/models/%s (TensorFlow %s, Keras %s)" % (
                 os.path.basename(sys.argv[0]), tf.__version__,
                 keras_version or keras.__version__),
             "graph %s.pb" % name]
    file = "%s_a_in_x.npy" % name
    np.save(os.path.join(OUT, file), x)
    lines.append("input x %s" % file)
    for i, (o, v) in enumerate(zip(outputs, values)):
        file = "%s_a_out%d.npy" % (name, i)
        np.save(os.path.join(OUT, file), np.asarray(v))
        lines.append("output %s %s" % (o, file))
    with open(os.path.join(OUT, "%s_a.cf" % name), "w") as f:
        f.write("\n".join(lines) + "\n")
    ops = sorted({n.op for n in forms[""].node} |
                 {n.op for f in forms[""].library.function
                  for n in f.node_def})
    print("%s: outputs %s %s, %d + %d bytes\n  ops %s" % (
        name, outputs, [np.asarray(v).shape for v in values],
        len(forms[""].SerializeToString()),
        len(forms["_lowered"].SerializeToString()), " ".join(ops)))


def main():
    os.makedirs(OUT, exist_ok=True)
    keras.utils.set_random_seed(2026)
    rng = np.random.default_rng(2026)
    for kind, layer in LAYERS.items():
        for sequences in (False, True):
            name = "%s%s" % (kind, "_seq" if sequences else "")
            inp = keras.Input((STEPS, FEATURES))
            model = keras.Model(inp, layer(UNITS,
                                           return_sequences=sequences)(inp))
            x = rng.uniform(-1.0, 1.0, (BATCH, STEPS, FEATURES)).astype(
                np.float32)
            write(name, model, tf.float32, x)
    for name, (build, dtype) in MORE.items():
        model = build()
        if dtype == tf.int32:
            x = tokens(rng)
        else:
            x = rng.uniform(-1.0, 1.0, (BATCH, STEPS, FEATURES)).astype(
                np.float32)
        write(name, model, dtype, x)


if __name__ == "__main__":
    main()
