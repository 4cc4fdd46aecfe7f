// Registrations and shape functions of ops/array_ops.cc. The interfaces are
// TensorFlow's (array_ops.cc, no_op.cc); Reshape's shape function is
// covered in common_shape_fns_test.cc.
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace {

TEST(ArrayOpsTest, Registrations) {
  EXPECT_EQ(RegisteredSignature("Const"), "() -> (output: dtype)");
  EXPECT_EQ(RegisteredAttr("Const", "value"), "tensor");
  EXPECT_EQ(RegisteredAttr("Const", "dtype"), "type");
  EXPECT_EQ(RegisteredSignature("Placeholder"), "() -> (output: dtype)");
  EXPECT_EQ(RegisteredAttr("Placeholder", "shape"), "shape = <unknown>");
  EXPECT_EQ(RegisteredSignature("PlaceholderWithDefault"),
            "(input: dtype) -> (output: dtype)");
  EXPECT_EQ(RegisteredAttr("PlaceholderWithDefault", "shape"), "shape");
  EXPECT_EQ(RegisteredSignature("Identity"), "(input: T) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("Identity", "T"), "type");
  EXPECT_EQ(RegisteredSignature("IdentityN"), "(input: T) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("IdentityN", "T"), "list(type) >= 1");
  EXPECT_EQ(RegisteredSignature("NoOp"), "() -> ()");
  EXPECT_EQ(RegisteredSignature("StopGradient"), "(input: T) -> (output: T)");
  EXPECT_EQ(RegisteredSignature("Reshape"),
            "(tensor: T, shape: Tshape) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("Reshape", "Tshape"),
            "type in [int32, int64] = int32");
  EXPECT_EQ(RegisteredSignature("Shape"), "(input: T) -> (output: out_type)");
  EXPECT_EQ(RegisteredAttr("Shape", "out_type"),
            "type in [int32, int64] = int32");
  EXPECT_EQ(RegisteredSignature("ExpandDims"),
            "(input: T, dim: Tdim) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("ExpandDims", "Tdim"),
            "type in [int32, int64] = int32");
  EXPECT_EQ(RegisteredSignature("Squeeze"), "(input: T) -> (output: T)");
  EXPECT_EQ(RegisteredAttr("Squeeze", "squeeze_dims"), "list(int) >= 0 = []");
}

TEST(ArrayOpsTest, Const) {
  const Tensor value(DT_FLOAT, TensorShape({2, 3}));
  ShapeInferenceTestOp op("Const");
  op.SetAttr("value", AttrValue::TensorValue(value))
      .SetAttr("dtype", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "", "[2,3]");
  op.SetAttr("value", AttrValue::TensorValue(Tensor(DT_FLOAT, TensorShape())));
  INFER_OK(op, "", "[]");
  op.SetAttr("value",
             AttrValue::TensorValue(Tensor(DT_INT32, TensorShape({0}))));
  INFER_ERROR("attr 'value' is a int32 tensor but attr 'dtype' is float", op,
              "");
  INFER_ERROR("missing attr", ShapeInferenceTestOp("Const"), "");
}

TEST(ArrayOpsTest, Placeholder) {
  ShapeInferenceTestOp op("Placeholder");
  op.SetAttr("dtype", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "", "?");
  op.SetAttr("shape", AttrValue::Shape({2, -1}));
  INFER_OK(op, "", "[2,?]");
  op.SetAttr("shape", AttrValue::Shape(PartialTensorShape(TensorShape())));
  INFER_OK(op, "", "[]");
}

TEST(ArrayOpsTest, PlaceholderWithDefault) {
  ShapeInferenceTestOp op("PlaceholderWithDefault");
  op.SetAttr("dtype", AttrValue::Type(DT_FLOAT))
      .SetAttr("shape", AttrValue::Shape({-1, 3}));
  // The declared shape, not the default's: a fed value may be any [?,3].
  INFER_OK(op, "[2,3]", "[?,3]");
  INFER_OK(op, "?", "[?,3]");
  INFER_ERROR(
      "the default value (input 0) does not fit attr 'shape' [?,3]: "
      "input 0 [2,4] and shape [?,3] are incompatible: dimension 1 "
      "is 4 vs 3",
      op, "[2,4]");
  INFER_ERROR("ranks 1 and 2 differ", op, "[3]");
}

TEST(ArrayOpsTest, IdentityLike) {
  for (const char* name : {"Identity", "StopGradient"}) {
    ShapeInferenceTestOp op(name);
    op.SetAttr("T", AttrValue::Type(DT_INT32));
    INFER_OK(op, "[2,?]", "in0");
    INFER_OK(op, "?", "in0");
  }
  ShapeInferenceTestOp op("IdentityN");
  op.SetAttr("T", AttrValue::TypeList({DT_FLOAT, DT_INT32, DT_BOOL}));
  INFER_OK(op, "[2];?;[]", "in0;in1;in2");
}

TEST(ArrayOpsTest, NoOp) { INFER_OK(ShapeInferenceTestOp("NoOp"), "", ""); }

TEST(ArrayOpsTest, Shape) {
  ShapeInferenceTestOp op("Shape");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "[2,?,3]", "[3]");
  INFER_OK(op, "[]", "[0]");
  INFER_OK(op, "?", "[?]");
  op.SetAttr("out_type", AttrValue::Type(DT_INT64));
  INFER_OK(op, "[5]", "[1]");
  op.SetAttr("out_type", AttrValue::Type(DT_FLOAT));
  INFER_ERROR("out_type", op, "[5]");
}

TEST(ArrayOpsTest, ExpandDims) {
  ShapeInferenceTestOp op("ExpandDims");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  const Tensor zero = Int32Scalar(0);
  const Tensor two = Int32Scalar(2);
  const Tensor minus_one = Int32Scalar(-1);
  const Tensor minus_three = Int32Scalar(-3);
  const Tensor one_vec = Int32Tensor({1});
  op.input_tensors = {nullptr, &zero};
  INFER_OK(op, "[2,3];[]", "[1,d0_0,d0_1]");
  INFER_OK(op, "[];[]", "[1]");
  INFER_OK(op, "?;[]", "?");
  op.input_tensors = {nullptr, &two};
  INFER_OK(op, "[2,3];[]", "[d0_0,d0_1,1]");
  op.input_tensors = {nullptr, &minus_one};
  INFER_OK(op, "[2,3];[]", "[d0_0,d0_1,1]");
  op.input_tensors = {nullptr, &minus_three};
  INFER_OK(op, "[2,3];[]", "[1,d0_0,d0_1]");
  op.input_tensors = {nullptr, &one_vec};
  INFER_OK(op, "[2,?];[1]", "[d0_0,1,d0_1]");

  // Without the axis, only the rank.
  op.input_tensors = {};
  INFER_OK(op, "[2,3];[]", "[?,?,?]");
  INFER_OK(op, "?;[]", "?");

  const Tensor three = Int32Scalar(3);
  const Tensor minus_four = Int64Scalar(-4);
  const Tensor two_values = Int32Tensor({0, 1});
  op.input_tensors = {nullptr, &three};
  INFER_ERROR(
      "dim 3 is out of range for input 0 [2,3] of rank 2; it must be "
      "in [-3, 2]",
      op, "[2,3];[]");
  op.SetAttr("Tdim", AttrValue::Type(DT_INT64));
  op.input_tensors = {nullptr, &minus_four};
  INFER_ERROR("dim -4 is out of range", op, "[2,3];[]");
  op.SetAttr("Tdim", AttrValue::Type(DT_INT32));
  op.input_tensors = {nullptr, &two_values};
  INFER_ERROR("must hold exactly one value but has shape [2]", op, "[2,3];[2]");
  op.input_tensors = {};
  INFER_ERROR("input 1 has rank 2 but rank at most 1 was required", op,
              "[2,3];[1,1]");
}

TEST(ArrayOpsTest, Squeeze) {
  ShapeInferenceTestOp op("Squeeze");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  // All size-1 dimensions.
  INFER_OK(op, "[1,2,1]", "[d0_1]");
  INFER_OK(op, "[1,1]", "[]");
  INFER_OK(op, "[2,3]", "[d0_0,d0_1]");
  // An unknown size might be 1.
  INFER_OK(op, "[?,2]", "?");
  INFER_OK(op, "?", "?");

  op.SetAttr("squeeze_dims", AttrValue::IntList({0}));
  INFER_OK(op, "[1,2,1]", "[d0_1,d0_2]");
  INFER_OK(op, "[?,2]", "[d0_1]");  // taken to be 1
  INFER_OK(op, "[1,?]", "[d0_1]");
  op.SetAttr("squeeze_dims", AttrValue::IntList({-1, 0}));
  INFER_OK(op, "[1,2,1]", "[d0_1]");

  op.SetAttr("squeeze_dims", AttrValue::IntList({1}));
  INFER_ERROR(
      "cannot squeeze dimension 1 of input 0 [1,2,1]: its size is 2, "
      "not 1",
      op, "[1,2,1]");
  op.SetAttr("squeeze_dims", AttrValue::IntList({3}));
  INFER_ERROR(
      "attr 'squeeze_dims' names dimension 3 but input 0 [1,2,1] has "
      "rank 3; dimensions must be in [-3, 3)",
      op, "[1,2,1]");
  op.SetAttr("squeeze_dims", AttrValue::IntList({-4}));
  INFER_ERROR("names dimension -4", op, "[1,2,1]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
