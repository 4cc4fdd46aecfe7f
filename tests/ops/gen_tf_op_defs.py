#!/usr/bin/env python3
"""Writes TensorFlow's own op definitions, in a canonical text form, for the
ops weft registers or plans to, to tests/ops/testdata/tf_op_defs.txt.

tests/ops/tf_op_defs_test.cc renders weft's registrations in the same form and
compares them, so weft's op signatures, attrs and defaults match TensorFlow's.

Needs TensorFlow (never a test dependency; the output is committed):
  python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu numpy
  /tmp/tfvenv/bin/python tests/ops/gen_tf_op_defs.py
"""
import os
import struct

import tensorflow as tf
from tensorflow.python.framework import op_def_registry

# Every op named by issues 4 and 5 (the CPU op set) plus graph plumbing, and
# the TensorList ops and the inference op set of issue 13.
OPS = """
Const Placeholder PlaceholderWithDefault Identity IdentityN NoOp StopGradient
PreventGradient Snapshot
Add AddV2 Sub Mul RealDiv Div DivNoNan FloorDiv FloorMod Maximum Minimum Pow
SquaredDifference BiasAdd AddN
Neg Abs Exp Log Log1p Sqrt Rsqrt Square Reciprocal Sign Floor Ceil Round Tanh
Sigmoid Relu Relu6 LeakyRelu Elu Selu Softplus Softsign Erf Erfc Sin Cos Cast
Equal NotEqual Less LessEqual Greater GreaterEqual LogicalAnd LogicalOr
LogicalNot Select SelectV2 IsNan IsFinite
MatMul BatchMatMulV2 Conv2D DepthwiseConv2dNative Conv2DBackpropInput MaxPool
AvgPool FusedBatchNormV3 Softmax LogSoftmax
Reshape Shape Size Rank ExpandDims Squeeze Transpose ConcatV2 Pack Unpack Split
SplitV Slice StridedSlice Pad PadV2 MirrorPad Tile Fill ZerosLike OnesLike Range
GatherV2 OneHot BroadcastTo Einsum
Sum Mean Max Min Prod All Any ArgMax ArgMin
ResizeBilinear ResizeNearestNeighbor
EmptyTensorList TensorListReserve TensorListFromTensor TensorListGetItem
TensorListSetItem TensorListStack TensorListLength TensorListElementShape
TensorListPushBack TensorListPopBack TensorListResize TensorListConcatV2
TensorListSplit TensorListGather TensorListScatterV2
TensorListScatterIntoExistingList
MatrixBandPart TopKV2 Cumsum Cumprod ReverseV2 Roll InvertPermutation Where
ClipByValue CheckNumerics EnsureShape ShapeN BroadcastArgs
Acos Acosh Asin Asinh Atan Atan2 Atanh Cosh Sinh Tan Expm1 IsInf Rint
TruncateDiv BitwiseAnd BitwiseOr BitwiseXor Invert LeftShift RightShift
NonMaxSuppression NonMaxSuppressionV2 NonMaxSuppressionV3 NonMaxSuppressionV4
NonMaxSuppressionV5 NonMaxSuppressionWithOverlaps
FusedBatchNorm FusedBatchNormV2 BiasAddV1 PlaceholderV2 MaxPoolV2
MaxPoolWithArgmax Conv3D MaxPool3D AvgPool3D ExtractImagePatches LRN
SpaceToBatchND BatchToSpaceND SpaceToDepth DepthToSpace ResizeBicubic ResizeArea
CropAndResize CombinedNonMaxSuppression Conv3DBackpropInputV2
StatelessRandomUniformV2 StatelessRandomNormalV2 StatelessTruncatedNormalV2
StatelessRandomUniformIntV2 StatelessRandomUniformFullIntV2
StatelessRandomGetKeyCounter StatelessRandomGetAlg
StatelessRandomGetKeyCounterAlg StatelessRandomUniform StatelessRandomNormal
StatelessTruncatedNormal StatelessRandomUniformInt RandomUniform
RandomStandardNormal RandomUniformInt Multinomial
GatherNd ScatterNd TensorScatterUpdate TensorScatterAdd TensorScatterSub
TensorScatterMin TensorScatterMax Unique UniqueWithCounts ReverseSequence
DynamicPartition DynamicStitch ParallelDynamicStitch Bincount DenseBincount
SparseToDense Gather Concat
SegmentSum SegmentMean SegmentProd SegmentMax SegmentMin UnsortedSegmentSum
UnsortedSegmentProd UnsortedSegmentMax UnsortedSegmentMin SparseSegmentSum
SparseSegmentMean SparseSegmentSqrtN SparseSegmentSumWithNumSegments
SparseSegmentMeanWithNumSegments SparseSegmentSqrtNWithNumSegments
MatrixDiag MatrixDiagV2 MatrixDiagV3 MatrixDiagPart MatrixDiagPartV2
MatrixDiagPartV3 MatrixSetDiag MatrixSetDiagV2 MatrixSetDiagV3
MatrixDeterminant BatchMatMul BatchMatMulV3
TensorArrayV3 TensorArrayReadV3 TensorArrayWriteV3 TensorArrayGatherV3
TensorArrayScatterV3 TensorArrayConcatV3 TensorArraySplitV3 TensorArraySizeV3
TensorArrayCloseV3 Assert Bitcast ControlTrigger
LSTMBlockCell SparseFillEmptyRows SparseReshape DenseToDenseSetOperation
ComplexAbs FFT RFFT RFFT2D
""".split()


def fmt_float(f):
  return "%.9g" % struct.unpack("f", struct.pack("f", f))[0]


def fmt_shape(s):
  if s.unknown_rank:
    return "<unknown>"
  return "[" + ",".join(str(d.size) for d in s.dim) + "]"


def fmt_value(v):
  kind = v.WhichOneof("value")
  if kind == "s":
    return "'" + v.s.decode() + "'"
  if kind == "i":
    return str(v.i)
  if kind == "f":
    return fmt_float(v.f)
  if kind == "b":
    return "true" if v.b else "false"
  if kind == "type":
    return "type%d" % v.type
  if kind == "shape":
    return fmt_shape(v.shape)
  if kind == "list":
    l = v.list
    items = ([f"'{x.decode()}'" for x in l.s] + [str(x) for x in l.i] +
             [fmt_float(x) for x in l.f] +
             ["true" if x else "false" for x in l.b] +
             ["type%d" % x for x in l.type] + [fmt_shape(x) for x in l.shape])
    return "[" + ",".join(items) + "]"
  return "?"


def fmt_allowed(v):
  l = v.list
  if l.type:
    return "{" + ",".join("type%d" % t for t in sorted(set(l.type))) + "}"
  return "{" + ",".join(sorted("'" + s.decode() + "'" for s in l.s)) + "}"


def fmt_arg(kind, a):
  parts = [kind, a.name]
  if a.number_attr:
    parts.append("number_attr=" + a.number_attr)
  if a.type_attr:
    parts.append("type_attr=" + a.type_attr)
  elif a.type_list_attr:
    parts.append("type_list_attr=" + a.type_list_attr)
  else:
    parts.append("type%d" % a.type)
  if a.is_ref:
    parts.append("ref")
  return "  " + " ".join(parts)


def fmt_op(op):
  lines = ["op " + op.name]
  lines += [fmt_arg("in", a) for a in op.input_arg]
  lines += [fmt_arg("out", a) for a in op.output_arg]
  for a in sorted(op.attr, key=lambda a: a.name):
    parts = ["  attr", a.name, a.type]
    if a.HasField("default_value"):
      parts.append("default=" + fmt_value(a.default_value))
    if a.HasField("allowed_values"):
      parts.append("allowed=" + fmt_allowed(a.allowed_values))
    if a.has_minimum:
      parts.append("min=%d" % a.minimum)
    lines.append(" ".join(parts))
  return "\n".join(lines)


def main():
  out = ["# TensorFlow %s op definitions, written by "
         "tests/ops/gen_tf_op_defs.py" % tf.__version__]
  for name in OPS:
    out.append(fmt_op(op_def_registry.get(name)))
  path = os.path.join(os.path.dirname(__file__), "testdata", "tf_op_defs.txt")
  with open(path, "w") as f:
    f.write("\n".join(out) + "\n")


if __name__ == "__main__":
  main()
