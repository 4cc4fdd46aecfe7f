// Replays TensorFlow's outputs for the random ops (testdata/random_goldens.txt,
// written by gen_random_goldens.py from TensorFlow's CPU kernels) through
// the weft kernels.
//
// Stateless ops are replayed as any op is. A stateful case (RandomUniform,
// RandomStandardNormal, RandomUniformInt, Multinomial, all with a nonzero
// seed) has two expected outputs, TensorFlow's first and second run of one
// kernel; the test creates one weft kernel and runs it twice.
//
// Tolerance: none. Uniform floats, integers, keys and counters are bit
// manipulation and integer arithmetic, exact by construction. The normals
// go through logf/log, sqrt and sincosf/sincos: weft calls the same glibc
// functions in the same order with the same float/double roundings as
// TensorFlow's Linux CPU kernels, and the files match bit for bit on this
// machine (glibc 2.36). A C library whose log or sincos rounded an ulp
// differently would change normals by an ulp and, rarely, truncated
// normal's rejection of a value at |2|; ExpectNormalsClose would then be
// the place to allow 4 ulps -- it is not needed here.
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/types.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/op_registry.h"
#include "tests/kernels/golden_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
// Named so that its helpers stay distinct from other test files' in a
// unity build.
namespace random_golden_test {
namespace {

using test::GoldenCase;

constexpr char kGoldenFile[] = "random_goldens.txt";

const std::vector<GoldenCase>& Goldens() {
  return test::CachedGoldens(kGoldenFile, "WEFT_RANDOM_GOLDENS");
}

bool Stateful(const std::string& op) {
  return op == "RandomUniform" || op == "RandomStandardNormal" ||
         op == "RandomUniformInt" || op == "Multinomial";
}

// One kernel of the case's node, run `runs` times on the same inputs; the
// single output of each run.
StatusOr<std::vector<Tensor>> RunRepeatedly(const GoldenCase& c, int runs,
                                            int threads) {
  std::vector<DataType> types;
  for (const Tensor& t : c.inputs) types.push_back(t.dtype());
  NodeDef node;
  NodeTypes node_types;
  WEFT_RETURN_IF_ERROR(
      test::MakeTestNode(c.op, c.attrs, types, &node, &node_types));
  WEFT_ASSIGN_OR_RETURN(const OpRegistrationData* reg,
                        OpRegistry::Global()->LookUp(c.op));
  std::unique_ptr<tbb::task_arena> arena;
  if (threads > 0) {
    arena = std::make_unique<tbb::task_arena>(threads);
    arena->initialize();
  }
  CpuDevice device("cpu:0", arena.get());
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                        KernelRegistry::Global()->CreateKernel(
                            node, reg->op_def, node_types, &device));
  std::vector<const Tensor*> inputs;
  for (const Tensor& t : c.inputs) inputs.push_back(&t);
  std::vector<Tensor> results;
  for (int r = 0; r < runs; ++r) {
    std::vector<Tensor> outputs(1);
    OpKernelContext::Params params;
    params.device = &device;
    params.kernel = kernel.get();
    params.inputs = inputs;
    params.outputs = absl::MakeSpan(outputs);
    OpKernelContext ctx(&params);
    if (arena != nullptr) {
      arena->execute([&] { kernel->Compute(&ctx); });
    } else {
      kernel->Compute(&ctx);
    }
    WEFT_RETURN_IF_ERROR(ctx.status());
    results.push_back(outputs[0]);
  }
  return results;
}

void CheckCase(const GoldenCase& c, int threads) {
  if (Stateful(c.op)) {
    ASSERT_EQ(c.expected.size(), 2u) << "a stateful case has two runs";
    StatusOr<std::vector<Tensor>> out = RunRepeatedly(c, 2, threads);
    ASSERT_TRUE(out.ok()) << out.status();
    for (int r = 0; r < 2; ++r) {
      SCOPED_TRACE("run " + std::to_string(r + 1));
      test::ExpectTensorEqual((*out)[r], c.expected[r]);
    }
    return;
  }
  StatusOr<std::vector<Tensor>> out =
      test::OpRunner(c.op, c.attrs, threads).Run(c.inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), c.expected.size());
  for (size_t i = 0; i < out->size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    test::ExpectTensorEqual((*out)[i], c.expected[i]);
  }
}

TEST(CpuRandomGoldenTest, MatchesTensorFlow) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 0); });
}

// The same on a 2-thread arena: groups of the output are split over it,
// each from its own place in the Philox stream, with the same result.
TEST(CpuRandomGoldenTest, MatchesTensorFlowWithThreads) {
  test::ReplayGoldens(Goldens(), kGoldenFile,
                      [](const GoldenCase& c) { CheckCase(c, 2); });
}

// Every op of the batch with the attr that carries its value dtype (empty
// for ops without one).
const std::vector<std::pair<std::string, std::string>>& BatchOps() {
  static const auto* ops = new std::vector<std::pair<std::string, std::string>>{
      {"StatelessRandomUniformV2", "dtype"},
      {"StatelessRandomNormalV2", "dtype"},
      {"StatelessTruncatedNormalV2", "dtype"},
      {"StatelessRandomUniformIntV2", "dtype"},
      {"StatelessRandomUniformFullIntV2", "dtype"},
      {"StatelessRandomGetKeyCounter", "Tseed"},
      {"StatelessRandomGetKeyCounterAlg", "Tseed"},
      {"StatelessRandomGetAlg", ""},
      {"StatelessRandomUniform", "dtype"},
      {"StatelessRandomNormal", "dtype"},
      {"StatelessTruncatedNormal", "dtype"},
      {"StatelessRandomUniformInt", "dtype"},
      {"RandomUniform", "dtype"},
      {"RandomStandardNormal", "dtype"},
      {"RandomUniformInt", "Tout"},
      {"Multinomial", "T"}};
  return *ops;
}

// Every dtype a CPU kernel of these ops is registered for has a TensorFlow
// case (any input or output of that dtype counts), so a newly registered
// dtype cannot go unchecked.
TEST(CpuRandomGoldenTest, CoversEveryRegisteredDtype) {
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
        "gen_random_goldens.py");
  }
}

}  // namespace
}  // namespace random_golden_test
}  // namespace weft
