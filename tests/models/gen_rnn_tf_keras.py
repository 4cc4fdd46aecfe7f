#!/usr/bin/env python3
"""Writes the tf.keras 2 LSTM fixtures of tests/models/testdata/rnn: the
layers of gen_rnn.py built with tf.keras 2 (the tf_keras package, what
TensorFlow 2.15 and earlier call keras) instead of Keras 3, whose loop
bodies differ: an LSTM over 5 steps of 3 features with sequences
(tfk_lstm_seq), an Embedding(mask_zero=True) over token ids feeding an LSTM
(tfk_masked_lstm) and a Bidirectional(LSTM) with sequences
(tfk_masked_bilstm_seq). tf.keras 2's masked loop has no loop variable for
the last output, and writes a variable of zeros where a step is masked,
where Keras 3's selects by a tiled mask. The forms, sidecars and checks are
gen_rnn.py's (its `write`). Run only to regenerate them:

    python3 -m venv /tmp/tfvenv
    /tmp/tfvenv/bin/pip install tensorflow-cpu tf_keras numpy
    /tmp/tfvenv/bin/python tests/models/gen_rnn_tf_keras.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gen_rnn  # noqa: E402  (sets TensorFlow's environment first)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras  # noqa: E402

STEPS, FEATURES, UNITS = gen_rnn.STEPS, gen_rnn.FEATURES, gen_rnn.UNITS


def lstm_seq():
    inp = tf_keras.Input((STEPS, FEATURES))
    return tf_keras.Model(
        inp, tf_keras.layers.LSTM(UNITS, return_sequences=True)(inp))


def masked(sequences, bidi=False):
    inp = tf_keras.Input((STEPS,), dtype="int32")
    h = tf_keras.layers.Embedding(gen_rnn.VOCAB, FEATURES,
                                  mask_zero=True)(inp)
    layer = tf_keras.layers.LSTM(UNITS, return_sequences=sequences)
    if bidi:
        layer = tf_keras.layers.Bidirectional(layer)
    return tf_keras.Model(inp, layer(h))


MODELS = {
    "tfk_lstm_seq": (lstm_seq, tf.float32),
    "tfk_masked_lstm": (lambda: masked(False), tf.int32),
    "tfk_masked_bilstm_seq": (lambda: masked(True, bidi=True), tf.int32),
}


def main():
    os.makedirs(gen_rnn.OUT, exist_ok=True)
    tf_keras.utils.set_random_seed(2027)
    rng = np.random.default_rng(2027)
    for name, (build, dtype) in MODELS.items():
        model = build()
        if dtype == tf.int32:
            x = gen_rnn.tokens(rng)
        else:
            x = rng.uniform(-1.0, 1.0, (gen_rnn.BATCH, STEPS,
                                        FEATURES)).astype(np.float32)
        gen_rnn.write(name, model, dtype, x, keras_version=tf_keras.__version__)


if __name__ == "__main__":
    main()
