#!/usr/bin/env python3
"""Writes the keras.applications SavedModels that issue 15's model tables
measure: each architecture with random weights under a fixed seed, at a
small input (96x96x3 by default, the smallest most of them take), 1000
classes, softmax output, exported with model.export(DIR/NAME). None is
committed (tens of MB each); by default they go to
~/.cache/weft-compare/keras_apps/NAME.

    python3 bench/compare/make_keras_apps.py [--out DIR] [--size 96]
                                             [--seed N] [NAME ...]
    bench/compare/run.sh --threads 1 --batch 1,8 ~/.cache/weft-compare/keras_apps/*

The weights are conditioned as bench/compare/make_saved_model.py conditions
its ResNet50 (tests/models/gen_models.py's helpers): non-zero biases and
normalization scales, the last normalization of every residual branch
scaled by 0.2 where the architecture names one, and BatchNormalization
statistics calibrated on a random batch, so that activations stay near unit
scale and the engines' float32 outputs can be held to the model tests'
bound. Every export is checked against the Keras model it came from.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))

import gen_models  # noqa: E402  (imports TensorFlow and Keras)
from gen_models import keras, np, tf  # noqa: E402

def deeplab_v3_plus(weights=None, input_shape=(256, 256, 3), classes=21):
    """DeepLabV3+ over keras.applications' ResNet50, as the Keras example
    "Multiclass semantic segmentation using DeepLabV3+" builds it: the
    backbone up to conv4_block6 (output stride 16), an atrous spatial
    pyramid (image pooling, a 1x1 branch, 3x3 branches dilated by 6, 12 and
    18), a decoder joining it with conv2_block3 (output stride 4), and
    per-pixel logits upsampled to the input. `classes` above 256 (the
    script's 1000) become 21, PASCAL VOC's, so that the output stays a few
    MB."""
    layers = keras.layers
    classes = classes if classes <= 256 else 21

    def conv_bn_relu(t, filters=256, kernel=3, rate=1, bias=False):
        t = layers.Conv2D(filters, kernel, dilation_rate=rate, padding="same",
                          use_bias=bias)(t)
        t = layers.BatchNormalization()(t)
        return layers.ReLU()(t)

    image = keras.Input(input_shape)
    backbone = keras.applications.ResNet50(
        weights=weights, include_top=False,
        input_tensor=keras.applications.resnet50.preprocess_input(image))
    deep = backbone.get_layer("conv4_block6_2_relu").output
    size = deep.shape[1]
    pooled = layers.AveragePooling2D(pool_size=(size, deep.shape[2]))(deep)
    pooled = conv_bn_relu(pooled, kernel=1, bias=True)
    pooled = layers.UpSampling2D(size, interpolation="bilinear")(pooled)
    pyramid = [pooled, conv_bn_relu(deep, kernel=1)] + [
        conv_bn_relu(deep, rate=r) for r in (6, 12, 18)]
    x = conv_bn_relu(layers.Concatenate()(pyramid), kernel=1)
    shallow = backbone.get_layer("conv2_block3_2_relu").output
    x = layers.UpSampling2D(shallow.shape[1] // size,
                            interpolation="bilinear")(x)
    x = layers.Concatenate()([x, conv_bn_relu(shallow, filters=48,
                                               kernel=1)])
    x = conv_bn_relu(conv_bn_relu(x))
    x = layers.UpSampling2D(input_shape[0] // x.shape[1],
                            interpolation="bilinear")(x)
    return keras.Model(image, layers.Conv2D(classes, 1)(x))


# name -> (constructor, the residual-branch-end BatchNormalization pattern
# or None). The set issue 15 names, plus the two ResNets and
# InceptionResNetV2 that its first measurement had.
ARCHITECTURES = {
    "mobilenet": (keras.applications.MobileNet, None),
    "mobilenet_v2": (keras.applications.MobileNetV2, r"_project_BN$"),
    "mobilenet_v3_small": (keras.applications.MobileNetV3Small, None),
    "mobilenet_v3_large": (keras.applications.MobileNetV3Large, None),
    "efficientnet_b0": (keras.applications.EfficientNetB0, r"_project_bn$"),
    "efficientnet_v2_b0": (keras.applications.EfficientNetV2B0,
                           r"_project_bn$"),
    "densenet121": (keras.applications.DenseNet121, None),
    "resnet50": (keras.applications.ResNet50, r"_block\d+_3_bn$"),
    "resnet50_v2": (keras.applications.ResNet50V2, None),
    "inception_v3": (keras.applications.InceptionV3, None),
    "inception_resnet_v2": (keras.applications.InceptionResNetV2, None),
    "xception": (keras.applications.Xception, None),
    "nasnet_mobile": (keras.applications.NASNetMobile, None),
    "vgg16": (keras.applications.VGG16, None),
    "convnext_tiny": (keras.applications.ConvNeXtTiny, None),
    # Larger members of the same families: a wider check that no shape of
    # theirs falls off a kernel's fast path.
    "convnext_small": (keras.applications.ConvNeXtSmall, None),
    "densenet169": (keras.applications.DenseNet169, None),
    "efficientnet_b3": (keras.applications.EfficientNetB3, r"_project_bn$"),
    "efficientnet_v2_s": (keras.applications.EfficientNetV2S, r"_project_bn$"),
    "nasnet_large": (keras.applications.NASNetLarge, None),
    "resnet101_v2": (keras.applications.ResNet101V2, None),
    "vgg19": (keras.applications.VGG19, None),
    # Segmentation with dilated convolutions (SpaceToBatchND pairs in the
    # graph); meant for --size 256 or more (its pyramid's map is 1/16 of
    # the input).
    "deeplab_v3_plus": (deeplab_v3_plus, r"_block\d+_3_bn$"),
}


def build(name, size):
    ctor, _ = ARCHITECTURES[name]
    kwargs = dict(weights=None, input_shape=(size, size, 3), classes=1000)
    if name in ("nasnet_mobile", "nasnet_large"):
        # NASNet refuses a non-default input shape unless told there is no
        # pretrained top to match.
        kwargs["input_tensor"] = keras.Input((size, size, 3))
        del kwargs["input_shape"]
    return ctor(**kwargs)


def make(name, out, size, seed):
    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    model = build(name, size)
    gen_models.randomize_weights(model, rng)
    pattern = ARCHITECTURES[name][1]
    shrunk = gen_models.shrink_residual_branches(model, pattern)
    calibration = rng.uniform(0.0, 1.0, (8, size, size, 3)).astype(np.float32)
    calibrated = gen_models.calibrate_batch_norm(model, calibration)
    model.export(out, verbose=False)

    loaded = tf.saved_model.load(out)
    fn = loaded.signatures["serving_default"]
    x = rng.uniform(0.0, 1.0, (1, size, size, 3)).astype(np.float32)
    (key, spec), = fn.structured_input_signature[1].items()
    got = fn(**{key: tf.constant(x)})
    want = model(x, training=False).numpy()
    diff = max(float(np.max(np.abs(v.numpy() - want))) for v in got.values())
    mb = sum(os.path.getsize(os.path.join(d, f))
             for d, _, files in os.walk(out) for f in files) / 1e6
    print("%s: input %s %s, %d parameters, %d BatchNormalization layers "
          "calibrated, %d branch ends scaled, %.1f MB, max |export - model| "
          "%.3g" % (out, key, spec.shape, model.count_params(), calibrated,
                    shrunk, mb, diff), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.expanduser(
        "~/.cache/weft-compare/keras_apps"))
    parser.add_argument("--size", type=int, default=96)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="of: " + ", ".join(ARCHITECTURES))
    args = parser.parse_args()
    names = args.names or list(ARCHITECTURES)
    unknown = [n for n in names if n not in ARCHITECTURES]
    if unknown:
        parser.error("unknown architecture(s): " + ", ".join(unknown))
    for name in names:
        make(name, os.path.join(args.out, name), args.size, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
