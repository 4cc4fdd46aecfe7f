// Replays TensorFlow's reference outputs for the indexing and scatter ops of
// issue 13 (testdata/scatter_goldens.txt, written by gen_scatter_goldens.py
// from tf.raw_ops on the CPU) through the weft kernels.
//
// Tolerance: none. Every op moves or selects elements (GatherNd, Gather,
// Concat, TensorScatterUpdate, ReverseSequence, DynamicPartition/Stitch,
// SparseToDense, Unique), compares them (TensorScatterMin/Max), or adds
// them one correctly rounded operation at a time in the order TensorFlow's
// CPU kernels do (ScatterNd and TensorScatterAdd/Sub apply updates in index
// order, Bincount sums weights in input order), so any difference is a bug.
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
namespace cpu_scatter_golden_test {
namespace {

using test::GoldenCase;

constexpr char kGoldenFile[] = "scatter_goldens.txt";

const std::vector<GoldenCase>& Goldens() {
  return test::CachedGoldens(kGoldenFile, "WEFT_SCATTER_GOLDENS");
}

void CheckCase(const GoldenCase& c, int threads) {
  AttrMap attrs = c.attrs;
  // The stitches have two list inputs of one length, which OpRunner cannot
  // infer (tf.raw_ops infers it; the file does not hold it).
  if (c.op == "DynamicStitch" || c.op == "ParallelDynamicStitch") {
    attrs["N"] = AttrValue::Int(static_cast<int64_t>(c.inputs.size() / 2));
  }
  StatusOr<std::vector<Tensor>> out =
      test::OpRunner(c.op, attrs, threads).Run(c.inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), c.expected.size());
  for (size_t i = 0; i < out->size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    test::ExpectTensorEqual((*out)[i], c.expected[i]);
  }
}

TEST(CpuScatterGoldenTest, MatchesTensorFlow) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 0); });
}

// The same cases on a 2-thread arena: the kernels split rows, runs and
// slice columns over it, with the same results (duplicates included).
TEST(CpuScatterGoldenTest, MatchesTensorFlowWithThreads) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 2); });
}

// Every op of the batch, with the attr that carries its value dtype and the
// input that holds a value of that dtype.
struct BatchOp {
  std::string op;
  std::string attr;
  int input;
};

const std::vector<BatchOp>& BatchOps() {
  static const auto* ops = new std::vector<BatchOp>{
      {"GatherNd", "Tparams", 0},   {"Gather", "Tparams", 0},
      {"ScatterNd", "T", 1},        {"TensorScatterUpdate", "T", 0},
      {"TensorScatterAdd", "T", 0}, {"TensorScatterSub", "T", 0},
      {"TensorScatterMin", "T", 0}, {"TensorScatterMax", "T", 0},
      {"Unique", "T", 0},           {"UniqueWithCounts", "T", 0},
      {"ReverseSequence", "T", 0},  {"DynamicPartition", "T", 0},
      {"DynamicStitch", "T", -1},   {"ParallelDynamicStitch", "T", -1},
      {"Bincount", "T", 2},         {"DenseBincount", "T", 2},
      {"SparseToDense", "T", 2},    {"Concat", "T", 1}};
  return *ops;
}

// Every dtype a CPU kernel of these ops is registered for has a TensorFlow
// case, where the golden format can hold it (not complex, string or
// quantized), so a newly registered dtype cannot go unchecked.
TEST(CpuScatterGoldenTest, CoversEveryRegisteredDtype) {
  test::DtypeCoverage covered;
  std::set<std::string> ops_seen;
  for (const GoldenCase& c : Goldens()) {
    ops_seen.insert(c.op);
    for (const BatchOp& b : BatchOps()) {
      if (b.op != c.op) continue;
      // The stitches' data follow their N indices: the last input.
      const int in =
          b.input >= 0 ? b.input : static_cast<int>(c.inputs.size()) - 1;
      covered.insert({c.op, c.inputs[in].dtype()});
    }
  }
  for (const BatchOp& b : BatchOps()) {
    EXPECT_TRUE(ops_seen.count(b.op)) << b.op << " has no golden case";
    test::ExpectCpuDtypesCovered(
        b.op, b.attr, covered,
        [](DataType dt) {
          return test::GoldenHolds(dt) && !DataTypeIsComplex(dt);
        },
        "gen_scatter_goldens.py");
  }
}

}  // namespace
}  // namespace cpu_scatter_golden_test
}  // namespace weft
