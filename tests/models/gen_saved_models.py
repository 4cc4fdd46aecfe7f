#!/usr/bin/env python3
"""Writes the SavedModel fixtures of tests/models/testdata/saved_models with
TensorFlow (2.21 and Keras 3 were used): small SavedModel directories from
each way TensorFlow writes them, sample inputs, and what TensorFlow computes
when it loads and runs them. tests/savedmodel/saved_model_test.cc and the CLI
tests in tests/tools read them and never need Python; run this only to
regenerate them:

    python3 tests/models/gen_saved_models.py [NAME ...]

With names, only those models are written (the others keep their files).

Models (each a directory testdata/saved_models/NAME/):

    module      tf.saved_model.save of a tf.Module with float and int
                variables and three signatures: serving_default (dict
                inputs x, y; dict outputs: a tf.while_loop with a
                data-dependent trip count and a tf.cond, both reading
                variables inside their bodies), "scale" (one input, one
                output) and "bump", which assigns a variable (assign_add)
                and so cannot be frozen: the loader refuses it.
    keras_cnn   Keras 3 model.export() of a small CNN: Conv2D, BatchNorm
                (non-trivial moving statistics), MaxPooling2D, Dense.
    keras_lstm  Keras 3 model.export() of Embedding + LSTM + Dense: the LSTM
                is a While loop over TensorList ops.
    keras_causal_attention
                Keras 3 model.export() of LayerNormalization +
                MultiHeadAttention(use_causal_mask=True) + Dense: the
                causal mask is MatrixBandPart inside the library functions.
    keras_tfsave
                tf.saved_model.save of a Keras 3 functional model (Dense,
                LayerNormalization, two outputs) with an explicit signature.
                Its signature reads variables the graph's restore op never
                restores (only the SavedObjectGraph maps them to the
                checkpoint): TensorFlow's own graph loader
                (tf.compat.v1.saved_model.loader, the C++ loader, TF
                Serving) fails on it; weft reads the object graph, as
                tf.saved_model.load does. This script checks that TF1's
                loader still fails, so the case stays the hard one.
    tf1         TF1 graph mode, tf.compat.v1.saved_model.Builder: VariableV2
                variables (get_variable(use_resource=False)), one of them
                split by fixed_size_partitioner into 3 slices, the
                checkpoint written by a tf.compat.v1.train.Saver.
    tf1_text    the same graph and variables written with as_text=True:
                saved_model.pbtxt instead of saved_model.pb.

Sidecars, one per signature run, NAME__SIGNATURE[__CASE].sm (CASE names a
second set of inputs for one signature), one item a line:

    model NAME                  (the directory under saved_models/)
    tags serve                  (comma-separated tag set)
    signature KEY
    input KEY FILE.npy          (one line per signature input)
    output KEY FILE.npy         (one line per signature output)

Expected outputs are TensorFlow's own: the directory loaded back
(tf.saved_model.load, or tf.compat.v1.saved_model.loader.load in a
tf.compat.v1.Session for the TF1 models) and its signature called on the
inputs.
"""

import os
import shutil
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "testdata", "saved_models")

MODELS = {}


def model(fn):
    MODELS[fn.__name__] = fn
    return fn


def fresh_dir(name):
    path = os.path.join(OUT, name)
    shutil.rmtree(path, ignore_errors=True)
    for f in os.listdir(OUT):
        if f.startswith(name + "__"):
            os.remove(os.path.join(OUT, f))
    return path


def write_case(name, signature, inputs, outputs, tags=("serve",), case=""):
    """Writes NAME__SIGNATURE[__CASE].sm and its .npy files; CASE names a
    second set of inputs for the same signature."""
    stem = f"{name}__{signature}" + (f"__{case}" if case else "")
    lines = [f"model {name}", f"tags {','.join(tags)}",
             f"signature {signature}"]
    for kind, values in (("input", inputs), ("output", outputs)):
        for key in sorted(values):
            file = f"{stem}__{kind}_{key}.npy"
            np.save(os.path.join(OUT, file), np.asarray(values[key]))
            lines.append(f"{kind} {key} {file}")
    with open(os.path.join(OUT, stem + ".sm"), "w") as f:
        f.write("\n".join(lines) + "\n")


def run_tf2(path, signature, inputs):
    """What TensorFlow computes: the directory loaded back and run."""
    loaded = tf.saved_model.load(path)
    fn = loaded.signatures[signature]
    result = fn(**{k: tf.constant(v) for k, v in inputs.items()})
    return {k: v.numpy() for k, v in result.items()}


# --- a tf.Module: variables, two runnable signatures, loops and conds -----

class Module(tf.Module):
    def __init__(self, rng):
        super().__init__()
        self.w = tf.Variable(rng.uniform(-0.6, 0.6, (4, 4)).astype(np.float32),
                             name="w")
        self.b = tf.Variable(rng.uniform(-0.3, 0.3, (4,)).astype(np.float32),
                             name="b")
        self.scale = tf.Variable(1.75, name="scale")
        self.max_steps = tf.Variable(5, dtype=tf.int32, name="max_steps")
        self.counter = tf.Variable(0.0, name="counter")

    @tf.function(input_signature=[
        tf.TensorSpec([None, 4], tf.float32, name="x"),
        tf.TensorSpec([None, 4], tf.float32, name="y")])
    def serve(self, x, y):
        # A data-dependent trip count bounded by a variable; the body reads
        # the weights.
        n = tf.minimum(
            1 + tf.cast(tf.floor(tf.reduce_sum(tf.abs(y))), tf.int32),
            self.max_steps)

        def body(i, acc):
            return i + 1, tf.tanh(tf.matmul(acc, self.w) + self.b)

        steps, looped = tf.while_loop(lambda i, acc: i < n, body,
                                      (tf.constant(0), x))
        # Both branches read variables.
        chosen = tf.cond(tf.reduce_sum(x) > tf.reduce_sum(y),
                         lambda: x * self.scale + self.b,
                         lambda: tf.matmul(y, self.w) - self.scale)
        return {"looped": looped, "chosen": chosen, "steps": steps}

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def scale_fn(self, v):
        return {"scaled": v * self.scale + tf.reduce_sum(self.w, 0)}

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def bump(self, delta):
        self.counter.assign_add(delta)
        return {"counter": self.counter.read_value()}


@model
def module():
    rng = np.random.default_rng(1401)
    m = Module(rng)
    path = fresh_dir("module")
    tf.saved_model.save(m, path, signatures={
        "serving_default": m.serve.get_concrete_function(),
        "scale": m.scale_fn.get_concrete_function(),
        "bump": m.bump.get_concrete_function(),
    })
    x = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    cases = {
        # sum|y| = 2.x: 3 steps; sum(x) > sum(y): the first branch.
        "serving_default": {"x": x + 0.5,
                            "y": rng.uniform(-0.3, 0.3, (3, 4)).astype(
                                np.float32)},
        "scale": {"v": x},
    }
    for sig, inputs in cases.items():
        write_case("module", sig, inputs, run_tf2(path, sig, inputs))
    # The other branch and the bound of the loop.
    inputs = {"x": x - 0.5, "y": x + 1.0}
    outputs = run_tf2(path, "serving_default", inputs)
    assert outputs["steps"] == 5, outputs["steps"]
    write_case("module", "serving_default", inputs, outputs, case="other")


# --- Keras 3 model.export() ------------------------------------------------

def randomize_batchnorm(layer, rng):
    gamma, beta, mean, var = layer.get_weights()
    layer.set_weights([
        rng.uniform(0.5, 1.5, gamma.shape).astype(np.float32),
        rng.uniform(-0.2, 0.2, beta.shape).astype(np.float32),
        rng.uniform(-0.3, 0.3, mean.shape).astype(np.float32),
        rng.uniform(0.5, 2.0, var.shape).astype(np.float32),
    ])


def nonzero_biases(m, rng):
    for layer in m.layers:
        for w in layer.weights:
            if w.path.endswith("bias"):
                w.assign(rng.uniform(-0.2, 0.2, w.shape).astype(np.float32))


@model
def keras_cnn():
    keras.utils.set_random_seed(1402)
    rng = np.random.default_rng(1402)
    inputs = keras.Input((8, 8, 3), name="image")
    h = keras.layers.Conv2D(4, 3, padding="same")(inputs)
    bn = keras.layers.BatchNormalization()
    h = keras.layers.ReLU()(bn(h))
    h = keras.layers.MaxPooling2D(2)(h)
    h = keras.layers.Conv2D(6, 3, strides=2, activation="relu")(h)
    h = keras.layers.GlobalAveragePooling2D()(h)
    outputs = keras.layers.Dense(5, activation="softmax")(h)
    m = keras.Model(inputs, outputs)
    randomize_batchnorm(bn, rng)
    nonzero_biases(m, rng)
    path = fresh_dir("keras_cnn")
    m.export(path, verbose=False)
    x = rng.uniform(-1, 1, (2, 8, 8, 3)).astype(np.float32)
    key = list(tf.saved_model.load(path).signatures["serve"]
               .structured_input_signature[1])[0]
    outputs = run_tf2(path, "serve", {key: x})
    np.testing.assert_allclose(list(outputs.values())[0], m.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    write_case("keras_cnn", "serve", {key: x}, outputs)
    write_case("keras_cnn", "serving_default", {key: x},
               run_tf2(path, "serving_default", {key: x}))


@model
def keras_lstm():
    keras.utils.set_random_seed(1403)
    rng = np.random.default_rng(1403)
    inputs = keras.Input((6,), dtype="int32", name="tokens")
    h = keras.layers.Embedding(20, 8)(inputs)
    h = keras.layers.LSTM(8)(h)
    outputs = keras.layers.Dense(3)(h)
    m = keras.Model(inputs, outputs)
    nonzero_biases(m, rng)
    path = fresh_dir("keras_lstm")
    m.export(path, verbose=False)
    x = rng.integers(0, 20, (2, 6)).astype(np.int32)
    key = list(tf.saved_model.load(path).signatures["serve"]
               .structured_input_signature[1])[0]
    outputs = run_tf2(path, "serve", {key: x})
    np.testing.assert_allclose(list(outputs.values())[0], m.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)
    write_case("keras_lstm", "serve", {key: x}, outputs)


@model
def keras_causal_attention():
    keras.utils.set_random_seed(1406)
    rng = np.random.default_rng(1406)
    inputs = keras.Input((10, 16), name="tokens")
    h = keras.layers.LayerNormalization()(inputs)
    h = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(
        h, h, use_causal_mask=True)
    outputs = keras.layers.Dense(4)(keras.layers.Add()([inputs, h]))
    m = keras.Model(inputs, outputs)
    nonzero_biases(m, rng)
    path = fresh_dir("keras_causal_attention")
    m.export(path, verbose=False)
    x = rng.uniform(-1, 1, (2, 10, 16)).astype(np.float32)
    key = list(tf.saved_model.load(path).signatures["serve"]
               .structured_input_signature[1])[0]
    outputs = run_tf2(path, "serve", {key: x})
    np.testing.assert_allclose(list(outputs.values())[0],
                               m.predict(x, verbose=0), rtol=1e-5, atol=1e-6)
    write_case("keras_causal_attention", "serve", {key: x}, outputs)


# --- tf.saved_model.save of a Keras 3 model ------------------------------

@model
def keras_tfsave():
    keras.utils.set_random_seed(1404)
    rng = np.random.default_rng(1404)
    inputs = keras.Input((6,), name="features")
    h = keras.layers.Dense(8, activation="gelu")(inputs)
    h = keras.layers.LayerNormalization()(h)
    logits = keras.layers.Dense(3, name="logits")(h)
    probs = keras.layers.Softmax(name="probs")(logits)
    m = keras.Model(inputs, {"logits": logits, "probs": probs})
    nonzero_biases(m, rng)

    @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32,
                                                name="features")])
    def serve(features):
        return m(features, training=False)

    path = fresh_dir("keras_tfsave")
    tf.saved_model.save(m, path, signatures={"serving_default": serve})
    x = rng.uniform(-1, 1, (4, 6)).astype(np.float32)
    outputs = run_tf2(path, "serving_default", {"features": x})
    write_case("keras_tfsave", "serving_default", {"features": x}, outputs)
    # The serving function reads VarHandleOps that the graph's restore
    # function never assigns (it assigns Keras's variable wrappers, other
    # VarHandleOps); only tf.saved_model.load's object graph ties the two.
    # TensorFlow's graph loader (TF1 sessions, the C++ loader, TF Serving)
    # fails on it; weft follows the object graph (restore_map.h).
    try:
        run_tf1(path, "serving_default", {"features": x})
    except tf.errors.FailedPreconditionError as e:
        assert "Could not find variable" in e.message, e.message
    else:
        raise AssertionError("TF1's loader ran keras_tfsave: weft should too")


# --- TF1: SavedModelBuilder, VariableV2, a partitioned variable -----------

def slice_initializer(full):
    """Initializes each partition with its slice of `full`."""
    def init(shape, dtype=None, partition_info=None):
        offset = partition_info.var_offset if partition_info else [0, 0]
        index = tuple(slice(o, o + n) for o, n in zip(offset, shape))
        return tf.constant(full[index], dtype=dtype)
    return init


def build_tf1(path, as_text, rng_seed):
    rng = np.random.default_rng(rng_seed)
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 6], name="x")
        w1 = v1.get_variable(
            "dense/kernel", [6, 9], use_resource=False,
            initializer=slice_initializer(
                rng.uniform(-0.5, 0.5, (6, 9)).astype(np.float32)),
            partitioner=v1.fixed_size_partitioner(3))
        b1 = v1.get_variable(
            "dense/bias", [9], use_resource=False,
            initializer=tf.constant_initializer(
                rng.uniform(-0.2, 0.2, 9).astype(np.float32)))
        w2 = v1.get_variable(
            "out/kernel", [9, 2], use_resource=False,
            initializer=tf.constant_initializer(
                rng.uniform(-0.5, 0.5, (9, 2)).astype(np.float32)))
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        y = tf.identity(tf.matmul(h, w2), name="y")
        norm = tf.identity(tf.reduce_sum(tf.square(h), 1), name="norm")
        assert len(list(w1)) == 3, w1
        for v in v1.global_variables():
            assert v.op.type == "VariableV2", (v.name, v.op.type)
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            builder = v1.saved_model.Builder(path)
            sig = v1.saved_model.predict_signature_def(
                inputs={"x": x}, outputs={"y": y, "norm": norm})
            builder.add_meta_graph_and_variables(
                sess, ["serve"], signature_def_map={"serving_default": sig},
                saver=v1.train.Saver())
            builder.save(as_text=as_text)


def run_tf1(path, signature, inputs):
    v1 = tf.compat.v1
    with tf.Graph().as_default() as graph, v1.Session(graph=graph) as sess:
        meta = v1.saved_model.loader.load(sess, ["serve"], path)
        sig = meta.signature_def[signature]
        fetch_keys = sorted(sig.outputs)
        values = sess.run(
            [sig.outputs[k].name for k in fetch_keys],
            {sig.inputs[k].name: v for k, v in inputs.items()})
        return dict(zip(fetch_keys, values))


def tf1_model(name, as_text):
    path = fresh_dir(name)
    build_tf1(path, as_text, 1405)
    x = np.random.default_rng(1406).uniform(-1, 1, (3, 6)).astype(np.float32)
    write_case(name, "serving_default", {"x": x},
               run_tf1(path, "serving_default", {"x": x}))


@model
def tf1():
    tf1_model("tf1", as_text=False)


@model
def tf1_text():
    tf1_model("tf1_text", as_text=True)


def main(argv):
    names = argv[1:] or list(MODELS)
    os.makedirs(OUT, exist_ok=True)
    for name in names:
        MODELS[name]()
        size = 0
        for root, _, files in os.walk(os.path.join(OUT, name)):
            size += sum(os.path.getsize(os.path.join(root, f)) for f in files)
        print(f"{name}: {size} bytes")


if __name__ == "__main__":
    main(sys.argv)
