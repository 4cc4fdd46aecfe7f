// Registrations and shape functions of ops/array_ops.cc. The interfaces are
// TensorFlow's (array_ops.cc, no_op.cc); Reshape's shape function is
// covered in common_shape_fns_test.cc.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
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

// ---- shared helpers ---------------------------------------------------------

ShapeInferenceTestOp Typed(const char* name, DataType t = DT_FLOAT) {
  ShapeInferenceTestOp op(name);
  op.SetAttr("T", AttrValue::Type(t));
  return op;
}

// A [rows, 2] int32 paddings matrix.
Tensor Paddings(const std::vector<std::pair<int32_t, int32_t>>& rows) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(rows.size()), 2}));
  for (size_t i = 0; i < rows.size(); ++i) {
    t.data<int32_t>()[2 * i] = rows[i].first;
    t.data<int32_t>()[2 * i + 1] = rows[i].second;
  }
  return t;
}

TEST(ArrayOpsTest, PassThroughOps) {
  EXPECT_EQ(RegisteredAttr("PreventGradient", "message"), "string = \"\"");
  for (const char* name :
       {"PreventGradient", "Snapshot", "ZerosLike", "OnesLike"}) {
    SCOPED_TRACE(name);
    INFER_OK(Typed(name), "[2,?]", "in0");
    INFER_OK(Typed(name), "?", "in0");
  }
  // OnesLike needs a type with a one: bool yes, string no.
  INFER_OK(Typed("OnesLike", DT_BOOL), "[3]", "in0");
  INFER_ERROR("string", Typed("OnesLike", DT_STRING), "[3]");
  INFER_OK(Typed("ZerosLike", DT_STRING), "[3]", "in0");
}

TEST(ArrayOpsTest, SizeAndRank) {
  EXPECT_EQ(RegisteredSignature("Rank"), "(input: T) -> (output: int32)");
  EXPECT_EQ(RegisteredSignature("Size"), "(input: T) -> (output: out_type)");
  for (const char* name : {"Size", "Rank"}) {
    SCOPED_TRACE(name);
    INFER_OK(Typed(name), "[2,?,3]", "[]");
    INFER_OK(Typed(name), "?", "[]");
    INFER_OK(Typed(name), "[]", "[]");
  }
}

// ---- Transpose --------------------------------------------------------------

TEST(ArrayOpsTest, TransposeWithKnownPerm) {
  ShapeInferenceTestOp op = Typed("Transpose");
  const Tensor perm = Int32Tensor({1, 0, 2});
  op.input_tensors = {nullptr, &perm};
  INFER_OK(op, "[2,?,3];[3]", "[d0_1,d0_0,d0_2]");
  // The perm's value gives the rank of an input of unknown rank.
  INFER_OK(op, "?;[3]", "[?,?,?]");
  // Negative entries count from the end (TensorFlow's kernel accepts them).
  const Tensor negative = Int32Tensor({-1, 0, -2});
  op.input_tensors = {nullptr, &negative};
  INFER_OK(op, "[2,?,3];[3]", "[d0_2,d0_0,d0_1]");
  const Tensor perm64 = Int64Tensor({2, 1, 0});
  op.SetAttr("Tperm", AttrValue::Type(DT_INT64));
  op.input_tensors = {nullptr, &perm64};
  INFER_OK(op, "[2,?,3];[3]", "[d0_2,d0_1,d0_0]");
}

TEST(ArrayOpsTest, TransposeWithoutPerm) {
  const ShapeInferenceTestOp op = Typed("Transpose");
  INFER_OK(op, "[2,?,3];[3]", "[?,?,?]");
  INFER_OK(op, "?;[3]", "[?,?,?]");
  INFER_OK(op, "?;[?]", "?");
  // A permutation of one element changes nothing, whatever the rank.
  INFER_OK(op, "?;[1]", "in0");
  INFER_OK(op, "[]; [0]", "[]");
}

TEST(ArrayOpsTest, TransposeErrors) {
  ShapeInferenceTestOp op = Typed("Transpose");
  INFER_ERROR(
      "perm (input 1) must have one entry per dimension of input 0 [2,3,4]", op,
      "[2,3,4];[2]");
  INFER_ERROR("input 1 has rank 2 but rank 1 was required", op, "[2,3];[2,2]");
  const Tensor dup = Int32Tensor({0, 0, 1});
  const Tensor big = Int32Tensor({0, 3, 1});
  const Tensor low = Int32Tensor({-4, 0, 1});
  const Tensor short_perm = Int32Tensor({0, 1});
  for (const Tensor* perm : {&dup, &big, &low}) {
    op.input_tensors = {nullptr, perm};
    INFER_ERROR("must be a permutation of the dimensions of input 0 (rank 3)",
                op, "[2,3,4];[3]");
  }
  op.input_tensors = {nullptr, &short_perm};
  INFER_ERROR("perm (input 1) is [0,1] but input 0 has rank 3", op,
              "[2,3,4];[?]");
  // Malformed constant values.
  const Tensor floats(DT_FLOAT, TensorShape({3}));
  op.input_tensors = {nullptr, &floats};
  INFER_ERROR(
      "input 1 must be an integer tensor (int8, int16, int32 or int64) but "
      "its value is float",
      op, "[2,3,4];[3]");
  const Tensor matrix(DT_INT32, TensorShape({3, 1}));
  op.input_tensors = {nullptr, &matrix};
  INFER_ERROR("input 1 must have rank at most 1 but its value has shape [3,1]",
              op, "[2,3,4];[3]");
}

// ---- ConcatV2, Pack, Unpack -------------------------------------------------

ShapeInferenceTestOp Concat(int n) {
  ShapeInferenceTestOp op = Typed("ConcatV2");
  op.SetAttr("N", AttrValue::Int(n));
  return op;
}

TEST(ArrayOpsTest, ConcatV2WithKnownAxis) {
  ShapeInferenceTestOp op = Concat(2);
  const Tensor zero = Int32Scalar(0);
  const Tensor one = Int32Scalar(1);
  const Tensor minus_one = Int32Scalar(-1);
  op.input_tensors = {nullptr, nullptr, &zero};
  INFER_OK(op, "[2,3];[4,3];[]", "[6,d0_1]");
  // The other dimensions merge: each side may know what the other does not.
  INFER_OK(op, "[?,3];[2,?];[]", "[?,d0_1]");
  // Adding 0 keeps the other size's very dimension.
  INFER_OK(op, "[0,3];[5,3];[]", "[d1_0,d0_1]");
  // An input of unknown rank takes the others' rank.
  INFER_OK(op, "?;[2,3];[]", "[?,d1_1]");
  INFER_OK(op, "?;?;[]", "?");
  op.input_tensors = {nullptr, nullptr, &one};
  INFER_OK(op, "[?,3];[2,?];[]", "[d1_0,?]");
  op.input_tensors = {nullptr, nullptr, &minus_one};
  INFER_OK(op, "[2,3];[2,4];[]", "[d0_0,7]");

  ShapeInferenceTestOp three = Concat(3);
  three.input_tensors = {nullptr, nullptr, nullptr, &zero};
  INFER_OK(three, "[1,2];[3,2];[4,?];[]", "[8,d0_1]");

  const Tensor one64 = Int64Scalar(1);
  op.SetAttr("Tidx", AttrValue::Type(DT_INT64));
  op.input_tensors = {nullptr, nullptr, &one64};
  INFER_OK(op, "[2,3];[2,4];[]", "[d0_0,7]");
}

TEST(ArrayOpsTest, ConcatV2WithUnknownAxis) {
  const ShapeInferenceTestOp op = Concat(2);
  INFER_OK(op, "[2,3];[4,3];[]", "[?,?]");
  INFER_OK(op, "?;[4,3];[]", "[?,?]");
  INFER_OK(op, "?;?;[]", "?");
  INFER_ERROR("input 2 has rank 1 but rank 0 was required", op,
              "[2,3];[4,3];[1]");
}

TEST(ArrayOpsTest, ConcatV2Errors) {
  ShapeInferenceTestOp op = Concat(2);
  INFER_ERROR("input 0 is a scalar; scalars cannot be concatenated", op,
              "[];[];[]");
  INFER_ERROR(
      "all inputs to concatenate must have the rank of input 0 [2,3]: "
      "input 1 has rank 1 but rank 2 was required",
      op, "[2,3];[2];[]");
  const Tensor zero = Int32Scalar(0);
  const Tensor two = Int32Scalar(2);
  const Tensor minus_three = Int32Scalar(-3);
  op.input_tensors = {nullptr, nullptr, &zero};
  INFER_ERROR(
      "input 1 [2,4] must match input 0 [2,3] in every dimension but the "
      "axis 0, and dimension 1 differs",
      op, "[2,3];[2,4];[]");
  op.input_tensors = {nullptr, nullptr, &two};
  INFER_ERROR("axis (input 2) is 2 but must be in [-2, 2)", op,
              "[2,3];[2,4];[]");
  op.input_tensors = {nullptr, nullptr, &minus_three};
  INFER_ERROR("axis (input 2) is -3", op, "[2,3];[2,4];[]");
  INFER_ERROR("N", Concat(1), "[2];[]");  // N >= 2
}

TEST(ArrayOpsTest, Pack) {
  ShapeInferenceTestOp op = Typed("Pack");
  op.SetAttr("N", AttrValue::Int(2));
  INFER_OK(op, "[2,3];[2,3]", "[2,d0_0,d0_1]");
  INFER_OK(op, "?;?", "?");
  INFER_OK(op, "?;[2]", "[2,d1_0]");
  op.SetAttr("axis", AttrValue::Int(1));
  INFER_OK(op, "[2,3];[2,3]", "[d0_0,2,d0_1]");
  op.SetAttr("axis", AttrValue::Int(2));
  INFER_OK(op, "[2,3];[2,3]", "[d0_0,d0_1,2]");
  op.SetAttr("axis", AttrValue::Int(-1));
  // The inputs merge before stacking.
  INFER_OK(op, "[?,3];[2,?]", "[d1_0,d0_1,2]");
  op.SetAttr("axis", AttrValue::Int(-3));
  INFER_OK(op, "[2,3];[2,3]", "[2,d0_0,d0_1]");

  ShapeInferenceTestOp one = Typed("Pack");
  one.SetAttr("N", AttrValue::Int(1));
  INFER_OK(one, "[]", "[1]");

  op.SetAttr("axis", AttrValue::Int(0));
  INFER_ERROR("all inputs to stack must have one shape", op, "[2];[3]");
  op.SetAttr("axis", AttrValue::Int(2));
  INFER_ERROR(
      "attr 'axis' is 2 but must be in [-2, 2) to stack inputs of "
      "rank 1",
      op, "[2];[2]");
  op.SetAttr("axis", AttrValue::Int(-3));
  INFER_ERROR("attr 'axis' is -3", op, "[2];[2]");
}

TEST(ArrayOpsTest, Unpack) {
  ShapeInferenceTestOp op = Typed("Unpack");
  op.SetAttr("num", AttrValue::Int(3));
  INFER_OK(op, "[3,4]", "[d0_1];[d0_1];[d0_1]");
  INFER_OK(op, "[?,4]", "[d0_1];[d0_1];[d0_1]");
  INFER_OK(op, "?", "?;?;?");
  op.SetAttr("axis", AttrValue::Int(-1));
  INFER_OK(op, "[2,3]", "[d0_0];[d0_0];[d0_0]");
  op.SetAttr("num", AttrValue::Int(0)).SetAttr("axis", AttrValue::Int(0));
  INFER_OK(op, "[0,5]", "");

  op.SetAttr("num", AttrValue::Int(2));
  INFER_ERROR(
      "attr 'num' is 2 but must be the size of axis 0 of input 0 "
      "[3,4]",
      op, "[3,4]");
  op.SetAttr("axis", AttrValue::Int(2));
  INFER_ERROR("attr 'axis' is 2 but must be in [-2, 2)", op, "[2,2]");
  INFER_ERROR("attr 'axis' is 2 but must be in [-1, 1)", op, "[2]");
}

// ---- Split, SplitV ----------------------------------------------------------

TEST(ArrayOpsTest, Split) {
  ShapeInferenceTestOp op = Typed("Split");
  op.SetAttr("num_split", AttrValue::Int(2));
  const Tensor one = Int32Scalar(1);
  const Tensor minus_two = Int32Scalar(-2);
  op.input_tensors = {&one};
  INFER_OK(op, "[];[4,6]", "[d1_0,3];[d1_0,3]");
  INFER_OK(op, "[];[4,?]", "[d1_0,?];[d1_0,?]");
  INFER_OK(op, "[];?", "?;?");
  op.input_tensors = {&minus_two};
  INFER_OK(op, "[];[4,6]", "[2,d1_1];[2,d1_1]");
  // A negative axis needs the rank.
  INFER_OK(op, "[];?", "?;?");
  op.input_tensors = {};
  INFER_OK(op, "[];[4,6]", "[?,?];[?,?]");
  INFER_OK(op, "[];?", "?;?");
  ShapeInferenceTestOp whole = Typed("Split");
  whole.SetAttr("num_split", AttrValue::Int(1));
  whole.input_tensors = {&one};
  INFER_OK(whole, "[];[4,6]", "[d1_0,d1_1]");
}

TEST(ArrayOpsTest, SplitErrors) {
  ShapeInferenceTestOp op = Typed("Split");
  op.SetAttr("num_split", AttrValue::Int(2));
  const Tensor one = Int32Scalar(1);
  const Tensor two = Int32Scalar(2);
  op.input_tensors = {&one};
  INFER_ERROR(
      "cannot split dimension 1 of input 1 [4,5] into 2 equal parts: "
      "dimension size 5 is not evenly divisible by 2",
      op, "[];[4,5]");
  INFER_ERROR("input 0 is the axis 1 but it must be in [-1, 1)", op, "[];[4]");
  op.input_tensors = {&two};
  INFER_ERROR("input 0 is the axis 2 but it must be in [-2, 2)", op,
              "[];[4,6]");
  INFER_ERROR("input 0 has rank 1 but rank 0 was required", op, "[1];[4,6]");
  op.SetAttr("num_split", AttrValue::Int(0));
  INFER_ERROR("num_split", op, "[];[4,6]");
}

ShapeInferenceTestOp SplitV(int n) {
  ShapeInferenceTestOp op = Typed("SplitV");
  op.SetAttr("num_split", AttrValue::Int(n));
  return op;
}

TEST(ArrayOpsTest, SplitV) {
  ShapeInferenceTestOp op = SplitV(3);
  const Tensor sizes = Int64Tensor({3, -1, 2});
  const Tensor zero = Int32Scalar(0);
  op.input_tensors = {nullptr, &sizes, &zero};
  // -1 takes what the others leave: 10 - 3 - 2.
  INFER_OK(op, "[10,4];[3];[]", "[3,d0_1];[5,d0_1];[2,d0_1]");
  INFER_OK(op, "[?,4];[3];[]", "[3,d0_1];[?,d0_1];[2,d0_1]");
  INFER_OK(op, "?;[3];[]", "?;?;?");

  ShapeInferenceTestOp two = SplitV(2);
  const Tensor sizes32 = Int32Tensor({1, 3});
  const Tensor minus_one = Int32Scalar(-1);
  two.SetAttr("Tlen", AttrValue::Type(DT_INT32));
  two.input_tensors = {nullptr, &sizes32, &minus_one};
  INFER_OK(two, "[2,4];[2];[]", "[d0_0,1];[d0_0,3]");
  // Unknown sizes: only the split dimension is unknown.
  two.input_tensors = {nullptr, nullptr, &zero};
  INFER_OK(two, "[10,4];[2];[]", "[?,d0_1];[?,d0_1]");
  // Unknown axis: only the rank is known.
  two.input_tensors = {nullptr, &sizes32, nullptr};
  INFER_OK(two, "[2,4];[2];[]", "[?,?];[?,?]");
  // int8 sizes.
  Tensor sizes8(DT_INT8, TensorShape({2}));
  sizes8.data<int8_t>()[0] = -1;
  sizes8.data<int8_t>()[1] = 3;
  two.SetAttr("Tlen", AttrValue::Type(DT_INT8));
  two.input_tensors = {nullptr, &sizes8, &zero};
  INFER_OK(two, "[10,4];[2];[]", "[7,d0_1];[3,d0_1]");
}

TEST(ArrayOpsTest, SplitVErrors) {
  ShapeInferenceTestOp op = SplitV(3);
  const Tensor zero = Int32Scalar(0);
  const Tensor two_wild = Int64Tensor({3, -1, -1});
  const Tensor too_few = Int64Tensor({3, 4, 2});
  const Tensor too_many = Int64Tensor({8, -1, 5});
  const Tensor negative = Int64Tensor({-2, 10, 2});
  op.input_tensors = {nullptr, &two_wild, &zero};
  INFER_ERROR("at most one size can be -1", op, "[10];[3];[]");
  op.input_tensors = {nullptr, &too_few, &zero};
  INFER_ERROR(
      "cannot split dimension 0 of size 10 of input 0 [10] into parts of "
      "sizes [3,4,2]",
      op, "[10];[3];[]");
  op.input_tensors = {nullptr, &too_many, &zero};
  INFER_ERROR("into parts of sizes [8,-1,5]", op, "[10];[3];[]");
  op.input_tensors = {nullptr, &negative, &zero};
  INFER_ERROR("sizes must be >= 0, or -1 for the rest", op, "[10];[3];[]");
  op.input_tensors = {};
  INFER_ERROR("size_splits (input 1) must have num_split = 3 entries", op,
              "[10];[2];[]");
  INFER_ERROR("input 0 is a scalar; scalars cannot be split", op, "[];[3];[]");
  const Tensor three = Int32Scalar(3);
  op.input_tensors = {nullptr, nullptr, &three};
  INFER_ERROR("input 2 is the axis 3 but it must be in [-2, 2)", op,
              "[10,4];[3];[]");
}

// ---- Slice ------------------------------------------------------------------

ShapeInferenceTestOp Slice() {
  ShapeInferenceTestOp op = Typed("Slice");
  op.SetAttr("Index", AttrValue::Type(DT_INT32));
  return op;
}

TEST(ArrayOpsTest, SliceWithKnownValues) {
  ShapeInferenceTestOp op = Slice();
  const Tensor begin = Int32Tensor({1, 0, 2});
  const Tensor size = Int32Tensor({2, -1, 3});
  op.input_tensors = {nullptr, &begin, &size};
  // size -1 from begin 0 keeps the whole dimension.
  INFER_OK(op, "[4,5,6];[3];[3]", "[2,d0_1,3]");
  INFER_OK(op, "?;[3];[3]", "[2,?,3]");
  const Tensor begin2 = Int32Tensor({1, 1, 2});
  const Tensor rest = Int32Tensor({2, -1, -1});
  op.input_tensors = {nullptr, &begin2, &rest};
  INFER_OK(op, "[4,5,6];[3];[3]", "[2,4,4]");
  INFER_OK(op, "[4,?,6];[3];[3]", "[2,?,4]");
  // An empty slice at the end is fine.
  const Tensor at_end = Int32Tensor({4});
  const Tensor empty = Int32Tensor({0});
  op.input_tensors = {nullptr, &at_end, &empty};
  INFER_OK(op, "[4];[1];[1]", "[0]");
}

TEST(ArrayOpsTest, SliceWithUnknownValues) {
  ShapeInferenceTestOp op = Slice();
  const Tensor size = Int32Tensor({2, -1});
  op.input_tensors = {nullptr, nullptr, &size};
  INFER_OK(op, "[4,5];[2];[2]", "[2,?]");
  op.input_tensors = {};
  INFER_OK(op, "[4,5];[2];[2]", "[?,?]");
  INFER_OK(op, "?;[3];[3]", "[?,?,?]");
  INFER_OK(op, "?;[?];[?]", "?");
  // Known begin alone gives the rank.
  const Tensor begin = Int32Tensor({0, 0});
  op.input_tensors = {nullptr, &begin};
  INFER_OK(op, "?;[?];[?]", "[?,?]");
  // Sizes partly known as a shape (-1 stays unknown).
  op.input_tensors = {};
  op.input_tensors_as_shapes = {PartialTensorShape(), PartialTensorShape(),
                                PartialTensorShape({2, -1})};
  INFER_OK(op, "[4,5];[2];[2]", "[2,?]");
}

TEST(ArrayOpsTest, SliceErrors) {
  ShapeInferenceTestOp op = Slice();
  INFER_ERROR("begin (input 1) and size (input 2) must have one length", op,
              "[4,5];[2];[3]");
  INFER_ERROR("begin and size have 3 entries, one per dimension of input 0", op,
              "[4,5];[3];[3]");
  const Tensor five = Int32Tensor({5});
  const Tensor one = Int32Tensor({1});
  const Tensor minus_one = Int32Tensor({-1});
  const Tensor minus_two = Int32Tensor({-2});
  const Tensor four = Int32Tensor({4});
  op.input_tensors = {nullptr, &five, &minus_one};
  INFER_ERROR("begin[0] = 5 must be in [0, 4] for dimension 0 of input 0 [4]",
              op, "[4];[1];[1]");
  op.input_tensors = {nullptr, &minus_one, &one};
  INFER_ERROR("begin[0] = -1 must be in", op, "[4];[1];[1]");
  op.input_tensors = {nullptr, &one, &four};
  INFER_ERROR("slice [1, 1 + 4) of dimension 0 of input 0 [4] is out of bounds",
              op, "[4];[1];[1]");
  op.input_tensors = {nullptr, &one, &minus_two};
  INFER_ERROR("sizes must be >= 0, or -1 for the rest of the dimension", op,
              "[4];[1];[1]");
}

// ---- StridedSlice -----------------------------------------------------------

struct SliceSpec {
  std::vector<int32_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
          shrink_axis_mask = 0;
};

// Infers input[spec] with begin, end and strides all constant. Expected
// shapes were checked against TensorFlow 2.21's own shape inference (a
// fresh dimension where TensorFlow says None is written "?"; weft keeps the
// input's dimension where the slice takes all of it).
::testing::AssertionResult SliceOk(const std::string& input,
                                   const SliceSpec& spec,
                                   const std::string& expected) {
  ShapeInferenceTestOp op = Typed("StridedSlice");
  op.SetAttr("Index", AttrValue::Type(DT_INT32))
      .SetAttr("begin_mask", AttrValue::Int(spec.begin_mask))
      .SetAttr("end_mask", AttrValue::Int(spec.end_mask))
      .SetAttr("ellipsis_mask", AttrValue::Int(spec.ellipsis_mask))
      .SetAttr("new_axis_mask", AttrValue::Int(spec.new_axis_mask))
      .SetAttr("shrink_axis_mask", AttrValue::Int(spec.shrink_axis_mask));
  const Tensor b = Int32Tensor(spec.begin);
  const Tensor e = Int32Tensor(spec.end);
  const Tensor s = Int32Tensor(spec.strides);
  op.input_tensors = {nullptr, &b, &e, &s};
  const std::string n = absl::StrCat("[", spec.strides.size(), "]");
  const std::string shapes = absl::StrCat(input, ";", n, ";", n, ";", n);
  if (expected.rfind("error:", 0) == 0) {
    return InferError(expected.substr(6), op, shapes);
  }
  return InferOk(op, shapes, expected);
}

TEST(ArrayOpsTest, StridedSliceRanges) {
  // x[1:3]: the implicit ellipsis keeps dimension 1 whole.
  EXPECT_TRUE(SliceOk("[5,6]", {{1}, {3}, {1}}, "[2,d0_1]"));
  // x[1:10:3] on 8: indices 1, 4, 7.
  EXPECT_TRUE(SliceOk("[8]", {{1}, {10}, {3}}, "[3]"));
  // x[5:1:-2] on 8: indices 5, 3.
  EXPECT_TRUE(SliceOk("[8]", {{5}, {1}, {-2}}, "[2]"));
  // x[-100:100] clamps to the whole dimension.
  EXPECT_TRUE(SliceOk("[8]", {{-100}, {100}, {1}}, "[d0_0]"));
  // x[3:1] is empty.
  EXPECT_TRUE(SliceOk("[8]", {{3}, {1}, {1}}, "[0]"));
  // x[-3:-1] on 8: indices 5, 6.
  EXPECT_TRUE(SliceOk("[8]", {{-3}, {-1}, {1}}, "[2]"));
  // x[::-1] reverses: 5 elements, but not "the same" dimension.
  SliceSpec reverse{{0}, {0}, {-1}};
  reverse.begin_mask = reverse.end_mask = 1;
  EXPECT_TRUE(SliceOk("[5]", reverse, "[5]"));
  // x[::-2] over 6 rows: 5, 3, 1.
  SliceSpec every_other{{0}, {0}, {-2}};
  every_other.begin_mask = every_other.end_mask = 1;
  EXPECT_TRUE(SliceOk("[6,4]", every_other, "[3,d0_1]"));
  // x[:, :, ::2] with unknown leading sizes.
  SliceSpec strided{{0, 0, 0}, {0, 0, 0}, {1, 1, 2}};
  strided.begin_mask = strided.end_mask = 7;
  EXPECT_TRUE(SliceOk("[?,?,7]", strided, "[d0_0,d0_1,4]"));
  // x[-1:] on an unknown size: one element, but that is not provable.
  SliceSpec last{{-1}, {0}, {1}};
  last.end_mask = 1;
  EXPECT_TRUE(SliceOk("[?,4]", last, "[?,d0_1]"));
  // A whole dimension of size 0 stays that dimension.
  SliceSpec all{{0}, {0}, {1}};
  all.begin_mask = all.end_mask = 1;
  EXPECT_TRUE(SliceOk("[0,3]", all, "[d0_0,d0_1]"));
  // Nothing to slice in a scalar.
  EXPECT_TRUE(SliceOk("[]", {{}, {}, {}}, "[]"));
}

TEST(ArrayOpsTest, StridedSliceMasks) {
  // x[:, 0] (begin_mask/end_mask on term 0, shrink on term 1).
  SliceSpec column{{0, 0}, {0, 1}, {1, 1}};
  column.begin_mask = column.end_mask = 1;
  column.shrink_axis_mask = 2;
  EXPECT_TRUE(SliceOk("[?,6]", column, "[d0_0]"));
  // x[-1] counts from the end and drops the dimension.
  SliceSpec last{{-1}, {0}, {1}};
  last.shrink_axis_mask = 1;
  EXPECT_TRUE(SliceOk("[5,3]", last, "[d0_1]"));
  EXPECT_TRUE(SliceOk("[?]", last, "[]"));
  // x[..., 1:] on [2,3,4].
  SliceSpec tail{{0, 1}, {0, 0}, {1, 1}};
  tail.ellipsis_mask = 1;
  tail.end_mask = 2;
  EXPECT_TRUE(SliceOk("[2,3,4]", tail, "[d0_0,d0_1,3]"));
  // x[tf.newaxis, ..., 0] on [2,3,4].
  SliceSpec front{{0, 0, 0}, {0, 0, 1}, {1, 1, 1}};
  front.new_axis_mask = 1;
  front.ellipsis_mask = 2;
  front.shrink_axis_mask = 4;
  EXPECT_TRUE(SliceOk("[2,3,4]", front, "[1,d0_0,d0_1]"));
  // x[:, tf.newaxis] on [2,3].
  SliceSpec middle{{0, 0}, {0, 0}, {1, 1}};
  middle.begin_mask = middle.end_mask = 1;
  middle.new_axis_mask = 2;
  EXPECT_TRUE(SliceOk("[2,3]", middle, "[d0_0,1,d0_1]"));
  // x[0, ..., tf.newaxis, 1] on [2,3,4,5]: the new axis after the ellipsis
  // takes no input dimension, so the ellipsis covers dimensions 1 and 2.
  SliceSpec both{{0, 0, 0, 1}, {1, 0, 0, 2}, {1, 1, 1, 1}};
  both.shrink_axis_mask = 9;
  both.ellipsis_mask = 2;
  both.new_axis_mask = 4;
  EXPECT_TRUE(SliceOk("[2,3,4,5]", both, "[d0_1,d0_2,1]"));
  // An ellipsis that covers nothing.
  SliceSpec empty_ellipsis{{0, 1}, {0, 2}, {1, 1}};
  empty_ellipsis.ellipsis_mask = 1;
  EXPECT_TRUE(SliceOk("[4]", empty_ellipsis, "[1]"));
  // begin_mask with a negative stride starts at the end.
  SliceSpec from_end{{0}, {1}, {-1}};
  from_end.begin_mask = 1;
  EXPECT_TRUE(SliceOk("[5]", from_end, "[3]"));  // indices 4, 3, 2
}

TEST(ArrayOpsTest, StridedSlicePartlyKnown) {
  ShapeInferenceTestOp op = Typed("StridedSlice");
  op.SetAttr("Index", AttrValue::Type(DT_INT32));
  // No values known: the masks alone fix the rank (TensorFlow gives up and
  // says unknown rank).
  INFER_OK(op, "[2,3];[2];[2];[2]", "[?,?]");
  INFER_OK(op, "?;[2];[2];[2]", "?");
  INFER_OK(op, "[2,3];[?];[?];[?]", "?");
  // Strides known, bounds not: masked and shrunk terms still tell (checked
  // against TensorFlow: (3,) and (None, 2)).
  const Tensor ones = Int32Tensor({1, 1});
  const Tensor one_two = Int32Tensor({1, 2});
  op.SetAttr("begin_mask", AttrValue::Int(2))
      .SetAttr("end_mask", AttrValue::Int(2));
  op.SetAttr("shrink_axis_mask", AttrValue::Int(1));
  op.input_tensors = {nullptr, nullptr, nullptr, &ones};
  INFER_OK(op, "[2,3];[2];[2];[2]", "[d0_1]");
  op.SetAttr("shrink_axis_mask", AttrValue::Int(0));
  op.input_tensors = {nullptr, nullptr, nullptr, &one_two};
  INFER_OK(op, "[2,3];[2];[2];[2]", "[?,2]");
  // Bounds known, strides not: a shrunk term still removes its dimension
  // (TensorFlow gives up here; the rank is certain).
  const Tensor zeros = Int32Tensor({0, 0});
  op.SetAttr("begin_mask", AttrValue::Int(0))
      .SetAttr("end_mask", AttrValue::Int(0));
  op.SetAttr("shrink_axis_mask", AttrValue::Int(1));
  op.input_tensors = {nullptr, &zeros, &ones, nullptr};
  INFER_OK(op, "[2,3];[2];[2];[2]", "[?]");
  // The number of terms may come from a known value alone.
  op.input_tensors = {nullptr, &zeros, &ones, &ones};
  INFER_OK(op, "[2,3];[?];[?];[?]", "[1]");
}

TEST(ArrayOpsTest, StridedSliceInt16Indices) {
  ShapeInferenceTestOp op = Typed("StridedSlice");
  op.SetAttr("Index", AttrValue::Type(DT_INT16));
  Tensor b(DT_INT16, TensorShape({1}));
  Tensor e(DT_INT16, TensorShape({1}));
  Tensor s(DT_INT16, TensorShape({1}));
  b.data<int16_t>()[0] = -2;
  e.data<int16_t>()[0] = 0;
  s.data<int16_t>()[0] = 1;
  op.SetAttr("end_mask", AttrValue::Int(1));
  op.input_tensors = {nullptr, &b, &e, &s};
  INFER_OK(op, "[8,3];[1];[1];[1]", "[2,d0_1]");  // x[-2:]
}

TEST(ArrayOpsTest, StridedSliceInt64Indices) {
  ShapeInferenceTestOp op = Typed("StridedSlice");
  op.SetAttr("Index", AttrValue::Type(DT_INT64));
  const Tensor b = Int64Tensor({1});
  const Tensor e = Int64Tensor({int64_t{1} << 40});
  const Tensor s = Int64Tensor({2});
  op.input_tensors = {nullptr, &b, &e, &s};
  INFER_OK(op, "[8,3];[1];[1];[1]", "[4,d0_1]");  // indices 1, 3, 5, 7
}

TEST(ArrayOpsTest, StridedSliceErrors) {
  SliceSpec out_of_bounds{{5}, {6}, {1}};
  out_of_bounds.shrink_axis_mask = 1;
  EXPECT_TRUE(SliceOk("[5]", out_of_bounds,
                      "error:slice term 0 takes index 5 of input dimension 0 "
                      "of size 5, out of bounds"));
  SliceSpec too_negative{{-6}, {0}, {1}};
  too_negative.shrink_axis_mask = 1;
  EXPECT_TRUE(SliceOk("[5]", too_negative, "error:takes index -6"));
  EXPECT_TRUE(SliceOk("[5]", {{0}, {5}, {0}},
                      "error:the stride of slice term 0 is 0; strides must be "
                      "non-zero"));
  SliceSpec too_many{{0, 1, 2}, {1, 2, 3}, {1, 1, 1}};
  too_many.shrink_axis_mask = 6;
  EXPECT_TRUE(SliceOk("[3,3]", too_many,
                      "error:slice term 2 indexes input dimension 2 but the "
                      "input has only 2 dimensions"));
  SliceSpec two_ellipses{{0, 0}, {0, 0}, {1, 1}};
  two_ellipses.ellipsis_mask = 3;
  EXPECT_TRUE(SliceOk("[3,3]", two_ellipses,
                      "error:attr 'ellipsis_mask' is 3; at most one ellipsis "
                      "is allowed"));
  SliceSpec backwards_index{{1}, {2}, {-1}};
  backwards_index.shrink_axis_mask = 1;
  EXPECT_TRUE(SliceOk("[6]", backwards_index,
                      "error:slice term 0 takes a single index "
                      "(shrink_axis_mask) but its stride is -1; it must be "
                      "positive"));
  SliceSpec huge_mask{{0}, {1}, {1}};
  huge_mask.begin_mask = int64_t{1} << 40;
  EXPECT_TRUE(SliceOk("[6]", huge_mask,
                      "error:attr 'begin_mask' is 1099511627776; masks are "
                      "32-bit integers"));

  ShapeInferenceTestOp op = Typed("StridedSlice");
  op.SetAttr("Index", AttrValue::Type(DT_INT32));
  INFER_ERROR("begin (input 1) and end (input 2) must have one length", op,
              "[5];[2];[1];[1]");
  INFER_ERROR("begin (input 1) and strides (input 3) must have one length", op,
              "[5];[1];[1];[2]");
  INFER_ERROR("input 1 has rank 2 but rank 1 was required", op,
              "[5];[1,1];[1];[1]");
  // 32 terms do not fit the masks.
  const Tensor many(DT_INT32, TensorShape({32}));
  op.input_tensors = {nullptr, &many};
  INFER_ERROR("the slice has 32 terms", op, "[5];[32];[32];[32]");
}

// ---- Pad, PadV2, MirrorPad --------------------------------------------------

TEST(ArrayOpsTest, Pad) {
  ShapeInferenceTestOp op = Typed("Pad");
  const Tensor pads = Paddings({{1, 2}, {0, 3}});
  const Tensor keep_rows = Paddings({{0, 0}, {1, 1}});
  op.input_tensors = {nullptr, &pads};
  INFER_OK(op, "[2,3];[2,2]", "[5,6]");
  INFER_OK(op, "[?,3];[2,2]", "[?,6]");
  INFER_OK(op, "?;[2,2]", "[?,?]");
  op.input_tensors = {nullptr, &keep_rows};
  // Adding 0 keeps the very dimension.
  INFER_OK(op, "[2,3];[2,2]", "[d0_0,5]");
  op.input_tensors = {};
  INFER_OK(op, "[2,3];[2,2]", "[?,?]");
  INFER_OK(op, "[2,3];[?,2]", "[?,?]");
  INFER_OK(op, "?;[3,2]", "[?,?,?]");
  INFER_OK(op, "?;[?,2]", "?");

  Tensor pads64(DT_INT64, TensorShape({1, 2}));
  pads64.data<int64_t>()[0] = 4;
  pads64.data<int64_t>()[1] = 5;
  op.SetAttr("Tpaddings", AttrValue::Type(DT_INT64));
  op.input_tensors = {nullptr, &pads64};
  INFER_OK(op, "[1];[1,2]", "[10]");

  ShapeInferenceTestOp v2 = Typed("PadV2");
  v2.input_tensors = {nullptr, &pads};
  INFER_OK(v2, "[2,3];[2,2];[]", "[5,6]");
}

TEST(ArrayOpsTest, PadErrors) {
  ShapeInferenceTestOp op = Typed("Pad");
  INFER_ERROR("paddings (input 1) must be [rank, 2]", op, "[2,3];[2,3]");
  INFER_ERROR("input 1 has rank 1 but rank 2 was required", op, "[2,3];[2]");
  INFER_ERROR(
      "paddings (input 1) [3,2] must have one row per dimension of input 0", op,
      "[2,3];[3,2]");
  const Tensor negative = Paddings({{0, 0}, {-1, 0}});
  op.input_tensors = {nullptr, &negative};
  INFER_ERROR("paddings (input 1) are [0,0,-1,0] but must be >= 0", op,
              "[2,3];[2,2]");
  // A value that disagrees with its declared shape is malformed.
  const Tensor flat = Int32Tensor({1, 1, 1, 1});
  op.input_tensors = {nullptr, &flat};
  INFER_ERROR(
      "paddings (input 1) must be [rank, 2] but its value has shape [4]", op,
      "[2,3];[2,2]");
}

TEST(ArrayOpsTest, MirrorPad) {
  ShapeInferenceTestOp op = Typed("MirrorPad");
  op.SetAttr("mode", AttrValue::String("REFLECT"));
  // REFLECT repeats no edge element, so at most size - 1 per side.
  const Tensor within = Paddings({{2, 2}, {0, 3}});
  const Tensor beyond = Paddings({{3, 0}, {0, 0}});
  op.input_tensors = {nullptr, &within};
  INFER_OK(op, "[3,4];[2,2]", "[7,7]");
  op.input_tensors = {nullptr, &beyond};
  INFER_ERROR(
      "REFLECT padding of dimension 0 of input 0 [3,4] allows at most 2 on "
      "each side",
      op, "[3,4];[2,2]");
  // Unknown sizes cannot be checked here; the kernel checks them.
  INFER_OK(op, "[?,4];[2,2]", "[?,d0_1]");
  // SYMMETRIC repeats the edge, so up to the size itself.
  op.SetAttr("mode", AttrValue::String("SYMMETRIC"));
  INFER_OK(op, "[3,4];[2,2]", "[6,d0_1]");
  const Tensor too_far = Paddings({{4, 0}, {0, 0}});
  op.input_tensors = {nullptr, &too_far};
  INFER_ERROR(
      "SYMMETRIC padding of dimension 0 of input 0 [3,4] allows at "
      "most 3",
      op, "[3,4];[2,2]");
  op.SetAttr("mode", AttrValue::String("EDGE"));
  INFER_ERROR("mode", op, "[3,4];[2,2]");
}

// ---- Tile, Fill, BroadcastTo ------------------------------------------------

TEST(ArrayOpsTest, Tile) {
  ShapeInferenceTestOp op = Typed("Tile");
  const Tensor twice_rows = Int32Tensor({2, 1});
  const Tensor none = Int32Tensor({2, 0});
  op.input_tensors = {nullptr, &twice_rows};
  // Multiplying by 1 keeps the very dimension.
  INFER_OK(op, "[2,3];[2]", "[4,d0_1]");
  INFER_OK(op, "?;[2]", "[?,?]");
  op.input_tensors = {nullptr, &none};
  INFER_OK(op, "[?,3];[2]", "[?,0]");
  op.input_tensors = {};
  INFER_OK(op, "[2,3];[2]", "[?,?]");
  INFER_OK(op, "?;[3]", "[?,?,?]");
  INFER_OK(op, "?;[?]", "?");
  // Multiples partly known as a shape.
  op.input_tensors_as_shapes = {PartialTensorShape(),
                                PartialTensorShape({-1, 2})};
  INFER_OK(op, "[2,3];[2]", "[?,6]");

  ShapeInferenceTestOp errors = Typed("Tile");
  INFER_ERROR(
      "multiples (input 1) must have one entry per dimension of input 0 [2,3]",
      errors, "[2,3];[3]");
  const Tensor negative = Int32Tensor({2, -1});
  errors.input_tensors = {nullptr, &negative};
  INFER_ERROR("multiples (input 1) are [2,-1] but must be >= 0", errors,
              "[2,3];[2]");
}

TEST(ArrayOpsTest, Fill) {
  ShapeInferenceTestOp op = Typed("Fill");
  const Tensor dims = Int32Tensor({2, 3});
  op.input_tensors = {&dims};
  INFER_OK(op, "[2];[]", "[2,3]");
  const Tensor dims64 = Int64Tensor({0, 4});
  op.SetAttr("index_type", AttrValue::Type(DT_INT64));
  op.input_tensors = {&dims64};
  INFER_OK(op, "[2];[]", "[0,4]");
  op.input_tensors = {};
  INFER_OK(op, "[3];[]", "[?,?,?]");
  INFER_OK(op, "[?];[]", "?");
  op.input_tensors_as_shapes = {PartialTensorShape({2, -1})};
  INFER_OK(op, "[2];[]", "[2,?]");

  ShapeInferenceTestOp errors = Typed("Fill");
  const Tensor negative = Int32Tensor({-1, 2});
  errors.input_tensors = {&negative};
  INFER_ERROR("dims (input 0) are [-1,2] but must be >= 0", errors, "[2];[]");
  errors.input_tensors = {};
  INFER_ERROR("input 1 has rank 1 but rank 0 was required", errors, "[2];[2]");
  INFER_ERROR("input 0 has rank 2 but rank 1 was required", errors, "[2,2];[]");
}

TEST(ArrayOpsTest, BroadcastTo) {
  ShapeInferenceTestOp op = Typed("BroadcastTo");
  const Tensor two_three = Int32Tensor({2, 3});
  const Tensor four_three = Int32Tensor({4, 3});
  const Tensor two_any = Int32Tensor({2, -1});
  op.input_tensors = {nullptr, &two_three};
  INFER_OK(op, "[3];[2]", "[2,3]");
  INFER_OK(op, "?;[2]", "[2,3]");
  op.input_tensors = {nullptr, &four_three};
  INFER_OK(op, "[1,?];[2]", "[4,3]");
  // An unknown target size is the input's where the input is not 1.
  op.input_tensors = {nullptr, &two_any};
  INFER_OK(op, "[3];[2]", "[2,d0_0]");
  // Unknown target sizes: the input's last dimension, not 1, is the
  // target's.
  op.input_tensors = {};
  INFER_OK(op, "[3];[3]", "[?,?,d0_0]");
  INFER_OK(op, "[1];[3]", "[?,?,?]");
  INFER_OK(op, "[3];[?]", "?");

  const Tensor two_four = Int32Tensor({2, 4});
  const Tensor three_four = Int32Tensor({3, 4});
  const Tensor five = Int32Tensor({5});
  op.input_tensors = {nullptr, &two_four};
  INFER_ERROR(
      "input 0 [3] cannot be broadcast to [2,4]: its dimension 0 is 3 but the "
      "target's is 4",
      op, "[3];[2]");
  op.input_tensors = {nullptr, &three_four};
  INFER_ERROR("input 0 [2,3,4] has rank 3, more than the target shape [3,4]",
              op, "[2,3,4];[2]");
  // Only size 1 stretches; 0 does not.
  op.input_tensors = {nullptr, &five};
  INFER_ERROR("its dimension 0 is 0 but the target's is 5", op, "[0];[1]");
}

// ---- GatherV2, OneHot -------------------------------------------------------

ShapeInferenceTestOp Gather(int64_t batch_dims = 0) {
  ShapeInferenceTestOp op("GatherV2");
  op.SetAttr("Tparams", AttrValue::Type(DT_FLOAT))
      .SetAttr("Tindices", AttrValue::Type(DT_INT32))
      .SetAttr("Taxis", AttrValue::Type(DT_INT32))
      .SetAttr("batch_dims", AttrValue::Int(batch_dims));
  return op;
}

TEST(ArrayOpsTest, GatherV2) {
  ShapeInferenceTestOp op = Gather();
  const Tensor zero = Int32Scalar(0);
  const Tensor one = Int32Scalar(1);
  const Tensor minus_one = Int32Scalar(-1);
  op.input_tensors = {nullptr, nullptr, &one};
  // params[:axis] + indices + params[axis+1:].
  INFER_OK(op, "[5,6,7];[2,3];[]", "[d0_0,d1_0,d1_1,d0_2]");
  INFER_OK(op, "[5,6,7];[];[]", "[d0_0,d0_2]");
  INFER_OK(op, "?;[2];[]", "?");
  INFER_OK(op, "[5,6];?;[]", "?");
  op.input_tensors = {nullptr, nullptr, &minus_one};
  INFER_OK(op, "[5,6,7];[2,3];[]", "[d0_0,d0_1,d1_0,d1_1]");
  op.input_tensors = {nullptr, nullptr, &zero};
  INFER_OK(op, "[5,6];[4];[]", "[d1_0,d0_1]");
  // Unknown axis: only the rank.
  op.input_tensors = {};
  INFER_OK(op, "[5,6,7];[2,3];[]", "[?,?,?,?]");
  INFER_OK(op, "?;[2,3];[]", "?");
  const Tensor one64 = Int64Scalar(1);
  op.SetAttr("Taxis", AttrValue::Type(DT_INT64));
  op.input_tensors = {nullptr, nullptr, &one64};
  INFER_OK(op, "[5,6,7];[2];[]", "[d0_0,d1_0,d0_2]");
}

TEST(ArrayOpsTest, GatherV2BatchDims) {
  ShapeInferenceTestOp op = Gather(1);
  const Tensor one = Int32Scalar(1);
  const Tensor two = Int32Scalar(2);
  op.input_tensors = {nullptr, nullptr, &one};
  // params[:axis] + indices[batch_dims:] + params[axis+1:].
  INFER_OK(op, "[4,5,6];[4,2];[]", "[d0_0,d1_1,d0_2]");
  // The batch dimensions of params and indices are one: each informs the
  // other (TensorFlow infers (None, 2, 6) here; its kernel requires them
  // equal).
  INFER_OK(op, "[?,5,6];[4,2];[]", "[d1_0,d1_1,d0_2]");
  // Negative batch_dims counts from the end of the indices' rank.
  ShapeInferenceTestOp negative = Gather(-1);
  negative.input_tensors = {nullptr, nullptr, &two};
  INFER_OK(negative, "[4,5,6];[4,5,2];[]", "[d0_0,d0_1,d1_2]");
  INFER_OK(negative, "[4,5,6];?;[]", "?");
  // Unknown axis: rank params + indices - 1 - batch_dims.
  op.input_tensors = {};
  INFER_OK(op, "[4,5,6];[4,2];[]", "[?,?,?]");
}

TEST(ArrayOpsTest, GatherV2Errors) {
  ShapeInferenceTestOp op = Gather();
  const Tensor three = Int32Scalar(3);
  const Tensor one = Int32Scalar(1);
  INFER_ERROR("input 0 has rank 0 but rank at least 1 was required", op,
              "[];[2];[]");
  INFER_ERROR("input 2 has rank 1 but rank 0 was required", op, "[5];[2];[1]");
  op.input_tensors = {nullptr, nullptr, &three};
  INFER_ERROR(
      "axis (input 2) is 3 but must be in [-3, 3) for params (input "
      "0) [4,5,6]",
      op, "[4,5,6];[2];[]");
  ShapeInferenceTestOp batched = Gather(2);
  batched.input_tensors = {nullptr, nullptr, &one};
  INFER_ERROR("attr 'batch_dims' is 2 but must be <= axis 1", batched,
              "[4,5,6];[4,5,2];[]");
  ShapeInferenceTestOp too_deep = Gather(3);
  too_deep.input_tensors = {nullptr, nullptr, &one};
  INFER_ERROR(
      "attr 'batch_dims' is 3 but must be in [-2, 2] for indices "
      "(input 1) [4,2]",
      too_deep, "[4,5,6];[4,2];[]");
  ShapeInferenceTestOp mismatch = Gather(1);
  mismatch.input_tensors = {nullptr, nullptr, &one};
  INFER_ERROR(
      "batch dimension 0 of params (input 0) and indices (input 1) "
      "must agree",
      mismatch, "[4,5,6];[3,2];[]");
  INFER_ERROR("Tindices",
              Gather().SetAttr("Tindices", AttrValue::Type(DT_FLOAT)),
              "[4];[2];[]");
}

ShapeInferenceTestOp OneHot(int64_t axis = -1) {
  ShapeInferenceTestOp op = Typed("OneHot");
  op.SetAttr("TI", AttrValue::Type(DT_INT32))
      .SetAttr("axis", AttrValue::Int(axis));
  return op;
}

TEST(ArrayOpsTest, OneHot) {
  const Tensor five = Int32Scalar(5);
  struct Case {
    int64_t axis;
    const char* expected;
  };
  for (const Case& t : {Case{-1, "[d0_0,d0_1,5]"}, Case{0, "[5,d0_0,d0_1]"},
                        Case{1, "[d0_0,5,d0_1]"}, Case{2, "[d0_0,d0_1,5]"}}) {
    SCOPED_TRACE(t.axis);
    ShapeInferenceTestOp op = OneHot(t.axis);
    op.input_tensors = {nullptr, &five};
    INFER_OK(op, "[2,3];[];[];[]", t.expected);
  }
  ShapeInferenceTestOp op = OneHot();
  op.input_tensors = {nullptr, &five};
  INFER_OK(op, "[];[];[];[]", "[5]");
  INFER_OK(op, "?;[];[];[]", "?");
  op.input_tensors = {};
  INFER_OK(op, "[2,3];[];[];[]", "[d0_0,d0_1,?]");
  EXPECT_EQ(RegisteredAttr("OneHot", "TI"),
            "type in [uint8, int8, int32, int64] = int64");
}

TEST(ArrayOpsTest, OneHotErrors) {
  const Tensor five = Int32Scalar(5);
  const Tensor minus_one = Int32Scalar(-1);
  ShapeInferenceTestOp low = OneHot(-2);
  low.input_tensors = {nullptr, &five};
  INFER_ERROR("attr 'axis' is -2 but must be -1 or a dimension index", low,
              "[2,3];[];[];[]");
  ShapeInferenceTestOp high = OneHot(3);
  high.input_tensors = {nullptr, &five};
  INFER_ERROR("attr 'axis' is 3 but the output has rank 3", high,
              "[2,3];[];[];[]");
  ShapeInferenceTestOp op = OneHot();
  op.input_tensors = {nullptr, &minus_one};
  INFER_ERROR(
      "input 1 is a dimension size but its value is -1; sizes must be >= 0", op,
      "[2,3];[];[];[]");
  op.input_tensors = {};
  INFER_ERROR("input 1 has rank 1 but rank 0 was required", op,
              "[2,3];[1];[];[]");
  INFER_ERROR("input 2 has rank 1 but rank 0 was required", op,
              "[2,3];[];[2];[]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
