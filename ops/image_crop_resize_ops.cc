// Image ops beyond bilinear and nearest resizing and the single-class
// non-max suppressions: ResizeBicubic, ResizeArea, CropAndResize and
// CombinedNonMaxSuppression. Names, arguments, attrs and defaults follow
// TensorFlow 2.21's image_ops.cc so graph files validate unchanged.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_join.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// Input `idx` is an int32 vector of 2 positive sizes [height, width]
// (size, crop_size): the two dimensions, unknown where not known.
Status SizeInput(InferenceContext* c, int idx, const char* name,
                 DimensionHandle* height, DimensionHandle* width) {
  ShapeHandle size_shape;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(idx), 1, &size_shape), name,
                           " must be a vector");
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(size_shape, 0), 2, &unused),
                           name, " must be [height, width]");
  bool known = false;
  std::vector<int64_t> size;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(idx, 1, &known, &size));
  if (known) {
    if (size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
      return errors::InvalidArgument(name,
                                     " must be two positive sizes but is [",
                                     absl::StrJoin(size, ","), "]");
    }
    *height = c->MakeDim(size[0]);
    *width = c->MakeDim(size[1]);
    return Status();
  }
  const ShapeHandle partial = c->input_tensor_as_shape(idx);
  if (c->Rank(partial) == 2) {
    *height = c->Dim(partial, 0);
    *width = c->Dim(partial, 1);
  } else {
    *height = c->UnknownDim();
    *width = c->UnknownDim();
  }
  return Status();
}

// images [batch, height, width, channels] resized to size (input 1).
Status ResizeShape(InferenceContext* c) {
  ShapeHandle images;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &images));
  DimensionHandle height, width;
  WEFT_RETURN_IF_ERROR(SizeInput(c, 1, "size (input 1)", &height, &width));
  c->set_output(
      0, c->MakeShape({c->Dim(images, 0), height, width, c->Dim(images, 3)}));
  return Status();
}

// image [batch, h, w, depth], boxes [num_boxes, 4], box_ind [num_boxes],
// crop_size [2]: crops [num_boxes, crop_h, crop_w, depth].
Status CropAndResizeShape(InferenceContext* c) {
  ShapeHandle image, boxes, box_ind;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 4, &image),
                           "image (input 0)");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 2, &boxes),
                           "boxes (input 1) must be [num_boxes, 4]");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 1, &box_ind),
                           "box_ind (input 2) must be a vector");
  DimensionHandle num_boxes;
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(boxes, 0), c->Dim(box_ind, 0), &num_boxes),
      "box_ind (input 2) must have one value per box of input 1");
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(boxes, 1), 4, &unused),
                           "boxes (input 1) must be [num_boxes, 4]");
  DimensionHandle height, width;
  WEFT_RETURN_IF_ERROR(SizeInput(c, 3, "crop_size (input 3)", &height, &width));
  c->set_output(0, c->MakeShape({num_boxes, height, width, c->Dim(image, 3)}));
  return Status();
}

// boxes [batch, num_boxes, q, 4] (q is 1 or num_classes), scores [batch,
// num_boxes, num_classes], four scalars; outputs [batch, d, 4], [batch, d],
// [batch, d], [batch] with d = max_total_size, or with pad_per_class
// min(max_output_size_per_class * num_classes, max_total_size).
Status CombinedNmsShape(InferenceContext* c) {
  ShapeHandle boxes, scores;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 4, &boxes),
                           "boxes (input 0) must be [batch, num_boxes, q, 4]");
  WEFT_RETURN_IF_ERROR_CTX(
      c->WithRank(c->input(1), 3, &scores),
      "scores (input 1) must be [batch, num_boxes, num_classes]");
  for (int i = 2; i < 6; ++i) {
    ShapeHandle unused;
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(i), 0, &unused), "input ", i,
                             " must be a scalar");
  }
  DimensionHandle batch, num_boxes, unused;
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(boxes, 0), c->Dim(scores, 0), &batch),
      "boxes (input 0) and scores (input 1) must have the same batch");
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(boxes, 1), c->Dim(scores, 1), &num_boxes),
      "boxes (input 0) and scores (input 1) must have the same number of "
      "boxes");
  WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(boxes, 3), 4, &unused),
                           "boxes (input 0) must be [batch, num_boxes, q, 4]");
  const DimensionHandle q = c->Dim(boxes, 2);
  const DimensionHandle classes = c->Dim(scores, 2);
  if (c->ValueKnown(q) && c->ValueKnown(classes) && c->Value(q) != 1 &&
      c->Value(q) != c->Value(classes)) {
    return errors::InvalidArgument(
        "dimension 2 of boxes (input 0) ", c->DebugString(boxes),
        " must be 1 or the number of classes, ", c->Value(classes));
  }
  DimensionHandle per_class, total;
  WEFT_RETURN_IF_ERROR(c->MakeDimForScalarInput(2, &per_class));
  WEFT_RETURN_IF_ERROR(c->MakeDimForScalarInput(3, &total));
  if (c->ValueKnown(per_class) && c->Value(per_class) <= 0) {
    return errors::InvalidArgument(
        "max_output_size_per_class (input 2) must be positive but is ",
        c->Value(per_class));
  }
  if (c->ValueKnown(total) && c->Value(total) <= 0) {
    return errors::InvalidArgument(
        "max_total_size (input 3) must be positive but is ", c->Value(total));
  }
  bool pad_per_class = false;
  WEFT_RETURN_IF_ERROR(c->GetAttr("pad_per_class", &pad_per_class));
  DimensionHandle detections = total;
  if (pad_per_class) {
    if (c->ValueKnown(per_class) && c->ValueKnown(classes) &&
        c->ValueKnown(total)) {
      int64_t all = 0;
      if (__builtin_mul_overflow(c->Value(per_class), c->Value(classes),
                                 &all)) {
        all = c->Value(total);
      }
      detections = c->MakeDim(std::min(all, c->Value(total)));
    } else {
      detections = c->UnknownDim();
    }
  }
  c->set_output(0, c->MakeShape({batch, detections, 4}));
  c->set_output(1, c->MakeShape({batch, detections}));
  c->set_output(2, c->MakeShape({batch, detections}));
  c->set_output(3, c->Vector(batch));
  return Status();
}

}  // namespace

REGISTER_OP("ResizeBicubic")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, half, bfloat16, "
        "float, double}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape);

REGISTER_OP("ResizeArea")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, half, bfloat16, "
        "float, double}")
    .Attr("align_corners: bool = false")
    .SetShapeFn(ResizeShape);

REGISTER_OP("CropAndResize")
    .Input("image: T")
    .Input("boxes: float")
    .Input("box_ind: int32")
    .Input("crop_size: int32")
    .Output("crops: float")
    .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, double}")
    .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
    .Attr("extrapolation_value: float = 0")
    .SetShapeFn(CropAndResizeShape);

REGISTER_OP("CombinedNonMaxSuppression")
    .Input("boxes: float")
    .Input("scores: float")
    .Input("max_output_size_per_class: int32")
    .Input("max_total_size: int32")
    .Input("iou_threshold: float")
    .Input("score_threshold: float")
    .Output("nmsed_boxes: float")
    .Output("nmsed_scores: float")
    .Output("nmsed_classes: float")
    .Output("valid_detections: int32")
    .Attr("pad_per_class: bool = false")
    .Attr("clip_boxes: bool = true")
    .SetShapeFn(CombinedNmsShape);

}  // namespace weft
