#include "ops/shape_inference.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/op_def_builder.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace {

using ::testing::HasSubstr;

// A context over a test op with `num_inputs` float inputs ("x: N * float")
// and `num_outputs` float outputs, for exercising the helpers directly.
class InferenceContextTest : public ::testing::Test {
 protected:
  InferenceContext* Make(const std::vector<PartialTensorShape>& shapes,
                         const std::vector<const Tensor*>& tensors = {},
                         const std::vector<PartialTensorShape>& as_shapes = {},
                         int num_outputs = 1) {
    OpDefBuilder b("ShapeTest");
    b.Input("x: N * float")
        .Attr("N: int >= 0")
        .Attr("flag: bool = true")
        .SetShapeFn(UnknownShapeFn);
    for (int i = 0; i < num_outputs; ++i) {
      b.Output(absl::StrCat("y", i, ": float"));
    }
    StatusOr<OpRegistrationData> data = b.Finalize();
    EXPECT_TRUE(data.ok()) << data.status();
    op_def_ = data->op_def;
    node_.name = "st";
    node_.op = "ShapeTest";
    node_.attr["N"] = AttrValue::Int(static_cast<int64_t>(shapes.size()));
    node_.attr["flag"] = AttrValue::Bool(false);
    context_ = std::make_unique<InferenceContext>(node_, op_def_, shapes,
                                                  tensors, as_shapes);
    return context_.get();
  }

  static Status UnknownShapeFn(InferenceContext* c) {
    for (int i = 0; i < c->num_outputs(); ++i) {
      c->set_output(i, c->UnknownShape());
    }
    return Status();
  }

  OpDef op_def_;
  NodeDef node_;
  std::unique_ptr<InferenceContext> context_;
};

TEST_F(InferenceContextTest, InputsRanksAndValues) {
  InferenceContext* c =
      Make({{2, -1}, PartialTensorShape(), PartialTensorShape(TensorShape())});
  ASSERT_EQ(c->num_inputs(), 3);
  EXPECT_EQ(c->num_outputs(), 1);
  EXPECT_EQ(c->Rank(c->input(0)), 2);
  EXPECT_FALSE(c->RankKnown(c->input(1)));
  EXPECT_EQ(c->Rank(c->input(1)), kUnknownRank);
  EXPECT_EQ(c->Rank(c->input(2)), 0);
  EXPECT_EQ(c->Value(c->Dim(c->input(0), 0)), 2);
  EXPECT_FALSE(c->ValueKnown(c->Dim(c->input(0), 1)));
  // Negative indices count from the end; the same object comes back.
  EXPECT_TRUE(c->Dim(c->input(0), -1).SameHandle(c->Dim(c->input(0), 1)));
  // A dimension of an unknown-rank shape is a fresh unknown one each time.
  EXPECT_FALSE(c->ValueKnown(c->Dim(c->input(1), 5)));
  EXPECT_FALSE(c->Dim(c->input(1), 0).SameHandle(c->Dim(c->input(1), 0)));
  EXPECT_EQ(c->DebugString(c->input(0)), "[2,?]");
  EXPECT_EQ(c->DebugString(c->input(1)), "?");
  EXPECT_EQ(c->DebugString(c->input(2)), "[]");
  EXPECT_EQ(c->Value(7), 7);
  EXPECT_EQ(c->Value(-1), kUnknownDim);
  EXPECT_FALSE(c->FullyDefined(c->input(0)));
  EXPECT_TRUE(c->FullyDefined(c->input(2)));
}

TEST_F(InferenceContextTest, UnsetHandlesReadAsUnknown) {
  InferenceContext* c = Make({});
  EXPECT_FALSE(c->RankKnown(ShapeHandle()));
  EXPECT_FALSE(c->ValueKnown(DimensionHandle()));
  // Shapes never hold unset handles: each becomes its own unknown dimension,
  // so identity still means "known equal".
  ShapeHandle s = c->MakeShape(
      std::vector<DimensionHandle>{DimensionHandle(), DimensionHandle()});
  EXPECT_EQ(c->DebugString(s), "[?,?]");
  EXPECT_FALSE(c->Dim(s, 0).SameHandle(c->Dim(s, 1)));
}

TEST_F(InferenceContextTest, MakingShapes) {
  InferenceContext* c = Make({{3}});
  const DimensionHandle d = c->Dim(c->input(0), 0);
  EXPECT_EQ(c->DebugString(c->Scalar()), "[]");
  EXPECT_EQ(c->DebugString(c->Vector(4)), "[4]");
  EXPECT_TRUE(c->Dim(c->Vector(d), 0).SameHandle(d));
  EXPECT_EQ(c->DebugString(c->Matrix(d, kUnknownDim)), "[3,?]");
  EXPECT_EQ(c->DebugString(c->MakeShape({1, d, kUnknownDim})), "[1,3,?]");
  EXPECT_EQ(c->DebugString(c->UnknownShape()), "?");
  EXPECT_EQ(c->DebugString(c->UnknownShapeOfRank(3)), "[?,?,?]");
  EXPECT_TRUE(c->MakeDim(d).SameHandle(d));
  EXPECT_FALSE(c->ValueKnown(c->MakeDim(-5)));
  EXPECT_FALSE(c->UnknownDim().SameHandle(c->UnknownDim()));

  ShapeHandle s;
  ASSERT_TRUE(c->MakeShapeFromPartialTensorShape({-1, 5}, &s).ok());
  EXPECT_EQ(c->DebugString(s), "[?,5]");
  ASSERT_TRUE(
      c->MakeShapeFromPartialTensorShape(PartialTensorShape(), &s).ok());
  EXPECT_FALSE(c->RankKnown(s));
  EXPECT_EQ(c->DebugString(c->MakeShapeFromTensorShape({2, 0})), "[2,0]");
}

TEST_F(InferenceContextTest, ToPartialTensorShape) {
  InferenceContext* c = Make({{2, -1}, PartialTensorShape()});
  StatusOr<PartialTensorShape> p = c->ToPartialTensorShape(c->input(0));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, PartialTensorShape({2, -1}));
  p = c->ToPartialTensorShape(c->input(1));
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->unknown_rank());
  // 2^40 * 2^40 elements cannot exist.
  p = c->ToPartialTensorShape(
      c->MakeShape({int64_t{1} << 40, int64_t{1} << 40}));
  EXPECT_FALSE(p.ok());
}

TEST_F(InferenceContextTest, NumElements) {
  InferenceContext* c = Make({{2, 3}, {2, -1}, {0, -1}, PartialTensorShape()});
  EXPECT_EQ(c->Value(c->NumElements(c->input(0))), 6);
  EXPECT_FALSE(c->ValueKnown(c->NumElements(c->input(1))));
  // A known 0 decides the count whatever the unknown dimensions are.
  EXPECT_EQ(c->Value(c->NumElements(c->input(2))), 0);
  EXPECT_FALSE(c->ValueKnown(c->NumElements(c->input(3))));
  EXPECT_EQ(c->Value(c->NumElements(c->Scalar())), 1);
}

TEST_F(InferenceContextTest, WithRank) {
  InferenceContext* c = Make({{2, 3}, PartialTensorShape(), {5}});
  ShapeHandle out;
  ASSERT_TRUE(c->WithRank(c->input(0), 2, &out).ok());
  EXPECT_TRUE(out.SameHandle(c->input(0)));

  ASSERT_TRUE(c->WithRank(c->input(1), 3, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[?,?,?]");

  Status s = c->WithRank(c->input(2), 2, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "input 2 has rank 1 but rank 2 was required");
  EXPECT_FALSE(out.IsSet());

  s = c->WithRank(c->Vector(5), 2, &out);
  EXPECT_EQ(s.message(), "shape [5] has rank 1 but rank 2 was required");

  s = c->WithRank(c->input(0), -1, &out);
  EXPECT_THAT(s.message(), HasSubstr("rank -1 is outside [0, 254]"));
}

TEST_F(InferenceContextTest, WithRankAtLeastAndAtMost) {
  InferenceContext* c = Make({{2, 3}, PartialTensorShape()});
  ShapeHandle out;
  ASSERT_TRUE(c->WithRankAtLeast(c->input(0), 1, &out).ok());
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  ASSERT_TRUE(c->WithRankAtLeast(c->input(0), 2, &out).ok());
  ASSERT_TRUE(c->WithRankAtLeast(c->input(1), 5, &out).ok());
  EXPECT_TRUE(out.SameHandle(c->input(1)));
  EXPECT_EQ(c->WithRankAtLeast(c->input(0), 3, &out).message(),
            "input 0 has rank 2 but rank at least 3 was required");

  ASSERT_TRUE(c->WithRankAtMost(c->input(0), 2, &out).ok());
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  ASSERT_TRUE(c->WithRankAtMost(c->input(1), 0, &out).ok());
  EXPECT_EQ(c->WithRankAtMost(c->input(0), 1, &out).message(),
            "input 0 has rank 2 but rank at most 1 was required");
}

TEST_F(InferenceContextTest, WithValue) {
  InferenceContext* c = Make({{3, -1}});
  const DimensionHandle known = c->Dim(c->input(0), 0);
  const DimensionHandle unknown = c->Dim(c->input(0), 1);
  DimensionHandle out;
  ASSERT_TRUE(c->WithValue(known, 3, &out).ok());
  EXPECT_TRUE(out.SameHandle(known));
  ASSERT_TRUE(c->WithValue(unknown, 7, &out).ok());
  EXPECT_EQ(c->Value(out), 7);
  Status s = c->WithValue(known, 4, &out);
  EXPECT_EQ(s.message(), "dimension 3 (input 0 dim 0) must be 4");
}

TEST_F(InferenceContextTest, MergeDimensions) {
  InferenceContext* c = Make({{3, -1}, {4, -1}});
  const DimensionHandle three = c->Dim(c->input(0), 0);
  const DimensionHandle four = c->Dim(c->input(1), 0);
  const DimensionHandle u0 = c->Dim(c->input(0), 1);
  const DimensionHandle u1 = c->Dim(c->input(1), 1);
  DimensionHandle out;
  ASSERT_TRUE(c->Merge(three, u0, &out).ok());
  EXPECT_TRUE(out.SameHandle(three));
  ASSERT_TRUE(c->Merge(u0, three, &out).ok());
  EXPECT_TRUE(out.SameHandle(three));
  // Two unknowns: the first wins.
  ASSERT_TRUE(c->Merge(u0, u1, &out).ok());
  EXPECT_TRUE(out.SameHandle(u0));
  // Equal known values: the first wins.
  const DimensionHandle other_three = c->MakeDim(3);
  ASSERT_TRUE(c->Merge(other_three, three, &out).ok());
  EXPECT_TRUE(out.SameHandle(other_three));

  Status s = c->Merge(three, four, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "dimensions must be equal, but are 3 (input 0 dim 0) and 4 "
            "(input 1 dim 0)");
  EXPECT_FALSE(out.IsSet());
}

TEST_F(InferenceContextTest, MergeShapes) {
  InferenceContext* c =
      Make({{2, -1}, {-1, 3}, {2, 3}, PartialTensorShape(), {2, 4}, {2}});
  ShapeHandle out;
  // s1 adds nothing: s0 itself.
  ASSERT_TRUE(c->Merge(c->input(2), c->input(0), &out).ok());
  EXPECT_TRUE(out.SameHandle(c->input(2)));
  // s0 adds nothing: s1 itself.
  ASSERT_TRUE(c->Merge(c->input(0), c->input(2), &out).ok());
  EXPECT_TRUE(out.SameHandle(c->input(2)));
  // Each adds something: a new shape with the known dimension of each.
  ASSERT_TRUE(c->Merge(c->input(0), c->input(1), &out).ok());
  EXPECT_EQ(c->DebugString(out), "[2,3]");
  EXPECT_TRUE(c->Dim(out, 0).SameHandle(c->Dim(c->input(0), 0)));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(c->input(1), 1)));
  // Unknown rank on either side.
  ASSERT_TRUE(c->Merge(c->input(3), c->input(0), &out).ok());
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  ASSERT_TRUE(c->Merge(c->input(0), c->input(3), &out).ok());
  EXPECT_TRUE(out.SameHandle(c->input(0)));

  Status s = c->Merge(c->input(2), c->input(4), &out);
  EXPECT_EQ(s.message(),
            "input 2 [2,3] and input 4 [2,4] are incompatible: dimension 1 is "
            "3 vs 4");
  s = c->Merge(c->input(2), c->input(5), &out);
  EXPECT_EQ(s.message(),
            "input 2 [2,3] and input 5 [2] are incompatible: ranks 2 and 1 "
            "differ");
  s = c->Merge(c->Vector(1), c->Vector(2), &out);
  EXPECT_THAT(s.message(), HasSubstr("shape [1] and shape [2]"));
}

TEST_F(InferenceContextTest, Concatenate) {
  InferenceContext* c = Make({{2, -1}, {3}, PartialTensorShape()});
  ShapeHandle out;
  ASSERT_TRUE(c->Concatenate(c->input(0), c->input(1), &out).ok());
  EXPECT_EQ(c->DebugString(out), "[2,?,3]");
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(c->input(0), 1)));
  EXPECT_TRUE(c->Dim(out, 2).SameHandle(c->Dim(c->input(1), 0)));
  ASSERT_TRUE(c->Concatenate(c->input(0), c->input(2), &out).ok());
  EXPECT_FALSE(c->RankKnown(out));
  ASSERT_TRUE(c->Concatenate(c->Scalar(), c->input(1), &out).ok());
  EXPECT_EQ(c->DebugString(out), "[3]");
}

TEST_F(InferenceContextTest, Subshape) {
  InferenceContext* c = Make({{1, 2, 3, 4}, PartialTensorShape()});
  const ShapeHandle s = c->input(0);
  ShapeHandle out;
  ASSERT_TRUE(c->Subshape(s, 1, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[2,3,4]");
  EXPECT_TRUE(c->Dim(out, 0).SameHandle(c->Dim(s, 1)));
  ASSERT_TRUE(c->Subshape(s, 1, 3, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[2,3]");
  ASSERT_TRUE(c->Subshape(s, -2, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[3,4]");
  ASSERT_TRUE(c->Subshape(s, 0, -1, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[1,2,3]");
  ASSERT_TRUE(c->Subshape(s, -3, -1, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[2,3]");
  ASSERT_TRUE(c->Subshape(s, 2, 2, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[]");
  // The whole range is the shape itself; positive indices clamp.
  ASSERT_TRUE(c->Subshape(s, 0, &out).ok());
  EXPECT_TRUE(out.SameHandle(s));
  ASSERT_TRUE(c->Subshape(s, 0, 10, &out).ok());
  EXPECT_TRUE(out.SameHandle(s));
  ASSERT_TRUE(c->Subshape(s, 7, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[]");

  EXPECT_THAT(c->Subshape(s, -5, &out).message(),
              HasSubstr("subshape [-5, end) is out of bounds for input 0 "
                        "[1,2,3,4] of rank 4"));
  EXPECT_THAT(c->Subshape(s, 0, -6, &out).message(),
              HasSubstr("out of bounds"));
  EXPECT_THAT(c->Subshape(s, 3, 1, &out).message(),
              HasSubstr("starts at 3 after its end 1"));

  // Unknown rank: the whole of it is itself, any part is unknown.
  ASSERT_TRUE(c->Subshape(c->input(1), 0, &out).ok());
  EXPECT_TRUE(out.SameHandle(c->input(1)));
  ASSERT_TRUE(c->Subshape(c->input(1), 1, &out).ok());
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_FALSE(out.SameHandle(c->input(1)));
}

TEST_F(InferenceContextTest, ReplaceDim) {
  InferenceContext* c = Make({{1, 2, 3}, PartialTensorShape()});
  ShapeHandle out;
  ASSERT_TRUE(c->ReplaceDim(c->input(0), -1, 7, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[1,2,7]");
  EXPECT_TRUE(c->Dim(out, 0).SameHandle(c->Dim(c->input(0), 0)));
  ASSERT_TRUE(c->ReplaceDim(c->input(0), 0, c->Dim(c->input(0), 2), &out).ok());
  EXPECT_EQ(c->DebugString(out), "[3,2,3]");
  ASSERT_TRUE(c->ReplaceDim(c->input(1), 0, 7, &out).ok());
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_EQ(c->ReplaceDim(c->input(0), 3, 7, &out).message(),
            "dimension index 3 is out of range for input 0 [1,2,3] of rank 3");
}

TEST_F(InferenceContextTest, AddAndSubtract) {
  InferenceContext* c = Make({{5, -1}});
  const DimensionHandle five = c->Dim(c->input(0), 0);
  const DimensionHandle unknown = c->Dim(c->input(0), 1);
  DimensionHandle out;
  ASSERT_TRUE(c->Add(five, 3, &out).ok());
  EXPECT_EQ(c->Value(out), 8);
  ASSERT_TRUE(c->Add(unknown, 0, &out).ok());
  EXPECT_TRUE(out.SameHandle(unknown));
  ASSERT_TRUE(c->Add(c->MakeDim(0), five, &out).ok());
  EXPECT_TRUE(out.SameHandle(five));
  ASSERT_TRUE(c->Add(unknown, 3, &out).ok());
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Add(c->MakeDim(std::numeric_limits<int64_t>::max()), 1, &out)
                  .message(),
              HasSubstr("overflow"));

  ASSERT_TRUE(c->Subtract(five, 2, &out).ok());
  EXPECT_EQ(c->Value(out), 3);
  ASSERT_TRUE(c->Subtract(five, 0, &out).ok());
  EXPECT_TRUE(out.SameHandle(five));
  ASSERT_TRUE(c->Subtract(unknown, 2, &out).ok());
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_EQ(c->Subtract(five, 6, &out).message(),
            "negative dimension size caused by subtracting 6 from 5");
}

TEST_F(InferenceContextTest, MultiplyAndDivide) {
  InferenceContext* c = Make({{6, -1}});
  const DimensionHandle six = c->Dim(c->input(0), 0);
  const DimensionHandle unknown = c->Dim(c->input(0), 1);
  DimensionHandle out;
  ASSERT_TRUE(c->Multiply(six, 7, &out).ok());
  EXPECT_EQ(c->Value(out), 42);
  ASSERT_TRUE(c->Multiply(unknown, 1, &out).ok());
  EXPECT_TRUE(out.SameHandle(unknown));
  ASSERT_TRUE(c->Multiply(c->MakeDim(1), six, &out).ok());
  EXPECT_TRUE(out.SameHandle(six));
  // 0 times anything, even unknown, is 0.
  ASSERT_TRUE(c->Multiply(unknown, 0, &out).ok());
  EXPECT_EQ(c->Value(out), 0);
  ASSERT_TRUE(c->Multiply(unknown, 2, &out).ok());
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Multiply(c->MakeDim(int64_t{1} << 40), int64_t{1} << 40, &out)
                  .message(),
              HasSubstr("overflow"));

  ASSERT_TRUE(c->Divide(six, 3, /*evenly_divisible=*/true, &out).ok());
  EXPECT_EQ(c->Value(out), 2);
  ASSERT_TRUE(c->Divide(six, 4, /*evenly_divisible=*/false, &out).ok());
  EXPECT_EQ(c->Value(out), 1);
  ASSERT_TRUE(c->Divide(unknown, 1, true, &out).ok());
  EXPECT_TRUE(out.SameHandle(unknown));
  ASSERT_TRUE(c->Divide(unknown, 2, true, &out).ok());
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_EQ(c->Divide(six, 4, true, &out).message(),
            "dimension size 6 is not evenly divisible by 4");
  EXPECT_THAT(c->Divide(six, 0, false, &out).message(),
              HasSubstr("divisor must be positive"));
}

TEST_F(InferenceContextTest, MakeShapeFromConstantShapeTensor) {
  const Tensor value = Int32Tensor({2, -1, 3});
  InferenceContext* c = Make({{3}}, {&value});
  ShapeHandle out;
  ASSERT_TRUE(c->MakeShapeFromShapeTensor(0, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[2,?,3]");

  const Tensor value64 = Int64Tensor({int64_t{1} << 33, 0});
  c = Make({{2}}, {&value64});
  ASSERT_TRUE(c->MakeShapeFromShapeTensor(0, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[8589934592,0]");

  const Tensor empty = Int32Tensor({});
  c = Make({{0}}, {&empty});
  ASSERT_TRUE(c->MakeShapeFromShapeTensor(0, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[]");

  const Tensor bad = Int32Tensor({2, -2});
  c = Make({{2}}, {&bad});
  EXPECT_THAT(c->MakeShapeFromShapeTensor(0, &out).message(),
              HasSubstr("with size -2 at index 1; sizes must be >= 0, or -1"));
}

TEST_F(InferenceContextTest, MakeShapeFromPartiallyKnownShapeTensor) {
  // Nothing known of the value but its length.
  InferenceContext* c = Make({{3}, {-1}, PartialTensorShape(), {2, 2}});
  ShapeHandle out;
  ASSERT_TRUE(c->MakeShapeFromShapeTensor(0, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[?,?,?]");
  ASSERT_TRUE(c->MakeShapeFromShapeTensor(1, &out).ok());
  EXPECT_FALSE(c->RankKnown(out));
  ASSERT_TRUE(c->MakeShapeFromShapeTensor(2, &out).ok());
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_EQ(c->MakeShapeFromShapeTensor(3, &out).message(),
            "input 3 has rank 2 but rank 1 was required");

  // A partially known value, e.g. from Shape of a [?,5] tensor.
  c = Make({{2}, {3}}, {}, {{-1, 5}, {1, 2}});
  ASSERT_TRUE(c->MakeShapeFromShapeTensor(0, &out).ok());
  EXPECT_EQ(c->DebugString(out), "[?,5]");
  EXPECT_THAT(c->MakeShapeFromShapeTensor(1, &out).message(),
              HasSubstr("input 1 has shape [3] but its value is known to be "
                        "the shape [1,2] of rank 2"));
}

TEST_F(InferenceContextTest, GetScalarFromTensor) {
  InferenceContext* c = Make({});
  int64_t v = 0;
  const Tensor i32 = Int32Scalar(-4);
  ASSERT_TRUE(InferenceContext::GetScalarFromTensor(&i32, &v).ok());
  EXPECT_EQ(v, -4);
  const Tensor i64 = Int64Scalar(int64_t{1} << 40);
  ASSERT_TRUE(InferenceContext::GetScalarFromTensor(&i64, &v).ok());
  EXPECT_EQ(v, int64_t{1} << 40);
  const Tensor vec = Int32Tensor({1});
  EXPECT_THAT(InferenceContext::GetScalarFromTensor(&vec, &v).message(),
              HasSubstr("expected a scalar but got a tensor of shape [1]"));
  const Tensor f(DT_FLOAT, TensorShape());
  EXPECT_THAT(InferenceContext::GetScalarFromTensor(&f, &v).message(),
              HasSubstr("int32 or int64 scalar but got float"));
  EXPECT_FALSE(InferenceContext::GetScalarFromTensor(nullptr, &v).ok());
  (void)c;
}

TEST_F(InferenceContextTest, AttrsAndNamedInputs) {
  InferenceContext* c = Make({{1}, {2}});
  bool flag = true;
  ASSERT_TRUE(c->GetAttr("flag", &flag).ok());
  EXPECT_FALSE(flag);
  int64_t n = 0;
  ASSERT_TRUE(c->GetAttr("N", &n).ok());
  EXPECT_EQ(n, 2);
  EXPECT_EQ(c->GetAttr("missing", &n).code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(c->GetAttr("flag", &n).ok());

  std::vector<ShapeHandle> xs;
  ASSERT_TRUE(c->input("x", &xs).ok());
  ASSERT_EQ(xs.size(), 2u);
  EXPECT_TRUE(xs[1].SameHandle(c->input(1)));
  EXPECT_EQ(c->input("nope", &xs).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(c->set_output("y0", {c->input(0)}).ok());
  EXPECT_TRUE(c->output(0).SameHandle(c->input(0)));
  EXPECT_FALSE(c->set_output("y0", {}).ok());
}

TEST_F(InferenceContextTest, DescribeNamesInputs) {
  InferenceContext* c = Make({{2, 3}});
  EXPECT_EQ(c->DescribeShape(c->input(0)), "input 0 [2,3]");
  EXPECT_EQ(c->DescribeShape(c->Vector(2)), "shape [2]");
  EXPECT_EQ(c->DescribeDim(c->Dim(c->input(0), 1)), "3 (input 0 dim 1)");
  EXPECT_EQ(c->DescribeDim(c->MakeDim(3)), "3");
  EXPECT_EQ(c->DescribeDim(c->UnknownDim()), "?");
}

TEST_F(InferenceContextTest, RunAddsNodeContextAndInputShapes) {
  InferenceContext* c = Make({{2}, {3, 4}});
  Status s = c->Run([](InferenceContext* c) {
    ShapeHandle unused;
    return c->WithRank(c->input(0), 2, &unused);
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "node 'st' (ShapeTest): input 0 has rank 1 but rank 2 was "
            "required; input shapes: [2], [3,4]");
}

TEST_F(InferenceContextTest, RunShowsConstantInputs) {
  const Tensor value = Int32Tensor({4, -1});
  InferenceContext* c = Make({{2}}, {&value});
  Status s =
      c->Run([](InferenceContext*) { return errors::InvalidArgument("bad"); });
  EXPECT_EQ(s.message(),
            "node 'st' (ShapeTest): bad; input shapes: [2]; input 0 = [4 -1]");
}

TEST_F(InferenceContextTest, RunChecksOutputs) {
  InferenceContext* c = Make({{2}}, {}, {}, /*num_outputs=*/2);
  Status s = c->Run([](InferenceContext* c) {
    c->set_output(0, c->input(0));
    return Status();
  });
  EXPECT_THAT(s.message(), HasSubstr("did not set output 1"));

  c = Make({{2}});
  s = c->Run([](InferenceContext* c) {
    c->set_output(0, c->input(0));
    c->set_output(3, c->input(0));
    return Status();
  });
  EXPECT_THAT(s.message(),
              HasSubstr("set output 3 but the node has 1 outputs"));

  c = Make({});
  s = c->Run([](InferenceContext* c) {
    c->set_output(0, c->MakeShape({int64_t{1} << 40, int64_t{1} << 40}));
    return Status();
  });
  EXPECT_THAT(s.message(), HasSubstr("more than 2^62 elements"));

  c = Make({{2}});
  EXPECT_THAT(c->Run(nullptr).message(), HasSubstr("has no shape function"));

  c = Make({{2}});
  ASSERT_TRUE(c->Run(UnknownShapeFn).ok());
  EXPECT_FALSE(c->RankKnown(c->output(0)));
}

TEST_F(InferenceContextTest, InconsistentConstructionFailsRun) {
  Make({{2}});
  // The node says N=1; hand it two shapes.
  InferenceContext c(node_, op_def_, {{2}, {3}}, {});
  Status s = c.Run(UnknownShapeFn);
  EXPECT_THAT(s.message(),
              HasSubstr("the node has 1 inputs but 2 input shapes were given"));
  EXPECT_THAT(s.message(), HasSubstr("node 'st' (ShapeTest)"));
}

// ---- the test helper itself -------------------------------------------------

TEST(ShapeInferenceTestUtilTest, ParsesShapes) {
  StatusOr<PartialTensorShape> s = ParseTestShape("[1, ?,3]");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, PartialTensorShape({1, -1, 3}));
  s = ParseTestShape("?");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->unknown_rank());
  s = ParseTestShape("[]");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dims(), 0);
  EXPECT_FALSE(ParseTestShape("[1,x]").ok());
  EXPECT_FALSE(ParseTestShape("1,2").ok());
  EXPECT_FALSE(ParseTestShape("[-2]").ok());
}

TEST(ShapeInferenceTestUtilTest, ChecksIdentityAndReportsMismatches) {
  ShapeInferenceTestOp op("Identity");
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  INFER_OK(op, "[1,?]", "in0");
  INFER_OK(op, "?", "?");
  // A value match is not enough where identity is expected, and vice versa.
  EXPECT_FALSE(InferOk(op, "[1,?]", "[1,?]"));
  EXPECT_FALSE(InferOk(op, "[1,?]", "[d0_0,d0_1]"));
  EXPECT_FALSE(InferOk(op, "[1]", "in0;in0"));
  EXPECT_FALSE(InferOk(ShapeInferenceTestOp("NoSuchOp"), "[1]", "in0"));
  EXPECT_FALSE(InferError("anything", op, "[1]"));

  ShapeInferenceTestOp mm("MatMul");
  mm.SetAttr("T", AttrValue::Type(DT_FLOAT));
  INFER_OK(mm, "[1,?];[?,2]", "[d0_0,d1_1]");
  INFER_OK(mm, "[1,?];[?,2]", "[d0_0|d1_0,d1_1]");
  EXPECT_FALSE(InferOk(mm, "[1,?];[?,2]", "[1,2]"));
  EXPECT_FALSE(InferOk(mm, "[1,?];[?,2]", "[d0_0,?]"));
  INFER_OK(mm, "[?,?];[?,?]", "[d0_0,d1_1]");
  EXPECT_FALSE(InferOk(mm, "[?,?];[?,?]", "[?,?]"));
  EXPECT_FALSE(InferError("no such message", mm, "[2,3];[4,5]"));
  INFER_ERROR("inner dimensions", mm, "[2,3];[4,5]");
  // Validation errors count as errors too.
  INFER_ERROR("T", ShapeInferenceTestOp("MatMul"), "[2,3];[3,5]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace weft
