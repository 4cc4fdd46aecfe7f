// Image ops: resizing. Names, arguments, attrs and defaults follow
// TensorFlow's image_ops.cc so graph files validate unchanged.
#include <vector>

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

}  // namespace weft
