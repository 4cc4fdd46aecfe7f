// _FusedScalars' CPU kernel (kernels/cpu/fused_scalars_op.cc): every op of
// the vocabulary on int32, int64 and bool scalars gives what the op's own
// kernel gives (OpRunner on AddV2, Less, ... — the reference), at the
// integers' edges where arithmetic wraps; a program with several outputs
// hands each its step's value; bad programs and inputs that are not
// scalars are errors naming the step or input.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "ops/attr_value.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::AsScalar;
using test::OpRunner;

AttrMap ProgramAttrs(const std::vector<DataType>& tin,
                     const std::vector<DataType>& tout,
                     const std::vector<std::string>& ops,
                     const std::vector<int64_t>& operands,
                     const std::vector<int64_t>& results) {
  return {{"Tin", AttrValue::TypeList(tin)},
          {"Tout", AttrValue::TypeList(tout)},
          {"ops", AttrValue::StringList(ops)},
          {"operands", AttrValue::IntList(operands)},
          {"results", AttrValue::IntList(results)}};
}

// The scalar's value as int64 (bool as 0 or 1).
int64_t ValueOf(const Tensor& t) {
  switch (t.dtype()) {
    case DT_INT32:
      return t.data<int32_t>()[0];
    case DT_INT64:
      return t.data<int64_t>()[0];
    default:
      return t.data<bool>()[0];
  }
}

// One step of `op` on (a, b) against the op's own kernel.
void ExpectStepEqualsKernel(const std::string& op, const Tensor& a,
                            const Tensor& b) {
  const std::string what = absl::StrCat(op, "(", DataTypeName(a.dtype()), " ",
                                        ValueOf(a), ", ", ValueOf(b), ")");
  OpRunner node(op);
  auto expected = node.Run({a, b});
  ASSERT_TRUE(expected.ok()) << what << ": " << expected.status();
  const DataType out = (*expected)[0].dtype();
  OpRunner fused("_FusedScalars", ProgramAttrs({a.dtype(), a.dtype()}, {out},
                                               {op}, {0, 1}, {2}));
  auto actual = fused.Run({a, b});
  ASSERT_TRUE(actual.ok()) << what << ": " << actual.status();
  ASSERT_EQ((*actual)[0].dtype(), out) << what;
  EXPECT_EQ((*actual)[0].dims(), 0) << what;
  EXPECT_EQ(ValueOf((*actual)[0]), ValueOf((*expected)[0])) << what;
}

template <typename T>
void ExpectIntegerOps() {
  const T lo = std::numeric_limits<T>::min(),
          hi = std::numeric_limits<T>::max();
  const std::vector<T> values = {0, 1, -1, 7, -12, lo, hi, hi - 1, lo + 1};
  for (const char* op :
       {"Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "Less", "LessEqual",
        "Greater", "GreaterEqual", "Equal", "NotEqual"}) {
    for (T a : values) {
      for (T b : values) {
        ExpectStepEqualsKernel(op, AsScalar<T>(a), AsScalar<T>(b));
      }
    }
  }
}

TEST(CpuFusedScalarsTest, Int32StepsEqualTheirKernels) {
  ExpectIntegerOps<int32_t>();
}

TEST(CpuFusedScalarsTest, Int64StepsEqualTheirKernels) {
  ExpectIntegerOps<int64_t>();
}

TEST(CpuFusedScalarsTest, BoolStepsEqualTheirKernels) {
  for (const char* op : {"LogicalAnd", "LogicalOr", "Equal", "NotEqual"}) {
    for (bool a : {false, true}) {
      for (bool b : {false, true}) {
        ExpectStepEqualsKernel(op, AsScalar<bool>(a), AsScalar<bool>(b));
      }
    }
  }
  for (bool a : {false, true}) {
    OpRunner fused("_FusedScalars", ProgramAttrs({DT_BOOL}, {DT_BOOL},
                                                 {"LogicalNot"}, {0, -1}, {1}));
    auto out = fused.Run({AsScalar<bool>(a)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<bool>()[0], !a);
  }
}

// A later step reads the wrapped int32 sum, as the next node would: the
// largest int32 plus one is below zero.
TEST(CpuFusedScalarsTest, LaterStepsReadWrappedValues) {
  OpRunner add("AddV2");
  auto sum = add.Run({AsScalar<int32_t>(std::numeric_limits<int32_t>::max()),
                      AsScalar<int32_t>(1)});
  ASSERT_TRUE(sum.ok()) << sum.status();
  OpRunner less("Less");
  auto expected = less.Run({(*sum)[0], AsScalar<int32_t>(0)});
  ASSERT_TRUE(expected.ok()) << expected.status();
  OpRunner fused("_FusedScalars",
                 ProgramAttrs({DT_INT32, DT_INT32, DT_INT32}, {DT_BOOL},
                              {"AddV2", "Less"}, {0, 1, 3, 2}, {4}));
  auto out = fused.Run({AsScalar<int32_t>(std::numeric_limits<int32_t>::max()),
                        AsScalar<int32_t>(1), AsScalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*expected)[0].data<bool>()[0]);
  EXPECT_EQ((*out)[0].data<bool>()[0], (*expected)[0].data<bool>()[0]);
}

// A TensorFlow 2 loop step's counters and cond: i + 1, step + 1, then
// (step + 1 < max) && (i + 1 < n); outputs the cond and both counters.
TEST(CpuFusedScalarsTest, ALoopStepsCountersAndCond) {
  const AttrMap attrs =
      ProgramAttrs({DT_INT32, DT_INT32, DT_INT32, DT_INT32, DT_INT32},
                   {DT_BOOL, DT_INT32, DT_INT32},
                   {"AddV2", "AddV2", "Less", "Less", "LogicalAnd"},
                   // inputs: 0 i, 1 step, 2 one, 3 max, 4 n
                   {0, 2, 1, 2, 6, 3, 5, 4, 7, 8}, {9, 5, 6});
  struct Case {
    int32_t i, step, max, n;
    bool holds;
  };
  for (const Case& c : {Case{0, 0, 10, 32, true}, Case{31, 31, 100, 32, false},
                        Case{5, 9, 10, 32, false}, Case{-3, 2, 10, 32, true}}) {
    OpRunner fused("_FusedScalars", attrs);
    auto out = fused.Run({AsScalar<int32_t>(c.i), AsScalar<int32_t>(c.step),
                          AsScalar<int32_t>(1), AsScalar<int32_t>(c.max),
                          AsScalar<int32_t>(c.n)});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 3u);
    EXPECT_EQ((*out)[0].data<bool>()[0], c.holds) << c.i << " " << c.step;
    EXPECT_EQ((*out)[1].data<int32_t>()[0], c.i + 1);
    EXPECT_EQ((*out)[2].data<int32_t>()[0], c.step + 1);
  }
}

// Outputs may take the buffers of inputs handed over (as a loop step's
// counters are): i + 1 lands in i's buffer, while i * 2, computed from
// the same i, still sees the value i came with; an input the caller keeps
// is never written.
TEST(CpuFusedScalarsTest, OutputsTakeInputsHandedOver) {
  const AttrMap attrs = ProgramAttrs({DT_INT32, DT_INT32}, {DT_INT32, DT_INT32},
                                     {"AddV2", "Mul"}, {0, 1, 0, 1}, {2, 3});
  // inputs: 0 i, 1 c; steps: 2 = i + c, 3 = i * c.
  Tensor i = AsScalar<int32_t>(7);
  const void* i_buffer = i.raw_data();
  OpRunner fused("_FusedScalars", attrs);
  auto out = fused.Run(test::Inputs(std::move(i), AsScalar<int32_t>(2)));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 9);
  EXPECT_EQ((*out)[1].data<int32_t>()[0], 14);
  EXPECT_TRUE((*out)[0].raw_data() == i_buffer ||
              (*out)[1].raw_data() == i_buffer);

  const Tensor kept = AsScalar<int32_t>(7);
  out = fused.Run({kept, AsScalar<int32_t>(2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 9);
  EXPECT_EQ((*out)[1].data<int32_t>()[0], 14);
  EXPECT_EQ(kept.data<int32_t>()[0], 7);
  EXPECT_NE((*out)[0].raw_data(), kept.raw_data());
  EXPECT_NE((*out)[1].raw_data(), kept.raw_data());
}

TEST(CpuFusedScalarsTest, BadProgramsAndInputsAreErrors) {
  struct Case {
    AttrMap attrs;
    const char* expected;
  };
  const Case cases[] = {
      {ProgramAttrs({DT_INT32}, {DT_INT32}, {"RealDiv"}, {0, 0}, {1}),
       "'RealDiv' is not a scalar op it runs"},
      {ProgramAttrs({DT_INT32}, {DT_BOOL}, {"LogicalAnd"}, {0, 0}, {1}),
       "step 0 (LogicalAnd) reads int32 and int32, which it does not take"},
      {ProgramAttrs({DT_INT32}, {DT_INT32}, {"Less"}, {0, 0}, {1}),
       "output 0 is step 0's bool, but attr 'Tout' says int32"},
      {ProgramAttrs({DT_INT32}, {DT_INT32}, {"AddV2"}, {0, 1}, {1}),
       "step 0 (AddV2) of attr 'ops' reads registers 0 and 1"},
      {ProgramAttrs({DT_FLOAT}, {DT_FLOAT}, {"AddV2"}, {0, 0}, {1}),
       "input 0 of attr 'Tin' is float"},
  };
  for (const Case& c : cases) {
    OpRunner fused("_FusedScalars", c.attrs);
    const bool float_input =
        std::string(c.expected).find("float") != std::string::npos;
    auto out =
        fused.Run({float_input ? AsScalar<float>(1) : AsScalar<int32_t>(1)});
    ASSERT_FALSE(out.ok()) << c.expected;
    EXPECT_NE(out.status().message().find(c.expected), std::string::npos)
        << out.status();
  }
  // At run time every input must be a scalar.
  OpRunner fused("_FusedScalars", ProgramAttrs({DT_INT32, DT_INT32}, {DT_INT32},
                                               {"AddV2"}, {0, 1}, {2}));
  Tensor vector(DT_INT32, TensorShape({1}));
  vector.data<int32_t>()[0] = 4;
  auto out = fused.Run({AsScalar<int32_t>(1), vector});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("input 1 has shape [1]"),
            std::string::npos)
      << out.status();
}

}  // namespace
}  // namespace weft
