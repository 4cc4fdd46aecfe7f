// The CUDA-vs-CPU table's tolerances are tight enough to catch wrong
// kernels. Runs on the host (no GPU needed): for the half rows whose
// kernels compute in float (Case::float_compute), the CPU kernel's output
// stands where the table puts it, and results a broken CUDA kernel could
// return are handed to the table's own comparison (WithinTolerance with
// CaseTolerance), which must reject them:
//  - all zeros (a kernel that never wrote its output);
//  - the right values one element off (an index bug);
//  - for the largest rows the issue named (Sum and Mean over 1,048,579
//    values, the large Conv2D, BatchMatMulV2 and MatMul), the sum with one
//    term missing (a loop bound off by one).
// And the exact result (computed in double here, independently of weft,
// then rounded once to half) must pass: the tolerance is not so tight that
// a correct kernel, which errs less than the CPU's float sum, would fail.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/kernels/cuda_kernel_cases.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {
namespace cuda_table_tolerance_test {

std::string RowName(const Case& c) {
  std::string s = c.op;
  for (const TensorShape& shape : c.shapes)
    absl::StrAppend(&s, " ", shape.DebugString());
  if (!c.label.empty()) absl::StrAppend(&s, " ", c.label);
  auto f = c.attrs.find("data_format");
  if (f != c.attrs.end()) absl::StrAppend(&s, " ", f->second.s);
  return s;
}

StatusOr<std::vector<Tensor>> RunCpu(const Case& c,
                                     const std::vector<Tensor>& inputs) {
  OpRunner cpu(c.op, c.attrs);
  cpu.set_forwardable(false);
  return cpu.Run(inputs);
}

Tensor Zeros(const Tensor& like) {
  return AsTensorOfType(
      like.dtype(), std::vector<double>(like.NumElements(), 0.0), like.shape());
}

// want's values moved by one element: got[i] = want[i + 1], the last
// element taking the first's value.
Tensor ShiftedByOne(const Tensor& want) {
  std::vector<double> v = ToDoubles(want);
  std::rotate(v.begin(), v.begin() + 1, v.end());
  return AsTensorOfType(want.dtype(), v, want.shape());
}

// Whether every element is the same value, NaN counting as one value.
bool AllEqual(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [&](double x) {
    return x == v[0] || (std::isnan(x) && std::isnan(v[0]));
  });
}

TEST(CudaTableToleranceTest, HalfFloatComputeRowsRejectWrongResults) {
  int rows = 0;
  for (const Case& c : AllCases()) {
    if (!c.float_compute) continue;
    if (std::find(c.dtypes.begin(), c.dtypes.end(), DT_HALF) ==
        c.dtypes.end()) {
      continue;
    }
    SCOPED_TRACE(RowName(c));
    const Tolerance tol = CaseTolerance(c, DT_HALF);
    StatusOr<std::vector<Tensor>> want = RunCpu(c, CaseInputs(c, DT_HALF));
    ASSERT_TRUE(want.ok()) << want.status();
    for (const Tensor& w : *want) {
      if (w.dtype() != DT_HALF || w.NumElements() == 0) continue;
      const std::vector<double> v = ToDoubles(w);
      EXPECT_TRUE(WithinTolerance(w, w, tol));
      if (!AllEqual(v) || (v[0] != 0 && !std::isnan(v[0]))) {
        EXPECT_FALSE(WithinTolerance(Zeros(w), w, tol))
            << "a kernel returning zeros passes";
      }
      if (v.size() >= 2 && !AllEqual(v)) {
        EXPECT_FALSE(WithinTolerance(ShiftedByOne(w), w, tol))
            << "a kernel off by one element passes";
      }
    }
    ++rows;
  }
  // Sum, Mean and Prod rows, Softmax, LogSoftmax, MatMul, Conv2D and
  // BatchMatMulV2: dozens of them.
  EXPECT_GT(rows, 80);
}

// One of the table's rows, found by op and a predicate.
const Case* FindRow(const std::vector<Case>& all, const std::string& op,
                    const std::function<bool(const Case&)>& match) {
  for (const Case& c : all) {
    if (c.op == op && match(c)) return &c;
  }
  return nullptr;
}

// What the named rows compute, exactly, in double from the half inputs.
using Exact = std::function<std::vector<double>(
    const std::vector<std::vector<double>>& in)>;

struct Named {
  std::string op;
  std::function<bool(const Case&)> match;
  Exact exact;
  // The input whose first element the "missing term" result leaves out.
  int dropped_input = 0;
};

std::vector<double> SumAll(const std::vector<std::vector<double>>& in) {
  double s = 0;
  for (double x : in[0]) s += x;
  return {s};
}

std::vector<double> MeanAll(const std::vector<std::vector<double>>& in) {
  return {SumAll(in)[0] / static_cast<double>(in[0].size())};
}

// x [b, m, k] times y [b, k, n].
std::vector<double> BatchMatMul(const std::vector<double>& x,
                                const std::vector<double>& y, int64_t b,
                                int64_t m, int64_t k, int64_t n) {
  std::vector<double> out(b * m * n, 0.0);
  for (int64_t q = 0; q < b; ++q)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += x[(q * m + i) * k + p] * y[(q * k + p) * n + j];
        out[(q * m + i) * n + j] = s;
      }
  return out;
}

// NHWC input [n, h, w, c] with an HWIO filter [fh, fw, c, o], stride 1,
// SAME padding (odd filter sizes: (f - 1) / 2 on each side).
std::vector<double> ConvSame(const std::vector<double>& in,
                             const std::vector<double>& filter, int64_t n,
                             int64_t h, int64_t w, int64_t c, int64_t fh,
                             int64_t fw, int64_t o) {
  std::vector<double> out(n * h * w * o, 0.0);
  const int64_t ph = (fh - 1) / 2, pw = (fw - 1) / 2;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < o; ++k) {
          double s = 0;
          for (int64_t dy = 0; dy < fh; ++dy)
            for (int64_t dx = 0; dx < fw; ++dx) {
              const int64_t iy = y + dy - ph, ix = x + dx - pw;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              for (int64_t ci = 0; ci < c; ++ci)
                s += in[((b * h + iy) * w + ix) * c + ci] *
                     filter[((dy * fw + dx) * c + ci) * o + k];
            }
          out[((b * h + y) * w + x) * o + k] = s;
        }
  return out;
}

bool HasShapes(const Case& c, const std::vector<TensorShape>& shapes) {
  return c.shapes.size() >= shapes.size() &&
         std::equal(shapes.begin(), shapes.end(), c.shapes.begin());
}

std::vector<Named> NamedRows() {
  const TensorShape million({(1 << 20) + 3});
  std::vector<Named> rows;
  rows.push_back({"Sum",
                  [million](const Case& c) { return HasShapes(c, {million}); },
                  SumAll});
  rows.push_back({"Mean",
                  [million](const Case& c) { return HasShapes(c, {million}); },
                  MeanAll});
  rows.push_back({"BatchMatMulV2",
                  [](const Case& c) {
                    return c.label == "large" &&
                           HasShapes(c, {TensorShape({16, 128, 64}),
                                         TensorShape({16, 64, 96})});
                  },
                  [](const std::vector<std::vector<double>>& in) {
                    return BatchMatMul(in[0], in[1], 16, 128, 64, 96);
                  },
                  1});
  rows.push_back({"MatMul",
                  [](const Case& c) {
                    return HasShapes(
                        c, {TensorShape({257, 513}), TensorShape({129, 513})});
                  },
                  [](const std::vector<std::vector<double>>& in) {
                    // transpose_b: b is [n, k].
                    std::vector<double> bt(513 * 129);
                    for (int64_t j = 0; j < 129; ++j)
                      for (int64_t p = 0; p < 513; ++p)
                        bt[p * 129 + j] = in[1][j * 513 + p];
                    return BatchMatMul(in[0], bt, 1, 257, 513, 129);
                  },
                  1});
  rows.push_back({"Conv2D",
                  [](const Case& c) {
                    return c.label == "large" &&
                           c.attrs.at("data_format").s == "NHWC";
                  },
                  [](const std::vector<std::vector<double>>& in) {
                    return ConvSame(in[0], in[1], 4, 32, 32, 32, 3, 3, 64);
                  },
                  1});
  return rows;
}

TEST(CudaTableToleranceTest, LargeHalfRowsPassExactAndRejectAMissingTerm) {
  const std::vector<Case> all = AllCases();
  for (const Named& named : NamedRows()) {
    const Case* c = FindRow(all, named.op, named.match);
    ASSERT_NE(c, nullptr) << "no row " << named.op;
    SCOPED_TRACE(RowName(*c));
    ASSERT_TRUE(c->float_compute);
    const Tolerance tol = CaseTolerance(*c, DT_HALF);
    const std::vector<Tensor> inputs = CaseInputs(*c, DT_HALF);
    StatusOr<std::vector<Tensor>> want = RunCpu(*c, inputs);
    ASSERT_TRUE(want.ok()) << want.status();
    const Tensor& w = (*want)[0];

    // The exact result, rounded once to half, passes.
    std::vector<std::vector<double>> in;
    for (const Tensor& t : inputs) in.push_back(ToDoubles(t));
    const std::vector<double> exact = named.exact(in);
    ASSERT_EQ(static_cast<int64_t>(exact.size()), w.NumElements());
    EXPECT_TRUE(
        WithinTolerance(AsTensorOfType(DT_HALF, exact, w.shape()), w, tol));

    // One term left out of the sums that read the dropped element (the
    // CPU kernel on inputs where it is zero) fails.
    std::vector<Tensor> dropped = inputs;
    std::vector<double> d = in[named.dropped_input];
    const double term = d[0];
    d[0] = 0;
    dropped[named.dropped_input] =
        AsTensorOfType(DT_HALF, d, inputs[named.dropped_input].shape());
    StatusOr<std::vector<Tensor>> missing = RunCpu(*c, dropped);
    ASSERT_TRUE(missing.ok()) << missing.status();
    EXPECT_FALSE(WithinTolerance((*missing)[0], w, tol))
        << "a sum missing the term of value " << term << " passes";

    // The figures: the allowed difference at the largest output.
    double biggest = 0;
    for (double v : ToDoubles(w)) biggest = std::max(biggest, std::fabs(v));
    const double u = UnitRoundoff(DT_HALF);
    std::cout << "[ figures  ] " << RowName(*c) << ": largest |output| "
              << biggest << ", allowed there " << tol.atol + tol.rtol * biggest
              << " (before: " << (c->atol_ulps + c->rtol_ulps * biggest) * u
              << ")\n";
  }
}

}  // namespace cuda_table_tolerance_test
}  // namespace weft::test
