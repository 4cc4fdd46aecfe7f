// Replays TensorFlow's reference outputs for the shape and layout ops
// (testdata/array_goldens.txt, written by gen_array_goldens.py from
// tf.raw_ops on the CPU) through the weft kernels.
//
// Tolerance: none, for every op and dtype. These kernels move, repeat or
// select elements bit for bit (Reshape, Transpose, Concat, Slice, Pad, Tile,
// Gather, OneHot, ...) or write metadata (Shape, Size, Rank), so any
// difference is a bug. The one op that computes is Range, whose element i is
// start + i * delta evaluated in the dtype itself (one rounded product and
// one rounded sum, the expression TensorFlow's kernel evaluates), so it too
// must agree exactly; the "long" float cases would expose an accumulating
// implementation (start + delta + delta + ...), which drifts by many ulps.
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/golden_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::GoldenCase;

std::string GoldenPath() {
  if (const char* env = std::getenv("WEFT_ARRAY_GOLDENS")) return env;
  return test::GoldenPath("array_goldens.txt");
}

const std::vector<GoldenCase>& Goldens() {
  static const auto* cases = [] {
    StatusOr<std::vector<GoldenCase>> loaded =
        test::LoadGoldenFile(GoldenPath());
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return new std::vector<GoldenCase>(loaded.ok() ? *std::move(loaded)
                                                   : std::vector<GoldenCase>());
  }();
  return *cases;
}

// Every op of the family, with the attr that carries its value dtype (empty
// for the ops TensorFlow registers without a type constraint).
const std::vector<std::pair<std::string, std::string>>& FamilyOps() {
  static const auto* ops = new std::vector<std::pair<std::string, std::string>>{
      {"Reshape", ""},     {"Shape", ""},           {"Size", ""},
      {"Rank", ""},        {"ExpandDims", ""},      {"Squeeze", ""},
      {"Transpose", "T"},  {"ConcatV2", "T"},       {"Pack", "T"},
      {"Unpack", "T"},     {"Split", "T"},          {"SplitV", "T"},
      {"Slice", "T"},      {"StridedSlice", "T"},   {"Pad", "T"},
      {"PadV2", "T"},      {"MirrorPad", "T"},      {"Tile", "T"},
      {"Fill", "T"},       {"ZerosLike", "T"},      {"OnesLike", "T"},
      {"Range", "Tidx"},   {"GatherV2", "Tparams"}, {"OneHot", "T"},
      {"BroadcastTo", "T"}};
  return *ops;
}

TEST(CpuArrayGoldenTest, MatchesTensorFlowExactly) {
  const std::vector<GoldenCase>& cases = Goldens();
  ASSERT_FALSE(cases.empty()) << "no cases in " << GoldenPath();
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(GoldenPath() + ":" + std::to_string(c.line) + ": " + c.name);
    StatusOr<std::vector<Tensor>> out =
        test::OpRunner(c.op, c.attrs).Run(c.inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), c.expected.size());
    for (size_t i = 0; i < out->size(); ++i) {
      SCOPED_TRACE("output " + std::to_string(i));
      test::ExpectTensorEqual((*out)[i], c.expected[i]);
    }
  }
}

// The same cases with a 2-thread arena: identical results.
TEST(CpuArrayGoldenTest, MatchesTensorFlowWithThreads) {
  for (const GoldenCase& c : Goldens()) {
    SCOPED_TRACE(c.name);
    StatusOr<std::vector<Tensor>> out =
        test::OpRunner(c.op, c.attrs, /*threads=*/2).Run(c.inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), c.expected.size());
    for (size_t i = 0; i < out->size(); ++i) {
      test::ExpectTensorEqual((*out)[i], c.expected[i]);
    }
  }
}

// Whether the golden format (golden_testutil.h) can hold a tensor of `dt`.
// Complex, string and quantized tensors cannot; cpu_array_dtype_test.cc
// checks those dtypes against a same-width type instead.
bool GoldenExpressible(DataType dt) {
  return !DataTypeIsComplex(dt) && !DataTypeIsQuantized(dt) && dt != DT_STRING;
}

// Every dtype a kernel of these ops is registered for has a TensorFlow case
// (where the format can express it), so a newly registered dtype cannot go
// unchecked.
TEST(CpuArrayGoldenTest, CoversEveryRegisteredDtype) {
  std::set<std::pair<std::string, DataType>> covered;
  std::set<std::string> ops_seen;
  for (const GoldenCase& c : Goldens()) {
    ops_seen.insert(c.op);
    DataType dt = c.expected[0].dtype();
    // Shape and Size output their index type; their input carries T.
    if (c.op == "Shape" || c.op == "Size" || c.op == "Rank") {
      dt = c.inputs[0].dtype();
    }
    covered.insert({c.op, dt});
  }
  for (const auto& [op, attr] : FamilyOps()) {
    EXPECT_TRUE(ops_seen.count(op)) << op << " has no golden case";
    const std::vector<const KernelDef*> defs =
        KernelRegistry::Global()->KernelsForOp(op);
    EXPECT_FALSE(defs.empty()) << "no kernels for " << op;
    for (const KernelDef* def : defs) {
      if (def->device_type != DEVICE_CPU) continue;
      const KernelDef::AttrConstraint* t =
          attr.empty() ? nullptr : def->FindConstraint(attr);
      if (attr.empty()) {
        EXPECT_EQ(def->FindConstraint("T"), nullptr)
            << op << " is registered for every dtype, as in TensorFlow";
        continue;
      }
      ASSERT_NE(t, nullptr) << op << " has no constraint on " << attr;
      for (DataType dt : t->allowed_types) {
        if (!GoldenExpressible(dt)) continue;
        EXPECT_TRUE(covered.count({op, dt}))
            << op << " has a CPU kernel for " << DataTypeName(dt)
            << " but no golden case; add one to gen_array_goldens.py";
      }
    }
  }
}

// Each index input (shape, perm, axis, paddings, multiples, sizes, indices)
// is exercised with int32 and int64 values.
TEST(CpuArrayGoldenTest, CoversBothIndexTypes) {
  const std::map<std::string, std::vector<int>> index_inputs = {
      {"Reshape", {1}},  {"ExpandDims", {1}},   {"Transpose", {1}},
      {"Slice", {1, 2}}, {"StridedSlice", {1}}, {"Pad", {1}},
      {"PadV2", {1}},    {"MirrorPad", {1}},    {"Tile", {1}},
      {"Fill", {0}},     {"BroadcastTo", {1}},  {"GatherV2", {1, 2}},
      {"SplitV", {1}},   {"OneHot", {0}}};
  std::set<std::pair<std::string, int>> seen32, seen64;
  for (const GoldenCase& c : Goldens()) {
    auto it = index_inputs.find(c.op);
    if (it == index_inputs.end()) continue;
    for (int i : it->second) {
      if (c.inputs[i].dtype() == DT_INT32) seen32.insert({c.op, i});
      if (c.inputs[i].dtype() == DT_INT64) seen64.insert({c.op, i});
    }
  }
  for (const auto& [op, inputs] : index_inputs) {
    for (int i : inputs) {
      EXPECT_TRUE(seen32.count({op, i})) << op << " input " << i << " int32";
      EXPECT_TRUE(seen64.count({op, i})) << op << " input " << i << " int64";
    }
  }
  // ConcatV2's axis is its last input.
  bool concat32 = false, concat64 = false;
  for (const GoldenCase& c : Goldens()) {
    if (c.op != "ConcatV2") continue;
    concat32 |= c.inputs.back().dtype() == DT_INT32;
    concat64 |= c.inputs.back().dtype() == DT_INT64;
  }
  EXPECT_TRUE(concat32 && concat64);
}

}  // namespace
}  // namespace weft
