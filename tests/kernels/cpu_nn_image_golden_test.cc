// Replays TensorFlow's reference outputs for the NN and image ops of issue
// 13 (testdata/nn_image_goldens.txt, written by gen_nn_image_goldens.py from
// tf.raw_ops on the CPU) through the weft kernels.
//
// Exact (any difference is a bug): the ops that move or select elements
// (MaxPoolV2, MaxPoolWithArgmax and its indices, MaxPool3D, SpaceToBatchND,
// BatchToSpaceND, SpaceToDepth, DepthToSpace, ExtractImagePatches,
// CropAndResize with method nearest, CombinedNonMaxSuppression's selection),
// and BiasAddV1, one correctly rounded addition per element in both (half
// and bfloat16 add in float and round once on both sides).
//
// Tolerances, with u_T the unit roundoff of the output dtype and u_c that of
// the precision weft computes in (float for half and bfloat16), m = the
// largest finite |input 0| of the case; an element passes when
// |weft - tf| <= bound + 2 u_T |tf|:
//  - FusedBatchNorm, FusedBatchNormV2 (inference; the kernel is
//    FusedBatchNormV3's, whose training path nn_goldens checks), with
//    d = x - mean, f = scale / sqrt(var + eps): bound 8 u_c |d f| +
//    2 u_c |y| (TensorFlow's vectorized rsqrt is a few ulps off; the
//    product and the sum round once each); batch_mean/batch_variance exact
//    copies; reserve_space_1/2 zeros.
//  - Conv3D: each output is a sum of K = kd kh kw C products, so both sides
//    are within K u S of the exact value (Higham, eq. 3.5) in their own
//    accumulation precision (TensorFlow may accumulate half and bfloat16
//    in the dtype, weft does in float) with S <= K m max|filter| the
//    products' magnitude sum: bound 2 K (u_c + u_T) S.
//  - Conv3DBackpropInputV2: the same with K = kd kh kw out_channels
//    products of out_backprop and filter values per input gradient, and m
//    the largest |out_backprop|.
//  - AvgPool3D: a window of k <= kd kh kw elements summed in a possibly
//    different order and precision and divided by k: bound
//    (k + 2) (u_c + u_T) m.
//  - LRN: sqr_sum is a sum of at most 2 r + 1 squares (relative error
//    (2 r + 1) u in the precision each side sums in: TensorFlow sums half
//    in half, weft in float), raised to -beta (beta times that, plus a few
//    ulps for exp and log): bound (2 r + 9) (1 + beta) (u_c + u_T) |y|.
//  - ResizeBicubic: 16 taps with weights summing to 1 and at most 1.25 in
//    magnitude: bound 40 u_float m.
//  - ResizeArea: a weighted sum of at most P pixels (P = the product of
//    ceil(in / out) + 1 over both dimensions), weights summing to 1:
//    bound (P + 4) u_float m.
//  - CropAndResize (bilinear): three lerps on the same float weights, both
//    sides computing the source coordinate by TensorFlow's expression:
//    bound 8 u_float m.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/types.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/golden_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
// Named so that its helpers stay distinct from other test files' in a
// unity build.
namespace nn_image_golden_test {
namespace {

using test::GoldenCase;
using test::ToDoubles;

constexpr char kGoldenFile[] = "nn_image_goldens.txt";

const std::vector<GoldenCase>& Goldens() {
  return test::CachedGoldens(kGoldenFile, "WEFT_NN_IMAGE_GOLDENS");
}

double MaxAbs(const Tensor& t) {
  double m = 0;
  for (double v : ToDoubles(t)) {
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  }
  return m;
}

int64_t IntAttr(const GoldenCase& c, const std::string& name, int64_t dflt) {
  auto it = c.attrs.find(name);
  return it == c.attrs.end() ? dflt : it->second.i;
}

float FloatAttr(const GoldenCase& c, const std::string& name, float dflt) {
  auto it = c.attrs.find(name);
  return it == c.attrs.end() ? dflt : it->second.f;
}

std::string StringAttr(const GoldenCase& c, const std::string& name,
                       const std::string& dflt) {
  auto it = c.attrs.find(name);
  return it == c.attrs.end() ? dflt : it->second.s;
}

std::vector<int64_t> IntsAttr(const GoldenCase& c, const std::string& name) {
  auto it = c.attrs.find(name);
  return it == c.attrs.end() ? std::vector<int64_t>() : it->second.list->i;
}

// The per-element bound (before the 2 u_T |tf| term) of output `o`, or an
// empty vector when the output must match exactly.
std::vector<double> Bounds(const GoldenCase& c, int o, const Tensor& want) {
  const int64_t n = want.NumElements();
  const double uf = test::UnitRoundoff(DT_FLOAT);
  // Double ops compute in double; the others (and every float-output op)
  // in float.
  const double uc =
      want.dtype() == DT_DOUBLE ? test::UnitRoundoff(DT_DOUBLE) : uf;
  const double m = c.inputs.empty() ? 0 : MaxAbs(c.inputs[0]);
  const double u_t = test::UnitRoundoff(want.dtype());
  const std::vector<double> y = ToDoubles(want);
  if (c.op == "FusedBatchNorm" || c.op == "FusedBatchNormV2") {
    if (o != 0) return {};
    const std::vector<double> x = ToDoubles(c.inputs[0]);
    const std::vector<double> scale = ToDoubles(c.inputs[1]);
    const std::vector<double> mean = ToDoubles(c.inputs[3]);
    const std::vector<double> var = ToDoubles(c.inputs[4]);
    const double eps = FloatAttr(c, "epsilon", 1e-4f);
    const bool nchw = StringAttr(c, "data_format", "NHWC") == "NCHW";
    const int64_t ch = static_cast<int64_t>(scale.size());
    const int64_t inner =
        nchw ? c.inputs[0].dim_size(2) * c.inputs[0].dim_size(3) : 1;
    std::vector<double> b(n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = (i / inner) % ch;
      const double df = (x[i] - mean[k]) * scale[k] / std::sqrt(var[k] + eps);
      b[i] = 8 * uc * std::fabs(df) + 2 * uc * std::fabs(y[i]);
      if (!std::isfinite(b[i])) b[i] = 0;
    }
    return b;
  }
  double bound = -1;
  if (c.op == "Conv3D") {
    const TensorShape& f = c.inputs[1].shape();
    const double k = static_cast<double>(f.dim_size(0) * f.dim_size(1) *
                                         f.dim_size(2) * f.dim_size(3));
    bound = 2 * k * (uc + u_t) * k * m * MaxAbs(c.inputs[1]);
  } else if (c.op == "Conv3DBackpropInputV2") {
    // K = taps x output channels products per input gradient.
    const TensorShape& f = c.inputs[1].shape();
    const double k = static_cast<double>(f.dim_size(0) * f.dim_size(1) *
                                         f.dim_size(2) * f.dim_size(4));
    bound = 2 * k * (uc + u_t) * k * MaxAbs(c.inputs[1]) * MaxAbs(c.inputs[2]);
  } else if (c.op == "AvgPool3D") {
    const std::vector<int64_t> ks = IntsAttr(c, "ksize");
    const double k = static_cast<double>(ks[1] * ks[2] * ks[3]);
    bound = (k + 2) * (uc + u_t) * m;
  } else if (c.op == "LRN") {
    const double r = static_cast<double>(IntAttr(c, "depth_radius", 5));
    const double beta = FloatAttr(c, "beta", 0.5f);
    std::vector<double> b(n);
    for (int64_t i = 0; i < n; ++i) {
      b[i] = (2 * r + 9) * (1 + beta) * (uc + u_t) * std::fabs(y[i]);
    }
    return b;
  } else if (c.op == "ResizeBicubic") {
    bound = 40 * uf * m;
  } else if (c.op == "ResizeArea") {
    const TensorShape& in = c.inputs[0].shape();
    const double p =
        (std::ceil(static_cast<double>(in.dim_size(1)) / want.dim_size(1)) +
         1) *
        (std::ceil(static_cast<double>(in.dim_size(2)) / want.dim_size(2)) + 1);
    bound = (p + 4) * uf * m;
  } else if (c.op == "CropAndResize" &&
             StringAttr(c, "method", "bilinear") == "bilinear") {
    bound = 8 * uf * m;
  }
  if (bound < 0) return {};
  return std::vector<double>(n, bound);
}

void ExpectClose(const Tensor& got, const Tensor& want,
                 const std::vector<double>& bounds) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  const double u = test::UnitRoundoff(want.dtype());
  const std::vector<double> g = ToDoubles(got);
  const std::vector<double> e = ToDoubles(want);
  int reported = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    bool ok;
    if (std::isnan(e[i])) {
      ok = std::isnan(g[i]);
    } else if (std::isinf(e[i])) {
      ok = g[i] == e[i];
    } else {
      ok = std::fabs(g[i] - e[i]) <= bounds[i] + 2 * u * std::fabs(e[i]);
    }
    if (!ok && ++reported <= 10) {
      ADD_FAILURE() << "element " << i << ": weft " << g[i] << ", TensorFlow "
                    << e[i] << ", difference " << std::fabs(g[i] - e[i])
                    << " > bound " << bounds[i] + 2 * u * std::fabs(e[i]);
    }
  }
}

void CheckCase(const GoldenCase& c, int threads) {
  StatusOr<std::vector<Tensor>> out =
      test::OpRunner(c.op, c.attrs, threads).Run(c.inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), c.expected.size());
  for (size_t i = 0; i < out->size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    const std::vector<double> bounds =
        Bounds(c, static_cast<int>(i), c.expected[i]);
    if (bounds.empty() || !DataTypeIsFloating(c.expected[i].dtype())) {
      test::ExpectTensorEqual((*out)[i], c.expected[i]);
    } else {
      ExpectClose((*out)[i], c.expected[i], bounds);
    }
  }
}

TEST(CpuNnImageGoldenTest, MatchesTensorFlow) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 0); });
}

// The same cases on a 2-thread arena: the kernels split their work over it,
// with the same results.
TEST(CpuNnImageGoldenTest, MatchesTensorFlowWithThreads) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 2); });
}

// Every op of the batch, with the attr that carries its value dtype (empty
// for ops registered for every dtype, as in TensorFlow).
const std::vector<std::pair<std::string, std::string>>& BatchOps() {
  static const auto* ops = new std::vector<std::pair<std::string, std::string>>{
      {"FusedBatchNorm", "T"},
      {"FusedBatchNormV2", "T"},
      {"BiasAddV1", "T"},
      {"MaxPoolV2", "T"},
      {"SpaceToBatchND", "T"},
      {"BatchToSpaceND", "T"},
      {"SpaceToDepth", "T"},
      {"DepthToSpace", "T"},
      {"Conv3D", "T"},
      {"Conv3DBackpropInputV2", "T"},
      {"MaxPool3D", "T"},
      {"AvgPool3D", "T"},
      {"ResizeBicubic", "T"},
      {"ResizeArea", "T"},
      {"CropAndResize", "T"},
      {"LRN", "T"},
      {"ExtractImagePatches", "T"},
      {"MaxPoolWithArgmax", "T"},
      {"CombinedNonMaxSuppression", ""},
  };
  return *ops;
}

// Every dtype a CPU kernel of these ops is registered for has a TensorFlow
// case, where the golden format can hold it (not complex, string or
// quantized), so a newly registered dtype cannot go unchecked.
TEST(CpuNnImageGoldenTest, CoversEveryRegisteredDtype) {
  test::DtypeCoverage covered;
  std::set<std::string> ops_seen;
  for (const GoldenCase& c : Goldens()) {
    ops_seen.insert(c.op);
    // The value dtype: input 0, but for Conv3DBackpropInputV2 (whose input
    // 0 is the shape) input 1.
    const size_t value = c.op == "Conv3DBackpropInputV2" ? 1 : 0;
    covered.insert({c.op, c.inputs.size() <= value ? DT_INVALID
                                                   : c.inputs[value].dtype()});
  }
  for (const auto& [op, attr] : BatchOps()) {
    EXPECT_TRUE(ops_seen.count(op)) << op << " has no golden case";
    test::ExpectCpuDtypesCovered(
        op, attr, covered,
        [](DataType dt) {
          return test::GoldenHolds(dt) && !DataTypeIsComplex(dt);
        },
        "gen_nn_image_goldens.py");
  }
}

}  // namespace
}  // namespace nn_image_golden_test
}  // namespace weft
