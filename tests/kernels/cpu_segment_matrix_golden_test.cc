// Replays TensorFlow's reference outputs for the segment and matrix ops of
// issue 13 (testdata/segment_matrix_goldens.txt, written by
// gen_segment_matrix_goldens.py from tf.raw_ops on the CPU) through the weft
// kernels: Segment*, UnsortedSegment*, SparseSegment* (and WithNumSegments),
// the MatrixDiag / MatrixDiagPart / MatrixSetDiag family, MatrixDeterminant,
// BatchMatMul and BatchMatMulV3.
//
// Tolerance: none for the segment and diagonal ops. The diagonal ops only
// move elements; the segment reductions accumulate each output element in
// the order TensorFlow's kernels do, in the same dtype (SparseSegment* in
// float for half and bfloat16, grouping rows as TensorFlow does; max and min
// treating NaN as TensorFlow's AVX build does, by column), so any
// difference is a bug. Integer products are exact too.
//
// Floating-point BatchMatMul / BatchMatMulV3 and MatrixDeterminant: weft's
// GEMM and TensorFlow's (and Eigen's LU, blocked differently in the two
// builds) sum in different orders, so an element passes when
// |weft - tf| <= r u_T (|tf| + 1), u_T the unit roundoff, with r = 64 for
// the products (measured: 2 ulps at most) and r = 4096 for the
// determinants, whose 40x40 float case cancels heavily (measured: 2.2e-5
// relative there, agreement to a few ulps on the small matrices).
#include <cmath>
#include <cstdlib>
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
namespace segment_matrix_golden_test {
namespace {

using test::GoldenCase;

constexpr char kGoldenFile[] = "segment_matrix_goldens.txt";

const std::vector<GoldenCase>& Goldens() {
  return test::CachedGoldens(kGoldenFile, "WEFT_SEGMENT_MATRIX_GOLDENS");
}

void ExpectClose(const Tensor& got, const Tensor& want, double r) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  const double u = test::UnitRoundoff(want.dtype());
  const std::vector<double> g = test::ToDoubles(got);
  const std::vector<double> e = test::ToDoubles(want);
  int reported = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    bool ok;
    if (std::isnan(e[i])) {
      ok = std::isnan(g[i]);
    } else if (std::isinf(e[i])) {
      ok = g[i] == e[i];
    } else {
      ok = std::fabs(g[i] - e[i]) <= r * u * (std::fabs(e[i]) + 1);
    }
    if (!ok && ++reported <= 10) {
      ADD_FAILURE() << "element " << i << ": weft " << g[i] << ", TensorFlow "
                    << e[i];
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
    const bool floating = DataTypeIsFloating(c.expected[i].dtype());
    if (c.op == "MatrixDeterminant") {
      ExpectClose((*out)[i], c.expected[i], 4096);
    } else if (floating && (c.op == "BatchMatMul" || c.op == "BatchMatMulV3")) {
      ExpectClose((*out)[i], c.expected[i], 64);
    } else {
      test::ExpectTensorEqual((*out)[i], c.expected[i]);
    }
  }
}

TEST(CpuSegmentMatrixGoldenTest, MatchesTensorFlow) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 0); });
}

// The same cases on a 2-thread arena: the kernels split segments, columns,
// rows and matrices over it, with the same results.
TEST(CpuSegmentMatrixGoldenTest, MatchesTensorFlowWithThreads) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 2); });
}

// Every op of the batch, with the attr that carries its value dtype.
const std::vector<std::pair<std::string, std::string>>& BatchOps() {
  static const auto* ops = new std::vector<std::pair<std::string, std::string>>{
      {"SegmentSum", "T"},
      {"SegmentMean", "T"},
      {"SegmentProd", "T"},
      {"SegmentMax", "T"},
      {"SegmentMin", "T"},
      {"UnsortedSegmentSum", "T"},
      {"UnsortedSegmentProd", "T"},
      {"UnsortedSegmentMax", "T"},
      {"UnsortedSegmentMin", "T"},
      {"SparseSegmentSum", "T"},
      {"SparseSegmentMean", "T"},
      {"SparseSegmentSqrtN", "T"},
      {"SparseSegmentSumWithNumSegments", "T"},
      {"SparseSegmentMeanWithNumSegments", "T"},
      {"SparseSegmentSqrtNWithNumSegments", "T"},
      {"MatrixDiag", "T"},
      {"MatrixDiagV2", "T"},
      {"MatrixDiagV3", "T"},
      {"MatrixDiagPart", "T"},
      {"MatrixDiagPartV2", "T"},
      {"MatrixDiagPartV3", "T"},
      {"MatrixSetDiag", "T"},
      {"MatrixSetDiagV2", "T"},
      {"MatrixSetDiagV3", "T"},
      {"MatrixDeterminant", "T"},
      {"BatchMatMul", "T"},
      {"BatchMatMulV3", "Ta"}};
  return *ops;
}

// Every dtype a CPU kernel of these ops is registered for has a TensorFlow
// case, where the golden format can hold it (not complex, string or
// quantized), so a newly registered dtype cannot go unchecked.
TEST(CpuSegmentMatrixGoldenTest, CoversEveryRegisteredDtype) {
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
        "gen_segment_matrix_goldens.py");
  }
}

}  // namespace
}  // namespace segment_matrix_golden_test
}  // namespace weft
