// Errors and edge cases of the NN and image kernels of issue 13 that the
// TensorFlow goldens (cpu_nn_image_golden_test.cc) cannot hold: each bad
// input is a Status naming the problem, never a crash; layouts TensorFlow's
// CPU kernels refuse but weft runs (MaxPoolV2 in NCHW) checked against the
// NHWC result; PlaceholderV2, which TensorFlow cannot run eagerly.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
// Named so that its helpers stay distinct from other test files' in a
// unity build.
namespace nn_image_ops_test {
namespace {

using test::AsTensor;
using test::OpRunner;

// The op's error message for these inputs (empty when it succeeded).
std::string ErrorOf(const std::string& op, std::vector<Tensor> inputs,
                    AttrMap attrs = {}) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner(op, std::move(attrs)).Run(std::move(inputs));
  return out.ok() ? std::string() : std::string(out.status().message());
}

std::vector<Tensor> RunOp(const std::string& op, std::vector<Tensor> inputs,
                          AttrMap attrs = {}, int threads = 0) {
  StatusOr<std::vector<Tensor>> out =
      OpRunner(op, std::move(attrs), threads).Run(std::move(inputs));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<Tensor>();
}

#define EXPECT_ERROR_HAS(error, text) \
  EXPECT_NE((error).find(text), std::string::npos) << (error)

std::vector<float> Iota(int64_t n, float scale = 0.5f) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    v[i] = static_cast<float>((i * 37) % 101) * scale - 20;
  }
  return v;
}

// x [n, h, w, c] in NHWC order as the NCHW tensor [n, c, h, w].
Tensor ToNchw(const std::vector<float>& x, int64_t n, int64_t h, int64_t w,
              int64_t c) {
  std::vector<float> y(x.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j)
        for (int64_t k = 0; k < c; ++k)
          y[((b * c + k) * h + i) * w + j] = x[((b * h + i) * w + j) * c + k];
  return AsTensor<float>(y, {n, c, h, w});
}

TEST(CpuNnImageOpsTest, MaxPoolV2NchwMatchesNhwc) {
  const std::vector<float> x = Iota(2 * 7 * 5 * 3);
  AttrMap nhwc = {{"padding", AttrValue::String("SAME")}};
  AttrMap nchw = nhwc;
  nchw["data_format"] = AttrValue::String("NCHW");
  const std::vector<Tensor> a = RunOp(
      "MaxPoolV2",
      {AsTensor<float>(x, {2, 7, 5, 3}), AsTensor<int32_t>({1, 3, 2, 1}, {4}),
       AsTensor<int32_t>({1, 2, 2, 1}, {4})},
      nhwc);
  const std::vector<Tensor> b =
      RunOp("MaxPoolV2",
            {ToNchw(x, 2, 7, 5, 3), AsTensor<int32_t>({1, 1, 3, 2}, {4}),
             AsTensor<int32_t>({1, 1, 2, 2}, {4})},
            nchw);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  const TensorShape& s = a[0].shape();
  std::vector<float> av(a[0].data<float>(),
                        a[0].data<float>() + a[0].NumElements());
  test::ExpectTensorEqual(b[0], ToNchw(av, s.dim_size(0), s.dim_size(1),
                                       s.dim_size(2), s.dim_size(3)));
}

TEST(CpuNnImageOpsTest, MaxPoolV2BadWindows) {
  const Tensor x = AsTensor<float>(Iota(2 * 4 * 4 * 2), {2, 4, 4, 2});
  AttrMap attrs = {{"padding", AttrValue::String("VALID")}};
  std::string e = ErrorOf("MaxPoolV2",
                          {x, AsTensor<int32_t>({1, 2, 2}, {3}),
                           AsTensor<int32_t>({1, 1, 1, 1}, {4})},
                          attrs);
  EXPECT_ERROR_HAS(e, "ksize (input 1) must be an int32 vector of 4 values");
  e = ErrorOf("MaxPoolV2",
              {x, AsTensor<int32_t>({1, 2, 2, 1}, {4}),
               AsTensor<int32_t>({1, 0, 1, 1}, {4})},
              attrs);
  EXPECT_ERROR_HAS(e, "strides (input 2) is [1, 0, 1, 1]");
  e = ErrorOf("MaxPoolV2",
              {x, AsTensor<int32_t>({2, 2, 2, 1}, {4}),
               AsTensor<int32_t>({1, 1, 1, 1}, {4})},
              attrs);
  EXPECT_ERROR_HAS(e, "batch");
  e = ErrorOf("MaxPoolV2",
              {x, AsTensor<int32_t>({1, 9, 2, 1}, {4}),
               AsTensor<int32_t>({1, 1, 1, 1}, {4})},
              attrs);
  EXPECT_FALSE(e.empty());
}

TEST(CpuNnImageOpsTest, FusedBatchNormBadShapes) {
  const Tensor x = AsTensor<float>(Iota(2 * 2 * 2 * 3), {2, 2, 2, 3});
  const Tensor v3 = AsTensor<float>({1, 2, 3}, {3});
  const Tensor v2 = AsTensor<float>({1, 2}, {2});
  AttrMap attrs = {{"is_training", AttrValue::Bool(false)}};
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2"}) {
    EXPECT_FALSE(ErrorOf(op, {x, v3, v3, v3, v2}, attrs).empty()) << op;
    EXPECT_FALSE(
        ErrorOf(op, {AsTensor<float>({1, 2, 3}, {1, 3}), v3, v3, v3, v3}, attrs)
            .empty())
        << op;
    const std::vector<Tensor> out = RunOp(op, {x, v3, v3, v3, v3}, attrs);
    EXPECT_EQ(out.size(), 5u) << op;
  }
}

TEST(CpuNnImageOpsTest, BiasAddV1BadBias) {
  const std::string e = ErrorOf("BiasAddV1", {AsTensor<float>(Iota(6), {2, 3}),
                                              AsTensor<float>({1, 2}, {2})});
  EXPECT_FALSE(e.empty());
  EXPECT_FALSE(ErrorOf("BiasAddV1", {AsTensor<float>({1, 2}, {2}),
                                     AsTensor<float>({1, 2}, {2})})
                   .empty());
}

TEST(CpuNnImageOpsTest, PlaceholderV2MustBeFed) {
  AttrMap attrs = {{"dtype", AttrValue::Type(DT_FLOAT)},
                   {"shape", AttrValue::Shape(PartialTensorShape({2, -1}))}};
  const std::string e = ErrorOf("PlaceholderV2", {}, attrs);
  EXPECT_ERROR_HAS(e, "must be fed");
  EXPECT_ERROR_HAS(e, "[2,?]");
}

TEST(CpuNnImageOpsTest, SpaceToBatchNDErrors) {
  const Tensor x = AsTensor<float>(Iota(2 * 4 * 4 * 1), {2, 4, 4, 1});
  const Tensor block = AsTensor<int32_t>({2, 2}, {2});
  std::string e = ErrorOf("SpaceToBatchND",
                          {x, block, AsTensor<int32_t>({0, 1, 0, 0}, {2, 2})});
  EXPECT_ERROR_HAS(e, "not divisible by block_shape[0] = 2");
  e = ErrorOf("SpaceToBatchND", {x, AsTensor<int32_t>({2, 0}, {2}),
                                 AsTensor<int32_t>({0, 0, 0, 0}, {2, 2})});
  EXPECT_ERROR_HAS(e, "must be >= 1");
  e = ErrorOf("SpaceToBatchND",
              {x, block, AsTensor<int32_t>({0, -2, 0, 2}, {2, 2})});
  EXPECT_ERROR_HAS(e, "must be >= 0");
  e = ErrorOf("SpaceToBatchND", {x, block, AsTensor<int32_t>({0, 0}, {1, 2})});
  EXPECT_ERROR_HAS(e, "paddings (input 2) must have shape [2, 2]");
  e = ErrorOf("SpaceToBatchND", {AsTensor<float>({1, 2}, {2}), block,
                                 AsTensor<int32_t>({0, 0, 0, 0}, {2, 2})});
  EXPECT_ERROR_HAS(e, "rank at least 3");
  e = ErrorOf("SpaceToBatchND",
              {x, AsTensor<int64_t>({int64_t{1} << 40, int64_t{1} << 40}, {2}),
               AsTensor<int64_t>({0, 0, 0, 0}, {2, 2})});
  EXPECT_FALSE(e.empty());
}

TEST(CpuNnImageOpsTest, BatchToSpaceNDErrors) {
  const Tensor x = AsTensor<float>(Iota(6 * 2 * 2 * 1), {6, 2, 2, 1});
  std::string e =
      ErrorOf("BatchToSpaceND", {x, AsTensor<int32_t>({2, 2}, {2}),
                                 AsTensor<int32_t>({0, 0, 0, 0}, {2, 2})});
  EXPECT_ERROR_HAS(e, "must be divisible by the product of block_shape");
  e = ErrorOf("BatchToSpaceND", {x, AsTensor<int32_t>({3, 2}, {2}),
                                 AsTensor<int32_t>({4, 3, 0, 0}, {2, 2})});
  EXPECT_ERROR_HAS(e, "larger than its size");
  e = ErrorOf("BatchToSpaceND", {x, AsTensor<int32_t>({3, 2}, {2}),
                                 AsTensor<int32_t>({0, 0, -1, 0}, {2, 2})});
  EXPECT_ERROR_HAS(e, "must be >= 0");
}

// NCHW, which TensorFlow's CPU kernels refuse, is NHWC with the channel
// dimension moved.
TEST(CpuNnImageOpsTest, SpaceDepthNchwMatchesNhwc) {
  for (const char* op : {"SpaceToDepth", "DepthToSpace"}) {
    const bool to_depth = std::string(op) == "SpaceToDepth";
    const int64_t n = 2, h = to_depth ? 6 : 2, w = to_depth ? 4 : 3,
                  c = to_depth ? 3 : 18;
    const std::vector<float> x = Iota(n * h * w * c);
    AttrMap nhwc = {{"block_size", AttrValue::Int(to_depth ? 2 : 3)}};
    AttrMap nchw = nhwc;
    nchw["data_format"] = AttrValue::String("NCHW");
    const std::vector<Tensor> a =
        RunOp(op, {AsTensor<float>(x, {n, h, w, c})}, nhwc);
    const std::vector<Tensor> b = RunOp(op, {ToNchw(x, n, h, w, c)}, nchw, 2);
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    const TensorShape& s = a[0].shape();
    std::vector<float> av(a[0].data<float>(),
                          a[0].data<float>() + a[0].NumElements());
    test::ExpectTensorEqual(b[0], ToNchw(av, s.dim_size(0), s.dim_size(1),
                                         s.dim_size(2), s.dim_size(3)));
  }
}

TEST(CpuNnImageOpsTest, SpaceDepthErrors) {
  AttrMap attrs = {{"block_size", AttrValue::Int(2)}};
  std::string e =
      ErrorOf("SpaceToDepth",
              {AsTensor<float>(Iota(1 * 3 * 4 * 1), {1, 3, 4, 1})}, attrs);
  EXPECT_ERROR_HAS(e, "must be divisible by block_size 2");
  e = ErrorOf("DepthToSpace",
              {AsTensor<float>(Iota(1 * 2 * 2 * 6), {1, 2, 2, 6})}, attrs);
  EXPECT_ERROR_HAS(e, "divisible by block_size * block_size = 4");
  e = ErrorOf("DepthToSpace", {AsTensor<float>(Iota(8), {2, 4})}, attrs);
  EXPECT_ERROR_HAS(e, "must be 4-D");
  attrs["data_format"] = AttrValue::String("NCHW_VECT_C");
  e = ErrorOf("DepthToSpace",
              {AsTensor<float>(Iota(1 * 2 * 2 * 8), {1, 2, 2, 8})}, attrs);
  EXPECT_ERROR_HAS(e, "NCHW_VECT_C");
}

AttrValue Ints(std::vector<int64_t> v) {
  AttrValue a;
  a.kind = AttrValue::Kind::kList;
  a.list->i = std::move(v);
  return a;
}

TEST(CpuNnImageOpsTest, Conv3DErrors) {
  const Tensor x = AsTensor<float>(Iota(2 * 3 * 3 * 3 * 2), {2, 3, 3, 3, 2});
  const Tensor f = AsTensor<float>(Iota(2 * 2 * 2 * 2 * 4), {2, 2, 2, 2, 4});
  AttrMap attrs = {{"strides", Ints({1, 1, 1, 1, 1})},
                   {"padding", AttrValue::String("VALID")}};
  EXPECT_EQ(ErrorOf("Conv3D", {x, f}, attrs), "");
  std::string e = ErrorOf(
      "Conv3D", {x, AsTensor<float>(Iota(2 * 2 * 2 * 1 * 4), {2, 2, 2, 1, 4})},
      attrs);
  EXPECT_ERROR_HAS(e, "grouped 3-D convolutions are not supported");
  e = ErrorOf("Conv3D",
              {x, AsTensor<float>(Iota(5 * 2 * 2 * 2 * 4), {5, 2, 2, 2, 4})},
              attrs);
  EXPECT_FALSE(e.empty());
  e = ErrorOf("Conv3D", {x, AsTensor<float>(Iota(16), {2, 2, 4})}, attrs);
  EXPECT_ERROR_HAS(e, "must be 5-D");
  AttrMap dilated = attrs;
  dilated["dilations"] = Ints({1, 2, 1, 1, 1});
  EXPECT_ERROR_HAS(ErrorOf("Conv3D", {x, f}, dilated), "dilations of 1");
  AttrMap ncdhw = attrs;
  ncdhw["data_format"] = AttrValue::String("NCDHW");
  EXPECT_ERROR_HAS(ErrorOf("Conv3D", {x, f}, ncdhw), "use NDHWC");
}

TEST(CpuNnImageOpsTest, Conv3DBackpropInputV2Errors) {
  const Tensor f = AsTensor<float>(Iota(2 * 2 * 2 * 2 * 4), {2, 2, 2, 2, 4});
  const Tensor dy = AsTensor<float>(Iota(2 * 2 * 2 * 2 * 4), {2, 2, 2, 2, 4});
  const Tensor sizes = AsTensor<int32_t>({2, 3, 3, 3, 2}, {5});
  AttrMap attrs = {{"strides", Ints({1, 1, 1, 1, 1})},
                   {"padding", AttrValue::String("VALID")}};
  EXPECT_EQ(ErrorOf("Conv3DBackpropInputV2", {sizes, f, dy}, attrs), "");
  EXPECT_ERROR_HAS(
      ErrorOf("Conv3DBackpropInputV2",
              {AsTensor<int32_t>({2, 3, 3, 3}, {4}), f, dy}, attrs),
      "input_sizes (input 0) must be a vector of 5 values");
  EXPECT_FALSE(ErrorOf("Conv3DBackpropInputV2",
                       {AsTensor<int32_t>({2, 3, -3, 3, 2}, {5}), f, dy}, attrs)
                   .empty());
  EXPECT_ERROR_HAS(
      ErrorOf("Conv3DBackpropInputV2",
              {AsTensor<int32_t>({2, 4, 3, 3, 2}, {5}), f, dy}, attrs),
      "out_backprop (input 2) has shape [2,2,2,2,4] but Conv3D over input "
      "[2,4,3,3,2]");
  EXPECT_ERROR_HAS(
      ErrorOf("Conv3DBackpropInputV2",
              {AsTensor<int32_t>({2, 3, 3, 3, 3}, {5}), f, dy}, attrs),
      "must match input_sizes[4] = 3");
  AttrMap ncdhw = attrs;
  ncdhw["data_format"] = AttrValue::String("NCDHW");
  EXPECT_ERROR_HAS(ErrorOf("Conv3DBackpropInputV2", {sizes, f, dy}, ncdhw),
                   "use NDHWC");
}

TEST(CpuNnImageOpsTest, Pool3DErrors) {
  const Tensor x = AsTensor<float>(Iota(2 * 3 * 3 * 3 * 2), {2, 3, 3, 3, 2});
  for (const char* op : {"MaxPool3D", "AvgPool3D"}) {
    AttrMap attrs = {{"ksize", Ints({1, 2, 2, 2, 1})},
                     {"strides", Ints({1, 1, 1, 1, 1})},
                     {"padding", AttrValue::String("VALID")}};
    EXPECT_EQ(ErrorOf(op, {x}, attrs), "") << op;
    EXPECT_ERROR_HAS(ErrorOf(op, {AsTensor<float>(Iota(8), {2, 2, 2})}, attrs),
                     "must be 5-D");
    AttrMap big = attrs;
    big["ksize"] = Ints({1, 5, 2, 2, 1});
    EXPECT_FALSE(ErrorOf(op, {x}, big).empty()) << op;
    AttrMap over_c = attrs;
    over_c["ksize"] = Ints({1, 2, 2, 2, 2});
    EXPECT_ERROR_HAS(ErrorOf(op, {x}, over_c), "batch or channel");
    AttrMap ncdhw = attrs;
    ncdhw["data_format"] = AttrValue::String("NCDHW");
    EXPECT_ERROR_HAS(ErrorOf(op, {x}, ncdhw), "use NDHWC");
  }
}

TEST(CpuNnImageOpsTest, CropAndResizeErrors) {
  const Tensor image = AsTensor<float>(Iota(2 * 4 * 4 * 1), {2, 4, 4, 1});
  const Tensor boxes = AsTensor<float>({0, 0, 1, 1, 0.5f, 0, 1, 1}, {2, 4});
  const Tensor size = AsTensor<int32_t>({2, 2}, {2});
  EXPECT_EQ(ErrorOf("CropAndResize",
                    {image, boxes, AsTensor<int32_t>({0, 1}, {2}), size}),
            "");
  std::string e = ErrorOf("CropAndResize",
                          {image, boxes, AsTensor<int32_t>({0, 2}, {2}), size});
  EXPECT_ERROR_HAS(e, "box_ind (input 2) has values outside [0, batch_size)");
  e = ErrorOf("CropAndResize",
              {image, boxes, AsTensor<int32_t>({-1, 0}, {2}), size});
  EXPECT_ERROR_HAS(e, "outside [0, batch_size)");
  e = ErrorOf("CropAndResize",
              {image, boxes, AsTensor<int32_t>({0}, {1}), size});
  EXPECT_ERROR_HAS(e, "one per box");
  e = ErrorOf("CropAndResize",
              {image, AsTensor<float>({0, 0, 1, NAN, 0, 0, 1, 1}, {2, 4}),
               AsTensor<int32_t>({0, 1}, {2}), size});
  EXPECT_ERROR_HAS(e, "not finite");
  e = ErrorOf("CropAndResize", {image, boxes, AsTensor<int32_t>({0, 1}, {2}),
                                AsTensor<int32_t>({0, 2}, {2})});
  EXPECT_ERROR_HAS(e, "crop dimensions must be positive");
  e = ErrorOf("CropAndResize", {AsTensor<float>(Iota(16), {4, 4}), boxes,
                                AsTensor<int32_t>({0, 1}, {2}), size});
  EXPECT_ERROR_HAS(e, "must be 4-D");
}

TEST(CpuNnImageOpsTest, ResizeBicubicAndAreaErrors) {
  const Tensor image = AsTensor<float>(Iota(1 * 4 * 4 * 1), {1, 4, 4, 1});
  for (const char* op : {"ResizeBicubic", "ResizeArea"}) {
    EXPECT_FALSE(ErrorOf(op, {image, AsTensor<int32_t>({0, 3}, {2})}).empty())
        << op;
    EXPECT_FALSE(
        ErrorOf(op, {image, AsTensor<int32_t>({3, 3, 3}, {3})}).empty())
        << op;
    EXPECT_FALSE(ErrorOf(op, {AsTensor<float>(Iota(16), {4, 4}),
                              AsTensor<int32_t>({3, 3}, {2})})
                     .empty())
        << op;
    EXPECT_FALSE(ErrorOf(op, {AsTensor<float>({}, {1, 0, 4, 1}),
                              AsTensor<int32_t>({3, 3}, {2})})
                     .empty())
        << op;
  }
  AttrMap both = {{"align_corners", AttrValue::Bool(true)},
                  {"half_pixel_centers", AttrValue::Bool(true)}};
  EXPECT_ERROR_HAS(
      ErrorOf("ResizeBicubic", {image, AsTensor<int32_t>({3, 3}, {2})}, both),
      "align_corners must be False");
}

TEST(CpuNnImageOpsTest, LrnExtractPatchesArgmaxErrors) {
  EXPECT_ERROR_HAS(ErrorOf("LRN", {AsTensor<float>(Iota(6), {2, 3})}),
                   "must be 4-D");
  EXPECT_ERROR_HAS(ErrorOf("LRN", {AsTensor<float>(Iota(6), {1, 1, 2, 3})},
                           {{"depth_radius", AttrValue::Int(-1)}}),
                   "depth_radius");
  AttrMap patches = {{"ksizes", Ints({1, 2, 2, 1})},
                     {"strides", Ints({1, 1, 1, 1})},
                     {"rates", Ints({1, 1, 1, 1})},
                     {"padding", AttrValue::String("VALID")}};
  EXPECT_ERROR_HAS(ErrorOf("ExtractImagePatches",
                           {AsTensor<float>(Iota(6), {2, 3})}, patches),
                   "must be 4-D");
  AttrMap tall = patches;
  tall["ksizes"] = Ints({1, 3, 2, 1});
  EXPECT_FALSE(ErrorOf("ExtractImagePatches",
                       {AsTensor<float>(Iota(4), {1, 1, 4, 1})}, tall)
                   .empty());
  AttrMap over_depth = patches;
  over_depth["ksizes"] = Ints({1, 2, 2, 2});
  EXPECT_ERROR_HAS(
      ErrorOf("ExtractImagePatches", {AsTensor<float>(Iota(16), {1, 2, 2, 4})},
              over_depth),
      "batch and depth");
  AttrMap argmax = {{"ksize", Ints({1, 2, 2, 1})},
                    {"strides", Ints({1, 1, 1, 1})},
                    {"padding", AttrValue::String("VALID")}};
  EXPECT_ERROR_HAS(
      ErrorOf("MaxPoolWithArgmax", {AsTensor<float>(Iota(6), {2, 3})}, argmax),
      "4-dimensional");
  AttrMap batch = argmax;
  batch["ksize"] = Ints({2, 2, 2, 1});
  EXPECT_ERROR_HAS(ErrorOf("MaxPoolWithArgmax",
                           {AsTensor<float>(Iota(16), {2, 2, 2, 2})}, batch),
                   "batch dimension");
}

TEST(CpuNnImageOpsTest, CombinedNonMaxSuppressionErrors) {
  const Tensor boxes =
      AsTensor<float>(Iota(2 * 3 * 1 * 4, 0.01f), {2, 3, 1, 4});
  const Tensor scores = AsTensor<float>(Iota(2 * 3 * 2, 0.01f), {2, 3, 2});
  auto run = [&](const Tensor& b, const Tensor& s, int32_t per_class,
                 int32_t total, float iou) {
    return ErrorOf("CombinedNonMaxSuppression",
                   {b, s, test::AsScalar<int32_t>(per_class),
                    test::AsScalar<int32_t>(total), test::AsScalar<float>(iou),
                    test::AsScalar<float>(0.0f)});
  };
  EXPECT_EQ(run(boxes, scores, 2, 4, 0.5f), "");
  EXPECT_ERROR_HAS(run(boxes, scores, 0, 4, 0.5f),
                   "max_output_size_per_class (input 2) must be > 0");
  EXPECT_ERROR_HAS(run(boxes, scores, 2, -1, 0.5f),
                   "max_total_size (input 3) must be > 0");
  EXPECT_ERROR_HAS(run(boxes, scores, 2, 4, 1.5f), "must be in [0, 1]");
  EXPECT_ERROR_HAS(run(AsTensor<float>(Iota(2 * 3 * 3 * 4), {2, 3, 3, 4}),
                       scores, 2, 4, 0.5f),
                   "must be 1 or the number of classes");
  EXPECT_ERROR_HAS(
      run(boxes, AsTensor<float>(Iota(2 * 4 * 2), {2, 4, 2}), 2, 4, 0.5f),
      "must have the batch and boxes");
  EXPECT_ERROR_HAS(
      run(AsTensor<float>(Iota(24), {2, 3, 4}), scores, 2, 4, 0.5f),
      "[batch, num_boxes, q, 4]");
}

// Windows and blocks far larger than any tensor are errors, not overflows.
TEST(CpuNnImageOpsTest, AbsurdSizes) {
  const int64_t huge = int64_t{1} << 40;
  const Tensor image = AsTensor<float>(Iota(1 * 3 * 3 * 2), {1, 3, 3, 2});
  AttrMap patches = {{"ksizes", Ints({1, huge, huge, 1})},
                     {"strides", Ints({1, 1, 1, 1})},
                     {"rates", Ints({1, 1, 1, 1})},
                     {"padding", AttrValue::String("SAME")}};
  EXPECT_ERROR_HAS(ErrorOf("ExtractImagePatches", {image}, patches),
                   "too many elements");
  const Tensor volume =
      AsTensor<float>(Iota(1 * 2 * 2 * 2 * 1), {1, 2, 2, 2, 1});
  AttrMap pool = {{"ksize", Ints({1, huge, huge, huge, 1})},
                  {"strides", Ints({1, 1, 1, 1, 1})},
                  {"padding", AttrValue::String("SAME")}};
  EXPECT_ERROR_HAS(ErrorOf("MaxPool3D", {volume}, pool), "too many elements");
  EXPECT_ERROR_HAS(ErrorOf("AvgPool3D", {volume}, pool), "too many elements");
  AttrMap block = {{"block_size", AttrValue::Int(huge)}};
  EXPECT_ERROR_HAS(ErrorOf("DepthToSpace", {image}, block), "block_size");
  EXPECT_ERROR_HAS(
      ErrorOf("SpaceToDepth", {AsTensor<float>({}, {1, 0, 0, 2})}, block),
      "block_size");
  block["block_size"] = AttrValue::Int(int64_t{1} << 31);
  EXPECT_ERROR_HAS(
      ErrorOf("SpaceToDepth",
              {AsTensor<float>({}, {1, 0, 0, int64_t{1} << 40})}, block),
      "overflows");
  EXPECT_FALSE(
      ErrorOf("ResizeBicubic", {AsTensor<float>(Iota(2), {1, 1, 1, 2}),
                                AsTensor<int32_t>({1 << 30, 1 << 30}, {2})})
          .empty());
  EXPECT_FALSE(
      ErrorOf("CropAndResize", {AsTensor<float>(Iota(2), {1, 1, 1, 2}),
                                AsTensor<float>({0, 0, 1, 1}, {1, 4}),
                                AsTensor<int32_t>({0}, {1}),
                                AsTensor<int32_t>({1 << 30, 1 << 30}, {2})})
          .empty());
}

}  // namespace
}  // namespace nn_image_ops_test
}  // namespace weft
