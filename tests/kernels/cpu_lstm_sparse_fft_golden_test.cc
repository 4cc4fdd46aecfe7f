// Replays TensorFlow's reference outputs for the last ops of issue 13's
// anchor list (testdata/lstm_sparse_fft_goldens.txt, written by
// gen_lstm_sparse_fft_goldens.py from tf.raw_ops on the CPU) through the
// weft kernels: LSTMBlockCell, SparseFillEmptyRows, SparseReshape,
// DenseToDenseSetOperation, ComplexAbs, FFT, RFFT and RFFT2D. Complex
// tensors are stored with their parts interleaved (golden_testutil.h).
//
// Tolerance: none for SparseFillEmptyRows, SparseReshape and
// DenseToDenseSetOperation, which only move, count and compare elements,
// so any difference is a bug.
//
// ComplexAbs: both sides call the C library's hypot (within an ulp), so an
// element passes when |weft - tf| <= 2 u_T |tf| + flush_T, u_T the unit
// roundoff and flush_T the smallest normal number of T: TensorFlow's CPU
// threads flush denormals to zero, so a denormal input part reads as 0
// there.
//
// LSTMBlockCell: the gate pre-activations are a dot product of length
// k = input + cell plus the bias, summed in different orders by weft's GEMM
// and TensorFlow's Eigen contraction, each within (k + 2) u_T A of the
// exact value, A the largest sum of |x_j w_jc| + |b_c| (plus the peephole
// and forget_bias terms) over the case (recursive summation bound). The
// activations have slopes <= 1 and differ by a few ulps of their own
// (Eigen's rational sigmoid and tanh vs the C library), and cs = i ci +
// f cs_prev and h = o tanh(cs) at most triple an error in the gates
// (|cs_prev| <= 2 in these cases). So every output passes when
// |weft - tf| <= 8 u_T ((k + 2) A + 8) + 8 u_T |tf|. Non-finite expected
// values must match exactly (NaN for NaN).
//
// FFT, RFFT, RFFT2D: TensorFlow's CPU FFT is DUCC, weft's Eigen's KISS
// FFT; an exact match is not expected. Each output of a length-L transform
// (L = n0 n1 for RFFT2D) is sum_j x_j w^(jk); an FFT forms it through at
// most s = ceil(log2 L) twiddle multiplications (each within 4 u_T,
// twiddle rounding included) and at most L - 1 additions on any path, so
// it is within (L - 1 + 4 s) u_T S of the exact value, S = sum_j |x_j| over
// the transformed slice (|re| + |im| for complex inputs); the real
// transforms' split and recombination steps add a few operations. Both
// sides meet that bound, so each real and imaginary part passes when
// |weft - tf| <= 2 (L + 4 s + 8) u_T S, with u_T of float for complex64 and
// of double for complex128. Where TensorFlow's output element (a complex
// value) is not finite, weft's must not be either; which of its parts are
// NaN, Inf or finite depends on the algorithm (DUCC adds the parts of a NaN
// or Inf input separately and skips multiplications by exact 0 and 1 that
// KISS FFT performs, where 0 * Inf is NaN).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/dtype_traits.h"
#include "core/types.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/golden_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_lstm_sparse_fft_golden_test {

using test::GoldenCase;

constexpr char kGoldenFile[] = "lstm_sparse_fft_goldens.txt";

const std::vector<GoldenCase>& Goldens() {
  return test::CachedGoldens(kGoldenFile, "WEFT_LSTM_SPARSE_FFT_GOLDENS");
}

// The parts of a complex tensor, interleaved, as doubles.
std::vector<double> Parts(const Tensor& t) {
  std::vector<double> v;
  const int64_t n = t.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    std::complex<double> c = t.dtype() == DT_COMPLEX64
                                 ? std::complex<double>(t.data<complex64>()[i])
                                 : t.data<complex128>()[i];
    v.push_back(c.real());
    v.push_back(c.imag());
  }
  return v;
}

double PartRoundoff(DataType dt) {
  return dt == DT_COMPLEX64 ? test::UnitRoundoff(DT_FLOAT)
                            : test::UnitRoundoff(DT_DOUBLE);
}

// The largest |weft - tf| / bound seen per op (printed by MatchesTensorFlow,
// for the measured figures in the notes).
std::map<std::string, double>& Worst() {
  static auto* worst = new std::map<std::string, double>();
  return *worst;
}

// Element i of `got` against `want` with absolute tolerance tol[i]; records
// the largest fraction of the bound used under `op`.
void ExpectWithin(const std::string& op, const std::vector<double>& got,
                  const std::vector<double>& want,
                  const std::vector<double>& tol, bool complex_parts) {
  ASSERT_EQ(got.size(), want.size());
  int reported = 0;
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    bool ok;
    const size_t pair = i & ~size_t{1};
    if (complex_parts &&
        (!std::isfinite(want[pair]) || !std::isfinite(want[pair + 1]))) {
      // A non-finite complex result: weft's must be non-finite too.
      ok = !std::isfinite(got[pair]) || !std::isfinite(got[pair + 1]);
    } else if (std::isnan(want[i])) {
      ok = std::isnan(got[i]);
    } else if (std::isinf(want[i])) {
      ok = got[i] == want[i];
    } else {
      const double d = std::fabs(got[i] - want[i]);
      ok = d <= tol[i];
      if (ok && tol[i] > 0) worst = std::max(worst, d / tol[i]);
    }
    if (!ok && ++reported <= 10) {
      ADD_FAILURE() << "element " << i << ": weft " << got[i] << ", TensorFlow "
                    << want[i] << ", allowed " << tol[i];
    }
  }
  double& w = Worst()[op];
  w = std::max(w, worst);
}

// ---- LSTMBlockCell ----------------------------------------------------------

void CheckLstm(const GoldenCase& c, const std::vector<Tensor>& out) {
  const std::vector<double> x = test::ToDoubles(c.inputs[0]);
  const std::vector<double> csp = test::ToDoubles(c.inputs[1]);
  const std::vector<double> h = test::ToDoubles(c.inputs[2]);
  const std::vector<double> w = test::ToDoubles(c.inputs[3]);
  const std::vector<double> b = test::ToDoubles(c.inputs[7]);
  const int64_t batch = c.inputs[0].dim_size(0);
  const int64_t input = c.inputs[0].dim_size(1);
  const int64_t cell = c.inputs[1].dim_size(1);
  const int64_t k = input + cell;
  bool peephole = false;
  float forget_bias = 1.0f;
  ASSERT_TRUE(GetNodeAttr(c.attrs, "use_peephole", &peephole).ok());
  ASSERT_TRUE(GetNodeAttr(c.attrs, "forget_bias", &forget_bias).ok());
  auto finite_abs = [](double v) {
    return std::isfinite(v) ? std::fabs(v) : 0;
  };
  double a = 0;
  for (int64_t r = 0; r < batch; ++r) {
    for (int64_t col = 0; col < 4 * cell; ++col) {
      double s = finite_abs(b[col]) + std::fabs(forget_bias);
      for (int64_t j = 0; j < k; ++j) {
        const double xj =
            j < input ? x[r * input + j] : h[r * cell + j - input];
        s += finite_abs(xj) * finite_abs(w[j * 4 * cell + col]);
      }
      if (peephole) s += 2 * finite_abs(csp[r * cell + col % cell]);
      a = std::max(a, s);
    }
  }
  const double u = test::UnitRoundoff(c.inputs[0].dtype());
  for (size_t o = 0; o < out.size(); ++o) {
    SCOPED_TRACE("output " + std::to_string(o));
    ASSERT_EQ(out[o].dtype(), c.expected[o].dtype());
    ASSERT_EQ(out[o].shape(), c.expected[o].shape());
    const std::vector<double> want = test::ToDoubles(c.expected[o]);
    std::vector<double> tol(want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      tol[i] = 8 * u * ((k + 2) * a + 8) + 8 * u * std::fabs(want[i]);
    }
    ExpectWithin(c.op, test::ToDoubles(out[o]), want, tol, false);
  }
}

// ---- FFT, RFFT, RFFT2D ------------------------------------------------------

void CheckFft(const GoldenCase& c, const Tensor& got) {
  const Tensor& want_t = c.expected[0];
  ASSERT_EQ(got.dtype(), want_t.dtype());
  ASSERT_EQ(got.shape(), want_t.shape());
  const Tensor& in = c.inputs[0];
  const int rank = in.dims();
  // The transformed slice: rows x cols of the input's innermost dimensions
  // (rows = 1 but for RFFT2D), read as lengths[0] x lengths[1].
  int64_t rows = 1;
  int64_t cols = in.dim_size(rank - 1);
  int64_t in_rows = 1;
  if (c.op == "RFFT") {
    cols = c.inputs[1].data<int32_t>()[0];
  } else if (c.op == "RFFT2D") {
    rows = c.inputs[1].data<int32_t>()[0];
    cols = c.inputs[1].data<int32_t>()[1];
    in_rows = in.dim_size(rank - 2);
  }
  const int64_t in_cols = in.dim_size(rank - 1);
  const bool complex_in = DataTypeIsComplex(in.dtype());
  const std::vector<double> x = complex_in ? Parts(in) : test::ToDoubles(in);
  const int64_t per = complex_in ? 2 : 1;
  const int64_t length = rows * cols;
  int s = 0;
  while ((int64_t{1} << s) < length) ++s;
  const double u = PartRoundoff(want_t.dtype());
  const double factor = 2.0 * static_cast<double>(length + 4 * s + 8) * u;
  // Outputs per transformed slice: the leading dimensions are the batch.
  int64_t batches = 1;
  for (int d = 0; d < rank - (c.op == "RFFT2D" ? 2 : 1); ++d) {
    batches *= in.dim_size(d);
  }
  const int64_t slice_out = batches > 0 ? want_t.NumElements() / batches : 0;
  const std::vector<double> want = Parts(want_t);
  std::vector<double> tol(want.size(), 0);
  for (int64_t e = 0; e < want_t.NumElements(); ++e) {
    const int64_t batch = slice_out > 0 ? e / slice_out : 0;
    double sum = 0;
    for (int64_t r = 0; r < rows && in.NumElements() > 0; ++r) {
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t at = ((batch * in_rows + r) * in_cols + j) * per;
        for (int64_t p = 0; p < per; ++p) sum += std::fabs(x[at + p]);
      }
    }
    tol[2 * e] = tol[2 * e + 1] = factor * sum;
  }
  ExpectWithin(c.op, Parts(got), want, tol, true);
}

void CheckCase(const GoldenCase& c, int threads) {
  StatusOr<std::vector<Tensor>> out =
      test::OpRunner(c.op, c.attrs, threads).Run(c.inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), c.expected.size());
  if (c.op == "LSTMBlockCell") {
    CheckLstm(c, *out);
    return;
  }
  if (c.op == "FFT" || c.op == "RFFT" || c.op == "RFFT2D") {
    CheckFft(c, (*out)[0]);
    return;
  }
  for (size_t i = 0; i < out->size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    if (c.op == "ComplexAbs") {
      const Tensor& want_t = c.expected[i];
      ASSERT_EQ((*out)[i].dtype(), want_t.dtype());
      ASSERT_EQ((*out)[i].shape(), want_t.shape());
      const std::vector<double> want = test::ToDoubles(want_t);
      std::vector<double> tol(want.size());
      const double u = test::UnitRoundoff(want_t.dtype());
      const double flush = want_t.dtype() == DT_FLOAT
                               ? std::numeric_limits<float>::min()
                               : std::numeric_limits<double>::min();
      for (size_t j = 0; j < want.size(); ++j) {
        tol[j] = 2 * u * std::fabs(want[j]) + flush;
      }
      ExpectWithin(c.op, test::ToDoubles((*out)[i]), want, tol, false);
    } else {
      test::ExpectTensorEqual((*out)[i], c.expected[i]);
    }
  }
}

TEST(CpuLstmSparseFftGoldenTest, MatchesTensorFlow) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 0); });
  for (const auto& [op, worst] : Worst()) {
    std::printf("%s: largest difference %.3g of the bound\n", op.c_str(),
                worst);
  }
}

// The same cases on a 2-thread arena: the kernels split rows, groups,
// entries and transforms over it, with the same results.
TEST(CpuLstmSparseFftGoldenTest, MatchesTensorFlowWithThreads) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 2); });
}

// Every op of the batch: the attr that carries its value dtype and the
// input that has it (empty attr: no dtype attr).
const std::vector<std::tuple<std::string, std::string, int>>& BatchOps() {
  static const auto* ops =
      new std::vector<std::tuple<std::string, std::string, int>>{
          {"LSTMBlockCell", "T", 0}, {"SparseFillEmptyRows", "T", 1},
          {"SparseReshape", "", 0},  {"DenseToDenseSetOperation", "T", 0},
          {"ComplexAbs", "T", 0},    {"FFT", "Tcomplex", 0},
          {"RFFT", "Treal", 0},      {"RFFT2D", "Treal", 0}};
  return *ops;
}

// Every dtype a CPU kernel of these ops is registered for has a TensorFlow
// case, where the golden format can hold it (complex included, not string),
// so a newly registered dtype cannot go unchecked.
TEST(CpuLstmSparseFftGoldenTest, CoversEveryRegisteredDtype) {
  test::DtypeCoverage covered;
  std::set<std::string> ops_seen;
  for (const GoldenCase& c : Goldens()) {
    ops_seen.insert(c.op);
    for (const auto& [op, attr, input] : BatchOps()) {
      if (op == c.op && input < static_cast<int>(c.inputs.size())) {
        covered.insert({c.op, c.inputs[input].dtype()});
      }
    }
  }
  for (const auto& [op, attr, input] : BatchOps()) {
    EXPECT_TRUE(ops_seen.count(op)) << op << " has no golden case";
    test::ExpectCpuDtypesCovered(op, attr, covered, test::GoldenHolds,
                                 "gen_lstm_sparse_fft_goldens.py");
  }
}

}  // namespace cpu_lstm_sparse_fft_golden_test
}  // namespace weft
