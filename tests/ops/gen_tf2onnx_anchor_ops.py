#!/usr/bin/env python3
"""Writes the anchor list of issue 13: the TensorFlow ops that tf2onnx
converts, from tf2onnx's own handler registry (the ONNX domain's handlers,
tf2onnx.handler.tf_op.get_opsets()), in two forms:

  tests/ops/testdata/tf2onnx_anchor_ops.txt   one op a line, for people and
                                              tests
  tools/tf2onnx_anchor_ops.inc                the same as a C++ initializer
                                              list, compiled into `weft ops`

Each op is either part of the goal (weft registers it, or should) or left out
on purpose, with the reason: names that are no TensorFlow op at all (tf2onnx
handles patterns it rewrites into them; TensorFlow 2.21 registers no op of
that name), queues, iterators, strings, ragged tensors and training-only ops,
the classes issue 13 excludes, and GPU-only ops (CudnnRNN, which
TensorFlow has no CPU kernel for). tests/tools/cli_test.cc checks that the two
files agree and that `weft ops --missing` counts them right.

Needs tf2onnx and TensorFlow (never a test dependency; the output is
committed):
  pip install tf2onnx==1.17.0 tensorflow-cpu
  python tests/ops/gen_tf2onnx_anchor_ops.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402
import tf2onnx  # noqa: E402
import tf2onnx.onnx_opset  # noqa: E402,F401  (registers the handlers)
from tensorflow.python.framework import op_def_registry  # noqa: E402
from tf2onnx import constants, handler  # noqa: E402

LEFT_OUT = {
    "queue": "FIFOQueueV2 QueueDequeueManyV2 QueueDequeueUpToV2 "
             "QueueDequeueV2",
    "iterator": "IteratorGetNext IteratorV2",
    "string": "AsString StringToNumber",
    "ragged": "RaggedGather RaggedRange RaggedTensorFromVariant "
              "RaggedTensorToSparse RaggedTensorToTensor RaggedTensorToVariant",
    "training-only": "SoftmaxCrossEntropyWithLogits "
                     "SparseSoftmaxCrossEntropyWithLogits RandomShuffle "
                     "SampleDistortedBoundingBox SampleDistortedBoundingBoxV2",
    # TensorFlow registers CudnnRNN's kernels for GPUs only (cuDNN's fused
    # RNN, with cuDNN's opaque weight layout); a graph holding it runs on no
    # TensorFlow CPU either.
    "GPU-only op": "CudnnRNN",
}


def main():
  names = set()
  for table in handler.tf_op.get_opsets()[constants.ONNX_DOMAIN]:
    names |= set(table)
  reasons = {}
  for reason, ops in LEFT_OUT.items():
    for op in ops.split():
      assert op in names, op
      reasons[op] = reason
  for op in names:
    if op_def_registry.get(op) is None:
      assert op not in reasons, op
      reasons[op] = "not a TensorFlow op"
  ops = sorted(names)
  here = os.path.dirname(os.path.abspath(__file__))
  root = os.path.dirname(os.path.dirname(here))
  header = ("tf2onnx %s's TensorFlow op handlers (ONNX domain), %d names, "
            "written by tests/ops/gen_tf2onnx_anchor_ops.py with TensorFlow %s"
            % (tf2onnx.__version__, len(ops), tf.__version__))
  with open(os.path.join(here, "testdata", "tf2onnx_anchor_ops.txt"),
            "w") as f:
    f.write("# " + header + "\n")
    f.write("# NAME, or NAME  left out: REASON for the ops weft leaves out "
            "on purpose\n")
    for op in ops:
      f.write(op + ("  left out: " + reasons[op] if op in reasons else "") +
              "\n")
  with open(os.path.join(root, "tools", "tf2onnx_anchor_ops.inc"), "w") as f:
    f.write("// " + header + ".\n// {name, reason left out (empty: part of "
            "the goal)}; do not edit.\n")
    for op in ops:
      f.write('{"%s", "%s"},\n' % (op, reasons.get(op, "")))
  print("%d ops, %d left out on purpose" % (len(ops), len(reasons)))


if __name__ == "__main__":
  main()
