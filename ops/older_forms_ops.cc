// Older forms of ops weft already runs, as TensorFlow 2.21 still defines
// them, for graphs written by older TensorFlow versions: FusedBatchNorm
// (float only) and FusedBatchNormV2 (5 outputs, no reserve_space_3),
// BiasAddV1 (BiasAdd without data_format) and PlaceholderV2 (Placeholder
// with a required shape). Their kernels are the newer forms' kernels.
#include <string>

#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// FusedBatchNorm and FusedBatchNormV2: x of rank 4 (NHWC or NCHW); the
// per-channel inputs that are read (all four unless training with a plain
// batch average) have one value per channel; y has x's shape and the four
// other outputs one value per channel.
Status FusedBatchNormShape(InferenceContext* c) {
  std::string format;
  WEFT_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  WEFT_ASSIGN_OR_RETURN(const TensorFormat f, ParseTensorFormat(format));
  const int channel = FormatDimIndex(f, 'C');
  ShapeHandle x;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 4, &x), "x (input 0)");
  bool is_training = true;
  float exponential_avg_factor = 1.0f;
  WEFT_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  WEFT_RETURN_IF_ERROR(
      c->GetAttr("exponential_avg_factor", &exponential_avg_factor));
  const int vectors = (is_training && exponential_avg_factor == 1.0f) ? 2 : 4;
  static constexpr const char* kNames[] = {"scale", "offset", "mean",
                                           "variance"};
  DimensionHandle channels = c->Dim(x, channel);
  for (int i = 1; i <= vectors; ++i) {
    ShapeHandle vec;
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(i), 1, &vec), kNames[i - 1],
                             " (input ", i, ")");
    WEFT_RETURN_IF_ERROR_CTX(
        c->Merge(channels, c->Dim(vec, 0), &channels), kNames[i - 1],
        " (input ", i, " ", c->DebugString(c->input(i)),
        ") must have one value per channel of x (input 0 ",
        c->DebugString(c->input(0)), ", channel dimension ", channel, ")");
  }
  ShapeHandle y = x;
  if (!channels.SameHandle(c->Dim(x, channel))) {
    WEFT_RETURN_IF_ERROR(c->ReplaceDim(x, channel, channels, &y));
  }
  c->set_output(0, y);
  const ShapeHandle per_channel = c->Vector(channels);
  for (int i = 1; i <= 4; ++i) c->set_output(i, per_channel);
  return Status();
}

Status PlaceholderV2Shape(InferenceContext* c) {
  PartialTensorShape shape;
  WEFT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  c->set_output(0, out);
  return Status();
}

}  // namespace

REGISTER_OP("FusedBatchNorm")
    .Input("x: T")
    .Input("scale: T")
    .Input("offset: T")
    .Input("mean: T")
    .Input("variance: T")
    .Output("y: T")
    .Output("batch_mean: T")
    .Output("batch_variance: T")
    .Output("reserve_space_1: T")
    .Output("reserve_space_2: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape);

REGISTER_OP("FusedBatchNormV2")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape);

REGISTER_OP("BiasAddV1")
    .Attr("T: numbertype")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .SetShapeFn(shape_inference::BiasAddShape);

REGISTER_OP("PlaceholderV2")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn(PlaceholderV2Shape);

}  // namespace weft
