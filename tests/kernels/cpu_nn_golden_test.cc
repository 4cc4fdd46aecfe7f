// Replays TensorFlow's reference outputs for the image ops
// (testdata/nn_goldens.txt, written by gen_nn_goldens.py from tf.raw_ops on
// the CPU) through the weft kernels.
//
// Tolerances, with u_T the unit roundoff of the case's dtype (2^-24 float,
// 2^-53 double, 2^-11 half, 2^-8 bfloat16) and u_c that of the precision
// weft computes in (float for half and bfloat16, else the dtype itself):
//  - Conv2D, DepthwiseConv2dNative, Conv2DBackpropInput: each output is a
//    sum of K products (K = taps x input channels per group; taps for
//    depthwise; taps x output channels per group for the input gradient),
//    so |weft - tf| <= K (u_c + u_T) S + 2 u_T |y| with S the sum of the
//    products' magnitudes: both sides are within the dot-product bound
//    K u S of the exact value (Higham, eq. 3.5) in their own accumulation
//    precision (TensorFlow may accumulate half in half), plus each one's
//    final rounding. int32 is exact: both wrap modulo 2^32.
//  - MaxPool, ResizeNearestNeighbor: exact; they select input values.
//  - AvgPool: float and double exact, since weft sums the window in
//    TensorFlow's order (row-major) and divides by the same count. half and
//    bfloat16: TensorFlow sums in the dtype, weft in float, so
//    k (u_c + u_T) max|x| + 2 u_T |y| for windows of k elements.
//  - ResizeBilinear: 4 u_float max|x|. Both sides evaluate the same three
//    float lerps on the same float weights; the slack covers a compiler
//    fusing a multiply-add (one rounding less per lerp).
//  - FusedBatchNormV3, with d = x - mean and f = scale / sqrt(var + eps):
//    inference y within 8 u_c |d f| + 2 (u_c + u_T) |y| (TensorFlow's
//    vectorized rsqrt is approximate to a few ulps; d is computed alike,
//    the products and the sum round once each); batch_mean/batch_variance
//    exact copies; reserve_space_1/2 shape only (TensorFlow leaves them
//    unwritten); reserve_space_3 exact. Training adds the statistics'
//    error: TensorFlow sums n values in float, so the mean is within
//    dm = (n + 2) u_c max|x| and the variance within
//    dv = 2 (n + 4) u_c (max|x| + |mean|)^2; y gains |f| dm +
//    |d f| dv / (var + eps), the running estimates f dm and f n/(n-1) dv.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "ops/common_shape_fns.h"
#include "tests/kernels/golden_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_nn_golden_test {

using test::GoldenCase;
using test::ToDoubles;

std::string GoldenPath() {
  if (const char* env = std::getenv("WEFT_NN_GOLDENS")) return env;
  return test::GoldenPath("nn_goldens.txt");
}

const std::vector<GoldenCase>& Goldens() {
  static const auto* cases = [] {
    StatusOr<std::vector<GoldenCase>> loaded =
        test::LoadGoldenFile(GoldenPath());
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return new std::vector<GoldenCase>(loaded.ok() ? *std::move(loaded)
                                                   : std::vector<GoldenCase>());
  }();
  return *cases;
}

double ComputeRoundoff(DataType dt) {
  return test::UnitRoundoff(dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT);
}

// Element-wise |got - want| <= tol[i]; NaN must meet NaN and an infinity
// the same infinity.
void ExpectWithin(const Tensor& got, const Tensor& want,
                  const std::vector<double>& tol, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const std::vector<double> g = ToDoubles(got);
  const std::vector<double> e = ToDoubles(want);
  int failures = 0;
  for (size_t i = 0; i < e.size() && failures < 10; ++i) {
    bool ok;
    if (std::isnan(e[i])) {
      ok = std::isnan(g[i]);
    } else if (std::isinf(e[i])) {
      ok = g[i] == e[i];
    } else {
      ok = std::fabs(g[i] - e[i]) <= tol[i];
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << " element " << i << ": got " << g[i]
                    << ", TensorFlow " << e[i] << ", tolerance " << tol[i];
    }
  }
}

// ---- window geometry, read from the case's attrs ----------------------------

struct Window {
  bool nchw = false;
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

std::vector<int64_t> Ints(const GoldenCase& c, const char* name,
                          std::vector<int64_t> fallback) {
  auto it = c.attrs.find(name);
  return it == c.attrs.end() ? fallback : it->second.list->i;
}

// The padding before the first tap along one dimension.
int64_t PadBefore(const GoldenCase& c, int64_t in, int64_t window,
                  int64_t dilation, int64_t stride, int dim_index) {
  const std::string padding = c.attrs.at("padding").s;
  const std::vector<int64_t> explicit_pads =
      Ints(c, "explicit_paddings", std::vector<int64_t>(8, 0));
  StatusOr<WindowedOutputSize> size = GetWindowedOutputSize(
      in, window, dilation, stride, *ParsePadding(padding),
      explicit_pads.empty() ? 0 : explicit_pads[2 * dim_index],
      explicit_pads.empty() ? 0 : explicit_pads[2 * dim_index + 1]);
  EXPECT_TRUE(size.ok()) << size.status();
  return size.ok() ? size->pad_before : 0;
}

// Reads attrs for an image of NHWC sizes (h, w) and a window kh x kw.
Window GetWindow(const GoldenCase& c, int64_t h, int64_t w, int64_t kh,
                 int64_t kw) {
  Window win;
  win.nchw = c.attrs.at("data_format").s == "NCHW";
  const int hi = win.nchw ? 2 : 1, wi = win.nchw ? 3 : 2;
  const std::vector<int64_t> strides = Ints(c, "strides", {1, 1, 1, 1});
  const std::vector<int64_t> dilations = Ints(c, "dilations", {1, 1, 1, 1});
  win.stride_h = strides[hi];
  win.stride_w = strides[wi];
  win.dil_h = dilations[hi];
  win.dil_w = dilations[wi];
  win.pad_top = PadBefore(c, h, kh, win.dil_h, win.stride_h, hi);
  win.pad_left = PadBefore(c, w, kw, win.dil_w, win.stride_w, wi);
  return win;
}

// An image tensor's values addressed as (n, h, w, c) whatever its layout.
struct Image {
  std::vector<double> v;
  bool nchw = false;
  int64_t n = 0, h = 0, w = 0, c = 0;

  Image(const Tensor& t, bool is_nchw) : v(ToDoubles(t)), nchw(is_nchw) {
    n = t.dim_size(0);
    h = t.dim_size(nchw ? 2 : 1);
    w = t.dim_size(nchw ? 3 : 2);
    c = t.dim_size(nchw ? 1 : 3);
  }
  int64_t Index(int64_t b, int64_t y, int64_t x, int64_t ch) const {
    return nchw ? ((b * c + ch) * h + y) * w + x
                : ((b * h + y) * w + x) * c + ch;
  }
  double At(int64_t b, int64_t y, int64_t x, int64_t ch) const {
    return v[Index(b, y, x, ch)];
  }
};

// For a convolution-like op: per output element, the sum of |products|
// and the number of terms K.
struct ProductBound {
  std::vector<double> abs_sum;
  int64_t terms = 0;
};

ProductBound ConvBound(const GoldenCase& c, bool depthwise) {
  const bool nchw = c.attrs.at("data_format").s == "NCHW";
  const Image x(c.inputs[0], nchw);
  const std::vector<double> f = ToDoubles(c.inputs[1]);
  const TensorShape& fs = c.inputs[1].shape();
  const int64_t kh = fs.dim_size(0), kw = fs.dim_size(1), fi = fs.dim_size(2),
                fo = fs.dim_size(3);
  const Image y(c.expected[0], nchw);
  const Window win = GetWindow(c, x.h, x.w, kh, kw);
  ProductBound b;
  b.abs_sum.assign(y.v.size(), 0);
  const int64_t groups = depthwise ? 1 : std::max<int64_t>(1, x.c / fi);
  const int64_t cout_g = depthwise ? 1 : fo / groups;
  b.terms = depthwise ? kh * kw : kh * kw * fi;
  for (int64_t n = 0; n < y.n; ++n) {
    for (int64_t oh = 0; oh < y.h; ++oh) {
      for (int64_t ow = 0; ow < y.w; ++ow) {
        for (int64_t co = 0; co < y.c; ++co) {
          double sum = 0;
          for (int64_t i = 0; i < kh; ++i) {
            const int64_t ih = oh * win.stride_h - win.pad_top + i * win.dil_h;
            if (ih < 0 || ih >= x.h) continue;
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t iw =
                  ow * win.stride_w - win.pad_left + j * win.dil_w;
              if (iw < 0 || iw >= x.w) continue;
              if (depthwise) {
                const int64_t ch = co / fo, m = co % fo;
                sum += std::fabs(x.At(n, ih, iw, ch) *
                                 f[((i * kw + j) * fi + ch) * fo + m]);
              } else {
                const int64_t g = co / cout_g;
                for (int64_t ci = 0; ci < fi; ++ci) {
                  sum += std::fabs(x.At(n, ih, iw, g * fi + ci) *
                                   f[((i * kw + j) * fi + ci) * fo + co]);
                }
              }
            }
          }
          b.abs_sum[y.Index(n, oh, ow, co)] = sum;
        }
      }
    }
  }
  return b;
}

ProductBound BackpropBound(const GoldenCase& c) {
  const bool nchw = c.attrs.at("data_format").s == "NCHW";
  const Image dy(c.inputs[2], nchw);
  const std::vector<double> f = ToDoubles(c.inputs[1]);
  const TensorShape& fs = c.inputs[1].shape();
  const int64_t kh = fs.dim_size(0), kw = fs.dim_size(1), fi = fs.dim_size(2),
                fo = fs.dim_size(3);
  const Image dx(c.expected[0], nchw);
  const Window win = GetWindow(c, dx.h, dx.w, kh, kw);
  ProductBound b;
  b.abs_sum.assign(dx.v.size(), 0);
  b.terms = kh * kw * fo;
  // Scatter every output gradient through every tap.
  for (int64_t n = 0; n < dy.n; ++n) {
    for (int64_t oh = 0; oh < dy.h; ++oh) {
      for (int64_t ow = 0; ow < dy.w; ++ow) {
        for (int64_t i = 0; i < kh; ++i) {
          const int64_t ih = oh * win.stride_h - win.pad_top + i * win.dil_h;
          if (ih < 0 || ih >= dx.h) continue;
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t iw = ow * win.stride_w - win.pad_left + j * win.dil_w;
            if (iw < 0 || iw >= dx.w) continue;
            for (int64_t ci = 0; ci < fi; ++ci) {
              for (int64_t co = 0; co < fo; ++co) {
                b.abs_sum[dx.Index(n, ih, iw, ci)] +=
                    std::fabs(dy.At(n, oh, ow, co) *
                              f[((i * kw + j) * fi + ci) * fo + co]);
              }
            }
          }
        }
      }
    }
  }
  return b;
}

void CheckProducts(const GoldenCase& c, const Tensor& got,
                   const ProductBound& b) {
  const DataType dt = c.expected[0].dtype();
  if (dt == DT_INT32) {
    test::ExpectTensorEqual(got, c.expected[0]);
    return;
  }
  const double u_t = test::UnitRoundoff(dt);
  const double u_c = ComputeRoundoff(dt);
  const std::vector<double> e = ToDoubles(c.expected[0]);
  std::vector<double> tol(e.size());
  for (size_t i = 0; i < e.size(); ++i) {
    tol[i] = b.terms * (u_c + u_t) * b.abs_sum[i] * 1.0001 +
             2 * u_t * std::fabs(e[i]);
  }
  ExpectWithin(got, c.expected[0], tol, "output");
}

double MaxAbsFinite(const Tensor& t) {
  double m = 0;
  for (double v : ToDoubles(t)) {
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  }
  return m;
}

void CheckAvgPool(const GoldenCase& c, const Tensor& got) {
  const DataType dt = c.expected[0].dtype();
  if (dt == DT_FLOAT || dt == DT_DOUBLE) {
    test::ExpectTensorEqual(got, c.expected[0]);
    return;
  }
  const std::vector<int64_t> k = c.attrs.at("ksize").list->i;
  const double window = static_cast<double>(k[0] * k[1] * k[2] * k[3]);
  const double u_t = test::UnitRoundoff(dt);
  const double u_c = ComputeRoundoff(dt);
  const double max_x = MaxAbsFinite(c.inputs[0]);
  const std::vector<double> e = ToDoubles(c.expected[0]);
  std::vector<double> tol(e.size());
  for (size_t i = 0; i < e.size(); ++i) {
    tol[i] = window * (u_c + u_t) * max_x + 2 * u_t * std::fabs(e[i]);
  }
  ExpectWithin(got, c.expected[0], tol, "output");
}

void CheckBatchNorm(const GoldenCase& c, const std::vector<Tensor>& got) {
  ASSERT_EQ(got.size(), 6u);
  const bool training = c.attrs.at("is_training").b;
  const double eps = c.attrs.at("epsilon").f;
  const double factor = c.attrs.at("exponential_avg_factor").f;
  const std::string format = c.attrs.at("data_format").s;
  const bool channels_last = format.back() == 'C';
  const DataType dt = c.expected[0].dtype();
  const double u_t = test::UnitRoundoff(dt);
  const double u_c = ComputeRoundoff(DT_FLOAT);
  const std::vector<double> x = ToDoubles(c.inputs[0]);
  const std::vector<double> scale = ToDoubles(c.inputs[1]);
  const TensorShape& xs = c.inputs[0].shape();
  const int64_t channels =
      channels_last ? xs.dim_size(xs.dims() - 1) : xs.dim_size(1);
  int64_t inner = 1;
  if (!channels_last) {
    for (int d = 2; d < xs.dims(); ++d) inner *= xs.dim_size(d);
  }
  auto channel_of = [&](size_t i) {
    return channels_last ? static_cast<int64_t>(i) % channels
                         : (static_cast<int64_t>(i) / inner) % channels;
  };
  // The statistics y was normalized with, in double, and their error.
  std::vector<double> mean(channels), var(channels), dm(channels, 0),
      dv(channels, 0);
  const int64_t n = channels == 0 ? 0 : xs.num_elements() / channels;
  if (training) {
    std::vector<double> max_x(channels, 0);
    for (size_t i = 0; i < x.size(); ++i) {
      mean[channel_of(i)] += x[i] / n;
      max_x[channel_of(i)] = std::max(max_x[channel_of(i)], std::fabs(x[i]));
    }
    for (size_t i = 0; i < x.size(); ++i) {
      const double d = x[i] - mean[channel_of(i)];
      var[channel_of(i)] += d * d / n;
    }
    for (int64_t ch = 0; ch < channels; ++ch) {
      dm[ch] = (n + 2) * u_c * max_x[ch];
      const double r = max_x[ch] + std::fabs(mean[ch]);
      dv[ch] = 2 * (n + 4) * u_c * r * r;
    }
  } else {
    mean = ToDoubles(c.inputs[3]);
    var = ToDoubles(c.inputs[4]);
  }
  const std::vector<double> y = ToDoubles(c.expected[0]);
  std::vector<double> tol(y.size());
  for (size_t i = 0; i < y.size(); ++i) {
    const int64_t ch = channel_of(i);
    const double f = scale[ch] / std::sqrt(var[ch] + eps);
    const double d = std::fabs(x[i] - mean[ch]);
    tol[i] = 8 * u_c * d * std::fabs(f) + 2 * (u_c + u_t) * std::fabs(y[i]) +
             std::fabs(f) * dm[ch] +
             d * std::fabs(f) * dv[ch] / (var[ch] + eps);
  }
  ExpectWithin(got[0], c.expected[0], tol, "y");
  if (!training) {
    test::ExpectTensorEqual(got[1], c.expected[1]);
    test::ExpectTensorEqual(got[2], c.expected[2]);
    EXPECT_EQ(got[3].shape(), c.expected[3].shape());
    EXPECT_EQ(got[4].shape(), c.expected[4].shape());
  } else {
    const double adjust = n > 1 ? static_cast<double>(n) / (n - 1) : 1.0;
    auto stat_tol = [&](const Tensor& want, const std::vector<double>& err,
                        double weight) {
      const std::vector<double> e = ToDoubles(want);
      std::vector<double> t(e.size());
      for (size_t ch = 0; ch < e.size(); ++ch) {
        t[ch] = weight * err[ch] + 2 * u_c * std::fabs(e[ch]);
      }
      return t;
    };
    ExpectWithin(got[1], c.expected[1], stat_tol(c.expected[1], dm, factor),
                 "batch_mean");
    ExpectWithin(got[2], c.expected[2],
                 stat_tol(c.expected[2], dv, factor * adjust),
                 "batch_variance");
    ExpectWithin(got[3], c.expected[3], stat_tol(c.expected[3], dm, 1),
                 "reserve_space_1");
    ExpectWithin(got[4], c.expected[4], stat_tol(c.expected[4], dv, 1),
                 "reserve_space_2");
  }
  test::ExpectTensorEqual(got[5], c.expected[5]);
}

void CheckCase(const GoldenCase& c, const std::vector<Tensor>& got) {
  if (c.op == "FusedBatchNormV3") {
    CheckBatchNorm(c, got);
    return;
  }
  ASSERT_EQ(got.size(), 1u);
  if (c.op == "Conv2D") {
    CheckProducts(c, got[0], ConvBound(c, /*depthwise=*/false));
  } else if (c.op == "DepthwiseConv2dNative") {
    CheckProducts(c, got[0], ConvBound(c, /*depthwise=*/true));
  } else if (c.op == "Conv2DBackpropInput") {
    CheckProducts(c, got[0], BackpropBound(c));
  } else if (c.op == "AvgPool") {
    CheckAvgPool(c, got[0]);
  } else if (c.op == "ResizeBilinear") {
    const double tol =
        4 * test::UnitRoundoff(DT_FLOAT) * MaxAbsFinite(c.inputs[0]);
    ExpectWithin(got[0], c.expected[0],
                 std::vector<double>(c.expected[0].NumElements(), tol),
                 "output");
  } else {  // MaxPool, ResizeNearestNeighbor
    test::ExpectTensorEqual(got[0], c.expected[0]);
  }
}

TEST(CpuNnGoldenTest, MatchesTensorFlow) {
  const std::vector<GoldenCase>& cases = Goldens();
  ASSERT_FALSE(cases.empty()) << "no cases in " << GoldenPath();
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(GoldenPath() + ":" + std::to_string(c.line) + ": " + c.name);
    StatusOr<std::vector<Tensor>> out =
        test::OpRunner(c.op, c.attrs).Run(c.inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), c.expected.size());
    CheckCase(c, *out);
  }
}

// The same cases on a two-thread arena give the same bits.
TEST(CpuNnGoldenTest, ThreadCountDoesNotChangeResults) {
  for (const GoldenCase& c : Goldens()) {
    SCOPED_TRACE(c.name);
    StatusOr<std::vector<Tensor>> serial =
        test::OpRunner(c.op, c.attrs, 0).Run(c.inputs);
    StatusOr<std::vector<Tensor>> parallel =
        test::OpRunner(c.op, c.attrs, 2).Run(c.inputs);
    ASSERT_TRUE(serial.ok()) << serial.status();
    ASSERT_TRUE(parallel.ok()) << parallel.status();
    for (size_t i = 0; i < serial->size(); ++i) {
      test::ExpectTensorEqual((*parallel)[i], (*serial)[i]);
    }
  }
}

// Every dtype a kernel of these ops is registered for has at least one
// TensorFlow case, so a newly registered dtype cannot go unchecked.
TEST(CpuNnGoldenTest, CoversEveryRegisteredDtype) {
  // The input whose dtype is the op's "T".
  const std::map<std::string, int> t_input = {{"Conv2D", 0},
                                              {"DepthwiseConv2dNative", 0},
                                              {"Conv2DBackpropInput", 1},
                                              {"MaxPool", 0},
                                              {"AvgPool", 0},
                                              {"FusedBatchNormV3", 0},
                                              {"ResizeBilinear", 0},
                                              {"ResizeNearestNeighbor", 0}};
  std::set<std::pair<std::string, DataType>> covered;
  for (const GoldenCase& c : Goldens()) {
    auto it = t_input.find(c.op);
    if (it == t_input.end()) continue;
    covered.insert({c.op, c.inputs[it->second].dtype()});
  }
  for (const auto& [op, unused] : t_input) {
    const std::vector<const KernelDef*> defs =
        KernelRegistry::Global()->KernelsForOp(op);
    EXPECT_FALSE(defs.empty()) << "no kernels for " << op;
    for (const KernelDef* def : defs) {
      if (def->device_type != DEVICE_CPU) continue;
      const KernelDef::AttrConstraint* t = def->FindConstraint("T");
      ASSERT_NE(t, nullptr) << op;
      for (DataType dt : t->allowed_types) {
        EXPECT_TRUE(covered.count({op, dt}))
            << op << " has a CPU kernel for " << DataTypeName(dt)
            << " but no golden case; add one to gen_nn_goldens.py";
      }
    }
  }
}

}  // namespace cpu_nn_golden_test
}  // namespace weft
