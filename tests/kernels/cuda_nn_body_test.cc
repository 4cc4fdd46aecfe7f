// The per-element bodies of the CUDA NN kernels (kernels/cuda/conv_body.h,
// pool_body.h, batch_norm_body.h) and the host planning of BatchMatMulV2's
// cuBLAS calls (kernels/cuda/plan/nn_plan.h), checked on the host against the
// CPU kernels. Needs neither a GPU nor CUDA: the parameters are planned exactly
// as the CUDA OpKernel classes plan them, and each body runs over every
// output index, as the grid-stride loop of its kernel would.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "kernels/common/window_shape.h"
#include "kernels/cuda/batch_norm_body.h"
#include "kernels/cuda/conv_body.h"
#include "kernels/cuda/plan/nn_plan.h"
#include "kernels/cuda/pool_body.h"
#include "tests/kernels/cuda_kernel_cases.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cuda_nn_body_test {

using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::OpRunner;
using test::ToDoubles;
using test::UnitRoundoff;

Tensor Random(DataType dtype, const TensorShape& shape, double lo, double hi,
              std::mt19937* rng) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(shape.num_elements());
  for (double& x : v) x = u(*rng);
  return AsTensorOfType(dtype, v, shape);
}

// The window attrs of a convolution or pool, as a node's attrs (for the CPU
// kernel) and as the WindowAttrs the CUDA kernel reads from them.
struct Window {
  std::string format = "NHWC";
  std::string padding = "VALID";
  std::vector<int64_t> pads;  // top, bottom, left, right when EXPLICIT
  int64_t sh = 1, sw = 1;
  int64_t dh = 1, dw = 1;
  int64_t kh = 1, kw = 1;  // pools
  int64_t kc = 1, sc = 1;  // depth window and stride (MaxPool)

  bool nchw() const { return format == "NCHW"; }
  std::vector<int64_t> Four(int64_t h, int64_t w, int64_t c = 1) const {
    return nchw() ? std::vector<int64_t>{1, c, h, w}
                  : std::vector<int64_t>{1, h, w, c};
  }
  std::vector<int64_t> Paddings() const {
    if (pads.empty()) return {};
    return nchw() ? std::vector<int64_t>{0,       0,       0,       0,
                                         pads[0], pads[1], pads[2], pads[3]}
                  : std::vector<int64_t>{0,       0,       pads[0], pads[1],
                                         pads[2], pads[3], 0,       0};
  }
  AttrMap Attrs(bool pool) const {
    AttrMap a;
    a["data_format"] = AttrValue::String(format);
    a["padding"] = AttrValue::String(padding);
    a["strides"] = AttrValue::IntList(Four(sh, sw, sc));
    if (pool) {
      a["ksize"] = AttrValue::IntList(Four(kh, kw, kc));
    } else {
      a["dilations"] = AttrValue::IntList(Four(dh, dw));
    }
    if (!pads.empty()) a["explicit_paddings"] = AttrValue::IntList(Paddings());
    return a;
  }
  WindowAttrs Parse(bool pool) const {
    WindowAttrs w;
    w.format = *ParseTensorFormat(format);
    w.padding = *ParsePadding(padding);
    if (!pads.empty()) w.explicit_paddings = Paddings();
    w.strides = Four(sh, sw, sc);
    if (pool) {
      w.ksize = Four(kh, kw, kc);
    } else {
      w.dilations = Four(dh, dw);
    }
    return w;
  }
  std::string Name() const {
    std::string s = format + " " + padding + " s" + std::to_string(sh) +
                    std::to_string(sw) + " d" + std::to_string(dh) +
                    std::to_string(dw) + " k" + std::to_string(kh) +
                    std::to_string(kw) + std::to_string(kc);
    for (int64_t p : pads) s += " " + std::to_string(p);
    return s;
  }
};

// An NHWC shape [n, h, w, c] in the window's format.
TensorShape ImageShape(const Window& w, int64_t n, int64_t h, int64_t wd,
                       int64_t c) {
  return w.nchw() ? TensorShape({n, c, h, wd}) : TensorShape({n, h, wd, c});
}

// Element type's tolerance for a float sum rounded once to T, the order of
// the sum differing from the CPU's: atol grows with the terms summed.
void ExpectClose(const Tensor& got, const Tensor& want, int64_t terms) {
  const double u = UnitRoundoff(want.dtype());
  const double f = UnitRoundoff(DT_FLOAT);
  ExpectTensorNear(got, want, 4.0 * std::max<int64_t>(terms, 1) * f + u,
                   2 * u + 8 * f);
}

// The CPU kernel's error, which the runner prefixes with the node, is the
// plan's.
void ExpectSameError(const Status& planned, const Status& cpu) {
  EXPECT_EQ(planned.code(), cpu.code()) << planned << " vs " << cpu;
  EXPECT_TRUE(absl::StrContains(cpu.message(), planned.message()))
      << "planned: " << planned.message() << "\ncpu: " << cpu.message();
}

// ---------------------------------------------------------------------------
// Conv2D and DepthwiseConv2dNative

struct ConvCase {
  Window w;
  int64_t n, h, wd, c;     // input, NHWC order
  int64_t fh, fw, fd, fo;  // filter dims as given to the op
};

template <typename T>
Tensor RunConvBody(bool depthwise, const gpu::ConvParams& p,
                   const Tensor& input, const Tensor& filter,
                   const TensorShape& out_shape) {
  Tensor out(DataTypeToEnum<T>::value, out_shape);
  EXPECT_EQ(p.output_size(), out_shape.num_elements());
  const T* in = input.data<T>();
  const T* f = filter.data<T>();
  T* y = out.data<T>();
  for (int64_t i = 0; i < p.output_size(); ++i) {
    y[i] = static_cast<T>(depthwise ? gpu::DepthwiseConvOutput(p, in, f, i)
                                    : gpu::Conv2DOutput(p, in, f, i));
  }
  return out;
}

// Whether the case compared values (false: both sides reported the same
// error).
template <typename T>
bool CheckConv(bool depthwise, const ConvCase& c, std::mt19937* rng) {
  const DataType dt = DataTypeToEnum<T>::value;
  SCOPED_TRACE((depthwise ? "Depthwise " : "Conv2D ") + c.w.Name() + " " +
               DataTypeName(dt) + " input " +
               ImageShape(c.w, c.n, c.h, c.wd, c.c).DebugString() +
               " filter [" + std::to_string(c.fh) + "," + std::to_string(c.fw) +
               "," + std::to_string(c.fd) + "," + std::to_string(c.fo) + "]");
  const Tensor input =
      Random(dt, ImageShape(c.w, c.n, c.h, c.wd, c.c), -1, 1, rng);
  const Tensor filter =
      Random(dt, TensorShape({c.fh, c.fw, c.fd, c.fo}), -1, 1, rng);
  const std::string op = depthwise ? "DepthwiseConv2dNative" : "Conv2D";
  OpRunner cpu(op, c.w.Attrs(false));
  StatusOr<std::vector<Tensor>> want = cpu.Run({input, filter});
  gpu::ConvParams p;
  TensorShape out_shape;
  const Status planned =
      depthwise
          ? PlanDepthwiseConv(c.w.Parse(false), input, filter, &p, &out_shape)
          : PlanConv2D(c.w.Parse(false), input, filter, &p, &out_shape);
  EXPECT_EQ(planned.ok(), want.ok()) << planned << " vs " << want.status();
  if (!planned.ok() || !want.ok()) {
    ExpectSameError(planned, want.status());
    return false;
  }
  const Tensor got = RunConvBody<T>(depthwise, p, input, filter, out_shape);
  EXPECT_EQ(got.shape(), (*want)[0].shape());
  if (depthwise) {
    // The CPU's depthwise kernel sums the same products in the same order.
    if (dt == DT_FLOAT) {
      ExpectTensorEqual(got, (*want)[0]);
    } else {
      ExpectClose(got, (*want)[0], c.fh * c.fw);
    }
  } else {
    ExpectClose(got, (*want)[0], c.fh * c.fw * c.fd);
  }
  return true;
}

std::vector<ConvCase> ConvCases(bool depthwise) {
  std::vector<ConvCase> cases;
  for (const char* format : {"NHWC", "NCHW"}) {
    Window same;
    same.format = format;
    same.padding = "SAME";
    Window same_s2 = same;
    same_s2.sh = same_s2.sw = 2;
    Window valid_d2;
    valid_d2.format = format;
    valid_d2.dh = valid_d2.dw = 2;
    Window same_d2 = same;
    same_d2.dh = 2;
    same_d2.dw = 3;
    Window expl;
    expl.format = format;
    expl.padding = "EXPLICIT";
    expl.pads = {1, 2, 3, 0};
    expl.sh = 2;
    expl.dw = 2;
    Window valid;
    valid.format = format;
    Window valid_s2 = valid;
    valid_s2.sh = valid_s2.sw = 2;
    // Depthwise filters are [fh, fw, C, M] with C the input depth; Conv2D
    // filters [fh, fw, C / groups, out_depth].
    const int64_t m = 2;
    auto fd = [&](int64_t c) { return c; };
    auto fo = [&](int64_t c, int64_t conv_out) {
      return depthwise ? m : conv_out;
    };
    // Padding on all four sides, stride 1.
    cases.push_back({same, 2, 7, 6, 4, 3, 3, fd(4), fo(4, 5)});
    // Stride 2 with SAME on even and odd sizes (uneven padding).
    cases.push_back({same_s2, 1, 8, 9, 3, 3, 2, fd(3), fo(3, 4)});
    cases.push_back({same_s2, 2, 5, 6, 2, 4, 4, fd(2), fo(2, 3)});
    // Dilation 2.
    cases.push_back({valid_d2, 2, 9, 8, 3, 3, 3, fd(3), fo(3, 2)});
    cases.push_back({same_d2, 1, 7, 10, 3, 3, 3, fd(3), fo(3, 4)});
    // EXPLICIT, with stride and dilation.
    cases.push_back({expl, 2, 8, 7, 3, 3, 2, fd(3), fo(3, 3)});
    // 1x1, plain and strided.
    cases.push_back({valid, 2, 5, 5, 8, 1, 1, fd(8), fo(8, 6)});
    cases.push_back({valid_s2, 1, 7, 6, 4, 1, 1, fd(4), fo(4, 5)});
    // Window as large as the input; window larger (an error).
    cases.push_back({valid, 1, 3, 4, 2, 3, 4, fd(2), fo(2, 3)});
    cases.push_back({valid, 1, 2, 2, 3, 3, 3, fd(3), fo(3, 2)});
    // Empty batch; empty channels.
    cases.push_back({same, 0, 5, 5, 3, 3, 3, fd(3), fo(3, 4)});
    cases.push_back({same, 2, 4, 4, 3, 3, 3, fd(3), depthwise ? 0 : 0});
    // Size-1 spatial dims.
    cases.push_back({same, 3, 1, 1, 5, 3, 3, fd(5), fo(5, 2)});
    cases.push_back({same_s2, 3, 1, 6, 5, 1, 3, fd(5), fo(5, 2)});
    // One large case: several hundred thousand outputs.
    cases.push_back({same, 4, 32, 32, 16, 3, 3, fd(16), fo(16, 32)});
    if (!depthwise) {
      // Grouped: 3 groups of 2 input and 3 output channels.
      cases.push_back({same, 1, 6, 6, 6, 3, 3, 2, 9});
      // An input without channels gives zeros.
      cases.push_back({same, 1, 4, 4, 0, 2, 2, 1, 3});
      // Errors: a filter depth that does not divide the input depth, and
      // an output depth that is not a multiple of the groups.
      cases.push_back({same, 1, 4, 4, 5, 2, 2, 2, 3});
      cases.push_back({same, 1, 4, 4, 6, 2, 2, 3, 3});
    } else {
      // Multiplier 1 and 3.
      cases.push_back({same_s2, 2, 7, 7, 5, 3, 3, 5, 1});
      cases.push_back({expl, 1, 6, 9, 2, 2, 3, 2, 3});
      // An input without channels; a filter whose depth differs (an
      // error).
      cases.push_back({same, 1, 4, 4, 0, 2, 2, 0, 2});
      cases.push_back({same, 1, 4, 4, 3, 2, 2, 4, 2});
    }
  }
  return cases;
}

TEST(CudaConvBodyTest, Conv2DMatchesCpuKernel) {
  std::mt19937 rng(1);
  int compared = 0;
  for (const ConvCase& c : ConvCases(false)) {
    compared += CheckConv<float>(false, c, &rng);
    compared += CheckConv<half>(false, c, &rng);
  }
  // 19 cases x 2 layouts x 2 dtypes, of which 2 x 2 x 2 are errors.
  EXPECT_EQ(compared, 68);
}

TEST(CudaConvBodyTest, DepthwiseMatchesCpuKernel) {
  std::mt19937 rng(2);
  int compared = 0;
  for (const ConvCase& c : ConvCases(true)) {
    compared += CheckConv<float>(true, c, &rng);
    compared += CheckConv<half>(true, c, &rng);
  }
  // 19 cases x 2 layouts x 2 dtypes, of which 1 x 2 x 2 is an error.
  EXPECT_EQ(compared, 72);
}

TEST(CudaConvBodyTest, ReadsNchwInPlace) {
  // The same convolution in both layouts gives the same values (the NCHW
  // input is the NHWC one transposed), checked here element by element
  // rather than through the CPU kernel's layout changes.
  std::mt19937 rng(3);
  Window nhwc;
  nhwc.padding = "SAME";
  nhwc.sh = 2;
  Window nchw = nhwc;
  nchw.format = "NCHW";
  const int64_t n = 2, h = 5, w = 6, c = 3;
  const Tensor in_nhwc =
      Random(DT_FLOAT, TensorShape({n, h, w, c}), -1, 1, &rng);
  Tensor in_nchw(DT_FLOAT, TensorShape({n, c, h, w}));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t ch = 0; ch < c; ++ch)
          in_nchw.data<float>()[((b * c + ch) * h + y) * w + x] =
              in_nhwc.data<float>()[((b * h + y) * w + x) * c + ch];
  const Tensor filter =
      Random(DT_FLOAT, TensorShape({3, 3, c, 4}), -1, 1, &rng);
  gpu::ConvParams p1, p2;
  TensorShape s1, s2;
  ASSERT_TRUE(PlanConv2D(nhwc.Parse(false), in_nhwc, filter, &p1, &s1).ok());
  ASSERT_TRUE(PlanConv2D(nchw.Parse(false), in_nchw, filter, &p2, &s2).ok());
  const Tensor a = RunConvBody<float>(false, p1, in_nhwc, filter, s1);
  const Tensor b = RunConvBody<float>(false, p2, in_nchw, filter, s2);
  const int64_t oh = s1.dim_size(1), ow = s1.dim_size(2), oc = s1.dim_size(3);
  for (int64_t bb = 0; bb < n; ++bb)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t ch = 0; ch < oc; ++ch)
          ASSERT_EQ(a.data<float>()[((bb * oh + y) * ow + x) * oc + ch],
                    b.data<float>()[((bb * oc + ch) * oh + y) * ow + x]);
}

// ---------------------------------------------------------------------------
// MaxPool and AvgPool

struct PoolCase {
  Window w;
  int64_t n, h, wd, c;  // input, NHWC order
};

template <typename T>
bool CheckPool(bool max, const PoolCase& c, const Tensor& input) {
  // AvgPool has no EXPLICIT padding (its op rejects the attr).
  if (!max && c.w.padding == "EXPLICIT") return false;
  const DataType dt = DataTypeToEnum<T>::value;
  SCOPED_TRACE(std::string(max ? "MaxPool " : "AvgPool ") + c.w.Name() + " " +
               DataTypeName(dt) + " input " + input.shape().DebugString());
  OpRunner cpu(max ? "MaxPool" : "AvgPool", c.w.Attrs(true));
  StatusOr<std::vector<Tensor>> want = cpu.Run({input});
  const WindowAttrs attrs = c.w.Parse(true);
  int64_t depth_window = 1;
  Status planned = CheckPoolAttrs(max, attrs, &depth_window);
  gpu::PoolParams p;
  TensorShape out_shape;
  if (planned.ok()) {
    planned = PlanPool(attrs, max, depth_window,
                       static_cast<float>(std::numeric_limits<T>::lowest()),
                       input.shape(), &p, &out_shape);
  }
  EXPECT_EQ(planned.ok(), want.ok()) << planned << " vs " << want.status();
  if (!planned.ok() || !want.ok()) {
    ExpectSameError(planned, want.status());
    return false;
  }
  Tensor got(dt, out_shape);
  EXPECT_EQ(p.output_size(), out_shape.num_elements());
  for (int64_t i = 0; i < p.output_size(); ++i) {
    got.data<T>()[i] = static_cast<T>(gpu::PoolOutput(p, input.data<T>(), i));
  }
  // Same comparisons and sums in the same order as the CPU: exact.
  ExpectTensorEqual(got, (*want)[0]);
  return true;
}

std::vector<PoolCase> PoolCases() {
  std::vector<PoolCase> cases;
  for (const char* format : {"NHWC", "NCHW"}) {
    Window same3s2;
    same3s2.format = format;
    same3s2.padding = "SAME";
    same3s2.kh = same3s2.kw = 3;
    same3s2.sh = same3s2.sw = 2;
    Window same3s1 = same3s2;
    same3s1.sh = same3s1.sw = 1;
    Window valid2;
    valid2.format = format;
    valid2.kh = valid2.kw = 2;
    valid2.sh = valid2.sw = 2;
    Window valid_rect = valid2;
    valid_rect.kh = 3;
    valid_rect.sw = 1;
    Window expl = same3s1;
    expl.padding = "EXPLICIT";
    expl.pads = {1, 2, 0, 1};
    expl.sh = 2;
    Window one;
    one.format = format;
    Window big_pad = expl;
    big_pad.pads = {3, 0, 0, 0};  // not smaller than the window: an error
    Window depth;
    depth.format = format;
    depth.kc = depth.sc = 3;
    Window depth_bad = depth;
    depth_bad.sc = 1;  // depth stride != depth window: an error
    Window batch_pool;
    batch_pool.format = format;
    batch_pool.padding = "SAME";
    cases.push_back({same3s2, 2, 7, 8, 3});  // padding on all sides
    cases.push_back({same3s2, 1, 8, 8, 2});
    cases.push_back({same3s1, 2, 5, 4, 3});
    cases.push_back({valid2, 2, 6, 7, 3});
    cases.push_back({valid_rect, 1, 7, 5, 4});
    cases.push_back({expl, 2, 6, 5, 3});
    cases.push_back({one, 2, 3, 3, 2});         // 1x1 window
    cases.push_back({same3s2, 0, 5, 5, 3});     // empty batch
    cases.push_back({same3s2, 2, 5, 5, 0});     // no channels
    cases.push_back({same3s2, 3, 1, 1, 4});     // 1x1 image
    cases.push_back({valid2, 1, 1, 4, 2});      // window taller than input
    cases.push_back({same3s2, 8, 56, 56, 16});  // large
    cases.push_back({big_pad, 1, 4, 4, 2});
    cases.push_back({depth, 2, 3, 4, 6});  // MaxPool only
    cases.push_back({depth, 1, 2, 2, 4});  // 3 does not divide 4
    cases.push_back({depth_bad, 1, 2, 2, 6});
  }
  return cases;
}

TEST(CudaPoolBodyTest, MatchesCpuKernel) {
  std::mt19937 rng(4);
  int compared = 0;
  for (const PoolCase& c : PoolCases()) {
    const TensorShape shape = ImageShape(c.w, c.n, c.h, c.wd, c.c);
    const Tensor f = Random(DT_FLOAT, shape, -4, 4, &rng);
    const Tensor h = Random(DT_HALF, shape, -4, 4, &rng);
    for (bool max : {true, false}) {
      compared += CheckPool<float>(max, c, f);
      compared += CheckPool<half>(max, c, h);
    }
  }
  // 16 cases x 2 layouts x 2 ops x 2 dtypes, less AvgPool's 2 EXPLICIT
  // cases and the 6 x 2 x 2 errors.
  EXPECT_EQ(compared, 96);
}

TEST(CudaPoolBodyTest, NanAndInfAsTheCpuKernel) {
  // MaxPool skips NaN and gives the lowest finite value for a window of
  // -inf (or of NaN); AvgPool propagates both.
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v = {nan,  1.0,  -inf, -inf, 2.0, nan, -inf, -inf,
                           -inf, -inf, nan,  nan,  3.0, inf, -1,   0.5};
  for (const char* format : {"NHWC", "NCHW"}) {
    Window w;
    w.format = format;
    w.kh = w.kw = 2;
    w.sh = w.sw = 2;
    PoolCase c{w, 1, 4, 4, 1};
    for (DataType dt : {DT_FLOAT, DT_HALF}) {
      const Tensor input = AsTensorOfType(dt, v, TensorShape({1, 4, 4, 1}));
      const Tensor image =
          w.nchw() ? AsTensorOfType(dt, v, TensorShape({1, 1, 4, 4})) : input;
      for (bool max : {true, false}) {
        if (dt == DT_FLOAT) {
          CheckPool<float>(max, c, image);
        } else {
          CheckPool<half>(max, c, image);
        }
      }
    }
  }
  // Depth max pool: a leading NaN is kept, later ones skipped.
  Window depth;
  depth.kc = depth.sc = 2;
  const Tensor input =
      AsTensorOfType(DT_FLOAT, {nan, 1, 1, nan, -inf, -inf, 2, inf},
                     TensorShape({1, 1, 2, 4}));
  CheckPool<float>(true, PoolCase{depth, 1, 1, 2, 4}, input);
}

// ---------------------------------------------------------------------------
// FusedBatchNormV3

struct BatchNormMode {
  bool training = false;
  float factor = 1.0f;  // exponential_avg_factor
  std::string Name() const {
    return training ? "training f=" + std::to_string(factor) : "inference";
  }
};

// The six outputs of the CUDA kernel for `x` as the op computes them: the
// bodies over every element, the statistics blocks emulated thread by
// thread with their tree, and the outputs the op copies or fills.
template <typename T>
std::vector<Tensor> EmulateBatchNorm(const gpu::BatchNormParams& p,
                                     const BatchNormMode& mode, const Tensor& x,
                                     const std::vector<Tensor>& stats) {
  const int64_t c = p.channels;
  std::vector<Tensor> out;
  out.emplace_back(x.dtype(), x.shape());
  for (int i = 0; i < 4; ++i) out.emplace_back(DT_FLOAT, TensorShape({c}));
  out.push_back(AsTensorOfType(DT_FLOAT, {0.0}, TensorShape({})));
  float* o[4];
  for (int i = 0; i < 4; ++i) o[i] = out[i + 1].data<float>();
  const float* scale = stats[0].data<float>();
  const float* offset = stats[1].data<float>();
  const float* mean = stats[2].data<float>();
  const float* variance = stats[3].data<float>();
  const T* xs = x.data<T>();
  T* y = out[0].data<T>();
  if (x.NumElements() == 0) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int i = 0; i < 4; ++i) {
      std::fill_n(o[i], c, i < 2 || mode.training ? nan : 0.0f);
    }
    return out;
  }
  if (!mode.training) {
    std::copy_n(mean, c, o[0]);
    std::copy_n(variance, c, o[1]);
    std::fill_n(o[2], c, 0.0f);
    std::fill_n(o[3], c, 0.0f);
    for (int64_t i = 0; i < p.size; ++i) {
      y[i] = static_cast<T>(
          gpu::BatchNormOutput(p, xs, scale, offset, mean, variance, i));
    }
    return out;
  }
  constexpr int kThreads = gpu::kBatchNormStatsThreads;
  std::vector<double> partial(kThreads);
  std::vector<float> factor(c);
  for (int64_t ch = 0; ch < c; ++ch) {
    double sums[2];
    for (int pass = 0; pass < 2; ++pass) {
      const double center = pass == 0 ? 0.0 : gpu::BatchNormMean(p, sums[0]);
      for (int t = 0; t < kThreads; ++t) {
        partial[t] = gpu::BatchNormThreadSum(p, xs, ch, t, pass == 1, center);
      }
      for (int step = kThreads / 2; step > 0; step >>= 1) {
        for (int t = 0; t < kThreads; ++t) {
          gpu::BatchNormTreeStep(partial.data(), t, step);
        }
      }
      sums[pass] = partial[0];
    }
    const bool estimates = p.exponential_avg_factor != 1.0f;
    const gpu::BatchNormChannelOut r = gpu::BatchNormChannel(
        p, sums[0], sums[1], scale[ch], estimates ? mean[ch] : 0.0f,
        estimates ? variance[ch] : 0.0f);
    o[0][ch] = r.batch_mean;
    o[1][ch] = r.batch_variance;
    o[2][ch] = r.saved_mean;
    o[3][ch] = r.saved_variance;
    factor[ch] = r.factor;
  }
  for (int64_t i = 0; i < p.size; ++i) {
    y[i] = static_cast<T>(
        gpu::BatchNormTrainOutput(p, xs, o[2], factor.data(), offset, i));
  }
  return out;
}

// Whether the case compared values (false: both sides reported the same
// error).
template <typename T>
bool CheckBatchNorm(const BatchNormMode& mode, const std::string& format,
                    const std::vector<int64_t>& x_dims, int64_t stats_size,
                    std::mt19937* rng, int64_t estimates_size = -1) {
  const DataType dt = DataTypeToEnum<T>::value;
  const TensorShape shape = *TensorShape::Build(x_dims);
  SCOPED_TRACE("FusedBatchNormV3 " + mode.Name() + " " + format + " " +
               DataTypeName(dt) + " x " + shape.DebugString());
  const Tensor x = Random(dt, shape, -3, 3, rng);
  const TensorShape cs({stats_size});
  const TensorShape es({estimates_size < 0 ? stats_size : estimates_size});
  const std::vector<Tensor> stats = {
      Random(DT_FLOAT, cs, -2, 2, rng), Random(DT_FLOAT, cs, -1, 1, rng),
      Random(DT_FLOAT, es, -1, 1, rng), Random(DT_FLOAT, es, 0.1, 2, rng)};
  const float epsilon = 0.001f;
  AttrMap attrs;
  attrs["data_format"] = AttrValue::String(format);
  attrs["is_training"] = AttrValue::Bool(mode.training);
  attrs["exponential_avg_factor"] = AttrValue::Float(mode.factor);
  attrs["epsilon"] = AttrValue::Float(epsilon);
  OpRunner cpu("FusedBatchNormV3", attrs);
  cpu.set_forwardable(false);
  StatusOr<std::vector<Tensor>> want =
      cpu.Run({x, stats[0], stats[1], stats[2], stats[3]});
  const TensorShape* shapes[4];
  for (int i = 0; i < 4; ++i) shapes[i] = &stats[i].shape();
  BatchNormAttrs battrs;
  battrs.epsilon = epsilon;
  battrs.exponential_avg_factor = mode.factor;
  battrs.is_training = mode.training;
  battrs.format = format;
  gpu::BatchNormParams p;
  const Status planned = PlanBatchNorm(battrs, shape, shapes, &p);
  EXPECT_EQ(planned.ok(), want.ok()) << planned << " vs " << want.status();
  if (!planned.ok() || !want.ok()) {
    ExpectSameError(planned, want.status());
    return false;
  }
  EXPECT_EQ(p.size, shape.num_elements());
  const std::vector<Tensor> got = EmulateBatchNorm<T>(p, mode, x, stats);
  EXPECT_EQ(got.size(), want->size());
  if (got.size() != want->size()) return true;
  if (!mode.training) {
    // The CPU kernel's operations in its order: exact.
    for (size_t i = 0; i < got.size(); ++i) {
      ExpectTensorEqual(got[i], (*want)[i]);
    }
    return true;
  }
  // Training sums in double in another order than the CPU's blocks: the
  // statistics may differ in their last float bit, and y with them.
  const double f = UnitRoundoff(DT_FLOAT);
  ExpectTensorNear(got[0], (*want)[0], 16 * f + UnitRoundoff(dt),
                   UnitRoundoff(dt) + 8 * f);
  for (size_t i = 1; i < got.size(); ++i) {
    ExpectTensorNear(got[i], (*want)[i], 2 * f, 2 * f);
  }
  return true;
}

TEST(CudaBatchNormBodyTest, MatchesCpuKernel) {
  std::mt19937 rng(5);
  int compared = 0;
  struct Shape {
    const char* format;
    std::vector<int64_t> dims;
    int64_t channels;  // of the statistics given
  };
  const Shape shapes[] = {
      {"NHWC", {2, 3, 4, 5}, 5},
      {"NCHW", {2, 5, 3, 4}, 5},
      {"NDHWC", {1, 2, 3, 4, 3}, 3},
      {"NCDHW", {2, 3, 2, 1, 4}, 3},
      {"NHWC", {1, 1, 1, 7}, 7},  // one value per channel
      {"NCHW", {3, 1, 1, 1}, 1},
      {"NHWC", {0, 3, 3, 4}, 4},  // empty x
      {"NCHW", {2, 4, 0, 3}, 4},  // empty spatial
      {"NHWC", {8, 16, 16, 64}, 64},
      {"NCHW", {4, 32, 16, 16}, 32},  // 1024 values per channel and thread
      {"NHWC", {2, 3, 4, 5}, 4},      // statistics of the wrong size
      {"NCHW", {2, 3, 4}, 3},         // wrong rank
  };
  for (const BatchNormMode& mode :
       {BatchNormMode{false, 1.0f}, BatchNormMode{true, 1.0f},
        BatchNormMode{true, 0.25f}}) {
    for (const Shape& s : shapes) {
      compared +=
          CheckBatchNorm<float>(mode, s.format, s.dims, s.channels, &rng);
      compared +=
          CheckBatchNorm<half>(mode, s.format, s.dims, s.channels, &rng);
    }
  }
  // Training with a factor of 1 reads no mean and variance: any vectors
  // do, empty ones included; other shapes are errors.
  compared +=
      CheckBatchNorm<float>({true, 1.0f}, "NHWC", {2, 3, 3, 4}, 4, &rng, 0);
  compared +=
      CheckBatchNorm<float>({true, 0.5f}, "NHWC", {2, 3, 3, 4}, 4, &rng, 0);
  compared +=
      CheckBatchNorm<float>({false, 1.0f}, "NHWC", {2, 3, 3, 4}, 4, &rng, 0);
  // 3 modes x 12 shapes x 2 dtypes, less 3 x 2 x 2 errors; then 1 of 3.
  EXPECT_EQ(compared, 3 * 10 * 2 + 1);
}

TEST(CudaBatchNormBodyTest, NanAndInfPropagate) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = AsTensorOfType(DT_FLOAT, {nan, inf, -inf, 1.0, 2.0, 0.5},
                                  TensorShape({1, 1, 3, 2}));
  const Tensor stat = AsTensorOfType(DT_FLOAT, {0.5, 2.0}, TensorShape({2}));
  const TensorShape* shapes[4] = {&stat.shape(), &stat.shape(), &stat.shape(),
                                  &stat.shape()};
  for (bool training : {false, true}) {
    AttrMap attrs;
    attrs["is_training"] = AttrValue::Bool(training);
    OpRunner cpu("FusedBatchNormV3", attrs);
    cpu.set_forwardable(false);
    StatusOr<std::vector<Tensor>> want = cpu.Run({x, stat, stat, stat, stat});
    ASSERT_TRUE(want.ok()) << want.status();
    BatchNormAttrs battrs;
    battrs.is_training = training;
    battrs.format = "NHWC";
    gpu::BatchNormParams p;
    ASSERT_TRUE(PlanBatchNorm(battrs, x.shape(), shapes, &p).ok());
    const std::vector<Tensor> got = EmulateBatchNorm<float>(
        p, {training, 1.0f}, x, {stat, stat, stat, stat});
    for (size_t i = 0; i < got.size(); ++i) {
      ExpectTensorEqual(got[i], (*want)[i]);
    }
  }
}

// ---------------------------------------------------------------------------
// BatchMatMulV2: the cuBLAS calls the plan makes

// The x and y matrices output matrix `b` multiplies, by NumPy's rule on
// the unmerged batch shapes.
void NaiveBatchIndex(const TensorShape& x, const TensorShape& y,
                     const TensorShape& out, int64_t b, int64_t* xi,
                     int64_t* yi) {
  const int out_batch = out.dims() - 2;
  std::vector<int64_t> idx(out_batch);
  for (int d = out_batch - 1; d >= 0; --d) {
    idx[d] = b % out.dim_size(d);
    b /= out.dim_size(d);
  }
  for (int which = 0; which < 2; ++which) {
    const TensorShape& s = which == 0 ? x : y;
    const int batch = s.dims() - 2;
    int64_t flat = 0;
    for (int d = 0; d < batch; ++d) {
      const int od = out_batch - batch + d;
      flat = flat * s.dim_size(d) + (s.dim_size(d) == 1 ? 0 : idx[od]);
    }
    *(which == 0 ? xi : yi) = flat;
  }
}

// Column-major C = op(A) op(B) for each of the call's count products, as
// cublasGemmStridedBatchedEx defines it, in double.
void EmulateGemm(const StridedGemm& g, const std::vector<double>& a,
                 const std::vector<double>& b, std::vector<double>* c) {
  for (int64_t t = 0; t < g.count; ++t) {
    const double* A = a.data() + g.a_offset + t * g.stride_a;
    const double* B = b.data() + g.b_offset + t * g.stride_b;
    double* C = c->data() + g.c_offset + t * g.stride_c;
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.n; ++j) {
        double s = 0;
        for (int64_t l = 0; l < g.k; ++l) {
          const double av = g.trans_a ? A[l + i * g.lda] : A[i + l * g.lda];
          const double bv = g.trans_b ? B[j + l * g.ldb] : B[l + j * g.ldb];
          s += av * bv;
        }
        C[i + j * g.ldc] = s;
      }
    }
  }
}

struct BmmCase {
  std::vector<int64_t> x, y;
  bool adj_x = false, adj_y = false;
  size_t calls = 1;  // expected number of cuBLAS calls (0: no product)
};

void CheckBatchMatMul(const BmmCase& c, std::mt19937* rng) {
  const TensorShape xs = *TensorShape::Build(c.x);
  const TensorShape ys = *TensorShape::Build(c.y);
  SCOPED_TRACE("BatchMatMulV2 x " + xs.DebugString() + " y " +
               ys.DebugString() + (c.adj_x ? " adj_x" : "") +
               (c.adj_y ? " adj_y" : ""));
  const Tensor x = Random(DT_FLOAT, xs, -1, 1, rng);
  const Tensor y = Random(DT_FLOAT, ys, -1, 1, rng);
  AttrMap attrs;
  attrs["adj_x"] = AttrValue::Bool(c.adj_x);
  attrs["adj_y"] = AttrValue::Bool(c.adj_y);
  OpRunner cpu("BatchMatMulV2", attrs);
  StatusOr<std::vector<Tensor>> want = cpu.Run({x, y});
  BatchMatMulPlan plan;
  const Status planned = PlanBatchMatMul(xs, ys, c.adj_x, c.adj_y, &plan);
  ASSERT_EQ(planned.ok(), want.ok()) << planned << " vs " << want.status();
  if (!planned.ok()) {
    ExpectSameError(planned, want.status());
    return;
  }
  ASSERT_EQ(plan.out_shape, (*want)[0].shape());
  EXPECT_EQ(plan.calls.size(), c.calls);
  if (plan.out_shape.num_elements() == 0) {
    EXPECT_TRUE(plan.calls.empty());
    return;
  }
  // Every output matrix is written by exactly one product, of the x and y
  // matrices NumPy broadcasting assigns it.
  const int64_t batch = plan.batch;
  std::vector<int> written(batch, 0);
  for (const BatchMatMulCall& call : plan.calls) {
    const bool folded = plan.rows != plan.m;
    for (int64_t j = 0; j < (folded ? batch : call.count); ++j) {
      // A folded call is one product over all of x's rows: output matrix j
      // is x matrix j times the one y.
      const int64_t o = folded ? j : call.out_offset + j * call.out_stride;
      const int64_t xi = folded ? j : call.x_offset + j * call.x_stride;
      const int64_t yi = folded ? 0 : call.y_offset + j * call.y_stride;
      ASSERT_GE(o, 0);
      ASSERT_LT(o, batch);
      ++written[o];
      int64_t want_x, want_y;
      NaiveBatchIndex(xs, ys, plan.out_shape, o, &want_x, &want_y);
      EXPECT_EQ(xi, want_x) << "output matrix " << o;
      EXPECT_EQ(yi, want_y) << "output matrix " << o;
    }
  }
  for (int64_t o = 0; o < batch; ++o) {
    EXPECT_EQ(written[o], 1) << "output matrix " << o;
  }
  // The cuBLAS calls themselves, emulated, give the CPU kernel's product.
  if (plan.k == 0) return;  // the kernel zero-fills instead
  std::vector<double> out(plan.out_shape.num_elements(),
                          std::numeric_limits<double>::quiet_NaN());
  const std::vector<double> xv = ToDoubles(x), yv = ToDoubles(y);
  for (const BatchMatMulCall& call : plan.calls) {
    EmulateGemm(BatchMatMulGemm(plan, call), yv, xv, &out);
  }
  ExpectClose(AsTensorOfType(DT_FLOAT, out, plan.out_shape), (*want)[0],
              plan.k);
}

TEST(CudaBatchMatMulPlanTest, CallsMatchNaiveBroadcastAndCpuKernel) {
  std::mt19937 rng(6);
  const BmmCase cases[] = {
      {{3, 4}, {4, 5}},        // no batch
      {{2, 3, 4}, {2, 4, 5}},  // one batch stride
      {{2, 3, 4}, {2, 3, 5}, true, false},
      {{2, 4, 3}, {2, 5, 4}, true, true},
      {{2, 3, 4}, {2, 5, 4}, false, true},
      {{2, 3, 4}, {4, 5}},               // folded into rows
      {{2, 3, 3, 4}, {1, 4, 5}},         // folded, rank 4
      {{2, 4, 3}, {4, 5}, true, false},  // adj_x: not folded
      {{3, 4}, {2, 4, 5}},               // x broadcast
      {{1, 3, 4}, {3, 5, 4}, false, true},
      {{2, 1, 3, 4}, {1, 5, 4, 6}, false, false, 2},  // a loop of calls
      {{2, 1, 4, 3}, {1, 5, 6, 4}, true, true, 2},
      {{2, 3, 1, 3, 4}, {3, 5, 4, 2}, false, false, 6},
      {{1, 2, 1, 3, 4}, {4, 1, 2, 4, 5}, false, false, 8},
      {{6, 1, 2, 3}, {6, 1, 3, 2}},             // size-1 dims dropped
      {{0, 3, 4}, {4, 5}, false, false, 0},     // empty batch
      {{2, 0, 4}, {2, 4, 5}, false, false, 0},  // m = 0
      {{2, 3, 0}, {2, 0, 5}},                   // k = 0
      {{64, 32, 48}, {64, 48, 40}},             // large
      {{4}, {4, 5}},                            // errors: rank 1,
      {{2, 3, 4}, {2, 5, 5}},                   // inner mismatch,
      {{2, 3, 4}, {3, 4, 5}},                   // batch mismatch
  };
  for (const BmmCase& c : cases) CheckBatchMatMul(c, &rng);
}

// ---------------------------------------------------------------------------
// The GPU-vs-CPU table's NN rows (cuda_nn_cases.cc) are valid: the CPU
// kernel runs every row for every dtype, so a row can fail on a GPU machine
// only through the CUDA kernel.

TEST(CudaNnCasesTest, EveryRowRunsOnCpu) {
  for (const test::Case& c : test::NnCases()) {
    for (DataType dt : c.dtypes) {
      std::mt19937 rng(12345);
      std::vector<Tensor> inputs;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        auto fixed = c.fixed.find(static_cast<int>(i));
        inputs.push_back(
            fixed != c.fixed.end()
                ? fixed->second
                : test::RandomTensor(dt, c.shapes[i], c.values[i], &rng));
      }
      OpRunner cpu(c.op, c.attrs);
      StatusOr<std::vector<Tensor>> out = cpu.Run(inputs);
      EXPECT_TRUE(out.ok()) << c.op << " " << c.label << " " << DataTypeName(dt)
                            << ": " << out.status();
    }
  }
}

}  // namespace cuda_nn_body_test
}  // namespace weft
