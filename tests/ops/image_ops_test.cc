// Registrations and shapes of ops/image_ops.cc. The interfaces are
// TensorFlow's (image_ops.cc); expected shapes follow its ResizeShapeFn
// (checked against TensorFlow 2.21) and its kernels' checks.
#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace {

constexpr const char* kResizeOps[] = {"ResizeBilinear",
                                      "ResizeNearestNeighbor"};

ShapeInferenceTestOp Resize(const char* name) {
  ShapeInferenceTestOp op(name);
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  return op;
}

TEST(ImageOpsTest, Registrations) {
  // Bilinear interpolation always produces float; nearest neighbor copies.
  EXPECT_EQ(RegisteredSignature("ResizeBilinear"),
            "(images: T, size: int32) -> (resized_images: float)");
  EXPECT_EQ(RegisteredSignature("ResizeNearestNeighbor"),
            "(images: T, size: int32) -> (resized_images: T)");
  for (const char* name : kResizeOps) {
    SCOPED_TRACE(name);
    EXPECT_EQ(RegisteredAttr(name, "align_corners"), "bool = false");
    EXPECT_EQ(RegisteredAttr(name, "half_pixel_centers"), "bool = false");
    ShapeInferenceTestOp op(name);
    op.SetAttr("T", AttrValue::Type(DT_UINT8));
    INFER_OK(op, "[1,4,4,3];[2]", "[d0_0,?,?,d0_3]");
    op.SetAttr("T", AttrValue::Type(DT_BOOL));
    INFER_ERROR("bool", op, "[1,4,4,3];[2]");
  }
}

TEST(ImageOpsTest, ResizeShapes) {
  const Tensor size = Int32Tensor({20, 30});
  for (const char* name : kResizeOps) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op = Resize(name);
    op.input_tensors = {nullptr, &size};
    INFER_OK(op, "[1,10,10,3];[2]", "[d0_0,20,30,d0_3]");
    INFER_OK(op, "[?,?,?,?];[2]", "[d0_0,20,30,d0_3]");
    INFER_OK(op, "?;[2]", "[?,20,30,?]");
    INFER_OK(op, "?;[?]", "[?,20,30,?]");
    op.input_tensors = {};
    INFER_OK(op, "[1,10,10,3];[2]", "[d0_0,?,?,d0_3]");
    // Sizes partly known, e.g. computed from another tensor's shape.
    op.input_tensors_as_shapes = {PartialTensorShape(),
                                  PartialTensorShape({-1, 7})};
    INFER_OK(op, "[1,10,10,3];[2]", "[d0_0,?,7,d0_3]");
  }
}

TEST(ImageOpsTest, ResizeErrors) {
  for (const char* name : kResizeOps) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op = Resize(name);
    INFER_ERROR("size (input 1) must be [new_height, new_width]", op,
                "[1,10,10,3];[3]");
    INFER_ERROR("input 1 has rank 2 but rank 1 was required", op,
                "[1,10,10,3];[2,1]");
    INFER_ERROR("input 0 has rank 3 but rank 4 was required", op,
                "[10,10,3];[2]");
    // The kernels reject sizes that are not positive.
    const Tensor zero = Int32Tensor({0, 5});
    const Tensor negative = Int32Tensor({5, -1});
    op.input_tensors = {nullptr, &zero};
    INFER_ERROR(
        "size (input 1) must be two positive sizes [new_height, new_width] "
        "but is [0,5]",
        op, "[1,10,10,3];[2]");
    op.input_tensors = {nullptr, &negative};
    INFER_ERROR("but is [5,-1]", op, "[1,10,10,3];[2]");
  }
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
