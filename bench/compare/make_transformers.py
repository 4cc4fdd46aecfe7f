#!/usr/bin/env python3
"""Writes the transformer SavedModels that issue 15's tables measure beside
the keras.applications ones: small but realistically shaped Keras models
with random weights under a fixed seed, exported with model.export(DIR/NAME)
(by default to ~/.cache/weft-compare/transformers/NAME). None is committed.

    python3 bench/compare/make_transformers.py [--out DIR] [--seed N] [NAME ...]
    bench/compare/run.sh --threads 1 --batch 1,8 ~/.cache/weft-compare/transformers/*

- bert_mini: a post-norm encoder (BERT's block) of 4 layers, 128 tokens of
  width 256, 4 heads, a 1024-wide GELU feed-forward layer;
- gpt_mini: a pre-norm decoder of 4 layers over 128 tokens of width 256
  with causal self-attention and a final normalization;
- vit_tiny: a vision transformer on a 96x96x3 image: 8x8 patches by a
  strided convolution (144 tokens of width 192), learned position
  offsets, 4 pre-norm encoder layers of 3 heads, mean-pooled into 1000
  classes with a softmax;
- bert_base, vit_base: the same blocks at the sizes most checkpoints have
  (BERT-base: 12 post-norm layers over 128 tokens of width 768, 12 heads,
  a 3072-wide feed-forward layer; ViT-B/16: a 224x224x3 image in 16x16
  patches, 196 tokens of width 768, 12 pre-norm layers of 12 heads), to
  check the smaller models' figures hold where the weights (340 MB) no
  longer fit in any cache.

The text models take float token embeddings [batch, 128, 256] (the
embedding lookup is a gather, not what these tables measure). Biases and
normalization scales are random and non-zero (tests/models/gen_models.py's
randomize_weights) so that every term of every layer counts in the
comparison with TensorFlow. Every export is checked against its Keras model.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))

import gen_models  # noqa: E402  (imports TensorFlow and Keras)
from gen_models import keras, np, tf  # noqa: E402

layers = keras.layers


def encoder_block(x, heads, d_ff, pre_norm, causal=False):
    d_model = x.shape[-1]

    def attend(h):
        return layers.MultiHeadAttention(num_heads=heads,
                                         key_dim=d_model // heads)(
                                             h, h, use_causal_mask=causal)

    def feed_forward(h):
        h = layers.Dense(d_ff, activation="gelu")(h)
        return layers.Dense(d_model)(h)

    if pre_norm:
        x = layers.Add()([x, attend(layers.LayerNormalization(epsilon=1e-6)(x))])
        return layers.Add()(
            [x, feed_forward(layers.LayerNormalization(epsilon=1e-6)(x))])
    x = layers.LayerNormalization(epsilon=1e-12)(layers.Add()([x, attend(x)]))
    return layers.LayerNormalization(epsilon=1e-12)(
        layers.Add()([x, feed_forward(x)]))


def bert(layers_, width, heads):
    inputs = keras.Input((128, width))
    x = inputs
    for _ in range(layers_):
        x = encoder_block(x, heads=heads, d_ff=4 * width, pre_norm=False)
    return keras.Model(inputs, x)


def bert_mini():
    return bert(4, 256, 4)


def bert_base():
    return bert(12, 768, 12)


def gpt_mini():
    inputs = keras.Input((128, 256))
    x = inputs
    for _ in range(4):
        x = encoder_block(x, heads=4, d_ff=1024, pre_norm=True, causal=True)
    return keras.Model(inputs, layers.LayerNormalization(epsilon=1e-5)(x))


class PositionOffsets(layers.Layer):
    """Adds a learned [tokens, width] offset to every image's tokens."""

    def build(self, input_shape):
        self.offsets = self.add_weight(shape=tuple(input_shape[1:]),
                                       initializer="random_normal",
                                       name="offsets")

    def call(self, x):
        return x + self.offsets


def vit(size, patch, layers_, width, heads):
    inputs = keras.Input((size, size, 3))
    x = layers.Conv2D(width, patch, strides=patch)(inputs)
    tokens = (size // patch)**2
    x = layers.Reshape((tokens, width))(x)
    x = PositionOffsets()(x)
    for _ in range(layers_):
        x = encoder_block(x, heads=heads, d_ff=4 * width, pre_norm=True)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    x = layers.GlobalAveragePooling1D()(x)
    return keras.Model(inputs, layers.Dense(1000, activation="softmax")(x))


def vit_tiny():
    return vit(96, 8, 4, 192, 3)


def vit_base():
    return vit(224, 16, 12, 768, 12)


MODELS = {"bert_mini": bert_mini, "gpt_mini": gpt_mini, "vit_tiny": vit_tiny,
          "bert_base": bert_base, "vit_base": vit_base}


def make(name, out, seed):
    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    model = MODELS[name]()
    gen_models.randomize_weights(model, rng)
    model.export(out, verbose=False)

    loaded = tf.saved_model.load(out)
    fn = loaded.signatures["serving_default"]
    shape = (1,) + tuple(model.input_shape[1:])
    x = rng.uniform(0.0, 1.0, shape).astype(np.float32)
    (key, spec), = fn.structured_input_signature[1].items()
    got = fn(**{key: tf.constant(x)})
    want = model(x, training=False).numpy()
    diff = max(float(np.max(np.abs(v.numpy() - want))) for v in got.values())
    mb = sum(os.path.getsize(os.path.join(d, f))
             for d, _, files in os.walk(out) for f in files) / 1e6
    print("%s: input %s %s, %d parameters, %.1f MB, max |export - model| %.3g"
          % (out, key, spec.shape, model.count_params(), mb, diff), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.expanduser(
        "~/.cache/weft-compare/transformers"))
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="of: " + ", ".join(MODELS))
    args = parser.parse_args()
    names = args.names or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model(s): " + ", ".join(unknown))
    for name in names:
        make(name, os.path.join(args.out, name), args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
