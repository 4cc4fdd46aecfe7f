// Replays TensorFlow's outputs for AdjustContrastv2, AdjustHue,
// AdjustSaturation, FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars and
// CTCGreedyDecoder (testdata/image_quant_goldens.txt, written by
// gen_image_quant_goldens.py from TensorFlow's CPU kernels) through the weft
// kernels.
//
// Tolerance: none. Each kernel does TensorFlow's float operations in
// TensorFlow's order (the contrast mean's halving folds, the HSV
// conversions with their double-precision offsets, fake quantization's
// nudged range and directly computed inverse scale, the decoder's running
// sum in T), each correctly rounded, so any difference is a bug.
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
// Named so that its helpers stay distinct from other test files' in a
// unity build.
namespace image_quant_golden_test {
namespace {

using test::GoldenCase;

constexpr char kGoldenFile[] = "image_quant_goldens.txt";

const std::vector<GoldenCase>& Goldens() {
  return test::CachedGoldens(kGoldenFile, "WEFT_IMAGE_QUANT_GOLDENS");
}

void CheckCase(const GoldenCase& c, int threads) {
  StatusOr<std::vector<Tensor>> out =
      test::OpRunner(c.op, c.attrs, threads).Run(c.inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), c.expected.size());
  for (size_t i = 0; i < out->size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    test::ExpectTensorEqual((*out)[i], c.expected[i]);
  }
}

TEST(CpuImageQuantGoldenTest, MatchesTensorFlow) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 0); });
}

// The same on a 2-thread arena: images, pixels, elements and batch entries
// are split over it, with the same result.
TEST(CpuImageQuantGoldenTest, MatchesTensorFlowWithThreads) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 2); });
}

// Every op of the batch with the attr that carries its value dtype (empty
// for ops without one).
const std::vector<std::pair<std::string, std::string>>& BatchOps() {
  static const auto* ops = new std::vector<std::pair<std::string, std::string>>{
      {"AdjustContrastv2", "T"},       {"AdjustHue", "T"},
      {"AdjustSaturation", "T"},       {"FakeQuantWithMinMaxArgs", ""},
      {"FakeQuantWithMinMaxVars", ""}, {"CTCGreedyDecoder", "T"}};
  return *ops;
}

// Every dtype a CPU kernel of these ops is registered for has a TensorFlow
// case (any input or output of that dtype counts), so a newly registered
// dtype cannot go unchecked.
TEST(CpuImageQuantGoldenTest, CoversEveryRegisteredDtype) {
  test::DtypeCoverage covered;
  std::set<std::string> ops_seen;
  for (const GoldenCase& c : Goldens()) {
    ops_seen.insert(c.op);
    for (const Tensor& t : c.inputs) covered.insert({c.op, t.dtype()});
    for (const Tensor& t : c.expected) covered.insert({c.op, t.dtype()});
  }
  for (const auto& [op, attr] : BatchOps()) {
    EXPECT_TRUE(ops_seen.count(op)) << op << " has no golden case";
    test::ExpectCpuDtypesCovered(
        op, attr, covered, [](DataType) { return true; },
        "gen_image_quant_goldens.py");
  }
}

}  // namespace
}  // namespace image_quant_golden_test
}  // namespace weft
