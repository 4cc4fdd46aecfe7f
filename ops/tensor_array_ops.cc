// The TF1 TensorArray ops (TensorArrayV3 and its Read, Write, Gather,
// Scatter, Concat, Split, Size and Close), registered as TensorFlow 2.21
// defines them. tf.compat.v1.nn.dynamic_rnn and TF1 while_loops over
// TensorArrays leave them in frozen graphs. TensorArrayGradV3 is left out:
// only gradient graphs create it, and frozen inference graphs have none.
//
// A TensorArray is a mutable object behind a resource handle
// (kernels/cpu/tensor_array_ops.cc); a float `flow` scalar threads through
// the ops that change it, so that data edges order reads after writes.
//
// The shape functions are TensorFlow's, but for one thing weft's shape
// inference does not have: the handle's "shapes and types" (TensorFlow
// carries the element shape of a TensorArrayV3 whose element_shape is fully
// defined along its handle). Without it Read gives an unknown shape and
// Gather the element_shape attr's, which TensorFlow's Python TensorArray
// sets on every gather it builds (stack() included).
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// A TensorArray handle: a vector of two (TensorFlow's V3 shape).
Status HandleInput(InferenceContext* c, int idx) {
  ShapeHandle handle;
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(idx), 1, &handle));
  return c->WithValue(c->Dim(handle, 0), 2, &unused);
}

Status ScalarInput(InferenceContext* c, int idx) {
  ShapeHandle unused;
  return c->WithRank(c->input(idx), 0, &unused);
}

Status CreateShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(ScalarInput(c, 0));
  c->set_output(0, c->Vector(2));
  c->set_output(1, c->Scalar());
  return Status();
}

Status WriteShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  WEFT_RETURN_IF_ERROR(ScalarInput(c, 1));
  WEFT_RETURN_IF_ERROR(ScalarInput(c, 3));
  c->set_output(0, c->Scalar());
  return Status();
}

Status ReadShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  WEFT_RETURN_IF_ERROR(ScalarInput(c, 1));
  WEFT_RETURN_IF_ERROR(ScalarInput(c, 2));
  c->set_output(0, c->UnknownShape());
  return Status();
}

// [len(indices)] + the element_shape attr.
Status GatherShape(InferenceContext* c) {
  ShapeHandle indices;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  WEFT_RETURN_IF_ERROR(ScalarInput(c, 2));
  PartialTensorShape element;
  WEFT_RETURN_IF_ERROR(c->GetAttr("element_shape", &element));
  ShapeHandle s, out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(element, &s));
  WEFT_RETURN_IF_ERROR(c->Concatenate(indices, s, &out));
  c->set_output(0, out);
  return Status();
}

// value's first dimension is one per index.
Status ScatterShape(InferenceContext* c) {
  ShapeHandle indices, value;
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
  WEFT_RETURN_IF_ERROR(ScalarInput(c, 3));
  WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(2), 1, &value));
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR(c->Merge(c->Dim(value, 0), c->Dim(indices, 0), &unused));
  c->set_output(0, c->Scalar());
  return Status();
}

Status ConcatShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  WEFT_RETURN_IF_ERROR(ScalarInput(c, 1));
  c->set_output(0, c->UnknownShape());
  c->set_output(1, c->Vector(c->UnknownDim()));
  return Status();
}

Status SplitShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &unused));
  WEFT_RETURN_IF_ERROR(ScalarInput(c, 3));
  c->set_output(0, c->Scalar());
  return Status();
}

Status SizeShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  c->set_output(0, c->Scalar());
  return Status();
}

Status CloseShape(InferenceContext* c) { return HandleInput(c, 0); }

}  // namespace

REGISTER_OP("TensorArrayV3")
    .Input("size: int32")
    .Attr("dtype: type")
    .Attr("element_shape: shape = <unknown>")
    .Attr("dynamic_size: bool = false")
    .Attr("clear_after_read: bool = true")
    .Attr("identical_element_shapes: bool = false")
    .Attr("tensor_array_name: string = ''")
    .Output("handle: resource")
    .Output("flow: float")
    .SetIsStateful()
    .SetShapeFn(CreateShape);

REGISTER_OP("TensorArrayWriteV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetShapeFn(WriteShape);

REGISTER_OP("TensorArrayReadV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetShapeFn(ReadShape);

REGISTER_OP("TensorArrayGatherV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .Attr("element_shape: shape = <unknown>")
    .SetShapeFn(GatherShape);

REGISTER_OP("TensorArrayScatterV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetShapeFn(ScatterShape);

REGISTER_OP("TensorArrayConcatV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Output("lengths: int64")
    .Attr("dtype: type")
    .Attr("element_shape_except0: shape = <unknown>")
    .SetShapeFn(ConcatShape);

REGISTER_OP("TensorArraySplitV3")
    .Input("handle: resource")
    .Input("value: T")
    .Input("lengths: int64")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetShapeFn(SplitShape);

REGISTER_OP("TensorArraySizeV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("size: int32")
    .SetShapeFn(SizeShape);

REGISTER_OP("TensorArrayCloseV3")
    .Input("handle: resource")
    .SetShapeFn(CloseShape);

}  // namespace weft
