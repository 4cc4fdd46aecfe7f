// Assert, ControlTrigger and Bitcast, registered as TensorFlow 2.21 defines
// them: graph plumbing that TF1 graphs keep after freezing (tf.debugging
// asserts hang off control edges; ControlTrigger sits in old while loops,
// where graph/raise_control_flow.cc turns it into a NoOp) and a
// reinterpretation of element bytes (Bitcast).
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// Same element size: the input's shape. A smaller output element: one more
// dimension of in/out elements. A larger one: the last dimension, which must
// be out/in elements, goes.
Status BitcastShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  DataType in_type = DT_INVALID, out_type = DT_INVALID;
  WEFT_RETURN_IF_ERROR(c->GetAttr("T", &in_type));
  WEFT_RETURN_IF_ERROR(c->GetAttr("type", &out_type));
  const int64_t in_size = static_cast<int64_t>(DataTypeSize(in_type));
  const int64_t out_size = static_cast<int64_t>(DataTypeSize(out_type));
  if (in_size == 0 || out_size == 0) {
    return errors::InvalidArgument(
        "Cannot bitcast types ", DataTypeName(in_type), " to ",
        DataTypeName(out_type), " because one of the type sizes is zero.");
  }
  ShapeHandle out;
  if (in_size == out_size) {
    out = input;
  } else if (in_size < out_size) {
    WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(input, 1, &out));
    const int64_t ratio = out_size / in_size;
    DimensionHandle last = c->Dim(out, -1);
    if (c->ValueKnown(last) && c->Value(last) != ratio) {
      return errors::InvalidArgument("Cannot bitcast due to shape. ",
                                     c->Value(last), " does not match ", ratio);
    }
    WEFT_RETURN_IF_ERROR(c->Subshape(out, 0, -1, &out));
  } else {
    WEFT_RETURN_IF_ERROR(
        c->Concatenate(input, c->Vector(in_size / out_size), &out));
  }
  c->set_output(0, out);
  return Status();
}

}  // namespace

REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .SetIsStateful()
    .Attr("T: list(type) >= 1")
    .Attr("summarize: int = 3")
    .SetShapeFn(shape_inference::NoOutputs);

REGISTER_OP("ControlTrigger").SetShapeFn(shape_inference::NoOutputs);

REGISTER_OP("Bitcast")
    .Input("input: T")
    .Output("output: type")
    .Attr(
        "T: {bfloat16, half, float, double, int64, int32, uint8, uint16, "
        "uint32, uint64, int8, int16, complex64, complex128, qint8, quint8, "
        "qint16, quint16, qint32}")
    .Attr(
        "type: {bfloat16, half, float, double, int64, int32, uint8, uint16, "
        "uint32, uint64, int8, int16, complex64, complex128, qint8, quint8, "
        "qint16, quint16, qint32}")
    .SetShapeFn(BitcastShape);

}  // namespace weft
