#!/usr/bin/env python3
"""Writes the real-model fixtures of tests/models/testdata with TensorFlow.

Frozen Keras models with random weights, a sample input for each and what
TensorFlow computes for it. The test suite (tests/models/models_test.cc) and
./scripts/demo read the files and never need Python; run this only to
regenerate them. TensorFlow lives in a virtual environment:

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu numpy
    /tmp/tfvenv/bin/python tests/models/gen_models.py            # committed models
    /tmp/tfvenv/bin/python tests/models/gen_models.py --large    # and ResNet50, ConvNeXtTiny
    /tmp/tfvenv/bin/python tests/models/gen_models.py --only cnn # just some

Models (Keras 3 as TensorFlow 2.21 ships it):

    mlp                  Dense 32-64-64-10, ReLU, softmax
    cnn                  Conv2D, BatchNormalization, ReLU, MaxPool (x2),
                         GlobalAveragePooling2D, Dense, softmax; 32x32x3
    mobilenet_v2         keras.applications.MobileNetV2, alpha 0.35, 96x96x3,
                         100 classes
    transformer_encoder  a post-norm encoder block on [batch, 16, 64]:
                         MultiHeadAttention (4 heads), residual, LayerNorm,
                         Dense 128 with exact GELU, Dense 64, residual,
                         LayerNorm
    resnet50             keras.applications.ResNet50, 64x64x3, 1000 classes
                         (~100 MB: --large only, git-ignored)
    convnext_reduced     keras.applications' ConvNeXt function (what
                         ConvNeXtTiny calls) with depths [1, 1, 2, 1] and
                         widths [16, 24, 32, 48], 32x32x3, 10 classes: the
                         same stem, blocks, downsampling, preprocessing and
                         head as ConvNeXtTiny at a committable size (0.4 MB)
    convnext_tiny        keras.applications.ConvNeXtTiny, 32x32x3 (its
                         smallest input), 10 classes (~112 MB: --large only,
                         git-ignored)
    causal_attention     a pre-norm decoder block on [batch, 12, 32]:
                         LayerNorm, MultiHeadAttention (4 heads,
                         use_causal_mask=True), residual, LayerNorm,
                         Dense 64 ReLU, Dense 32, residual

How each model is made, and why:

* Weights: Keras's own initializers under keras.utils.set_random_seed, then
  (from a numpy generator with a fixed seed) non-zero biases and
  normalization scales and offsets, so that no term of the graph is
  trivially zero or one.
* BatchNormalization moving statistics are calibrated: one training-mode
  pass over a calibration batch with momentum 0 makes them the batch's own
  statistics. With the initial 0/1 statistics a deep random network's
  activations grow or shrink layer after layer until the logits are huge or
  flat; calibrated, every layer stays near unit scale as in a trained model,
  so the comparison exercises every layer. ResNet50's residual branches are
  also scaled down (see shrink_residual_branches).
* Classifiers output logits and the softmax of them (two outputs), so the
  test compares numbers that have not been squashed by the softmax too.
* Freezing: a tf.function with a fixed input signature (batch dimension
  None, input named "x") whose variables convert_variables_to_constants_v2
  turns into Const nodes. The script refuses a graph holding a function
  library (but for CALLS_ALLOWED's calls of grouped convolutions), a
  stateful op (variables, random ops) or an internal op
  ("_FusedConv2D" and the like); it prints each model's op listing.
* References: TensorFlow's own CPU kernels run the frozen GraphDef in a
  tf.compat.v1.Session with Grappler and the classic graph optimizer
  switched off and oneDNN disabled (TF_ENABLE_ONEDNN_OPTS=0), so the numbers
  are Eigen kernels applied to exactly the nodes in the file.
* Conditioning: the same model in float64 gives the exact values (up to
  float64 rounding). The script refuses a model whose TensorFlow float32
  outputs use more than a quarter of the test's tolerance against them
  (a correct float32 implementation, weft, rounds differently but about as
  much, so it may be twice as far from TensorFlow), and prints the share
  used. That also checks that the frozen graph computes what the model does.

Files written per model NAME:

    NAME.pb              the frozen GraphDef (binary)
    NAME_input.npy       the sample input (float32)
    NAME_OUTPUT.npy      TensorFlow's value of each output
    NAME.model           the sidecar the test reads, one item a line:

        graph NAME.pb
        input <node> <dims,...> NAME_input.npy
        output <tensor> NAME_OUTPUT.npy        (one line per output)

    Lines starting with '#' are comments (provenance and the op listing).
"""

import argparse
import collections
import os
import re
import sys

# Before TensorFlow is imported: oneDNN would replace TensorFlow's Eigen
# kernels (and their rounding) in the reference runs.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from tensorflow.python.framework import convert_to_constants  # noqa: E402
from tensorflow.python.framework import op_def_registry  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def classifier_outputs(logits):
    return {"logits": logits, "probs": tf.nn.softmax(logits)}


def build_mlp():
    inputs = keras.Input((32,))
    h = keras.layers.Dense(64, activation="relu")(inputs)
    h = keras.layers.Dense(64, activation="relu")(h)
    logits = keras.layers.Dense(10)(h)
    return keras.Model(inputs, logits)


def build_cnn():
    inputs = keras.Input((32, 32, 3))
    h = inputs
    for filters in (16, 32):
        h = keras.layers.Conv2D(filters, 3, padding="same")(h)
        h = keras.layers.BatchNormalization()(h)
        h = keras.layers.ReLU()(h)
        h = keras.layers.MaxPooling2D()(h)
    h = keras.layers.GlobalAveragePooling2D()(h)
    logits = keras.layers.Dense(10)(h)
    return keras.Model(inputs, logits)


def build_mobilenet_v2():
    return keras.applications.MobileNetV2(
        input_shape=(96, 96, 3), alpha=0.35, weights=None, classes=100,
        classifier_activation=None)


def build_resnet50():
    return keras.applications.ResNet50(
        input_shape=(64, 64, 3), weights=None, classes=1000,
        classifier_activation=None)


def build_convnext_tiny():
    return keras.applications.ConvNeXtTiny(
        input_shape=(32, 32, 3), weights=None, classes=10,
        classifier_activation=None)


def build_convnext_reduced():
    # keras.applications' own ConvNeXt (the function ConvNeXtTiny calls,
    # with Tiny's depths [3, 3, 9, 3] and widths [96, 192, 384, 768]) at a
    # committable size: the same stem, blocks (7x7 depthwise convolution,
    # LayerNormalization, pointwise Dense with exact GELU, layer scale),
    # downsampling layers, preprocessing and head.
    from keras.src.applications import convnext
    return convnext.ConvNeXt(
        depths=[1, 1, 2, 1], projection_dims=[16, 24, 32, 48],
        layer_scale_init_value=1e-6, default_size=32,
        name="convnext_reduced", input_shape=(32, 32, 3), weights=None,
        classes=10, classifier_activation=None)


def build_transformer_encoder():
    seq, d_model, heads, d_ff = 16, 64, 4, 128
    inputs = keras.Input((seq, d_model))
    attention = keras.layers.MultiHeadAttention(
        num_heads=heads, key_dim=d_model // heads)(inputs, inputs)
    h = keras.layers.LayerNormalization(epsilon=1e-6)(
        keras.layers.Add()([inputs, attention]))
    ff = keras.layers.Dense(d_ff, activation="gelu")(h)
    ff = keras.layers.Dense(d_model)(ff)
    outputs = keras.layers.LayerNormalization(epsilon=1e-6)(
        keras.layers.Add()([h, ff]))
    return keras.Model(inputs, outputs)


def build_causal_attention():
    # A pre-norm decoder block over [batch, 12, 32]: causal self-attention
    # (a token sees itself and the tokens before it), residual, then a
    # feed-forward layer, residual.
    seq, d_model, heads = 12, 32, 4
    inputs = keras.Input((seq, d_model))
    h = keras.layers.LayerNormalization(epsilon=1e-5)(inputs)
    attention = keras.layers.MultiHeadAttention(
        num_heads=heads, key_dim=d_model // heads)(h, h, use_causal_mask=True)
    h = keras.layers.Add()([inputs, attention])
    ff = keras.layers.LayerNormalization(epsilon=1e-5)(h)
    ff = keras.layers.Dense(2 * d_model, activation="relu")(ff)
    ff = keras.layers.Dense(d_model)(ff)
    return keras.Model(inputs, keras.layers.Add()([h, ff]))


def build_atrous_pyramid():
    # A DeepLabV3-style head: a stride-2 stem, then an atrous spatial
    # pyramid (a 1x1 branch and 3x3 branches dilated by 2, 4 and 6, each
    # Conv2D without bias + BatchNormalization + ReLU, one of them after a
    # depthwise convolution dilated by 2), concatenated and projected to 5
    # classes per pixel. Keras writes each dilated convolution as
    # SpaceToBatchND -> convolution -> BatchToSpaceND.
    inputs = keras.Input((33, 33, 3))
    h = keras.layers.Conv2D(16, 3, strides=2, padding="same",
                            activation="relu")(inputs)

    def branch(t, kernel, rate, depthwise=False):
        if depthwise:
            t = keras.layers.DepthwiseConv2D(3, padding="same",
                                             dilation_rate=rate)(t)
        t = keras.layers.Conv2D(16, kernel, padding="same",
                                dilation_rate=1 if depthwise else rate,
                                use_bias=False)(t)
        t = keras.layers.BatchNormalization()(t)
        return keras.layers.ReLU()(t)

    branches = [branch(h, 1, 1), branch(h, 3, 2), branch(h, 3, 4),
                branch(h, 3, 6), branch(h, 1, 2, depthwise=True)]
    h = keras.layers.Concatenate()(branches)
    return keras.Model(inputs, keras.layers.Conv2D(5, 1)(h))


class Spec(collections.namedtuple(
        "Spec", "build shape low high classifier large residual_bn")):
    """How one model is made.

    shape: the sample input's shape; [low, high): the range its values (and
    the calibration batch's) are drawn from uniformly. classifier: outputs
    logits and softmax. large: written only with --large. residual_bn: a
    regular expression matching the BatchNormalization layers that end a
    residual branch (see shrink_residual_branches).
    """


MODELS = collections.OrderedDict([
    ("mlp", Spec(build_mlp, (4, 32), -2.0, 2.0, True, False, None)),
    ("cnn", Spec(build_cnn, (2, 32, 32, 3), 0.0, 1.0, True, False, None)),
    ("mobilenet_v2", Spec(build_mobilenet_v2, (1, 96, 96, 3), -1.0, 1.0,
                          True, False, None)),
    ("transformer_encoder", Spec(build_transformer_encoder, (2, 16, 64),
                                 -1.0, 1.0, False, False, None)),
    ("causal_attention", Spec(build_causal_attention, (2, 12, 32), -1.0,
                              1.0, False, False, None)),
    ("convnext_reduced", Spec(build_convnext_reduced, (2, 32, 32, 3), 0.0,
                              255.0, True, False, None)),
    ("atrous_pyramid", Spec(build_atrous_pyramid, (2, 33, 33, 3), 0.0, 1.0,
                            False, False, None)),
    ("convnext_tiny", Spec(build_convnext_tiny, (2, 32, 32, 3), 0.0, 255.0,
                           True, True, None)),
    ("resnet50", Spec(build_resnet50, (2, 64, 64, 3), 0.0, 1.0, True, True,
                      r"_block\d+_3_bn$")),
])

# The test's bound (models_test.cc says why): output element a matches
# TensorFlow's b when |a - b| <= RTOL * |b| + ATOL_SCALE * max|B|, B the
# whole output tensor. Keep in step with kRelTol / kAbsTolScale there.
RTOL = 1e-4
ATOL_SCALE = 5e-5
# TensorFlow's own float32 outputs must lie this far inside that bound of the
# exact (float64) values: a correct float32 implementation rounds
# differently but about as much, so weft - TF is up to twice TF - exact; a
# fixture too ill-conditioned for that margin is refused.
MAX_BOUND_USE = 0.25


def randomize_weights(model, rng):
    """Non-zero biases, normalization scales and offsets (see the header)."""
    for w in sorted(model.weights, key=lambda w: w.path):
        leaf = w.path.rsplit("/", 1)[-1]
        shape = tuple(w.shape)
        if leaf in ("bias", "beta"):
            w.assign(rng.uniform(-0.2, 0.2, shape).astype(np.float32))
        elif leaf == "gamma":
            w.assign(rng.uniform(0.5, 1.5, shape).astype(np.float32))


def batch_norm_layers(model):
    return [layer for layer in model.layers
            if isinstance(layer, keras.layers.BatchNormalization)]


def shrink_residual_branches(model, pattern):
    """Scales the last normalization of every residual branch by 0.2.

    A random deep residual network whose branches come out at full scale
    amplifies rounding from layer to layer: for ResNet50 built that way,
    TensorFlow's own float32 logits are off from the exact values by up to
    3e-4 relative, so no float32 implementation could be held to 1e-4.
    Trained residual networks (and those initialized the "zero-gamma" way)
    have small branches, and the amplification goes away (ResNet50: 1.6e-5,
    under 4% of the test's bound). MobileNetV2, whose residual blocks are
    fewer and narrower, needs no such help (15% of the bound).
    """
    if pattern is None:
        return 0
    layers = [l for l in batch_norm_layers(model)
              if re.search(pattern, l.name)]
    assert layers, pattern
    for layer in layers:
        layer.gamma.assign(layer.gamma.numpy() * 0.2)
    return len(layers)


def calibrate_batch_norm(model, calibration):
    layers = batch_norm_layers(model)
    if not layers:
        return 0
    for layer in layers:
        layer.momentum = 0.0
    model(calibration, training=True)
    return len(layers)


def exact_outputs(spec, model, x):
    """The model in float64 with the same weights: the exact values, up to
    float64 rounding, that float32 evaluations approximate."""
    keras.config.set_dtype_policy("float64")
    try:
        twin = spec.build()
    finally:
        keras.config.set_dtype_policy("float32")
    twin.set_weights([w.astype(np.float64) for w in model.get_weights()])
    y = twin(x.astype(np.float64), training=False)
    return classifier_outputs(y) if spec.classifier else {"output": y}


def bound_use(value, reference):
    """max over elements of |value - reference| / the test's bound."""
    reference = np.asarray(reference, np.float64)
    scale = float(np.max(np.abs(reference))) if reference.size else 0.0
    bound = RTOL * np.abs(reference) + ATOL_SCALE * scale
    diff = np.abs(value.astype(np.float64) - reference)
    if not np.all(bound > 0):
        return 0.0 if np.all(diff == 0) else float("inf")
    return float(np.max(diff / bound))


def freeze(model, input_shape, classifier):
    """The frozen GraphDef and the output tensor names, in `keys` order."""
    signature = [tf.TensorSpec((None,) + tuple(input_shape[1:]), tf.float32,
                               name="x")]

    @tf.function(input_signature=signature)
    def serve(x):
        y = model(x, training=False)
        return classifier_outputs(y) if classifier else {"output": y}

    concrete = serve.get_concrete_function()
    frozen = convert_to_constants.convert_variables_to_constants_v2(concrete)
    # structured_outputs is a dict; flatten it the way frozen.outputs is
    # ordered (tf.nest sorts dict keys).
    keys = sorted(concrete.structured_outputs.keys())
    outputs = [t.name[:-2] if t.name.endswith(":0") else t.name
               for t in frozen.outputs]
    assert len(keys) == len(outputs), (keys, outputs)
    inputs = [t.name for t in frozen.inputs]
    assert inputs == ["x:0"], inputs
    return frozen.graph.as_graph_def(), keys, outputs


# Models whose frozen graph keeps calls of library functions: Keras 3 runs a
# grouped convolution (ConvNeXt's 7x7 depthwise Conv2D with groups) through
# a jit-compiled tf.function, and freezing leaves each one a
# StatefulPartitionedCall (_XlaMustCompile) of a function holding the
# Conv2D; weft inlines the calls at import.
CALLS_ALLOWED = ("convnext_reduced", "convnext_tiny")


def check_inference_only(name, graph_def):
    """Op type -> count; refuses what an inference graph must not hold."""
    if graph_def.library.function and name not in CALLS_ALLOWED:
        raise SystemExit("%s: frozen graph still holds functions: %s" % (
            name, [f.signature.name for f in graph_def.library.function]))
    counts = collections.Counter(node.op for node in graph_def.node)
    for f in graph_def.library.function:
        counts.update(node.op for node in f.node_def)
    for op in counts:
        op_def = op_def_registry.get(op)
        if op.startswith("_") or op_def is None:
            raise SystemExit("%s: internal op %s in the frozen graph" % (
                name, op))
        if op_def.is_stateful and op != "StatefulPartitionedCall":
            raise SystemExit("%s: stateful op %s in the frozen graph" % (
                name, op))
    return counts


def run_frozen(graph_def, x, outputs):
    """TensorFlow's kernels on exactly the nodes of `graph_def`."""
    config = tf.compat.v1.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    opts = config.graph_options.optimizer_options
    opts.opt_level = tf.compat.v1.OptimizerOptions.L0
    opts.do_constant_folding = False
    opts.do_function_inlining = False
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph, config=config) as session:
        return session.run([o + ":0" for o in outputs], {"x:0": x})


def generate(name, out):
    spec = MODELS[name]
    seed = 1000 + list(MODELS).index(name)
    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    model = spec.build()
    randomize_weights(model, rng)
    shrunk = shrink_residual_branches(model, spec.residual_bn)
    calibration = rng.uniform(spec.low, spec.high,
                              (8,) + spec.shape[1:]).astype(np.float32)
    calibrated = calibrate_batch_norm(model, calibration)
    x = rng.uniform(spec.low, spec.high, spec.shape).astype(np.float32)

    graph_def, keys, outputs = freeze(model, spec.shape, spec.classifier)
    counts = check_inference_only(name, graph_def)
    values = run_frozen(graph_def, x, outputs)

    # The frozen graph computes what the model does, and TensorFlow's float32
    # result is well inside the test's bound of the exact one.
    exact = exact_outputs(spec, model, x)
    uses = []
    for key, value in zip(keys, values):
        want = exact[key].numpy()
        assert value.dtype == np.float32 and value.shape == want.shape
        uses.append(bound_use(value, want))
        if uses[-1] > MAX_BOUND_USE:
            raise SystemExit(
                "%s: output %s: TensorFlow's float32 values use %.2f of the "
                "test's tolerance against the float64 model (at most %.2f "
                "allowed): too ill-conditioned to test float32 against" % (
                    name, key, uses[-1], MAX_BOUND_USE))

    pb = name + ".pb"
    with open(os.path.join(out, pb), "wb") as f:
        # deterministic: map fields (attrs) in key order, so reruns give
        # the same bytes.
        f.write(graph_def.SerializeToString(deterministic=True))
    np.save(os.path.join(out, name + "_input.npy"), x)
    lines = [
        "# written by tests/models/gen_models.py with TensorFlow %s, Keras %s"
        % (tf.__version__, keras.__version__),
        "# %d parameters; %d BatchNormalization layers calibrated, %d of them "
        "ending residual branches scaled by 0.2" % (
            model.count_params(), calibrated, shrunk),
        "# ops: " + " ".join("%s:%d" % kv for kv in sorted(counts.items())),
        "graph " + pb,
        "input x %s %s_input.npy" % (",".join(str(d) for d in x.shape), name),
    ]
    for key, tensor, value, use in zip(keys, outputs, values, uses):
        npy = "%s_%s.npy" % (name, key)
        np.save(os.path.join(out, npy), value)
        lines.append("# TensorFlow's float32 %s vs the float64 model: %.3f "
                     "of the test's bound" % (key, use))
        lines.append("output %s %s" % (tensor, npy))
    with open(os.path.join(out, name + ".model"), "w") as f:
        f.write("\n".join(lines) + "\n")

    size = os.path.getsize(os.path.join(out, pb))
    print("%s: %s, %d nodes, %d parameters, %.2f MB" % (
        name, pb, len(graph_def.node), model.count_params(), size / 1e6))
    for key, tensor, value, use in zip(keys, outputs, values, uses):
        print("  output %s (%s): %s in [%.4g, %.4g]; TensorFlow float32 vs "
              "float64 uses %.3f of the bound" % (
                  tensor, key, list(value.shape), value.min(), value.max(),
                  use))
    print("  ops: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(HERE, "testdata"))
    parser.add_argument("--large", action="store_true",
                        help="also write the large models (not committed)")
    parser.add_argument("--only", nargs="+", choices=list(MODELS),
                        help="write only these models")
    args = parser.parse_args()
    tf.config.experimental.enable_op_determinism()
    os.makedirs(args.out, exist_ok=True)
    names = args.only or [n for n, spec in MODELS.items()
                          if args.large or not spec.large]
    for name in names:
        generate(name, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
