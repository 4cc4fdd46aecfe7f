// An LSTM's recurrence in one call (kernels/cpu/lstm_recurrence.h) against
// the same recurrence in double precision: odd and vector-sized unit
// counts, one and several rows, one and several steps, saturated gates,
// NaN in one row's input; the same bits on one thread and on several.
#include "kernels/cpu/lstm_recurrence.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace lstm_recurrence_test {
namespace {

struct Shape {
  int64_t steps, batch, features, units;
};

Tensor Random(const TensorShape& shape, float scale, std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-scale, scale);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = u(*rng);
  return t;
}

double Sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// The recurrence of lstm_recurrence.h in double: h after each step (steps x
// batch x units) and c after the last.
// With `mask` (steps x batch), a row whose value is false keeps h and c,
// and `ys` (steps x batch x units) gets h where the mask is true, else the
// row's y before the step (y0 at the first).
void Reference(const Shape& s, const std::vector<Tensor>& x, const Tensor& w,
               const Tensor& u, const Tensor& b, const Tensor& h0,
               const Tensor& c0, std::vector<double>* hs,
               std::vector<double>* c,
               const std::vector<std::vector<bool>>* mask = nullptr,
               const Tensor* y0 = nullptr, std::vector<double>* ys = nullptr,
               bool carries = true) {
  const int64_t n = s.units;
  std::vector<double> h(h0.data<float>(), h0.data<float>() + s.batch * n);
  c->assign(c0.data<float>(), c0.data<float>() + s.batch * n);
  hs->clear();
  std::vector<double> y;
  if (mask != nullptr) {
    y.assign(y0->data<float>(), y0->data<float>() + s.batch * n);
    ys->clear();
  }
  for (int64_t t = 0; t < s.steps; ++t) {
    std::vector<double> next(s.batch * n);
    for (int64_t r = 0; r < s.batch; ++r) {
      if (mask != nullptr && !(*mask)[t][r]) {
        for (int64_t j = 0; j < n; ++j) next[r * n + j] = h[r * n + j];
        continue;
      }
      for (int64_t j = 0; j < n; ++j) {
        double z[4];
        for (int q = 0; q < 4; ++q) {
          const int64_t col = q * n + j;
          double sum = b.data<float>()[col];
          for (int64_t k = 0; k < s.features; ++k) {
            sum += double{x[t].data<float>()[r * s.features + k]} *
                   w.data<float>()[k * 4 * n + col];
          }
          for (int64_t k = 0; k < n; ++k) {
            sum += h[r * n + k] * u.data<float>()[k * 4 * n + col];
          }
          z[q] = sum;
        }
        double& cell = (*c)[r * n + j];
        cell = Sigmoid(z[1]) * cell + Sigmoid(z[0]) * std::tanh(z[2]);
        next[r * n + j] = Sigmoid(z[3]) * std::tanh(cell);
      }
    }
    h = next;
    hs->insert(hs->end(), h.begin(), h.end());
    if (mask != nullptr) {
      for (int64_t r = 0; r < s.batch; ++r) {
        const bool on = (*mask)[t][r];
        if (!on && carries) continue;
        for (int64_t j = 0; j < n; ++j) {
          y[r * n + j] = on ? h[r * n + j] : y0->data<float>()[r * n + j];
        }
      }
      ys->insert(ys->end(), y.begin(), y.end());
    }
  }
}

struct Result {
  std::vector<float> hs;  // steps x batch x units
  std::vector<float> c;
};

// W and U uniform in +-`weights`, b and h0 in +-0.5, c0 in +-`cell`, the
// steps' inputs in +-`inputs`.
struct Problem {
  Tensor w, u, b, h0, c0;
  std::vector<Tensor> x;
};

Problem MakeProblem(const Shape& s, float weights, float cell, float inputs,
                    std::mt19937* rng) {
  Problem p;
  p.w = Random(TensorShape({s.features, 4 * s.units}), weights, rng);
  p.u = Random(TensorShape({s.units, 4 * s.units}), weights, rng);
  p.b = Random(TensorShape({4 * s.units}), 0.5f, rng);
  p.h0 = Random(TensorShape({s.batch, s.units}), 0.5f, rng);
  p.c0 = Random(TensorShape({s.batch, s.units}), cell, rng);
  for (int64_t t = 0; t < s.steps; ++t) {
    p.x.push_back(Random(TensorShape({s.batch, s.features}), inputs, rng));
  }
  return p;
}

Result RunCell(const LstmRecurrence& cell, const ParallelForFn& parallel,
               const Shape& s, const std::vector<Tensor>& x, const Tensor& h0,
               const Tensor& c0) {
  Result out;
  out.hs.assign(s.steps * s.batch * s.units, -7.0f);
  out.c.assign(c0.data<float>(), c0.data<float>() + c0.NumElements());
  std::vector<const float*> xs;
  std::vector<float*> h_out;
  for (int64_t t = 0; t < s.steps; ++t) {
    xs.push_back(x[t].data<float>());
    h_out.push_back(out.hs.data() + t * s.batch * s.units);
  }
  cell.Run(parallel, s.steps, s.batch, xs.data(), h0.data<float>(),
           out.c.data(), h_out.data());
  return out;
}

// Each float result within 2e-5 of the double one: h is in [-1, 1] and c
// a few units here, and a gate's sum over features + units products rounds
// each term to float.
void ExpectNear(const std::vector<float>& got, const std::vector<double>& want,
                const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "]";
      continue;
    }
    EXPECT_NEAR(got[i], want[i], 2e-5) << what << " [" << i << "]";
  }
}

// The recurrence of `p` on one thread, checked against Reference.
Result RunAndCheck(const Shape& s, const Problem& p) {
  const LstmRecurrence cell(p.w, p.u, &p.b);
  std::vector<double> hs, c;
  Reference(s, p.x, p.w, p.u, p.b, p.h0, p.c0, &hs, &c);
  Result got = RunCell(cell, SerialFor(), s, p.x, p.h0, p.c0);
  ExpectNear(got.hs, hs, "h");
  ExpectNear(got.c, c, "c");
  return got;
}

TEST(LstmRecurrenceTest, MatchesDoublePrecision) {
  std::mt19937 rng(41);
  for (const Shape& s :
       {Shape{1, 1, 1, 1}, Shape{3, 1, 3, 4}, Shape{5, 3, 9, 37},
        Shape{4, 2, 32, 128}, Shape{2, 9, 5, 16}}) {
    SCOPED_TRACE(::testing::Message()
                 << "steps " << s.steps << " batch " << s.batch << " features "
                 << s.features << " units " << s.units);
    const float scale = 1.0f / std::sqrt(float(s.features + s.units));
    const Problem p = MakeProblem(s, scale, 2.0f, 2.0f, &rng);
    const Result serial = RunAndCheck(s, p);
    const LstmRecurrence cell(p.w, p.u, &p.b);
    EXPECT_EQ(cell.features(), s.features);
    EXPECT_EQ(cell.units(), s.units);
    // Any split of the work gives the same bits.
    const Result split =
        RunCell(cell, test::SplitOverThreads(3), s, p.x, p.h0, p.c0);
    EXPECT_EQ(split.hs, serial.hs);
    EXPECT_EQ(split.c, serial.c);
  }
}

// A batch of two or more rows splits by rows (each thread all the steps of
// its rows) unless U is larger than kRowSplitMaxBytes or WEFT_LSTM_ROWS=0
// said no when the cell was built; then each step splits its product and
// cell by columns and rows. Both give the bits of one thread.
TEST(LstmRecurrenceTest, RowAndColumnSplitsGiveTheSameBits) {
  std::mt19937 rng(71);
  for (const Shape& s :
       {Shape{6, 8, 16, 64}, Shape{3, 5, 7, 33}, Shape{2, 3, 4, 260}}) {
    SCOPED_TRACE(::testing::Message()
                 << "batch " << s.batch << " units " << s.units);
    const float scale = 1.0f / std::sqrt(float(s.features + s.units));
    const Problem p = MakeProblem(s, scale, 1.0f, 1.0f, &rng);
    const Result serial = RunAndCheck(s, p);
    const LstmRecurrence by_rows(p.w, p.u, &p.b);
    setenv("WEFT_LSTM_ROWS", "0", 1);
    const LstmRecurrence by_columns(p.w, p.u, &p.b);
    unsetenv("WEFT_LSTM_ROWS");
    for (int threads : {2, 3, 4}) {
      for (const LstmRecurrence* cell : {&by_rows, &by_columns}) {
        const Result split =
            RunCell(*cell, test::SplitOverThreads(threads), s, p.x, p.h0, p.c0);
        EXPECT_EQ(split.hs, serial.hs) << threads << " threads";
        EXPECT_EQ(split.c, serial.c) << threads << " threads";
      }
    }
  }
}

// Inputs of magnitude 1e4 saturate every gate (sigmoid 0 or 1, tanh +-1):
// h stays in [-1, 1] and c moves by at most 1 a step, without NaN.
TEST(LstmRecurrenceTest, SaturatedGates) {
  std::mt19937 rng(43);
  const Shape s{6, 2, 8, 24};
  const Result got = RunAndCheck(s, MakeProblem(s, 1.0f, 1.0f, 1e4f, &rng));
  for (float v : got.hs) {
    EXPECT_LE(std::fabs(v), 1.0f);
  }
}

// A NaN in row 1's input at step 2 makes that row's h and c NaN from step 2
// on; row 0 is untouched (rows do not mix).
TEST(LstmRecurrenceTest, NanStaysInItsRow) {
  std::mt19937 rng(47);
  const Shape s{4, 2, 3, 20};
  Problem p = MakeProblem(s, 0.5f, 0.5f, 1.0f, &rng);
  p.x[2].data<float>()[s.features + 1] =
      std::numeric_limits<float>::quiet_NaN();
  const Result got = RunAndCheck(s, p);
  for (int64_t t = 0; t < s.steps; ++t) {
    for (int64_t j = 0; j < s.units; ++j) {
      const float row0 = got.hs[(t * s.batch + 0) * s.units + j];
      const float row1 = got.hs[(t * s.batch + 1) * s.units + j];
      EXPECT_FALSE(std::isnan(row0)) << "step " << t;
      EXPECT_EQ(std::isnan(row1), t >= 2) << "step " << t;
    }
  }
}

// A mask (Keras' masked LSTM): rows whose value is false at a step keep h
// and c, and their output y is the one before (carried) or y0's (held
// fixed); the others step as without a mask. Row 0 is masked at steps 0
// and 3, row 1 at 1 and 2, row 2 never.
TEST(LstmRecurrenceTest, MaskedRowsKeepTheirState) {
  std::mt19937 rng(59);
  const Shape s{5, 3, 6, 19};
  const Problem p = MakeProblem(s, 0.5f, 0.5f, 1.0f, &rng);
  const auto& [w, u, b, h0, c0, x] = p;
  const Tensor y0 = Random(TensorShape({s.batch, s.units}), 0.5f, &rng);
  const std::vector<std::vector<bool>> on = {{false, true, true},
                                             {true, false, true},
                                             {true, false, true},
                                             {false, true, true},
                                             {true, true, true}};
  bool flags[5][3];
  std::vector<const bool*> mask;
  for (int64_t t = 0; t < s.steps; ++t) {
    for (int64_t r = 0; r < s.batch; ++r) flags[t][r] = on[t][r];
    mask.push_back(flags[t]);
  }
  const LstmRecurrence cell(w, u, &b);
  for (const auto& [carries, parallel] :
       {std::pair<bool, ParallelForFn>{true, SerialFor()},
        {true, test::SplitOverThreads(2)},
        {false, SerialFor()}}) {
    SCOPED_TRACE(carries ? "y carried" : "y held");
    std::vector<double> hs, c, ys;
    Reference(s, x, w, u, b, h0, c0, &hs, &c, &on, &y0, &ys, carries);
    std::vector<float> h_all(s.steps * s.batch * s.units, -7.0f);
    std::vector<float> y_all(h_all.size(), -7.0f);
    std::vector<float> c_got(c0.data<float>(),
                             c0.data<float>() + c0.NumElements());
    std::vector<const float*> xs;
    std::vector<float*> h_out, y_out;
    for (int64_t t = 0; t < s.steps; ++t) {
      xs.push_back(x[t].data<float>());
      h_out.push_back(h_all.data() + t * s.batch * s.units);
      y_out.push_back(y_all.data() + t * s.batch * s.units);
    }
    cell.Run(parallel, s.steps, s.batch, xs.data(), h0.data<float>(),
             c_got.data(), h_out.data(), mask.data(), y0.data<float>(),
             y_out.data(), carries);
    ExpectNear(h_all, hs, "h");
    ExpectNear(c_got, c, "c");
    ExpectNear(y_all, ys, "y");
    // Row 0 at step 0 is y0's row exactly, and h0's; at step 3 y0's again
    // when held, step 2's when carried.
    for (int64_t j = 0; j < s.units; ++j) {
      EXPECT_EQ(y_all[j], y0.data<float>()[j]);
      EXPECT_EQ(h_all[j], h0.data<float>()[j]);
      const int64_t at3 = 3 * s.batch * s.units + j;
      const int64_t at2 = 2 * s.batch * s.units + j;
      EXPECT_EQ(y_all[at3], carries ? y_all[at2] : y0.data<float>()[j]);
    }
  }
}

// Without a bias (Keras' use_bias=False): as with a bias of zeros.
TEST(LstmRecurrenceTest, NoBias) {
  std::mt19937 rng(67);
  const Shape s{3, 2, 5, 24};
  Problem p = MakeProblem(s, 0.4f, 1.0f, 1.0f, &rng);
  std::fill_n(p.b.data<float>(), p.b.NumElements(), 0.0f);
  std::vector<double> hs, c;
  Reference(s, p.x, p.w, p.u, p.b, p.h0, p.c0, &hs, &c);
  const LstmRecurrence cell(p.w, p.u, nullptr);
  const Result got = RunCell(cell, SerialFor(), s, p.x, p.h0, p.c0);
  ExpectNear(got.hs, hs, "h");
  ExpectNear(got.c, c, "c");
}

// No steps: nothing written, c unchanged.
TEST(LstmRecurrenceTest, NoSteps) {
  std::mt19937 rng(53);
  const Tensor w = Random(TensorShape({3, 8}), 0.5f, &rng);
  const Tensor u = Random(TensorShape({2, 8}), 0.5f, &rng);
  const Tensor b = Random(TensorShape({8}), 0.5f, &rng);
  const LstmRecurrence cell(w, u, &b);
  std::vector<float> h0 = {0.25f, -0.5f};
  std::vector<float> c = {1.0f, 2.0f};
  cell.Run(SerialFor(), 0, 1, nullptr, h0.data(), c.data(), nullptr);
  EXPECT_EQ(c, (std::vector<float>{1.0f, 2.0f}));
}

}  // namespace
}  // namespace lstm_recurrence_test
}  // namespace weft
