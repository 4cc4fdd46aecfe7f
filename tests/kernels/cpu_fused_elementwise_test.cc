// _FusedElementwise's CPU kernel (kernels/cpu/fused_elementwise_op.cc):
// each output equals, bit for bit (NaN as any NaN), what the steps' own
// kernels give run one after the other (OpRunner on Sigmoid, Mul, ... — the
// reference), for every op of the vocabulary, over special values, at several
// sizes (empty, one element, one block and a tail, many blocks) and thread
// counts, with single-element operands on either side, with inputs the kernel
// may take over, with shapes that broadcast (the step-by-step path), and with
// inputs read as slices of their last axis (against Split and BiasAdd run
// first). Bad programs and shapes that do not broadcast are errors naming the
// step.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "ops/attr_value.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::OpRunner;

struct Step {
  const char* op;
  int a;
  int b;  // -1: unary
};

struct Program {
  std::vector<Step> steps;
  std::vector<int> results;  // registers
};

// `slices`: the attr, (offset, width) per input, or empty.
AttrMap ProgramAttrs(const Program& p,
                     const std::vector<int64_t>& slices = {}) {
  std::vector<std::string> ops;
  std::vector<int64_t> operands, results;
  for (const Step& s : p.steps) {
    ops.push_back(s.op);
    operands.push_back(s.a);
    operands.push_back(s.b);
  }
  for (int r : p.results) results.push_back(r);
  AttrMap attrs;
  attrs["num_outputs"] = AttrValue::Int(static_cast<int64_t>(results.size()));
  attrs["ops"] = AttrValue::StringList(ops);
  attrs["operands"] = AttrValue::IntList(operands);
  attrs["results"] = AttrValue::IntList(results);
  if (!slices.empty()) attrs["slices"] = AttrValue::IntList(slices);
  return attrs;
}

// The program run one op kernel per step, as the unfused nodes run.
std::vector<Tensor> Reference(const Program& p,
                              const std::vector<Tensor>& inputs) {
  std::vector<Tensor> regs = inputs;
  for (const Step& s : p.steps) {
    OpRunner runner(s.op);
    std::vector<Tensor> args = {regs[s.a]};
    if (s.b >= 0) args.push_back(regs[s.b]);
    auto out = runner.Run(args);
    EXPECT_TRUE(out.ok()) << s.op << ": " << out.status();
    regs.push_back(out.ok() ? (*out)[0] : Tensor());
  }
  std::vector<Tensor> results;
  for (int r : p.results) results.push_back(regs[r]);
  return results;
}

void ExpectSameBits(const Tensor& actual, const Tensor& expected,
                    const std::string& what) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  const int64_t n = expected.NumElements();
  int differ = 0;
  for (int64_t i = 0; i < n && differ < 5; ++i) {
    const float a = actual.data<float>()[i], e = expected.data<float>()[i];
    // Any NaN for a NaN: where both operands are NaN, which one's sign and
    // payload the result keeps depends on the instruction's operand order,
    // which differs between a loop's vectors and its scalar tail, and so
    // with where a block or a thread's range starts.
    if (std::isnan(a) && std::isnan(e)) continue;
    if (std::memcmp(&a, &e, sizeof(float)) != 0) {
      ADD_FAILURE() << what << ": element " << i << " is " << a
                    << ", the steps give " << e;
      ++differ;
    }
  }
}

// Random floats in [-12, 12), and every 16th value special: infinities,
// NaN, signed zeros, the largest float, a denormal, values where exp
// overflows and underflows.
Tensor Values(const TensorShape& shape, unsigned seed) {
  static const float kSpecial[] = {std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::quiet_NaN(),
                                   0.0f,
                                   -0.0f,
                                   std::numeric_limits<float>::max(),
                                   1e-40f,
                                   95.0f,
                                   -110.0f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-12.0f, 12.0f);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = i % 16 == 7 ? kSpecial[(i / 16) % 9] : u(rng);
  }
  return t;
}

// Every op of the vocabulary; inputs 0-2 full, 3 a single element.
Program AllOps() {
  return {{{"Sigmoid", 0, -1},  // 4
           {"Tanh", 1, -1},     // 5
           {"Mul", 4, 5},       // 6
           {"Exp", 2, -1},      // 7
           {"Add", 6, 7},       // 8
           {"Sub", 3, 8},       // 9: single - full
           {"RealDiv", 9, 3},   // 10: full / single
           {"Neg", 10, -1},     // 11
           {"Square", 11, -1},  // 12
           {"AddV2", 12, 0},    // 13
           {"Mul", 13, 13}},    // 14
          {14, 6, 10}};
}

TEST(CpuFusedElementwiseTest, EqualsTheStepsKernelsBitForBit) {
  const Program p = AllOps();
  for (const TensorShape& shape :
       {TensorShape({0, 5}), TensorShape({1}), TensorShape({3, 37}),
        TensorShape({2, 300}), TensorShape({4, 16384})}) {
    for (const TensorShape& single : {TensorShape(), TensorShape({1, 1})}) {
      if (single.dims() > shape.dims()) continue;
      std::vector<Tensor> inputs = {Values(shape, 1), Values(shape, 2),
                                    Values(shape, 3), Tensor(DT_FLOAT, single)};
      inputs[3].data<float>()[0] = -0.75f;
      const std::vector<Tensor> expected = Reference(p, inputs);
      for (int threads : {0, 1, 2}) {
        const std::string what =
            absl::StrCat(shape.DebugString(), " single ", single.DebugString(),
                         ", ", threads, " threads");
        OpRunner fused("_FusedElementwise", ProgramAttrs(p), threads);
        auto out = fused.Run(inputs);
        ASSERT_TRUE(out.ok()) << what << ": " << out.status();
        ASSERT_EQ(out->size(), 3u);
        for (int o = 0; o < 3; ++o) {
          ExpectSameBits((*out)[o], expected[o],
                         absl::StrCat(what, " output ", o));
        }
      }
    }
  }
}

// An input the kernel may take over holds an output only when no later
// step reads it: here input 0 is read again after output 0's step, input 1
// is not.
TEST(CpuFusedElementwiseTest, TakesOverOnlyInputsNoLaterStepReads) {
  const Program p = {{{"Sigmoid", 0, -1},  // 2: output 0
                      {"Mul", 0, 1},       // 3
                      {"Tanh", 3, -1},     // 4: output 1
                      {"Sub", 4, 2}},      // 5: output 2
                     {2, 4, 5}};
  const TensorShape shape({5, 301});
  const std::vector<Tensor> expected =
      Reference(p, {Values(shape, 4), Values(shape, 5)});
  for (int threads : {0, 2}) {
    Tensor a = Values(shape, 4), b = Values(shape, 5);
    const void* a_data = a.data<float>();
    const void* b_data = b.data<float>();
    OpRunner fused("_FusedElementwise", ProgramAttrs(p), threads);
    auto out = fused.Run(test::Inputs(std::move(a), std::move(b)));
    ASSERT_TRUE(out.ok()) << out.status();
    for (int o = 0; o < 3; ++o) {
      ExpectSameBits((*out)[o], expected[o], absl::StrCat("output ", o));
    }
    // Both inputs are last read by step 1: output 0 (step 0) takes neither,
    // outputs 1 and 2 take one each; the values above show that nothing
    // read an input after its buffer was overwritten.
    EXPECT_NE((*out)[0].data<float>(), a_data);
    EXPECT_NE((*out)[0].data<float>(), b_data);
    EXPECT_EQ((*out)[1].data<float>(), a_data);
    EXPECT_EQ((*out)[2].data<float>(), b_data);
  }
}

// Inputs that broadcast other than as single elements: each step on whole
// tensors, each output of its own step's shape.
TEST(CpuFusedElementwiseTest, BroadcastsStepByStep) {
  const Program p = {{{"Sigmoid", 0, -1},  // 3: [4, 1]
                      {"Mul", 3, 1},       // 4: [4, 5]
                      {"Sub", 4, 2},       // 5: [4, 5] - [5]
                      {"Tanh", 5, -1}},    // 6
                     {3, 6, 4}};
  const std::vector<Tensor> inputs = {Values(TensorShape({4, 1}), 6),
                                      Values(TensorShape({1, 5}), 7),
                                      Values(TensorShape({5}), 8)};
  const std::vector<Tensor> expected = Reference(p, inputs);
  for (int threads : {0, 2}) {
    OpRunner fused("_FusedElementwise", ProgramAttrs(p), threads);
    auto out = fused.Run(inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({4, 1}));
    EXPECT_EQ((*out)[1].shape(), TensorShape({4, 5}));
    for (int o = 0; o < 3; ++o) {
      ExpectSameBits((*out)[o], expected[o], absl::StrCat("output ", o));
    }
  }
  // A single element of higher rank than the rest widens the result.
  const Program q = {{{"Mul", 0, 1}, {"Neg", 2, -1}}, {3}};
  const std::vector<Tensor> wide = {Values(TensorShape({3}), 9),
                                    Values(TensorShape({1, 1, 1}), 10)};
  OpRunner fused("_FusedElementwise", ProgramAttrs(q));
  auto out = fused.Run(wide);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectSameBits((*out)[0], Reference(q, wide)[0], "rank 3 single");
}

// (rows, 4 * width) gates z, a bias of 4 * width and a state c of (rows,
// width): BiasAdd then Split into four, as a Keras LSTM cell computes them.
std::vector<Tensor> BiasedParts(const Tensor& z, const Tensor& bias) {
  OpRunner bias_add("BiasAdd");
  auto biased = bias_add.Run({z, bias});
  EXPECT_TRUE(biased.ok()) << biased.status();
  Tensor axis(DT_INT32, TensorShape());
  axis.data<int32_t>()[0] = -1;
  AttrMap split_attrs;
  split_attrs["num_split"] = AttrValue::Int(4);
  OpRunner split("Split", split_attrs);
  auto parts = split.Run({axis, (*biased)[0]});
  EXPECT_TRUE(parts.ok()) << parts.status();
  return parts.ok() ? *parts : std::vector<Tensor>();
}

// The cell after the split: inputs 0-3 the gates, 4 the state; outputs h
// and the new state.
const Program kCell = {{{"Sigmoid", 0, -1},  // 5
                        {"Sigmoid", 1, -1},  // 6
                        {"Tanh", 2, -1},     // 7
                        {"Sigmoid", 3, -1},  // 8
                        {"Mul", 6, 4},       // 9
                        {"Mul", 5, 7},       // 10
                        {"AddV2", 9, 10},    // 11: the new state
                        {"Tanh", 11, -1},    // 12
                        {"Mul", 8, 12}},     // 13: h
                       {13, 11}};

// The same cell reading z and the bias in place: inputs 0-3 are z's four
// column ranges, 4-7 the bias's, 8 the state; steps 9-12 add the parts.
Program SlicedCell(int64_t width) {
  Program p;
  p.steps = {
      {"AddV2", 0, 4}, {"AddV2", 1, 5}, {"AddV2", 2, 6}, {"AddV2", 3, 7}};
  // kCell's registers: gates 0-3 are the sums (9-12), the state is input
  // 8, and step registers move up by the four inputs and steps added.
  auto reg = [](int r) {
    return r < 0 ? r : (r == 4 ? 8 : (r < 4 ? 9 + r : r + 8));
  };
  for (const Step& s : kCell.steps)
    p.steps.push_back({s.op, reg(s.a), reg(s.b)});
  p.results = {21, 19};
  return p;
}

// Its slices: z's and the bias's four parts, then the whole state.
std::vector<int64_t> CellSlices(int64_t width) {
  std::vector<int64_t> slices;
  for (int input = 0; input < 8; ++input) {
    slices.push_back((input % 4) * width);
    slices.push_back(width);
  }
  slices.push_back(0);
  slices.push_back(-1);
  return slices;
}

TEST(CpuFusedElementwiseTest, ReadsSlicesInPlaceAsSplitWould) {
  for (auto [rows, width] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 5}, {1, 1}, {1, 128}, {3, 37}, {8, 128}, {2, 300}, {5, 1000}}) {
    const Tensor z = Values(TensorShape({rows, 4 * width}), 11);
    const Tensor bias = Values(TensorShape({4 * width}), 12);
    const Tensor c = Values(TensorShape({rows, width}), 13);
    std::vector<Tensor> parts = BiasedParts(z, bias);
    ASSERT_EQ(parts.size(), 4u);
    parts.push_back(c);
    const std::vector<Tensor> expected = Reference(kCell, parts);
    for (int threads : {0, 1, 2}) {
      const std::string what =
          absl::StrCat(rows, " x ", width, ", ", threads, " threads");
      OpRunner fused("_FusedElementwise",
                     ProgramAttrs(SlicedCell(width), CellSlices(width)),
                     threads);
      auto out = fused.Run({z, z, z, z, bias, bias, bias, bias, c});
      ASSERT_TRUE(out.ok()) << what << ": " << out.status();
      ASSERT_EQ(out->size(), 2u);
      for (int o = 0; o < 2; ++o) {
        ExpectSameBits((*out)[o], expected[o],
                       absl::StrCat(what, " output ", o));
      }
    }
  }
}

// Slices among inputs that broadcast otherwise (a column of [rows, 1]): the
// slices are copied out and the steps run on whole tensors.
TEST(CpuFusedElementwiseTest, SlicesOnTheStepByStepPath) {
  const Program p = {{{"Mul", 0, 2}, {"Sub", 3, 1}}, {4}};
  const std::vector<int64_t> slices = {2, 3, 7, 3, 0, -1};
  const Tensor z = Values(TensorShape({4, 10}), 14);
  const Tensor column = Values(TensorShape({4, 1}), 15);
  Tensor slice_a(DT_FLOAT, TensorShape({4, 3}));
  Tensor slice_b(DT_FLOAT, TensorShape({4, 3}));
  for (int r = 0; r < 4; ++r) {
    for (int k = 0; k < 3; ++k) {
      slice_a.data<float>()[r * 3 + k] = z.data<float>()[r * 10 + 2 + k];
      slice_b.data<float>()[r * 3 + k] = z.data<float>()[r * 10 + 7 + k];
    }
  }
  const std::vector<Tensor> expected = Reference(p, {slice_a, slice_b, column});
  for (int threads : {0, 2}) {
    OpRunner fused("_FusedElementwise", ProgramAttrs(p, slices), threads);
    auto out = fused.Run({z, z, column});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({4, 3}));
    ExpectSameBits((*out)[0], expected[0], "step by step");
  }
}

TEST(CpuFusedElementwiseTest, ShapesThatDoNotBroadcastNameTheStep) {
  const Program p = {{{"Tanh", 0, -1}, {"Mul", 2, 1}}, {3}};
  OpRunner fused("_FusedElementwise", ProgramAttrs(p));
  auto out =
      fused.Run({Values(TensorShape({2, 3}), 1), Values(TensorShape({4}), 2)});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("step 1 (Mul)"), std::string::npos)
      << out.status();
  EXPECT_NE(out.status().message().find("do not broadcast"), std::string::npos)
      << out.status();
}

TEST(CpuFusedElementwiseTest, BadProgramsAreErrors) {
  struct Case {
    Program program;
    const char* expected;
  };
  const Case cases[] = {
      {{{{"Relu", 0, -1}}, {1}}, "'Relu' is not an element-wise op"},
      {{{{"Mul", 0, 2}}, {2}},
       "step 0 (Mul) of attr 'ops' reads registers 0 and 2"},
      {{{{"Tanh", 0, 0}}, {1}}, "a unary step reads one of"},
      {{{{"Tanh", 0, -1}}, {0}}, "output 0 of attr 'results' is register 0"},
      {{{{"Tanh", 0, -1}, {"Neg", 1, -1}}, {2, 2}}, "more than once"},
  };
  for (const Case& c : cases) {
    OpRunner fused("_FusedElementwise", ProgramAttrs(c.program));
    auto out = fused.Run({Values(TensorShape({3}), 1)});
    ASSERT_FALSE(out.ok()) << c.expected;
    EXPECT_NE(out.status().message().find(c.expected), std::string::npos)
        << out.status();
  }
  // Slices: one (offset, width) per input, inside the input's last axis.
  const Program tanh = {{{"Tanh", 0, -1}}, {1}};
  const std::pair<std::vector<int64_t>, const char*> bad_slices[] = {
      {{0, 2, 0, 1}, "attr 'slices' has 4 entries; the 1 inputs need 2"},
      {{1, -1}, "input 0 of attr 'slices' is (1, -1)"},
      {{2, 2}, "input 0 of shape [3] has no columns [2, 4) on its last axis"},
  };
  for (const auto& [slices, expected] : bad_slices) {
    OpRunner fused("_FusedElementwise", ProgramAttrs(tanh, slices));
    auto out = fused.Run({Values(TensorShape({3}), 1)});
    ASSERT_FALSE(out.ok()) << expected;
    EXPECT_NE(out.status().message().find(expected), std::string::npos)
        << out.status();
  }
}

}  // namespace
}  // namespace weft
