// Transpose, ConcatV2, Pack, Unpack, Split, SplitV, Slice, StridedSlice,
// Pad, PadV2, MirrorPad, Tile, BroadcastTo, GatherV2 and OneHot on inputs
// large enough to take the parallel paths (and the cache-blocked transpose),
// checked element by element against a naive reference written here from
// each op's definition (one index computation per output element), at 0 and
// 2 threads; plus the run-time errors and buffer sharing. Small cases and
// the edge cases of TensorFlow's semantics are in the goldens
// (cpu_array_golden_test.cc).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_array_layout_test {

using test::AsScalar;
using test::AsTensor;
using test::OpRunner;

using Index = std::vector<int64_t>;

size_t ElementSize(DataType dt) {
  return dt == DT_STRING ? sizeof(std::string) : DataTypeSize(dt);
}

// Distinct-ish values of `dtype` (labels wrap for narrow types; the
// reference reads the very same input, so repeats are harmless).
Tensor Values(DataType dtype, const TensorShape& shape, int64_t seed = 0) {
  Tensor t(dtype, shape);
  const int64_t n = shape.num_elements();
  if (dtype == DT_STRING) {
    for (int64_t k = 0; k < n; ++k) {
      t.data<std::string>()[k] = "v" + std::to_string(k + seed);
    }
    return t;
  }
  const size_t bytes = DataTypeSize(dtype);
  unsigned char* p = static_cast<unsigned char*>(t.raw_data());
  // A byte pattern per element; bool takes 0/1 only.
  for (int64_t k = 0; k < n; ++k) {
    for (size_t b = 0; b < bytes; ++b) {
      const uint64_t v = static_cast<uint64_t>(k + seed) * 2654435761u;
      p[k * bytes + b] = dtype == DT_BOOL
                             ? static_cast<unsigned char>((v >> 7) & 1)
                             : static_cast<unsigned char>(v >> (8 * (b % 4)));
    }
  }
  return t;
}

Index Strides(const TensorShape& s) {
  Index st(s.dims(), 1);
  for (int d = s.dims() - 2; d >= 0; --d) st[d] = st[d + 1] * s.dim_size(d + 1);
  return st;
}

// Where an output element comes from: {input number, flat index}, or
// {-1, 0} for "the fill value".
using Source = std::pair<int, int64_t>;

// The reference: output element at `index` copies `srcs[s.first]` element
// s.second, or `fill` (element 0 of it) when s.first is -1.
Tensor Reference(const std::vector<const Tensor*>& srcs, DataType dtype,
                 const TensorShape& out_shape,
                 const std::function<Source(const Index&)>& source,
                 const Tensor* fill = nullptr) {
  Tensor out(dtype, out_shape);
  const size_t bytes = ElementSize(dtype);
  Index index(out_shape.dims(), 0);
  for (int64_t k = 0; k < out_shape.num_elements(); ++k) {
    const Source s = source(index);
    const Tensor* from = s.first < 0 ? fill : srcs[s.first];
    const int64_t at = s.first < 0 ? 0 : s.second;
    if (dtype == DT_STRING) {
      out.data<std::string>()[k] = from->data<std::string>()[at];
    } else {
      std::memcpy(static_cast<char*>(out.raw_data()) + k * bytes,
                  static_cast<const char*>(from->raw_data()) + at * bytes,
                  bytes);
    }
    for (int d = out_shape.dims() - 1; d >= 0; --d) {
      if (++index[d] < out_shape.dim_size(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

void ExpectSameElements(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  if (got.dtype() == DT_STRING) {
    int64_t bad = 0;
    for (int64_t k = 0; k < got.NumElements(); ++k) {
      bad += got.data<std::string>()[k] != want.data<std::string>()[k];
    }
    EXPECT_EQ(bad, 0) << "string elements differ";
    return;
  }
  const size_t bytes = ElementSize(got.dtype());
  int64_t first_bad = -1;
  for (int64_t k = 0; k < got.NumElements() && first_bad < 0; ++k) {
    if (std::memcmp(static_cast<const char*>(got.raw_data()) + k * bytes,
                    static_cast<const char*>(want.raw_data()) + k * bytes,
                    bytes) != 0) {
      first_bad = k;
    }
  }
  EXPECT_EQ(first_bad, -1) << "first differing element of "
                           << got.DebugString();
}

// Runs `op` at 0 and 2 threads; each output must equal `want`'s.
void ExpectRuns(const std::string& op, const AttrMap& attrs,
                const std::vector<Tensor>& inputs,
                const std::vector<Tensor>& want) {
  for (int threads : {0, 2}) {
    SCOPED_TRACE(op + " at " + std::to_string(threads) + " threads");
    StatusOr<std::vector<Tensor>> out =
        OpRunner(op, attrs, threads).Run(inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      ExpectSameElements((*out)[i], want[i]);
  }
}

// The status message of a run that must fail with InvalidArgument.
std::string RunError(const std::string& op, const std::vector<Tensor>& inputs,
                     const AttrMap& attrs = {}) {
  StatusOr<std::vector<Tensor>> out = OpRunner(op, attrs).Run(inputs);
  EXPECT_FALSE(out.ok()) << op << " should fail";
  if (out.ok()) return "";
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
      << out.status();
  const std::string message(out.status().message());
  EXPECT_TRUE(
      absl::StartsWith(message, "node 'kernel_test/" + op + "' (" + op + "): "))
      << message;
  return message;
}

Tensor I32(std::vector<int32_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return AsTensor<int32_t>(v, {n});
}

AttrMap Attr(const char* name, AttrValue v) {
  AttrMap m;
  m[name] = std::move(v);
  return m;
}

// ---- Transpose --------------------------------------------------------------

void CheckTranspose(DataType dt, const TensorShape& shape,
                    const std::vector<int32_t>& perm) {
  SCOPED_TRACE(DataTypeName(dt) + " " + shape.DebugString());
  const Tensor x = Values(dt, shape);
  std::vector<int64_t> out_dims;
  for (int32_t p : perm) out_dims.push_back(shape.dim_size(p));
  const TensorShape out_shape = *TensorShape::Build(out_dims);
  const Index st = Strides(shape);
  const Tensor want = Reference({&x}, dt, out_shape, [&](const Index& i) {
    int64_t flat = 0;
    for (size_t d = 0; d < perm.size(); ++d) flat += i[d] * st[perm[d]];
    return Source{0, flat};
  });
  ExpectRuns("Transpose", {}, {x, I32(perm)}, {want});
}

TEST(ArrayTransposeTest, LargeMatchesReferenceForEveryWidth) {
  // A batched 2-D transpose (the blocked path, ragged tiles), NHWC to NCHW
  // and back, a permutation keeping the last dimension (memcpy rows), and a
  // general rank-5 one.
  for (DataType dt : {DT_INT8, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_COMPLEX128}) {
    CheckTranspose(dt, {3, 130, 77}, {0, 2, 1});
    CheckTranspose(dt, {2, 17, 19, 33}, {0, 3, 1, 2});
  }
  CheckTranspose(DT_FLOAT, {2, 33, 17, 19}, {0, 2, 3, 1});
  CheckTranspose(DT_INT32, {40, 30, 20}, {1, 0, 2});
  CheckTranspose(DT_UINT16, {3, 4, 5, 6, 7}, {4, 1, 3, 0, 2});
  CheckTranspose(DT_INT64, {300, 200}, {1, 0});
  CheckTranspose(DT_STRING, {3, 20, 30}, {2, 0, 1});
}

TEST(ArrayTransposeTest, OrderKeepingPermutationSharesTheBuffer) {
  const Tensor x = Values(DT_FLOAT, {2, 1, 3});
  for (const std::vector<int32_t>& perm :
       {std::vector<int32_t>{0, 1, 2}, std::vector<int32_t>{1, 0, 2},
        std::vector<int32_t>{-3, -2, -1}}) {
    StatusOr<std::vector<Tensor>> out =
        OpRunner("Transpose").Run({x, I32(perm)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE((*out)[0].SharesBufferWith(x));
  }
  StatusOr<std::vector<Tensor>> moved =
      OpRunner("Transpose").Run({x, I32({2, 1, 0})});
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_FALSE((*moved)[0].SharesBufferWith(x));
}

TEST(ArrayTransposeTest, BadPermutationsAreErrors) {
  const Tensor x = Values(DT_FLOAT, {2, 3, 4});
  EXPECT_TRUE(absl::StrContains(RunError("Transpose", {x, I32({0, 1})}),
                                "perm (input 1) is [0,1] with 2 entries but "
                                "input 0 [2,3,4] has rank 3"));
  EXPECT_TRUE(absl::StrContains(RunError("Transpose", {x, I32({0, 1, 3})}),
                                "entry 2 is out of range"));
  EXPECT_TRUE(absl::StrContains(RunError("Transpose", {x, I32({0, -3, 1})}),
                                "entry 1 is repeated"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Transpose", {x, AsTensor<int32_t>({0, 1, 2}, {1, 3})}),
      "perm (input 1) must be a vector"));
}

// ---- ConcatV2, Pack, Unpack, Split, SplitV ----------------------------------

TEST(ArrayConcatTest, LargeMatchesReference) {
  for (DataType dt : {DT_UINT8, DT_FLOAT, DT_COMPLEX64, DT_STRING}) {
    for (int axis : {0, 1, 2}) {
      SCOPED_TRACE(DataTypeName(dt) + " axis " + std::to_string(axis));
      std::vector<Tensor> inputs;
      std::vector<int64_t> widths = {7, 0, 30, 1};
      std::vector<const Tensor*> srcs;
      for (size_t i = 0; i < widths.size(); ++i) {
        std::vector<int64_t> dims = {40, 30, 20};
        if (dt == DT_STRING) dims = {4, 3, 5};
        dims[axis] = widths[i];
        inputs.push_back(Values(dt, *TensorShape::Build(dims), 1000 * i));
      }
      for (const Tensor& t : inputs) srcs.push_back(&t);
      std::vector<int64_t> out_dims(inputs[0].shape().dim_sizes().begin(),
                                    inputs[0].shape().dim_sizes().end());
      out_dims[axis] = 38;
      const Tensor want = Reference(
          srcs, dt, *TensorShape::Build(out_dims), [&](const Index& idx) {
            int64_t pos = idx[axis];
            int i = 0;
            while (pos >= widths[i]) pos -= widths[i++];
            Index in = idx;
            in[axis] = pos;
            const Index st = Strides(inputs[i].shape());
            int64_t flat = 0;
            for (size_t d = 0; d < in.size(); ++d) flat += in[d] * st[d];
            return Source{i, flat};
          });
      std::vector<Tensor> args = inputs;
      args.push_back(AsScalar<int64_t>(axis - 3));  // negative, int64
      ExpectRuns("ConcatV2", {}, args, {want});
    }
  }
}

// Rows of at most 4 KiB go row by row, each input's piece in the widest
// moves of the path (16, 32 or 64 bytes: concat_rows.inc), then 16-byte
// ones and the rest: pieces of 4 to 132 bytes, each size around a move.
TEST(ArrayConcatTest, ShortRowsOfEveryPieceSize) {
  const std::vector<int64_t> widths = {16, 32, 33, 15, 8, 1, 4, 24};
  std::vector<Tensor> inputs;
  std::vector<const Tensor*> srcs;
  int64_t total = 0;
  for (size_t i = 0; i < widths.size(); ++i) {
    inputs.push_back(Values(DT_FLOAT, TensorShape({50, 3, widths[i]}),
                            1000 * static_cast<int>(i)));
    total += widths[i];
  }
  for (const Tensor& t : inputs) srcs.push_back(&t);
  const Tensor want = Reference(
      srcs, DT_FLOAT, TensorShape({50, 3, total}), [&](const Index& idx) {
        int64_t pos = idx[2];
        int i = 0;
        while (pos >= widths[i]) pos -= widths[i++];
        return Source{i, (idx[0] * 3 + idx[1]) * widths[i] + pos};
      });
  std::vector<Tensor> args = inputs;
  args.push_back(AsScalar<int32_t>(2));
  ExpectRuns("ConcatV2", {}, args, {want});
}

TEST(ArrayConcatTest, SingleNonEmptyInputIsShared) {
  const Tensor x = Values(DT_FLOAT, {2, 3});
  StatusOr<std::vector<Tensor>> out =
      OpRunner("ConcatV2")
          .Run({Values(DT_FLOAT, {0, 3}), x, AsScalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(x));
}

TEST(ArrayConcatTest, MismatchedInputsAreErrors) {
  const Tensor a = Values(DT_FLOAT, {2, 3});
  EXPECT_TRUE(absl::StrContains(
      RunError("ConcatV2", {a, Values(DT_FLOAT, {3, 3}), AsScalar<int32_t>(1)}),
      "input 1 has shape [3,3] but must match input 0 [2,3] in rank and in "
      "every dimension but the axis 1"));
  EXPECT_TRUE(absl::StrContains(
      RunError("ConcatV2",
               {a, Values(DT_FLOAT, {2, 3, 1}), AsScalar<int32_t>(0)}),
      "input 1 has shape [2,3,1]"));
  EXPECT_TRUE(
      absl::StrContains(RunError("ConcatV2", {a, a, AsScalar<int32_t>(2)}),
                        "axis (input 2) is 2 but must be in [-2, 2)"));
  EXPECT_TRUE(absl::StrContains(
      RunError("ConcatV2",
               {AsScalar<float>(1), AsScalar<float>(2), AsScalar<int32_t>(0)}),
      "scalars cannot be concatenated"));
  EXPECT_TRUE(
      absl::StrContains(RunError("ConcatV2", {a, a, I32({1, 0})}),
                        "axis (input 2) must be a scalar but has shape [2]"));
}

TEST(ArrayPackTest, LargeMatchesReferenceAndUnpackInverts) {
  const int n = 5;
  for (int axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(axis);
    std::vector<Tensor> inputs;
    std::vector<const Tensor*> srcs;
    for (int i = 0; i < n; ++i) {
      inputs.push_back(Values(DT_DOUBLE, {60, 70}, 10000 * i));
    }
    for (const Tensor& t : inputs) srcs.push_back(&t);
    const int a = axis < 0 ? axis + 3 : axis;
    std::vector<int64_t> out_dims = {60, 70};
    out_dims.insert(out_dims.begin() + a, n);
    const Tensor want = Reference(
        srcs, DT_DOUBLE, *TensorShape::Build(out_dims), [&](const Index& idx) {
          Index in = idx;
          const int i = static_cast<int>(in[a]);
          in.erase(in.begin() + a);
          return Source{i, in[0] * 70 + in[1]};
        });
    ExpectRuns("Pack", Attr("axis", AttrValue::Int(axis)), inputs, {want});
    AttrMap unpack = Attr("axis", AttrValue::Int(axis));
    unpack["num"] = AttrValue::Int(n);
    ExpectRuns("Unpack", unpack, {want}, inputs);
  }
}

TEST(ArrayPackTest, ErrorsAndSharing) {
  const Tensor a = Values(DT_FLOAT, {2, 3});
  EXPECT_TRUE(absl::StrContains(
      RunError("Pack", {a, Values(DT_FLOAT, {3, 2})}),
      "all inputs to stack must have one shape, but input 0 is [2,3] and "
      "input 1 is [3,2]"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Pack", {a, a}, Attr("axis", AttrValue::Int(3))),
      "attr 'axis' is 3 but must be in [-3, 3)"));
  StatusOr<std::vector<Tensor>> one = OpRunner("Pack").Run({a});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_TRUE((*one)[0].SharesBufferWith(a));
  EXPECT_EQ((*one)[0].shape(), TensorShape({1, 2, 3}));

  AttrMap unpack = Attr("num", AttrValue::Int(3));
  EXPECT_TRUE(absl::StrContains(RunError("Unpack", {a}, unpack),
                                "attr 'num' is 3 but dimension 0 of input 0 "
                                "[2,3] has size 2"));
  unpack["axis"] = AttrValue::Int(-3);
  EXPECT_TRUE(absl::StrContains(RunError("Unpack", {a}, unpack),
                                "attr 'axis' is -3 but must be in [-2, 2)"));
}

TEST(ArraySplitTest, LargeMatchesReference) {
  const TensorShape shape({30, 60, 40});
  for (DataType dt : {DT_BFLOAT16, DT_INT64, DT_STRING}) {
    for (int axis : {0, 1, 2}) {
      SCOPED_TRACE(DataTypeName(dt) + " axis " + std::to_string(axis));
      const Tensor x = Values(dt, shape);
      const Index st = Strides(shape);
      // SplitV into 3 unequal parts with a -1, and Split into 5 equal ones.
      const std::vector<int64_t> sizes = {
          shape.dim_size(axis) / 2, 0,
          shape.dim_size(axis) - shape.dim_size(axis) / 2};
      std::vector<Tensor> want;
      int64_t start = 0;
      for (int64_t size : sizes) {
        std::vector<int64_t> dims(shape.dim_sizes().begin(),
                                  shape.dim_sizes().end());
        dims[axis] = size;
        want.push_back(Reference(
            {&x}, dt, *TensorShape::Build(dims), [&](const Index& idx) {
              int64_t flat = 0;
              for (int d = 0; d < 3; ++d) {
                flat += (idx[d] + (d == axis ? start : 0)) * st[d];
              }
              return Source{0, flat};
            }));
        start += size;
      }
      ExpectRuns("SplitV", Attr("num_split", AttrValue::Int(3)),
                 {x, AsTensor<int64_t>({sizes[0], sizes[1], -1}, {3}),
                  AsScalar<int32_t>(axis - 3)},
                 want);
      std::vector<Tensor> equal;
      const int64_t part = shape.dim_size(axis) / 5;
      for (int j = 0; j < 5; ++j) {
        std::vector<int64_t> dims(shape.dim_sizes().begin(),
                                  shape.dim_sizes().end());
        dims[axis] = part;
        equal.push_back(Reference(
            {&x}, dt, *TensorShape::Build(dims), [&](const Index& idx) {
              int64_t flat = 0;
              for (int d = 0; d < 3; ++d) {
                flat += (idx[d] + (d == axis ? j * part : 0)) * st[d];
              }
              return Source{0, flat};
            }));
      }
      ExpectRuns("Split", Attr("num_split", AttrValue::Int(5)),
                 {AsScalar<int32_t>(axis), x}, equal);
    }
  }
}

TEST(ArraySplitTest, ErrorsAndSharing) {
  const Tensor x = Values(DT_FLOAT, {4, 6});
  EXPECT_TRUE(absl::StrContains(
      RunError("Split", {AsScalar<int32_t>(1), x},
               Attr("num_split", AttrValue::Int(4))),
      "cannot split dimension 1 (size 6) of the value [4,6] into 4 equal "
      "parts"));
  EXPECT_TRUE(
      absl::StrContains(RunError("Split", {AsScalar<int32_t>(2), x},
                                 Attr("num_split", AttrValue::Int(2))),
                        "split_dim (input 0) is 2 but must be in [-2, 2)"));
  const AttrMap three = Attr("num_split", AttrValue::Int(3));
  EXPECT_TRUE(absl::StrContains(
      RunError("SplitV", {x, I32({1, 2, 3}), AsScalar<int32_t>(-3)}, three),
      "split_dim (input 2) is -3 but must be in [-2, 2)"));
  EXPECT_TRUE(absl::StrContains(
      RunError("SplitV", {x, I32({-1, 2, -1}), AsScalar<int32_t>(1)}, three),
      "at most one size can be -1"));
  EXPECT_TRUE(absl::StrContains(
      RunError("SplitV", {x, I32({1, 2, 2}), AsScalar<int32_t>(1)}, three),
      "into parts of sizes [1,2,2]: they must add up to it"));
  EXPECT_TRUE(absl::StrContains(
      RunError("SplitV", {x, I32({4, 3, -1}), AsScalar<int32_t>(1)}, three),
      "the given sizes exceed it"));
  EXPECT_TRUE(absl::StrContains(
      RunError("SplitV", {x, I32({-2, 4, 4}), AsScalar<int32_t>(1)}, three),
      "sizes must be >= 0, or -1 for the rest"));
  EXPECT_TRUE(absl::StrContains(
      RunError("SplitV", {x, I32({2, 4}), AsScalar<int32_t>(1)}, three),
      "size_splits (input 1) must be a vector of num_split = 3 sizes"));
  StatusOr<std::vector<Tensor>> one =
      OpRunner("Split", Attr("num_split", AttrValue::Int(1)))
          .Run({AsScalar<int32_t>(0), x});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_TRUE((*one)[0].SharesBufferWith(x));
}

// ---- Slice, StridedSlice ----------------------------------------------------

TEST(ArraySliceTest, LargeMatchesReference) {
  const TensorShape shape({50, 40, 30});
  const Index st = Strides(shape);
  for (DataType dt : {DT_INT16, DT_DOUBLE, DT_STRING}) {
    SCOPED_TRACE(DataTypeName(dt));
    const Tensor x = Values(dt, shape);
    const std::vector<int64_t> begin = {3, 0, 5};
    const std::vector<int64_t> size = {45, 40, 20};
    const Tensor want =
        Reference({&x}, dt, *TensorShape::Build(size), [&](const Index& i) {
          int64_t flat = 0;
          for (int d = 0; d < 3; ++d) flat += (begin[d] + i[d]) * st[d];
          return Source{0, flat};
        });
    ExpectRuns("Slice", {},
               {x, AsTensor<int64_t>(begin, {3}),
                AsTensor<int64_t>({45, -1, 20}, {3})},
               {want});
    // Strided: every 3rd row backwards from 49, every 2nd column from 1,
    // the last dimension reversed whole.
    const std::vector<int64_t> sb = {49, 1, 29};
    const std::vector<int64_t> ss = {-3, 2, -1};
    const std::vector<int64_t> sizes = {17, 20, 30};
    const Tensor want_strided =
        Reference({&x}, dt, *TensorShape::Build(sizes), [&](const Index& i) {
          int64_t flat = 0;
          for (int d = 0; d < 3; ++d) flat += (sb[d] + i[d] * ss[d]) * st[d];
          return Source{0, flat};
        });
    ExpectRuns("StridedSlice", {},
               {x, I32({49, 1, -1}), I32({-51, 40, -31}), I32({-3, 2, -1})},
               {want_strided});
  }
}

TEST(ArraySliceTest, WholeSliceSharesAndBadBoundsAreErrors) {
  const Tensor x = Values(DT_FLOAT, {4, 6});
  StatusOr<std::vector<Tensor>> whole =
      OpRunner("Slice").Run({x, I32({0, 0}), I32({-1, 6})});
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_TRUE((*whole)[0].SharesBufferWith(x));
  StatusOr<std::vector<Tensor>> strided =
      OpRunner("StridedSlice").Run({x, I32({0}), I32({4}), I32({1})});
  ASSERT_TRUE(strided.ok()) << strided.status();
  EXPECT_TRUE((*strided)[0].SharesBufferWith(x));

  EXPECT_TRUE(absl::StrContains(
      RunError("Slice", {x, I32({1, 7}), I32({1, 1})}),
      "begin (input 1) is [1,7] but begin[1] must be in [0, 6] for input 0 "
      "[4,6]"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Slice", {x, I32({1, 2}), I32({4, 1})}),
      "size (input 2) is [4,1] but size[0] must be in [0, 3]"));
  EXPECT_TRUE(absl::StrContains(
      RunError("Slice", {x, I32({1}), I32({1})}),
      "begin (input 1) and size (input 2) must be vectors of 2 values"));
  // PlanStridedSlice's errors, as the shape function reports them.
  EXPECT_TRUE(absl::StrContains(
      RunError("StridedSlice", {x, I32({0, 0}), I32({1, 1}), I32({1, 0})}),
      "strides must be non-zero"));
  AttrMap shrink = Attr("shrink_axis_mask", AttrValue::Int(1));
  EXPECT_TRUE(absl::StrContains(
      RunError("StridedSlice", {x, I32({4}), I32({5}), I32({1})}, shrink),
      "takes index 4 of input dimension 0 of size 4, out of bounds"));
  EXPECT_TRUE(absl::StrContains(
      RunError("StridedSlice",
               {x, I32({0, 0, 0}), I32({1, 1, 1}), I32({1, 1, 1})}),
      "but the input has only 2 dimensions"));
  EXPECT_TRUE(absl::StrContains(
      RunError("StridedSlice", {x, I32({0, 0}), I32({1}), I32({1, 1})}),
      "must have the same length"));
}

// ---- Pad, PadV2, MirrorPad --------------------------------------------------

Source PadSource(const Index& i, const TensorShape& in,
                 const std::vector<int64_t>& before, int mode) {
  // mode 0: constant, 1: REFLECT, 2: SYMMETRIC.
  const Index st = Strides(in);
  int64_t flat = 0;
  for (size_t d = 0; d < i.size(); ++d) {
    int64_t k = i[d] - before[d];
    const int64_t n = in.dim_size(static_cast<int>(d));
    if (k < 0 || k >= n) {
      if (mode == 0) return Source{-1, 0};
      if (k < 0) k = mode == 1 ? -k : -k - 1;
      if (k >= n) k = mode == 1 ? 2 * n - 2 - k : 2 * n - 1 - k;
    }
    flat += k * st[d];
  }
  return Source{0, flat};
}

TEST(ArrayPadTest, LargeMatchesReference) {
  const TensorShape in_shape({3, 25, 30, 8});
  // NHWC spatial padding (units of C), a padded last dimension, a padded
  // outer dimension.
  const std::vector<std::vector<int64_t>> cases = {{0, 0, 2, 3, 1, 4, 0, 0},
                                                   {1, 0, 0, 2, 0, 0, 3, 2},
                                                   {2, 2, 0, 0, 0, 0, 0, 0}};
  for (DataType dt : {DT_UINT8, DT_FLOAT, DT_COMPLEX128, DT_STRING}) {
    const Tensor x = Values(dt, in_shape);
    const Tensor value = Values(dt, {}, 7);
    for (const std::vector<int64_t>& p : cases) {
      SCOPED_TRACE(DataTypeName(dt) + " paddings " + std::to_string(p[0]) +
                   std::to_string(p[2]));
      std::vector<int64_t> before, out_dims;
      for (int d = 0; d < 4; ++d) {
        before.push_back(p[2 * d]);
        out_dims.push_back(in_shape.dim_size(d) + p[2 * d] + p[2 * d + 1]);
      }
      const TensorShape out_shape = *TensorShape::Build(out_dims);
      const Tensor paddings = AsTensor<int64_t>(p, {4, 2});
      const Tensor want_v2 = Reference(
          {&x}, dt, out_shape,
          [&](const Index& i) { return PadSource(i, in_shape, before, 0); },
          &value);
      ExpectRuns("PadV2", {}, {x, paddings, value}, {want_v2});
      for (int mode : {1, 2}) {
        const Tensor want = Reference({&x}, dt, out_shape, [&](const Index& i) {
          return PadSource(i, in_shape, before, mode);
        });
        ExpectRuns("MirrorPad",
                   Attr("mode",
                        AttrValue::String(mode == 1 ? "REFLECT" : "SYMMETRIC")),
                   {x, paddings}, {want});
      }
    }
  }
}

TEST(ArrayPadTest, PadFillsWithZero) {
  const Tensor x = Values(DT_DOUBLE, {20, 600});
  const Tensor zero = AsScalar<double>(0);
  const std::vector<int64_t> before = {3, 5};
  const Tensor want = Reference(
      {&x}, DT_DOUBLE, {24, 611},
      [&](const Index& i) { return PadSource(i, x.shape(), before, 0); },
      &zero);
  ExpectRuns("Pad", {}, {x, AsTensor<int32_t>({3, 1, 5, 6}, {2, 2})}, {want});
}

TEST(ArrayPadTest, ErrorsAndSharing) {
  const Tensor x = Values(DT_FLOAT, {2, 3});
  StatusOr<std::vector<Tensor>> none =
      OpRunner("Pad").Run({x, AsTensor<int32_t>({0, 0, 0, 0}, {2, 2})});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE((*none)[0].SharesBufferWith(x));
  EXPECT_TRUE(absl::StrContains(
      RunError("Pad", {x, AsTensor<int32_t>({0, 0, -1, 0}, {2, 2})}),
      "paddings (input 1) are [0,0,-1,0] but must be >= 0 (dimension 1)"));
  EXPECT_TRUE(
      absl::StrContains(RunError("Pad", {x, AsTensor<int32_t>({0, 0}, {1, 2})}),
                        "paddings (input 1) must be a [2, 2] matrix"));
  EXPECT_TRUE(absl::StrContains(
      RunError("PadV2", {x, AsTensor<int32_t>({0, 0, 1, 0}, {2, 2}),
                         AsTensor<float>({1}, {1})}),
      "constant_values (input 2) must be a scalar but has shape [1]"));
  const AttrMap reflect = Attr("mode", AttrValue::String("REFLECT"));
  EXPECT_TRUE(absl::StrContains(
      RunError("MirrorPad", {x, AsTensor<int32_t>({0, 0, 3, 0}, {2, 2})},
               reflect),
      "REFLECT padding of dimension 1 of input 0 [2,3] allows at most 2 on "
      "each side"));
  const AttrMap symmetric = Attr("mode", AttrValue::String("SYMMETRIC"));
  EXPECT_TRUE(absl::StrContains(
      RunError("MirrorPad", {x, AsTensor<int32_t>({0, 3, 0, 0}, {2, 2})},
               symmetric),
      "SYMMETRIC padding of dimension 0 of input 0 [2,3] allows at most 2"));
}

// ---- Tile, BroadcastTo ------------------------------------------------------

TEST(ArrayTileTest, LargeMatchesReference) {
  for (DataType dt : {DT_BOOL, DT_HALF, DT_INT64, DT_STRING}) {
    SCOPED_TRACE(DataTypeName(dt));
    const TensorShape in_shape({5, 1, 40});
    const Tensor x = Values(dt, in_shape);
    const Index st = Strides(in_shape);
    const std::vector<int64_t> m = {3, 70, 2};
    const Tensor want = Reference({&x}, dt, {15, 70, 80}, [&](const Index& i) {
      int64_t flat = 0;
      for (int d = 0; d < 3; ++d) flat += (i[d] % in_shape.dim_size(d)) * st[d];
      return Source{0, flat};
    });
    ExpectRuns("Tile", {}, {x, AsTensor<int64_t>(m, {3})}, {want});
    // The same x broadcast: [5,1,40] -> [2,5,90,40].
    const Tensor want_b =
        Reference({&x}, dt, {2, 5, 90, 40}, [&](const Index& i) {
          return Source{0, i[1] * st[0] + i[3] * st[2]};
        });
    ExpectRuns("BroadcastTo", {}, {x, I32({2, 5, 90, 40})}, {want_b});
  }
}

TEST(ArrayTileTest, ErrorsAndSharing) {
  const Tensor x = Values(DT_FLOAT, {2, 3});
  StatusOr<std::vector<Tensor>> same = OpRunner("Tile").Run({x, I32({1, 1})});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_TRUE((*same)[0].SharesBufferWith(x));
  same = OpRunner("BroadcastTo").Run({x, I32({2, 3})});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_TRUE((*same)[0].SharesBufferWith(x));
  EXPECT_TRUE(absl::StrContains(RunError("Tile", {x, I32({2})}),
                                "multiples (input 1) must be a vector of 2 "
                                "values"));
  EXPECT_TRUE(absl::StrContains(RunError("Tile", {x, I32({2, -1})}),
                                "multiples (input 1) are [2,-1] but must be "
                                ">= 0"));
  EXPECT_TRUE(absl::StrContains(RunError("BroadcastTo", {x, I32({4, 3, 2})}),
                                "input 0 [2,3] cannot be broadcast to "
                                "[4,3,2]"));
  EXPECT_TRUE(absl::StrContains(RunError("BroadcastTo", {x, I32({3})}),
                                "cannot be broadcast to [3]"));
  EXPECT_TRUE(absl::StrContains(RunError("BroadcastTo", {x, I32({-2, 3})}),
                                "shape (input 1) is [-2,3], which is not a "
                                "valid shape"));
}

// ---- GatherV2, OneHot -------------------------------------------------------

TEST(ArrayGatherTest, LargeMatchesReference) {
  const TensorShape p_shape({4, 50, 30, 6});
  const Index st = Strides(p_shape);
  for (DataType dt : {DT_INT8, DT_FLOAT, DT_COMPLEX64, DT_STRING}) {
    SCOPED_TRACE(DataTypeName(dt));
    const Tensor params = Values(dt, p_shape);
    // Axis 1, 300 indices (with repeats) of shape [4, 75], batch_dims 0 and 1.
    std::vector<int64_t> idx(300);
    for (int k = 0; k < 300; ++k) idx[k] = (k * 37) % 50;
    const Tensor indices = AsTensor<int64_t>(idx, {4, 75});
    const Tensor plain =
        Reference({&params}, dt, {4, 4, 75, 30, 6}, [&](const Index& i) {
          const int64_t j = idx[i[1] * 75 + i[2]];
          return Source{0, i[0] * st[0] + j * st[1] + i[3] * st[2] + i[4]};
        });
    ExpectRuns("GatherV2", {}, {params, indices, AsScalar<int32_t>(1)},
               {plain});
    const Tensor batched =
        Reference({&params}, dt, {4, 75, 30, 6}, [&](const Index& i) {
          const int64_t j = idx[i[0] * 75 + i[1]];
          return Source{0, i[0] * st[0] + j * st[1] + i[2] * st[2] + i[3]};
        });
    ExpectRuns("GatherV2", Attr("batch_dims", AttrValue::Int(1)),
               {params, indices, AsScalar<int64_t>(-3)}, {batched});
    // Gathering single elements along the last axis (rows of one element).
    std::vector<int32_t> last(100);
    for (int k = 0; k < 100; ++k) last[k] = (k * 5) % 6;
    const Tensor scalars =
        Reference({&params}, dt, {4, 50, 30, 100}, [&](const Index& i) {
          return Source{
              0, i[0] * st[0] + i[1] * st[1] + i[2] * st[2] + last[i[3]]};
        });
    ExpectRuns("GatherV2", {},
               {params, AsTensor<int32_t>(last, {100}), AsScalar<int32_t>(-1)},
               {scalars});
  }
}

TEST(ArrayGatherTest, OutOfRangeIndexNamesNodeAndIndex) {
  const Tensor params = Values(DT_FLOAT, {5, 3});
  const std::string message = RunError(
      "GatherV2",
      {params, AsTensor<int32_t>({0, 4, 1, 5}, {2, 2}), AsScalar<int32_t>(0)});
  EXPECT_EQ(message,
            "node 'kernel_test/GatherV2' (GatherV2): indices (input 1)[1,1] = "
            "5 is not in [0, 5), the size of dimension 0 of params (input 0) "
            "[5,3]");
  EXPECT_TRUE(absl::StrContains(
      RunError("GatherV2",
               {params, AsTensor<int64_t>({-1}, {1}), AsScalar<int32_t>(1)}),
      "indices (input 1)[0] = -1 is not in [0, 3)"));
  // An empty gathered dimension has no valid index.
  EXPECT_TRUE(absl::StrContains(
      RunError("GatherV2", {Values(DT_FLOAT, {0, 3}), AsScalar<int32_t>(0),
                            AsScalar<int32_t>(0)}),
      "indices (input 1)[] = 0 is not in [0, 0)"));
  EXPECT_TRUE(absl::StrContains(
      RunError("GatherV2", {params, I32({0}), AsScalar<int32_t>(2)}),
      "axis (input 2) is 2 but must be in [-2, 2)"));
  EXPECT_TRUE(absl::StrContains(
      RunError(
          "GatherV2",
          {params, AsTensor<int32_t>({0, 1}, {2, 1}), AsScalar<int32_t>(1)},
          Attr("batch_dims", AttrValue::Int(1))),
      "batch dimension 0 of params (input 0) [5,3] and indices (input 1) "
      "[2,1] must agree"));
  EXPECT_TRUE(absl::StrContains(
      RunError(
          "GatherV2",
          {params, AsTensor<int32_t>({0, 1}, {1, 2}), AsScalar<int32_t>(0)},
          Attr("batch_dims", AttrValue::Int(1))),
      "attr 'batch_dims' is 1 but must be less than the rank of params "
      "(input 0) [5,3] and at most axis 0"));
}

TEST(ArrayOneHotTest, LargeMatchesReference) {
  const int64_t depth = 37;
  std::vector<int64_t> idx(3000);
  for (int k = 0; k < 3000; ++k) idx[k] = (k * 13) % 45 - 4;  // some invalid
  const Tensor indices = AsTensor<int64_t>(idx, {30, 100});
  const Tensor on = AsScalar<float>(2.5f);
  const Tensor off = AsScalar<float>(-1.0f);
  for (int axis : {-1, 0, 1}) {
    SCOPED_TRACE(axis);
    const int at = axis < 0 ? 2 : axis;
    std::vector<int64_t> dims = {30, 100};
    dims.insert(dims.begin() + at, depth);
    const Tensor want = Reference(
        {&on, &off}, DT_FLOAT, *TensorShape::Build(dims), [&](const Index& i) {
          Index rest = i;
          const int64_t d = rest[at];
          rest.erase(rest.begin() + at);
          return Source{idx[rest[0] * 100 + rest[1]] == d ? 0 : 1, 0};
        });
    ExpectRuns("OneHot", Attr("axis", AttrValue::Int(axis)),
               {indices, AsScalar<int32_t>(depth), on, off}, {want});
  }
}

TEST(ArrayOneHotTest, Errors) {
  const Tensor indices = AsTensor<int32_t>({0, 1}, {2});
  EXPECT_TRUE(absl::StrContains(
      RunError("OneHot", {indices, AsScalar<int32_t>(-1), AsScalar<float>(1),
                          AsScalar<float>(0)}),
      "depth (input 1) is -1 but must be >= 0"));
  EXPECT_TRUE(absl::StrContains(
      RunError("OneHot", {indices, AsScalar<int32_t>(3),
                          AsTensor<float>({1}, {1}), AsScalar<float>(0)}),
      "on_value (input 2) must be a scalar but has shape [1]"));
  EXPECT_TRUE(
      absl::StrContains(RunError("OneHot",
                                 {indices, AsScalar<int32_t>(3),
                                  AsScalar<float>(1), AsScalar<float>(0)},
                                 Attr("axis", AttrValue::Int(2))),
                        "attr 'axis' is 2 but must be -1 or in [0, 1]"));
}

}  // namespace cpu_array_layout_test
}  // namespace weft
