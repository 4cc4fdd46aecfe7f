// Const, Placeholder, the pass-through ops (Identity, IdentityN,
// StopGradient, PreventGradient, PlaceholderWithDefault), Snapshot and NoOp.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;

Tensor StringTensor(std::vector<std::string> values, const TensorShape& shape) {
  Tensor t(DT_STRING, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    t.data<std::string>()[i] = values[i];
  }
  return t;
}

// One small tensor of each dtype the pass-through ops must carry.
std::vector<Tensor> OneOfEachDtype() {
  std::vector<Tensor> ts;
  for (DataType dt :
       {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32,
        DT_INT64, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL,
        DT_COMPLEX64, DT_COMPLEX128}) {
    ts.push_back(AsTensorOfType(dt, {1, 0, 3, 1}, {2, 2}));
  }
  ts.push_back(StringTensor({"a", "", "weft"}, {3}));
  ts.push_back(AsTensor<float>({}, {0, 4}));
  ts.push_back(AsScalar<int32_t>(7));
  return ts;
}

AttrMap ConstAttrs(const Tensor& value) {
  AttrMap attrs;
  attrs["value"] = AttrValue::TensorValue(value);
  attrs["dtype"] = AttrValue::Type(value.dtype());
  return attrs;
}

TEST(ConstTest, OutputsItsValueSharingTheBuffer) {
  for (const Tensor& value : OneOfEachDtype()) {
    SCOPED_TRACE(value.DebugString());
    OpRunner runner("Const", ConstAttrs(value));
    StatusOr<std::vector<Tensor>> first = runner.Run({});
    ASSERT_TRUE(first.ok()) << first.status();
    ExpectTensorEqual((*first)[0], value);
    EXPECT_TRUE((*first)[0].SharesBufferWith(value));
    EXPECT_FALSE(runner.kernel()->IsExpensive());
    // The kernel keeps a reference, so no consumer may take the buffer over.
    EXPECT_FALSE((*first)[0].RefCountIsOne());
  }
}

TEST(ConstTest, DtypeMismatchFailsAtConstruction) {
  AttrMap attrs = ConstAttrs(AsTensor<int32_t>({1, 2}, {2}));
  attrs["dtype"] = AttrValue::Type(DT_FLOAT);
  StatusOr<std::vector<Tensor>> out = OpRunner("Const", attrs).Run({});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(std::string(out.status().message()),
            "node 'kernel_test/Const' (Const): attr 'value' holds a int32 "
            "tensor but attr 'dtype' is float");
}

TEST(PlaceholderTest, UnfedPlaceholderNamesItself) {
  AttrMap attrs;
  attrs["dtype"] = AttrValue::Type(DT_FLOAT);
  attrs["shape"] = AttrValue::Shape(PartialTensorShape({-1, 4}));
  StatusOr<std::vector<Tensor>> out = OpRunner("Placeholder", attrs).Run({});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(out.status().message());
  EXPECT_TRUE(absl::StartsWith(msg, "node 'kernel_test/Placeholder'")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "was not fed")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "float")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "[?,4]")) << msg;
}

TEST(PassThroughTest, EveryOpEveryDtypeSharesTheInput) {
  for (const char* op :
       {"Identity", "StopGradient", "PreventGradient", "Snapshot"}) {
    for (const Tensor& value : OneOfEachDtype()) {
      SCOPED_TRACE(std::string(op) + " " + value.DebugString());
      OpRunner runner(op);
      StatusOr<std::vector<Tensor>> out = runner.Run({value});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectTensorEqual((*out)[0], value);
      EXPECT_FALSE(runner.kernel()->IsExpensive());
      if (std::string(op) != "Snapshot") {
        EXPECT_TRUE((*out)[0].SharesBufferWith(value));
      }
    }
  }
}

TEST(PassThroughTest, PlaceholderWithDefaultPassesItsDefault) {
  const Tensor value = AsTensor<double>({1.5, -2}, {2});
  AttrMap attrs;
  attrs["shape"] = AttrValue::Shape(PartialTensorShape({-1}));
  StatusOr<std::vector<Tensor>> out =
      OpRunner("PlaceholderWithDefault", attrs).Run({value});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], value);
  EXPECT_TRUE((*out)[0].SharesBufferWith(value));
}

TEST(PassThroughTest, IdentityNPassesEveryInput) {
  std::vector<Tensor> inputs = OneOfEachDtype();
  OpRunner runner("IdentityN");
  StatusOr<std::vector<Tensor>> out = runner.Run(inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    ExpectTensorEqual((*out)[i], inputs[i]);
    EXPECT_TRUE((*out)[i].SharesBufferWith(inputs[i]));
  }
  EXPECT_FALSE(runner.kernel()->IsExpensive());
}

TEST(SnapshotTest, CopiesASharedInput) {
  for (const Tensor& value : OneOfEachDtype()) {
    SCOPED_TRACE(value.DebugString());
    StatusOr<std::vector<Tensor>> out = OpRunner("Snapshot").Run({value});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], value);
    if (value.NumElements() > 0) {
      EXPECT_FALSE((*out)[0].SharesBufferWith(value));
    }
  }
  // Writing to the copy leaves the original alone.
  const Tensor original = StringTensor({"x", "y"}, {2});
  StatusOr<std::vector<Tensor>> out = OpRunner("Snapshot").Run({original});
  ASSERT_TRUE(out.ok()) << out.status();
  (*out)[0].data<std::string>()[0] = "changed";
  ExpectTensorEqual(original, StringTensor({"x", "y"}, {2}));
}

TEST(SnapshotTest, TakesOverAnUnsharedInput) {
  Tensor value = AsTensor<float>({1, 2, 3}, {3});
  const void* buf = value.raw_data();
  StatusOr<std::vector<Tensor>> out =
      OpRunner("Snapshot").Run(test::Inputs(std::move(value)));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].raw_data(), buf);
  ExpectTensorEqual((*out)[0], AsTensor<float>({1, 2, 3}, {3}));
}

TEST(NoOpTest, RunsWithNoOutputs) {
  OpRunner runner("NoOp");
  StatusOr<std::vector<Tensor>> out = runner.Run({});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->empty());
  EXPECT_FALSE(runner.kernel()->IsExpensive());
}

}  // namespace
}  // namespace weft
