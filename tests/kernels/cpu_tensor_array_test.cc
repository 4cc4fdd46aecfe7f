// The TensorArray kernels (kernels/cpu/tensor_array_ops.cc) one op at a
// time, the handle passed from op to op: TensorFlow's semantics (write once,
// clear_after_read, zeros for elements never written when the element shape
// is known, dynamic_size growth, identical_element_shapes) and its errors
// (out-of-range indices, writing twice, reading a cleared element, dtype and
// shape mismatches, closed arrays, bad sizes and lengths), each as
// TensorFlow words it. Values are checked against TensorFlow in graphs by
// tests/models/tensor_array_test.cc; Assert and Bitcast are here too.
#include <cstdint>
#include <string>
#include <vector>

#include "core/variant.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_tensor_array_test {

using test::AsScalar;
using test::AsTensor;
using test::ExpectTensorEqual;
using test::OpRunner;
using ::testing::HasSubstr;

struct Options {
  DataType dtype = DT_FLOAT;
  PartialTensorShape element_shape;  // unknown rank
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool identical_element_shapes = false;
};

StatusOr<std::vector<Tensor>> RunOp(const std::string& op,
                                    std::vector<Tensor> inputs,
                                    AttrMap attrs = {}) {
  OpRunner runner(op, std::move(attrs));
  return runner.Run(std::move(inputs));
}

// A new array's handle.
Tensor Create(int32_t size, const Options& o = Options()) {
  AttrMap attrs;
  attrs["dtype"] = AttrValue::Type(o.dtype);
  attrs["element_shape"] = AttrValue::Shape(o.element_shape);
  attrs["dynamic_size"] = AttrValue::Bool(o.dynamic_size);
  attrs["clear_after_read"] = AttrValue::Bool(o.clear_after_read);
  attrs["identical_element_shapes"] =
      AttrValue::Bool(o.identical_element_shapes);
  attrs["tensor_array_name"] = AttrValue::String("ta");
  auto out = RunOp("TensorArrayV3", {AsScalar<int32_t>(size)}, attrs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return Tensor();
  EXPECT_EQ((*out)[0].dtype(), DT_RESOURCE);
  EXPECT_EQ((*out)[0].shape(), TensorShape({2}));
  ExpectTensorEqual((*out)[1], AsScalar<float>(0));
  return (*out)[0];
}

Tensor Flow() { return AsScalar<float>(0); }

Status Write(const Tensor& h, int32_t index, const Tensor& value) {
  auto out = RunOp("TensorArrayWriteV3",
                   {h, AsScalar<int32_t>(index), value, AsScalar<float>(1.5f)});
  if (out.ok()) ExpectTensorEqual((*out)[0], AsScalar<float>(1.5f));
  return out.ok() ? Status() : out.status();
}

AttrMap Dtype(DataType dt = DT_FLOAT) {
  AttrMap attrs;
  attrs["dtype"] = AttrValue::Type(dt);
  return attrs;
}

StatusOr<Tensor> Read(const Tensor& h, int32_t index, DataType dt = DT_FLOAT) {
  auto out = RunOp("TensorArrayReadV3", {h, AsScalar<int32_t>(index), Flow()},
                   Dtype(dt));
  if (!out.ok()) return out.status();
  return (*out)[0];
}

StatusOr<Tensor> Gather(const Tensor& h, std::vector<int32_t> indices,
                        PartialTensorShape element_shape = {},
                        DataType dt = DT_FLOAT) {
  AttrMap attrs = Dtype(dt);
  attrs["element_shape"] = AttrValue::Shape(element_shape);
  const int64_t n = static_cast<int64_t>(indices.size());
  auto out = RunOp("TensorArrayGatherV3",
                   {h, AsTensor<int32_t>(indices, {n}), Flow()}, attrs);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

int32_t Size(const Tensor& h) {
  auto out = RunOp("TensorArraySizeV3", {h, Flow()});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *(*out)[0].data<int32_t>() : -1;
}

Tensor Row(float a, float b) { return AsTensor<float>({a, b}, {2}); }

TEST(TensorArrayTest, WriteReadGatherSize) {
  Tensor h = Create(3);
  ASSERT_TRUE(Write(h, 0, Row(1, 2)).ok());
  ASSERT_TRUE(Write(h, 2, Row(5, 6)).ok());
  ASSERT_TRUE(Write(h, 1, Row(3, 4)).ok());
  EXPECT_EQ(Size(h), 3);
  auto r = Read(h, 2);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectTensorEqual(*r, Row(5, 6));
  auto g = Gather(h, {1, 0});
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectTensorEqual(*g, AsTensor<float>({3, 4, 1, 2}, {2, 2}));
  EXPECT_THAT(h.SummarizeValue(1),
              HasSubstr("TensorArray<float <unknown>, 3 elements>"));
}

TEST(TensorArrayTest, ClearAfterReadAllowsOneReadOnly) {
  Tensor h = Create(2);
  ASSERT_TRUE(Write(h, 0, Row(1, 2)).ok());
  ASSERT_TRUE(Read(h, 0).ok());
  auto again = Read(h, 0);
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(),
              HasSubstr("TensorArray ta: Could not read index 0 twice because "
                        "it was cleared after a previous read (perhaps try "
                        "setting clear_after_read = false?)."));
  Options keep;
  keep.clear_after_read = false;
  Tensor k = Create(2, keep);
  ASSERT_TRUE(Write(k, 0, Row(1, 2)).ok());
  ASSERT_TRUE(Read(k, 0).ok());
  auto twice = Gather(k, {0, 0});
  ASSERT_TRUE(twice.ok()) << twice.status();
  ExpectTensorEqual(*twice, AsTensor<float>({1, 2, 1, 2}, {2, 2}));
}

TEST(TensorArrayTest, WritesOnceAndNeverAfterARead) {
  Tensor h = Create(2);
  ASSERT_TRUE(Write(h, 0, Row(1, 2)).ok());
  EXPECT_THAT(Write(h, 0, Row(1, 2)).message(),
              HasSubstr("TensorArray ta: Could not write to TensorArray index "
                        "0 because it has already been written to."));
  Options shape;
  shape.element_shape = PartialTensorShape({2});
  Tensor z = Create(2, shape);
  ASSERT_TRUE(Read(z, 1).ok());
  EXPECT_THAT(Write(z, 1, Row(1, 2)).message(),
              HasSubstr("Could not write to TensorArray index 1 because it "
                        "has already been read."));
}

TEST(TensorArrayTest, UnwrittenElementsAreZerosOnlyWithAKnownShape) {
  Options shape;
  shape.element_shape = PartialTensorShape({2});
  Tensor h = Create(3, shape);
  ASSERT_TRUE(Write(h, 1, Row(3, 4)).ok());
  auto g = Gather(h, {0, 1, 2});
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectTensorEqual(*g, AsTensor<float>({0, 0, 3, 4, 0, 0}, {3, 2}));

  Tensor u = Create(2);
  auto r = Read(u, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("TensorArray ta: Could not read from TensorArray "
                        "index 0.  Furthermore, the element shape is not "
                        "fully defined: <unknown>."));
  // Gather's element_shape attr makes the shape known.
  Tensor v = Create(2);
  auto zeros = Gather(v, {0, 1}, PartialTensorShape({1, 2}));
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  ExpectTensorEqual(*zeros, AsTensor<float>({0, 0, 0, 0}, {2, 1, 2}));
}

TEST(TensorArrayTest, OutOfRangeIndices) {
  Tensor h = Create(2);
  EXPECT_THAT(Write(h, 2, Row(1, 2)).message(),
              HasSubstr("TensorArray ta: Tried to write to index 2 but array "
                        "is not resizeable and size is: 2"));
  EXPECT_THAT(Write(h, -1, Row(1, 2)).message(),
              HasSubstr("Tried to write to index -1 but array is not "
                        "resizeable and size is: 2"));
  EXPECT_THAT(Read(h, 2).status().message(),
              HasSubstr("Tried to read from index 2 but array size is: 2"));
  EXPECT_THAT(Read(h, -3).status().message(),
              HasSubstr("Tried to read from index -3 but array size is: 2"));
  EXPECT_THAT(Gather(h, {5}).status().message(),
              HasSubstr("Tried to read from index 5 but array size is: 2"));
}

TEST(TensorArrayTest, DynamicSizeGrows) {
  Options dyn;
  dyn.dynamic_size = true;
  Tensor h = Create(0, dyn);
  ASSERT_TRUE(Write(h, 3, Row(7, 8)).ok());
  EXPECT_EQ(Size(h), 4);
  auto g = Gather(h, {3, 0}, PartialTensorShape({2}));
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectTensorEqual(*g, AsTensor<float>({7, 8, 0, 0}, {2, 2}));
  // Scatter past the end grows it too.
  auto s =
      RunOp("TensorArrayScatterV3", {h, AsTensor<int32_t>({5}, {1}),
                                     AsTensor<float>({1, 1}, {1, 2}), Flow()});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Size(h), 6);
}

TEST(TensorArrayTest, ElementShapesAndDtypes) {
  Options fixed;
  fixed.element_shape = PartialTensorShape({-1, 2});
  Tensor h = Create(2, fixed);
  EXPECT_THAT(Write(h, 0, Row(1, 2)).message(),
              HasSubstr("Could not write to TensorArray index 0 because the "
                        "value shape is [2] which is incompatible with the "
                        "TensorArray's inferred element shape: [?,2] "
                        "(consider setting infer_shape=False)."));
  // identical_element_shapes: the first write fixes the shape.
  Options same;
  same.identical_element_shapes = true;
  Tensor s = Create(2, same);
  ASSERT_TRUE(Write(s, 0, Row(1, 2)).ok());
  EXPECT_THAT(Write(s, 1, AsTensor<float>({1, 2, 3}, {3})).message(),
              HasSubstr("inferred element shape: [2]"));
  EXPECT_THAT(Write(s, 1, AsTensor<int32_t>({1, 2}, {2})).message(),
              HasSubstr("TensorArray dtype is float but Op is trying to write "
                        "dtype int32."));
  EXPECT_THAT(Read(s, 0, DT_INT32).status().message(),
              HasSubstr("TensorArray dtype is float but Op requested dtype "
                        "int32."));
  // Without identical shapes, gather needs equal shapes.
  Tensor d = Create(2);
  ASSERT_TRUE(Write(d, 0, Row(1, 2)).ok());
  ASSERT_TRUE(Write(d, 1, AsTensor<float>({1, 2, 3}, {3})).ok());
  EXPECT_THAT(Gather(d, {0, 1}).status().message(),
              HasSubstr("TensorArray has inconsistent shapes.  Index 0 has "
                        "shape: [2] but index 1 has shape: [3]"));
}

TEST(TensorArrayTest, ScatterAndItsErrors) {
  Tensor h = Create(3);
  Tensor x = AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  auto s = RunOp("TensorArrayScatterV3",
                 {h, AsTensor<int32_t>({2, 0, 1}, {3}), x, Flow()});
  ASSERT_TRUE(s.ok()) << s.status();
  auto g = Gather(h, {0, 1, 2});
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectTensorEqual(*g, AsTensor<float>({3, 4, 5, 6, 1, 2}, {3, 2}));
  Tensor k = Create(3);
  auto big = RunOp("TensorArrayScatterV3",
                   {k, AsTensor<int32_t>({0, 3, 1}, {3}), x, Flow()});
  EXPECT_THAT(big.status().message(),
              HasSubstr("Max scatter index must be < array size (3 vs. 3)"));
  auto count = RunOp("TensorArrayScatterV3",
                     {k, AsTensor<int32_t>({0, 1}, {2}), x, Flow()});
  EXPECT_THAT(count.status().message(),
              HasSubstr("Expected len(indices) == values.shape[0], but saw: "
                        "2 vs. 3"));
  auto scalar = RunOp("TensorArrayScatterV3", {k, AsTensor<int32_t>({}, {0}),
                                               AsScalar<float>(1), Flow()});
  EXPECT_THAT(scalar.status().message(),
              HasSubstr("Input value for unpack must be at least a vector but "
                        "received shape: []"));
  auto negative = RunOp("TensorArrayScatterV3",
                        {k, AsTensor<int32_t>({0, -1, 1}, {3}), x, Flow()});
  EXPECT_THAT(negative.status().message(),
              HasSubstr("Tried to write to index -1"));
}

TEST(TensorArrayTest, SplitConcat) {
  Tensor h = Create(3);
  Tensor x = AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  auto s = RunOp("TensorArraySplitV3",
                 {h, x, AsTensor<int64_t>({2, 0, 1}, {3}), Flow()});
  ASSERT_TRUE(s.ok()) << s.status();
  AttrMap attrs = Dtype();
  auto c = RunOp("TensorArrayConcatV3", {h, Flow()}, attrs);
  ASSERT_TRUE(c.ok()) << c.status();
  ExpectTensorEqual((*c)[0], x);
  ExpectTensorEqual((*c)[1], AsTensor<int64_t>({2, 0, 1}, {3}));

  Tensor k = Create(2);
  auto sum = RunOp("TensorArraySplitV3",
                   {k, x, AsTensor<int64_t>({2, 2}, {2}), Flow()});
  EXPECT_THAT(sum.status().message(),
              HasSubstr("Expected sum of lengths to be equal to "
                        "values.shape[0], but sum of lengths is 4 and value's "
                        "shape is: [3,2]"));
  auto count = RunOp("TensorArraySplitV3",
                     {k, x, AsTensor<int64_t>({1, 1, 1}, {3}), Flow()});
  EXPECT_THAT(count.status().message(),
              HasSubstr("TensorArray's size is not equal to the size of "
                        "lengths (2 vs. 3), and the TensorArray is not marked "
                        "as dynamically resizeable"));
  auto negative = RunOp("TensorArraySplitV3",
                        {k, x, AsTensor<int64_t>({4, -1}, {2}), Flow()});
  EXPECT_THAT(negative.status().message(),
              HasSubstr("lengths must be non-negative"));
  auto huge =
      RunOp("TensorArraySplitV3",
            {k, x, AsTensor<int64_t>({INT64_MAX, INT64_MAX}, {2}), Flow()});
  EXPECT_THAT(huge.status().message(),
              HasSubstr("the sum of lengths overflows int64"));

  // Scalars cannot be concatenated; an empty array needs the shape.
  Tensor sc = Create(1);
  ASSERT_TRUE(Write(sc, 0, AsScalar<float>(1)).ok());
  EXPECT_THAT(
      RunOp("TensorArrayConcatV3", {sc, Flow()}, attrs).status().message(),
      HasSubstr("Concat saw a scalar shape at index 0 but requires at "
                "least vectors.  Did you mean to call pack?"));
  Tensor empty = Create(0);
  EXPECT_EQ(
      RunOp("TensorArrayConcatV3", {empty, Flow()}, attrs).status().code(),
      absl::StatusCode::kUnimplemented);
  attrs["element_shape_except0"] = AttrValue::Shape(PartialTensorShape({2}));
  auto none = RunOp("TensorArrayConcatV3", {empty, Flow()}, attrs);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ((*none)[0].shape(), TensorShape({0, 2}));
  EXPECT_EQ((*none)[1].shape(), TensorShape({0}));
}

TEST(TensorArrayTest, GatherOfNothing) {
  Tensor h = Create(0);
  auto g = Gather(h, {});
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  auto shaped = Gather(h, {}, PartialTensorShape({3}));
  ASSERT_TRUE(shaped.ok()) << shaped.status();
  EXPECT_EQ(shaped->shape(), TensorShape({0, 3}));
}

TEST(TensorArrayTest, CloseRefusesEverythingAfter) {
  Tensor h = Create(1);
  ASSERT_TRUE(Write(h, 0, Row(1, 2)).ok());
  ASSERT_TRUE(RunOp("TensorArrayCloseV3", {h}).ok());
  EXPECT_THAT(Read(h, 0).status().message(),
              HasSubstr("TensorArray ta has already been closed."));
  EXPECT_THAT(Write(h, 0, Row(1, 2)).message(),
              HasSubstr("has already been closed."));
  auto size = RunOp("TensorArraySizeV3", {h, Flow()});
  EXPECT_FALSE(size.ok());
}

TEST(TensorArrayTest, BadSizesAndHandles) {
  AttrMap attrs = Dtype();
  auto negative = RunOp("TensorArrayV3", {AsScalar<int32_t>(-1)}, attrs);
  EXPECT_THAT(negative.status().message(), HasSubstr("Size should be >= 0."));
  auto vector = RunOp("TensorArrayV3", {AsTensor<int32_t>({1, 2}, {2})}, attrs);
  EXPECT_THAT(vector.status().message(),
              HasSubstr("TensorArray size must be scalar, but had shape: [2]"));
  auto huge = RunOp("TensorArrayV3", {AsScalar<int32_t>(INT32_MAX)}, attrs);
  EXPECT_THAT(huge.status().message(), HasSubstr("past weft's limit"));
  Options dyn;
  dyn.dynamic_size = true;
  Tensor grows = Create(0, dyn);
  EXPECT_THAT(Write(grows, INT32_MAX, Row(1, 2)).message(),
              HasSubstr("past weft's limit of 16777216 elements"));
  Tensor h = Create(2);
  auto index = RunOp("TensorArrayReadV3",
                     {h, AsTensor<int32_t>({0, 1}, {2}), Flow()}, attrs);
  EXPECT_THAT(index.status().message(),
              HasSubstr("TensorArray index must be scalar, but had shape: "
                        "[2]"));
  // A resource tensor holding no array.
  Tensor empty(DT_RESOURCE, TensorShape({2}));
  EXPECT_THAT(Read(empty, 0).status().message(),
              HasSubstr("holds a <empty>, not a TensorArray"));
}

TEST(TensorArrayTest, StringsAndLargeArrays) {
  Options strings;
  strings.dtype = DT_STRING;
  Tensor h = Create(2, strings);
  ASSERT_TRUE(Write(h, 1, AsTensor<std::string>({"b", "c"}, {2})).ok());
  ASSERT_TRUE(Write(h, 0, AsTensor<std::string>({"a", ""}, {2})).ok());
  auto g = Gather(h, {0, 1}, {}, DT_STRING);
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectTensorEqual(*g, AsTensor<std::string>({"a", "", "b", "c"}, {2, 2}));

  // 1000 elements of 8 scattered, gathered back in reverse.
  std::vector<float> values(8000);
  std::vector<int32_t> order(1000), reverse(1000);
  for (int i = 0; i < 8000; ++i) values[i] = static_cast<float>(i);
  for (int i = 0; i < 1000; ++i) {
    order[i] = i;
    reverse[i] = 999 - i;
  }
  Tensor big = Create(1000);
  auto s = RunOp("TensorArrayScatterV3",
                 {big, AsTensor<int32_t>(order, {1000}),
                  AsTensor<float>(values, {1000, 8}), Flow()});
  ASSERT_TRUE(s.ok()) << s.status();
  auto back = Gather(big, reverse);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->shape(), TensorShape({1000, 8}));
  EXPECT_EQ(back->data<float>()[0], 7992.0f);
  EXPECT_EQ(back->data<float>()[7999], 7.0f);
}

// ---- Assert, Bitcast ------------------------------------------------------

TEST(AssertTest, HoldsOrSummarisesTheData) {
  AttrMap attrs;
  attrs["summarize"] = AttrValue::Int(3);
  auto ok = RunOp("Assert", {AsScalar<bool>(true), AsScalar<float>(1)}, attrs);
  EXPECT_TRUE(ok.ok()) << ok.status();
  auto failed = RunOp(
      "Assert",
      {AsScalar<bool>(false), AsTensor<std::string>({"x is \"bad\":"}, {}),
       AsTensor<int32_t>({1, 2, 3, 4}, {2, 2}),
       AsTensor<float>({0.5f, 0.1f}, {2})},
      attrs);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(failed.status().message(),
              HasSubstr("assertion failed: [x is \\\"bad\\\":] "
                        "[[1 2][3...]...] [0.5 0.1]"));
  auto shape = RunOp(
      "Assert", {AsTensor<bool>({true, true}, {2}), AsScalar<float>(1)}, attrs);
  EXPECT_THAT(shape.status().message(),
              HasSubstr("In[0] should be a scalar: [2]"));
}

TEST(BitcastTest, ChangesElementSizes) {
  AttrMap attrs;
  attrs["type"] = AttrValue::Type(DT_UINT8);
  auto narrow = RunOp("Bitcast", {AsTensor<int32_t>({0x04030201}, {1})}, attrs);
  ASSERT_TRUE(narrow.ok()) << narrow.status();
  ExpectTensorEqual((*narrow)[0], AsTensor<uint8_t>({1, 2, 3, 4}, {1, 4}));
  attrs["type"] = AttrValue::Type(DT_INT32);
  auto wide =
      RunOp("Bitcast", {AsTensor<uint8_t>({1, 2, 3, 4}, {1, 4})}, attrs);
  ASSERT_TRUE(wide.ok()) << wide.status();
  ExpectTensorEqual((*wide)[0], AsTensor<int32_t>({0x04030201}, {1}));
  auto bad = RunOp("Bitcast", {AsTensor<uint8_t>({1, 2, 3}, {3})}, attrs);
  EXPECT_THAT(bad.status().message(),
              HasSubstr("Cannot bitcast from uint8 to int32: shape [3]"));
  attrs["type"] = AttrValue::Type(DT_FLOAT);
  auto same = RunOp("Bitcast", {AsScalar<int32_t>(0x3f800000)}, attrs);
  ASSERT_TRUE(same.ok()) << same.status();
  ExpectTensorEqual((*same)[0], AsScalar<float>(1.0f));
}

}  // namespace cpu_tensor_array_test
}  // namespace weft
