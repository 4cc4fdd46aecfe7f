// ResizeBilinear and ResizeNearestNeighbor.
//
// Bilinear results are compared with interpolation computed here in double
// from exact source coordinates. Where the scales are exact in float
// (sizes whose ratio is a short binary fraction) and inputs are on a grid
// of quarters, every float step of the kernel is exact and results must
// match exactly; for other scales the kernel's float coordinates may differ
// from the exact ones by a few units in the last place, which moves the
// interpolated value by at most 8 u (in + 1) max|x| (u = 2^-24).
//
// Nearest-neighbor picks a source pixel by floor or round of a float
// product, where a last-bit difference can choose another pixel; the
// reference therefore evaluates TensorFlow's float expression for the index
// (the definition of the op), and the test checks the pixel copied.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_resize_test {

using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

struct Resize {
  int64_t n = 1, h = 3, w = 4, c = 2;
  int64_t out_h = 5, out_w = 7;
  bool align_corners = false;
  bool half_pixel_centers = false;

  AttrMap Attrs() const {
    AttrMap a;
    a["align_corners"] = AttrValue::Bool(align_corners);
    a["half_pixel_centers"] = AttrValue::Bool(half_pixel_centers);
    return a;
  }
  Tensor Size() const {
    return AsTensor<int32_t>(
        {static_cast<int32_t>(out_h), static_cast<int32_t>(out_w)},
        TensorShape({2}));
  }
  TensorShape InShape() const { return TensorShape({n, h, w, c}); }
  TensorShape OutShape() const { return TensorShape({n, out_h, out_w, c}); }
};

// Exact source coordinate of output o.
double Source(int64_t o, int64_t in, int64_t out, const Resize& r) {
  const double scale = (r.align_corners && out > 1)
                           ? static_cast<double>(in - 1) / (out - 1)
                           : static_cast<double>(in) / out;
  return r.half_pixel_centers ? (o + 0.5) * scale - 0.5 : o * scale;
}

std::vector<double> BilinearReference(const Resize& r,
                                      const std::vector<double>& x) {
  std::vector<double> out(r.n * r.out_h * r.out_w * r.c);
  auto at = [&](int64_t b, int64_t y, int64_t xx, int64_t ch) {
    return x[((b * r.h + y) * r.w + xx) * r.c + ch];
  };
  for (int64_t b = 0; b < r.n; ++b) {
    for (int64_t oy = 0; oy < r.out_h; ++oy) {
      const double sy = Source(oy, r.h, r.out_h, r);
      const int64_t y0 =
          std::max<int64_t>(0, static_cast<int64_t>(std::floor(sy)));
      const int64_t y1 =
          std::min<int64_t>(r.h - 1, static_cast<int64_t>(std::ceil(sy)));
      const double ly = sy - std::floor(sy);
      for (int64_t ox = 0; ox < r.out_w; ++ox) {
        const double sx = Source(ox, r.w, r.out_w, r);
        const int64_t x0 =
            std::max<int64_t>(0, static_cast<int64_t>(std::floor(sx)));
        const int64_t x1 =
            std::min<int64_t>(r.w - 1, static_cast<int64_t>(std::ceil(sx)));
        const double lx = sx - std::floor(sx);
        for (int64_t ch = 0; ch < r.c; ++ch) {
          const double top =
              at(b, y0, x0, ch) * (1 - lx) + at(b, y0, x1, ch) * lx;
          const double bottom =
              at(b, y1, x0, ch) * (1 - lx) + at(b, y1, x1, ch) * lx;
          out[((b * r.out_h + oy) * r.out_w + ox) * r.c + ch] =
              top * (1 - ly) + bottom * ly;
        }
      }
    }
  }
  return out;
}

// TensorFlow's nearest source index, in its float arithmetic.
int64_t NearestIndex(int64_t o, int64_t in, int64_t out, const Resize& r) {
  const float scale =
      (r.align_corners && out > 1)
          ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
          : static_cast<float>(in) / static_cast<float>(out);
  int64_t i;
  if (r.half_pixel_centers) {
    i = static_cast<int64_t>(
        std::floor((static_cast<float>(o) + 0.5f) * scale));
  } else if (r.align_corners) {
    i = static_cast<int64_t>(std::round(static_cast<float>(o) * scale));
  } else {
    i = static_cast<int64_t>(std::floor(static_cast<float>(o) * scale));
  }
  i = std::min(i, in - 1);
  return std::max<int64_t>(i, 0);
}

std::vector<double> NearestReference(const Resize& r,
                                     const std::vector<double>& x) {
  std::vector<double> out(r.n * r.out_h * r.out_w * r.c);
  for (int64_t b = 0; b < r.n; ++b) {
    for (int64_t oy = 0; oy < r.out_h; ++oy) {
      const int64_t y = NearestIndex(oy, r.h, r.out_h, r);
      for (int64_t ox = 0; ox < r.out_w; ++ox) {
        const int64_t xx = NearestIndex(ox, r.w, r.out_w, r);
        for (int64_t ch = 0; ch < r.c; ++ch) {
          out[((b * r.out_h + oy) * r.out_w + ox) * r.c + ch] =
              x[((b * r.h + y) * r.w + xx) * r.c + ch];
        }
      }
    }
  }
  return out;
}

std::vector<double> Values(DataType dt, int64_t n, std::mt19937* rng) {
  std::vector<double> v(n);
  if (DataTypeIsFloating(dt)) {
    std::uniform_int_distribution<int> dist(-16, 16);
    for (double& x : v) x = dist(*rng) / 4.0;
  } else {
    std::uniform_int_distribution<int> dist(DataTypeIsUnsigned(dt) ? 0 : -100,
                                            100);
    for (double& x : v) x = dist(*rng);
  }
  return v;
}

std::vector<Resize> Configs() {
  std::vector<Resize> v;
  Resize r;
  v.push_back(r);  // 3x4 -> 5x7
  r.align_corners = true;
  v.push_back(r);
  r = Resize();
  r.half_pixel_centers = true;
  v.push_back(r);
  r = Resize();
  r.h = 6, r.w = 7, r.out_h = 4, r.out_w = 3;  // downsampling
  v.push_back(r);
  r.half_pixel_centers = true;
  v.push_back(r);
  r = Resize();
  r.out_h = 1, r.out_w = 2, r.align_corners = true;
  v.push_back(r);
  r = Resize();
  r.n = 2, r.c = 3, r.h = 2, r.w = 3, r.out_h = 4, r.out_w = 6;  // exact 2x
  v.push_back(r);
  r.half_pixel_centers = true;
  v.push_back(r);
  r = Resize();
  r.h = 1, r.w = 1, r.out_h = 3, r.out_w = 2;
  v.push_back(r);
  return v;
}

// Scales that are short binary fractions: every float step is exact.
bool ExactScales(const Resize& r) {
  auto exact = [&](int64_t in, int64_t out) {
    const int64_t num = (r.align_corners && out > 1) ? in - 1 : in;
    const int64_t den = (r.align_corners && out > 1) ? out - 1 : out;
    return (den & (den - 1)) == 0 || num % den == 0;
  };
  return exact(r.h, r.out_h) && exact(r.w, r.out_w);
}

class ResizeDtypeTest : public ::testing::TestWithParam<DataType> {};

TEST_P(ResizeDtypeTest, BilinearMatchesInterpolation) {
  const DataType dt = GetParam();
  std::mt19937 rng(3);
  for (const Resize& r : Configs()) {
    SCOPED_TRACE(::testing::Message()
                 << r.h << "x" << r.w << " -> " << r.out_h << "x" << r.out_w
                 << " align_corners=" << r.align_corners
                 << " half_pixel_centers=" << r.half_pixel_centers);
    const std::vector<double> x = Values(dt, r.InShape().num_elements(), &rng);
    StatusOr<std::vector<Tensor>> out =
        OpRunner("ResizeBilinear", r.Attrs())
            .Run({AsTensorOfType(dt, x, r.InShape()), r.Size()});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)[0].dtype(), DT_FLOAT);
    const Tensor want =
        AsTensorOfType(DT_FLOAT, BilinearReference(r, x), r.OutShape());
    if (ExactScales(r) && DataTypeIsFloating(dt)) {
      ExpectTensorEqual((*out)[0], want);
    } else {
      double max_x = 0;
      for (double v : x) max_x = std::max(max_x, std::fabs(v));
      test::ExpectTensorNear(
          (*out)[0], want,
          8 * test::UnitRoundoff(DT_FLOAT) * (std::max(r.h, r.w) + 1) * max_x,
          test::UnitRoundoff(DT_FLOAT));
    }
  }
}

TEST_P(ResizeDtypeTest, NearestNeighborCopiesTheChosenPixel) {
  const DataType dt = GetParam();
  std::mt19937 rng(4);
  for (const Resize& r : Configs()) {
    const std::vector<double> x = Values(dt, r.InShape().num_elements(), &rng);
    StatusOr<std::vector<Tensor>> out =
        OpRunner("ResizeNearestNeighbor", r.Attrs())
            .Run({AsTensorOfType(dt, x, r.InShape()), r.Size()});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0],
                      AsTensorOfType(dt, NearestReference(r, x), r.OutShape()));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Dtypes, ResizeDtypeTest,
    ::testing::Values(DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT8,
                      DT_UINT8, DT_INT16, DT_UINT16, DT_INT32, DT_INT64),
    [](const auto& info) { return DataTypeName(info.param); });

// A resize to the same size converts to float (double inputs round).
TEST(ResizeTest, SameSizeBilinearConverts) {
  const Tensor x =
      AsTensor<double>({0.1, -2.5, 1e40, 3}, TensorShape({1, 2, 2, 1}));
  Resize r;
  r.h = r.w = r.out_h = r.out_w = 2;
  r.c = 1;
  StatusOr<std::vector<Tensor>> out =
      OpRunner("ResizeBilinear", r.Attrs()).Run({x, r.Size()});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({0.1f, -2.5f, INFINITY, 3.0f},
                                               TensorShape({1, 2, 2, 1})));
}

TEST(ResizeTest, ThreadCountDoesNotChangeResults) {
  std::mt19937 rng(5);
  Resize r;
  r.n = 2, r.h = 45, r.w = 37, r.c = 5, r.out_h = 97, r.out_w = 61;
  r.half_pixel_centers = true;
  const Tensor x = AsTensorOfType(
      DT_FLOAT, Values(DT_FLOAT, r.InShape().num_elements(), &rng),
      r.InShape());
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    StatusOr<std::vector<Tensor>> serial =
        OpRunner(op, r.Attrs(), 0).Run({x, r.Size()});
    StatusOr<std::vector<Tensor>> parallel =
        OpRunner(op, r.Attrs(), 2).Run({x, r.Size()});
    ASSERT_TRUE(serial.ok()) << serial.status();
    ASSERT_TRUE(parallel.ok()) << parallel.status();
    ExpectTensorEqual((*parallel)[0], (*serial)[0]);
  }
}

TEST(ResizeTest, EmptyBatch) {
  Resize r;
  r.n = 0;
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    StatusOr<std::vector<Tensor>> out =
        OpRunner(op, r.Attrs()).Run({Tensor(DT_FLOAT, r.InShape()), r.Size()});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), r.OutShape());
  }
}

TEST(ResizeTest, BadInputsAreErrors) {
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    SCOPED_TRACE(op);
    auto expect_error = [&](const Resize& r, const Tensor& images,
                            const Tensor& size, const std::string& fragment) {
      StatusOr<std::vector<Tensor>> out =
          OpRunner(op, r.Attrs()).Run({images, size});
      ASSERT_FALSE(out.ok());
      const std::string message(out.status().message());
      EXPECT_TRUE(absl::StrContains(message, std::string("(") + op + ")"))
          << message;
      EXPECT_TRUE(absl::StrContains(message, fragment)) << message;
    };
    Resize r;
    const Tensor images(DT_FLOAT, r.InShape());
    Resize both = r;
    both.align_corners = both.half_pixel_centers = true;
    expect_error(both, images, r.Size(), "align_corners must be False");
    expect_error(r, Tensor(DT_FLOAT, TensorShape({3, 4, 2})), r.Size(),
                 "4-dimensional");
    expect_error(r, Tensor(DT_FLOAT, TensorShape({1, 3, 4, 0})), r.Size(),
                 "at least one channel");
    expect_error(r, Tensor(DT_FLOAT, TensorShape({1, 0, 4, 2})), r.Size(),
                 "non-zero height and width");
    expect_error(r, images, AsTensor<int32_t>({2, 2, 2}, TensorShape({3})),
                 "vector of 2 values");
    expect_error(r, images, AsTensor<int32_t>({2, 2}, TensorShape({1, 2})),
                 "vector of 2 values");
    expect_error(r, images, AsTensor<int32_t>({0, 2}, TensorShape({2})),
                 "must be positive");
    expect_error(r, images, AsTensor<int32_t>({3, -1}, TensorShape({2})),
                 "must be positive");
  }
}

}  // namespace cpu_resize_test
}  // namespace weft
