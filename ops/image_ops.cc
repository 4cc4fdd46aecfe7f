// Image ops: resizing and non-max suppression. Names, arguments, attrs and
// defaults follow TensorFlow's image_ops.cc so graph files validate unchanged.
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// images [batch, height, width, channels] resized to size (input 1, the
// int32 vector [new_height, new_width]): [batch, new_height, new_width,
// channels]. Sizes must be positive, as the kernels require.
Status ResizeShape(InferenceContext* c) {
  ShapeHandle images;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &images));
  ShapeHandle size_shape;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &size_shape));
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(size_shape, 0), 2, &unused),
                           "size (input 1) must be [new_height, new_width]");
  bool known = false;
  std::vector<int64_t> size;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 1, &known, &size));
  DimensionHandle height;
  DimensionHandle width;
  if (known) {
    if (size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
      return errors::InvalidArgument(
          "size (input 1) must be two positive sizes [new_height, new_width] "
          "but is [",
          absl::StrJoin(size, ","), "]");
    }
    height = c->MakeDim(size[0]);
    width = c->MakeDim(size[1]);
  } else {
    // Partly known sizes (e.g. computed from another tensor's shape).
    const ShapeHandle partial = c->input_tensor_as_shape(1);
    if (c->Rank(partial) == 2) {
      height = c->Dim(partial, 0);
      width = c->Dim(partial, 1);
    } else {
      height = c->UnknownDim();
      width = c->UnknownDim();
    }
  }
  c->set_output(
      0, c->MakeShape({c->Dim(images, 0), height, width, c->Dim(images, 3)}));
  return Status();
}

// The inputs every non-max suppression op shares: boxes [num_boxes, 4] (or
// overlaps [num_boxes, num_boxes] when `overlaps`), scores [num_boxes], a
// scalar max_output_size, and `scalars` more scalar inputs after it (the
// thresholds and soft_nms_sigma).
Status NmsInputsShape(InferenceContext* c, int scalars, bool overlaps) {
  ShapeHandle boxes;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 2, &boxes),
                           overlaps ? "overlaps (input 0) must be a matrix"
                                    : "boxes (input 0) must be a matrix");
  ShapeHandle scores;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &scores),
                           "scores (input 1) must be a vector");
  for (int i = 2; i < 3 + scalars; ++i) {
    ShapeHandle unused;
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(i), 0, &unused),
                             absl::StrCat("input ", i, " must be a scalar"));
  }
  DimensionHandle n;
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(boxes, 0), c->Dim(scores, 0), &n),
      "scores (input 1) must have one score per row of input 0");
  DimensionHandle unused;
  if (overlaps) {
    WEFT_RETURN_IF_ERROR_CTX(c->Merge(n, c->Dim(boxes, 1), &unused),
                             "overlaps (input 0) must be square");
  } else {
    WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(boxes, 1), 4, &unused),
                             "boxes (input 0) must have 4 columns");
  }
  return Status();
}

// selected_indices: a vector of unknown length (at most max_output_size).
Status NmsShape(InferenceContext* c, int scalars, bool overlaps = false) {
  WEFT_RETURN_IF_ERROR(NmsInputsShape(c, scalars, overlaps));
  c->set_output(0, c->Vector(c->UnknownDim()));
  return Status();
}

// NonMaxSuppressionV4 and V5: `vectors` outputs of max_output_size elements
// when pad_to_max_output_size is set (of unknown length otherwise), then the
// scalar valid_outputs.
Status PaddedNmsShape(InferenceContext* c, int scalars, int vectors) {
  WEFT_RETURN_IF_ERROR(NmsInputsShape(c, scalars, /*overlaps=*/false));
  bool pad = false;
  WEFT_RETURN_IF_ERROR(c->GetAttr("pad_to_max_output_size", &pad));
  DimensionHandle n = c->UnknownDim();
  if (pad) {
    WEFT_RETURN_IF_ERROR_CTX(c->MakeDimForScalarInput(2, &n),
                             "max_output_size (input 2)");
  }
  for (int i = 0; i < vectors; ++i) c->set_output(i, c->Vector(n));
  c->set_output(vectors, c->Scalar());
  return Status();
}

}  // namespace

REGISTER_OP("ResizeBilinear")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, "
        "double}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape);

REGISTER_OP("ResizeNearestNeighbor")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: T")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
        "bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape);

// Greedy non-max suppression (kernels/cpu/non_max_suppression_op.cc).
REGISTER_OP("NonMaxSuppression")
    .Input("boxes: float")
    .Input("scores: float")
    .Input("max_output_size: int32")
    .Output("selected_indices: int32")
    .Attr("iou_threshold: float = 0.5")
    .SetShapeFn([](InferenceContext* c) { return NmsShape(c, 0); });

REGISTER_OP("NonMaxSuppressionV2")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return NmsShape(c, 1); });

REGISTER_OP("NonMaxSuppressionV3")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return NmsShape(c, 2); });

REGISTER_OP("NonMaxSuppressionV4")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn([](InferenceContext* c) { return PaddedNmsShape(c, 2, 1); });

REGISTER_OP("NonMaxSuppressionV5")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T")
    .Input("score_threshold: T")
    .Input("soft_nms_sigma: T")
    .Output("selected_indices: int32")
    .Output("selected_scores: T")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn([](InferenceContext* c) { return PaddedNmsShape(c, 3, 2); });

REGISTER_OP("NonMaxSuppressionWithOverlaps")
    .Input("overlaps: float")
    .Input("scores: float")
    .Input("max_output_size: int32")
    .Input("overlap_threshold: float")
    .Input("score_threshold: float")
    .Output("selected_indices: int32")
    .SetShapeFn([](InferenceContext* c) {
      return NmsShape(c, 2, /*overlaps=*/true);
    });

}  // namespace weft
