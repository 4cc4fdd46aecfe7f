// _FusedElementwise's CPU kernel (kernels/cpu/fused_elementwise_op.cc):
// each output equals, bit for bit, what the steps' own kernels give run one
// after the other (OpRunner on Sigmoid, Mul, ... — the reference), for
// every op of the vocabulary, over special values, at several sizes (empty,
// one element, one block and a tail, many blocks) and thread counts, with
// single-element operands on either side, with inputs the kernel may take
// over, and with shapes that broadcast (the step-by-step path). Bad
// programs and shapes that do not broadcast are errors naming the step.
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

AttrMap ProgramAttrs(const Program& p) {
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
}

}  // namespace
}  // namespace weft
