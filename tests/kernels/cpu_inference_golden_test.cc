// Replays TensorFlow's reference outputs for the inference ops of issue 13
// (testdata/inference_goldens.txt, written by gen_inference_goldens.py from
// tf.raw_ops on the CPU) through the weft kernels.
//
// Non-max suppression is exact too: the selected indices, and the scores
// soft NMS decays, one multiplication by a correctly rounded expf per
// comparison in T, in the order TensorFlow applies them.
//
// Tolerance: none, except for the transcendental functions. Every other op
// moves or selects elements (MatrixBandPart, TopKV2, ReverseV2, Roll, Where,
// ClipByValue, the plumbing ops), is integer or bit arithmetic (the bitwise
// ops, integer TruncateDiv, InvertPermutation, BroadcastArgs), or is one
// correctly rounded operation per element in both implementations in the
// same order (Cumsum and Cumprod accumulate along the axis in T, as
// TensorFlow's Eigen scan does; float TruncateDiv is trunc of the rounded
// quotient; Rint and IsInf are exact), so any difference is a bug. The
// long-axis Cumsum cases would expose a different summation order.
//
// Acos, Acosh, Asin, Asinh, Atan, Atanh, Cosh, Sinh, Tan, Expm1 and Atan2:
// weft calls the C library (glibc, within an ulp), TensorFlow's Eigen
// functors are vectorized approximations for some of them. With u_T the unit
// roundoff of the output dtype (half an ulp), an element passes when
// |weft - tf| <= r u_T |tf| + flush_T, with r = 8 (4 ulps) in float and
// double and r = 2 (one ulp of T) in half and bfloat16, which both sides
// compute in float and round once. Measured on these cases: at most 1.8 ulps
// apart (float Acos), 1.3 (float Atan2), 1.2 (double Atanh, Expm1); Acosh,
// Asinh, Cosh, Sinh, Tan and every half and bfloat16 result agree exactly.
// flush_T is the smallest normal number of float and bfloat16 (TensorFlow
// flushes denormal results to zero) and double.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
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
namespace cpu_inference_golden_test {

using test::GoldenCase;

constexpr char kGoldenFile[] = "inference_goldens.txt";

const std::vector<GoldenCase>& Goldens() {
  return test::CachedGoldens(kGoldenFile, "WEFT_INFERENCE_GOLDENS");
}

bool Approximate(const std::string& op) {
  static const auto* ops = new std::set<std::string>{
      "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh",
      "Cosh", "Sinh",  "Tan",  "Expm1", "Atan2"};
  return ops->count(op) > 0;
}

double SmallestNormal(DataType dt) {
  switch (dt) {
    case DT_FLOAT:
    case DT_BFLOAT16:
      return std::numeric_limits<float>::min();
    case DT_DOUBLE:
      return std::numeric_limits<double>::min();
    default:
      return 0;
  }
}

void ExpectClose(const GoldenCase& c, const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  const DataType dt = want.dtype();
  const bool narrow = dt == DT_HALF || dt == DT_BFLOAT16;
  const double rel = narrow ? 2 : 8;
  const double u = test::UnitRoundoff(dt);
  const double flush = SmallestNormal(dt);
  const std::vector<double> g = test::ToDoubles(got);
  const std::vector<double> e = test::ToDoubles(want);
  const std::vector<double> in = test::ToDoubles(c.inputs[0]);
  int reported = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    bool ok;
    if (std::isnan(e[i])) {
      ok = std::isnan(g[i]);
    } else if (std::isinf(e[i])) {
      ok = g[i] == e[i];
    } else {
      ok = std::fabs(g[i] - e[i]) <= rel * u * std::fabs(e[i]) + flush;
    }
    if (!ok && ++reported <= 10) {
      ADD_FAILURE() << "element " << i << ": weft " << g[i] << ", TensorFlow "
                    << e[i] << " (x = "
                    << (in.size() == e.size() ? std::to_string(in[i]) : "?")
                    << "), difference " << std::fabs(g[i] - e[i]) / u << " u_T";
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
    if (Approximate(c.op) && DataTypeIsFloating(c.expected[i].dtype())) {
      ExpectClose(c, (*out)[i], c.expected[i]);
    } else {
      test::ExpectTensorEqual((*out)[i], c.expected[i]);
    }
  }
}

TEST(CpuInferenceGoldenTest, MatchesTensorFlow) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 0); });
}

// The same cases on a 2-thread arena: the kernels split rows, lines and
// elements over it, with the same results.
TEST(CpuInferenceGoldenTest, MatchesTensorFlowWithThreads) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 2); });
}

// Every op of the batch, with the attr that carries its value dtype (empty
// for ops registered for every dtype, as in TensorFlow).
const std::vector<std::pair<std::string, std::string>>& BatchOps() {
  static const auto* ops = new std::vector<std::pair<std::string, std::string>>{
      {"MatrixBandPart", "T"},
      {"TopKV2", "T"},
      {"Cumsum", "T"},
      {"Cumprod", "T"},
      {"ReverseV2", "T"},
      {"Roll", "T"},
      {"InvertPermutation", "T"},
      {"Where", "T"},
      {"ClipByValue", "T"},
      {"CheckNumerics", "T"},
      {"EnsureShape", ""},
      {"ShapeN", ""},
      {"BroadcastArgs", "T"},
      {"Acos", "T"},
      {"Acosh", "T"},
      {"Asin", "T"},
      {"Asinh", "T"},
      {"Atan", "T"},
      {"Atan2", "T"},
      {"Atanh", "T"},
      {"Cosh", "T"},
      {"Sinh", "T"},
      {"Tan", "T"},
      {"Expm1", "T"},
      {"IsInf", "T"},
      {"Rint", "T"},
      {"TruncateDiv", "T"},
      {"BitwiseAnd", "T"},
      {"BitwiseOr", "T"},
      {"BitwiseXor", "T"},
      {"Invert", "T"},
      {"LeftShift", "T"},
      {"RightShift", "T"},
      {"NonMaxSuppression", ""},
      {"NonMaxSuppressionV2", "T"},
      {"NonMaxSuppressionV3", "T"},
      {"NonMaxSuppressionV4", "T"},
      {"NonMaxSuppressionV5", "T"},
      {"NonMaxSuppressionWithOverlaps", ""}};
  return *ops;
}

// Every dtype a CPU kernel of these ops is registered for has a TensorFlow
// case, where the golden format can hold it (not complex, string or
// quantized), so a newly registered dtype cannot go unchecked.
TEST(CpuInferenceGoldenTest, CoversEveryRegisteredDtype) {
  test::DtypeCoverage covered;
  std::set<std::string> ops_seen;
  for (const GoldenCase& c : Goldens()) {
    ops_seen.insert(c.op);
    covered.insert({c.op, c.inputs.empty() ? DT_INVALID : c.inputs[0].dtype()});
  }
  for (const auto& [op, attr] : BatchOps()) {
    EXPECT_TRUE(ops_seen.count(op)) << op << " has no golden case";
    test::ExpectCpuDtypesCovered(
        op, attr, covered,
        [](DataType dt) {
          return test::GoldenHolds(dt) && !DataTypeIsComplex(dt);
        },
        "gen_inference_goldens.py");
  }
}

}  // namespace cpu_inference_golden_test
}  // namespace weft
