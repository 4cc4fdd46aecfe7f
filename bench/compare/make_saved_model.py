#!/usr/bin/env python3
"""Writes the SavedModel that bench/RESULTS.md section 9 measures: Keras 3's
keras.applications.ResNet50(weights=None) (224x224x3, 1000 classes, softmax
output) with random weights under a fixed seed, exported with
model.export(DIR). About 100 MB: not committed; by default it goes to
~/.cache/weft-compare/resnet50_savedmodel.

    python3 bench/compare/make_saved_model.py [--out DIR] [--seed N]
    bench/compare/run.sh --batch 1 ~/.cache/weft-compare/resnet50_savedmodel

The weights are conditioned the way tests/models/gen_models.py conditions
its frozen ResNet50 (whose helpers this reuses): non-zero biases and
normalization scales, the last normalization of every residual branch
scaled by 0.2, and the BatchNormalization statistics calibrated on a random
batch, so that activations stay near unit scale through the 50 layers and
the engines' float32 outputs can be held to the model tests' bound. The
frozen GraphDef the comparison also times is made from this directory by
run.sh's preparation step (workers.py: the signature frozen with
convert_variables_to_constants_v2).
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))

import gen_models  # noqa: E402  (imports TensorFlow and Keras)
from gen_models import keras, np, tf  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.expanduser(
        "~/.cache/weft-compare/resnet50_savedmodel"))
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    keras.utils.set_random_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = keras.applications.ResNet50(weights=None)
    gen_models.randomize_weights(model, rng)
    shrunk = gen_models.shrink_residual_branches(model, r"_block\d+_3_bn$")
    calibration = rng.uniform(0.0, 1.0, (8, 224, 224, 3)).astype(np.float32)
    calibrated = gen_models.calibrate_batch_norm(model, calibration)
    model.export(args.out)

    loaded = tf.saved_model.load(args.out)
    fn = loaded.signatures["serving_default"]
    x = rng.uniform(0.0, 1.0, (1, 224, 224, 3)).astype(np.float32)
    (key, spec), = fn.structured_input_signature[1].items()
    y = fn(**{key: tf.constant(x)})
    want = model(x, training=False)
    for name, value in y.items():
        value = value.numpy()
        print("%s: output %s %s in [%.4g, %.4g], max |export - model| %.3g"
              % (args.out, name, list(value.shape), value.min(), value.max(),
                 float(np.max(np.abs(value - want.numpy())))))
    size = sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(args.out) for f in files)
    print("%s: input %s %s, %d parameters, %d BatchNormalization layers "
          "calibrated (%d residual branch ends scaled by 0.2), %.1f MB, "
          "TensorFlow %s, Keras %s" % (
              args.out, key, spec.shape, model.count_params(), calibrated,
              shrunk, size / 1e6, tf.__version__, keras.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
