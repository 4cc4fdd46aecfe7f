// Every CUDA kernel against the CPU kernel of the same op, on the same
// random inputs, across shapes (scalars, empty tensors, broadcasting, large)
// and dtypes (float, half). One table; each row x dtype is its own test, so
// a failure names the op, the shapes and the dtype.
//
// Without a usable GPU (or in a build without CUDA) every comparison skips
// with discovery's reason; the registration checks below still run.
#include <cmath>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "ops/op_registry.h"
#include "tests/kernels/cuda_kernel_cases.h"
#include "tests/kernels/cuda_kernel_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {

Tensor RandomTensor(DataType dtype, const TensorShape& shape, Values kind,
                    std::mt19937* rng) {
  std::vector<double> v(shape.num_elements());
  std::uniform_real_distribution<double> u(0, 1);
  for (double& x : v) {
    const double r = u(*rng);
    switch (kind) {
      case Values::kSigned:
        x = 2 * r - 1;
        break;
      case Values::kWide:
        x = 8 * r - 4;
        break;
      case Values::kPositive:
        x = 0.1 + 1.9 * r;
        break;
      case Values::kNonZero:
        x = (0.5 + 1.5 * r) * (u(*rng) < 0.5 ? -1 : 1);
        break;
    }
  }
  return AsTensorOfType(dtype, v, shape);
}

namespace {

std::string ShapeName(const TensorShape& s) {
  if (s.dims() == 0) return "scalar";
  std::vector<int64_t> dims;
  for (int i = 0; i < s.dims(); ++i) dims.push_back(s.dim_size(i));
  return absl::StrJoin(dims, "x");
}

std::vector<Case> UnaryCases() {
  struct Op {
    const char* name;
    Values values;
    // Exact ops match bit for bit; transcendental ones differ by the few
    // ulps between CUDA's libdevice and Eigen's polynomial approximations.
    double ulps;
  };
  const Op ops[] = {
      {"Neg", Values::kSigned, 0},
      {"Abs", Values::kSigned, 0},
      {"Exp", Values::kWide, 16},
      {"Log", Values::kPositive, 16},
      {"Sqrt", Values::kPositive, 2},
      {"Rsqrt", Values::kPositive, 4},
      {"Tanh", Values::kWide, 16},
      {"Sigmoid", Values::kWide, 16},
      {"Relu", Values::kSigned, 0},
      {"Relu6", Values::kWide, 0},
      {"Elu", Values::kWide, 16},
      // One correctly rounded step (or none) on both sides: exact.
      {"Square", Values::kWide, 0},
      {"Reciprocal", Values::kNonZero, 0},
      {"Floor", Values::kWide, 0},
      {"Ceil", Values::kWide, 0},
      {"Round", Values::kWide, 0},
      // libdevice against Eigen: a few ulps each (Selu's exp(x) - 1
      // cancels near 0, which atol covers).
      {"Erf", Values::kWide, 16},
      {"Erfc", Values::kWide, 16},
      {"Sin", Values::kWide, 16},
      {"Cos", Values::kWide, 16},
      {"Softplus", Values::kWide, 16},
      {"Selu", Values::kWide, 16},
  };
  const std::vector<TensorShape> shapes = {
      TensorShape(), TensorShape({0}), TensorShape({7}), TensorShape({3, 5}),
      TensorShape({2, 3, 4, 5}),
      // Over a million elements: more than one pass of the grid-stride loop.
      TensorShape({(1 << 20) + 3})};
  std::vector<Case> cases;
  for (const Op& op : ops) {
    for (const TensorShape& s : shapes) {
      Case c;
      c.op = op.name;
      c.shapes = {s};
      c.values = {op.values};
      c.atol_ulps = op.ulps;
      c.rtol_ulps = op.ulps;
      cases.push_back(c);
    }
  }
  // LeakyRelu with its default alpha, another below 1 and one above 1 (x *
  // alpha, exact on both sides with alpha rounded to T).
  for (const float alpha : {0.2f, 0.01f, 1.5f}) {
    for (const TensorShape& s : shapes) {
      Case c;
      c.op = "LeakyRelu";
      c.shapes = {s};
      c.values = {Values::kWide};
      c.attrs["alpha"] = AttrValue::Float(alpha);
      c.label = absl::StrCat("alpha_", static_cast<int>(alpha * 100));
      c.atol_ulps = 0;
      c.rtol_ulps = 0;
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<Case> BinaryCases() {
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {TensorShape({3, 5}), TensorShape({3, 5})},
      {TensorShape(), TensorShape({3, 5})},
      {TensorShape({3, 5}), TensorShape()},
      {TensorShape(), TensorShape()},
      {TensorShape({3, 1}), TensorShape({1, 5})},
      {TensorShape({2, 3, 4}), TensorShape({4})},
      {TensorShape({8, 1, 3, 4}), TensorShape({3, 4})},
      {TensorShape({2, 1, 3, 1, 5}), TensorShape({1, 4, 1, 6, 1})},
      {TensorShape({0, 5}), TensorShape({5})},
      {TensorShape({4, 0}), TensorShape({4, 0})},
      {TensorShape({1024, 1025}), TensorShape({1025})},
      {TensorShape({1}), TensorShape({(1 << 20) + 3})},
  };
  std::vector<Case> cases;
  for (const char* op : {"AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum",
                         "SquaredDifference", "Pow", "FloorDiv", "FloorMod"}) {
    const std::string name = op;
    for (const auto& [x, y] : shapes) {
      Case c;
      c.op = op;
      c.shapes = {x, y};
      const bool div =
          name == "RealDiv" || name == "FloorDiv" || name == "FloorMod";
      c.values = {name == "Pow" ? Values::kPositive : Values::kSigned,
                  div ? Values::kNonZero : Values::kSigned};
      if (name == "Pow") {
        // CUDA's powf against the C library's: a few ulps.
        c.atol_ulps = 16;
        c.rtol_ulps = 16;
      } else if (name == "SquaredDifference" || name == "FloorDiv" ||
                 name == "FloorMod") {
        // Each step correctly rounded (to T where the CPU rounds to T):
        // exact.
        c.atol_ulps = 0;
        c.rtol_ulps = 0;
      }
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<Case> BiasAddCases() {
  struct Shape {
    TensorShape value;
    int64_t channels;
    const char* format;
  };
  const Shape shapes[] = {
      {TensorShape({4, 3}), 3, "NHWC"},
      {TensorShape({2, 3, 4, 5}), 5, "NHWC"},
      {TensorShape({2, 3, 4, 5}), 3, "NCHW"},
      {TensorShape({0, 3}), 3, "NHWC"},
      {TensorShape({8, 32, 32, 64}), 64, "NHWC"},
  };
  std::vector<Case> cases;
  for (const Shape& s : shapes) {
    Case c;
    c.op = "BiasAdd";
    c.shapes = {s.value, TensorShape({s.channels})};
    c.values = {Values::kSigned, Values::kSigned};
    c.attrs["data_format"] = AttrValue::String(s.format);
    cases.push_back(c);
  }
  return cases;
}

std::vector<Case> MatMulCases() {
  struct Shape {
    int64_t m, k, n;
    bool ta, tb;
  };
  const Shape shapes[] = {
      {3, 4, 5, false, false},      {3, 4, 5, true, false},
      {3, 4, 5, false, true},       {3, 4, 5, true, true},
      {0, 4, 5, false, false},      {3, 0, 5, false, false},
      {1, 128, 1, false, false},    {64, 128, 96, false, false},
      {257, 513, 129, false, true},
  };
  std::vector<Case> cases;
  for (const Shape& s : shapes) {
    Case c;
    c.op = "MatMul";
    c.shapes = {s.ta ? TensorShape({s.k, s.m}) : TensorShape({s.m, s.k}),
                s.tb ? TensorShape({s.n, s.k}) : TensorShape({s.k, s.n})};
    c.values = {Values::kSigned, Values::kSigned};
    c.attrs["transpose_a"] = AttrValue::Bool(s.ta);
    c.attrs["transpose_b"] = AttrValue::Bool(s.tb);
    // Sums of k products in float on both sides (half rounded once), in
    // another order than the CPU's: the error grows with k.
    c.atol_ulps = 4.0 * std::max<int64_t>(s.k, 1);
    c.rtol_ulps = 8;
    c.float_compute = true;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace

std::vector<Case> CwiseCases() {
  std::vector<Case> all;
  for (auto part :
       {UnaryCases(), BinaryCases(), BiasAddCases(), MatMulCases()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

std::vector<Case> AllCases() {
  std::vector<Case> all;
  for (auto part :
       {CwiseCases(), ArrayCases(), ReduceCases(), NnCases(), SliceCases()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

std::vector<Tensor> CaseInputs(const Case& c, DataType dtype) {
  std::mt19937 rng(12345);
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    auto fixed = c.fixed.find(static_cast<int>(i));
    if (fixed != c.fixed.end()) {
      inputs.push_back(fixed->second);
    } else {
      inputs.push_back(RandomTensor(dtype, c.shapes[i], c.values[i], &rng));
    }
  }
  return inputs;
}

std::vector<DataType> CaseInputTypes(const Case& c, DataType dtype) {
  std::vector<DataType> types;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    auto fixed = c.fixed.find(static_cast<int>(i));
    types.push_back(fixed != c.fixed.end() ? fixed->second.dtype() : dtype);
  }
  return types;
}

namespace {

struct Param {
  Case c;
  DataType dtype;
};

// What gtest prints for a parameter: the test name says it all already.
void PrintTo(const Param& p, std::ostream* os) {
  *os << p.c.op << " " << DataTypeName(p.dtype);
}

std::vector<Param> AllParams() {
  std::vector<Param> params;
  for (const Case& c : AllCases()) {
    for (DataType dt : c.dtypes) params.push_back({c, dt});
  }
  return params;
}

std::string ParamName(const testing::TestParamInfo<Param>& info) {
  const Param& p = info.param;
  std::vector<std::string> shapes;
  for (const TensorShape& s : p.c.shapes) shapes.push_back(ShapeName(s));
  // Rows with many inputs (ConcatV2 of 150) name the first and a count, so
  // that test names stay readable in ctest's output.
  if (shapes.size() > 4) {
    const size_t more = shapes.size() - 1;
    shapes.resize(1);
    shapes.push_back(absl::StrCat("and", more, "more"));
  }
  std::string name = absl::StrCat(p.c.op, "_", absl::StrJoin(shapes, "_"));
  for (const char* attr : {"transpose_a", "transpose_b"}) {
    auto it = p.c.attrs.find(attr);
    if (it != p.c.attrs.end() && it->second.b) {
      absl::StrAppend(&name, "_T", std::string(1, attr[10]));
    }
  }
  auto f = p.c.attrs.find("data_format");
  if (f != p.c.attrs.end()) absl::StrAppend(&name, "_", f->second.s);
  if (!p.c.label.empty()) absl::StrAppend(&name, "_", p.c.label);
  // Test names must be unique and alphanumeric or '_'.
  return absl::StrCat(name, "_", DataTypeName(p.dtype), "_", info.index);
}

class CudaKernelVsCpuTest : public testing::TestWithParam<Param> {};

TEST_P(CudaKernelVsCpuTest, MatchesCpuKernel) {
  if (std::string why = CudaTestSkipReason(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  const Param& p = GetParam();
  std::vector<Tensor> inputs = CaseInputs(p.c, p.dtype);
  OpRunner cpu(p.c.op, p.c.attrs);
  cpu.set_forwardable(false);
  StatusOr<std::vector<Tensor>> want = cpu.Run(inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  CudaOpRunner gpu(p.c.op, p.c.attrs);
  StatusOr<std::vector<Tensor>> got = gpu.Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), want->size());
  const Tolerance tol = CaseTolerance(p.c, p.dtype);
  for (size_t i = 0; i < got->size(); ++i) {
    EXPECT_TRUE(WithinTolerance((*got)[i], (*want)[i], tol)) << "output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernels, CudaKernelVsCpuTest,
                         testing::ValuesIn(AllParams()), ParamName);

// Runs without a GPU: every row of the table finds a CUDA kernel for each
// of its dtypes in a CUDA build, and none in a build without CUDA.
TEST(CudaKernelRegistrationTest, EveryTableRowHasCudaKernels) {
  for (const Case& c : AllCases()) {
    auto reg = OpRegistry::Global()->LookUp(c.op);
    ASSERT_TRUE(reg.ok()) << reg.status();
    for (DataType dt : c.dtypes) {
      const std::vector<DataType> input_types = CaseInputTypes(c, dt);
      NodeDef node;
      NodeTypes types;
      ASSERT_TRUE(MakeTestNode(c.op, c.attrs, input_types, &node, &types).ok())
          << c.op;
      auto found = KernelRegistry::Global()->FindKernel(node, (*reg)->op_def,
                                                        DEVICE_CUDA);
#if WEFT_HAVE_CUDA
      EXPECT_TRUE(found.ok())
          << c.op << " " << DataTypeName(dt) << ": " << found.status();
#else
      EXPECT_FALSE(found.ok()) << c.op << " has a CUDA kernel in a build "
                               << "without CUDA";
#endif
    }
  }
}

// CaseInputTypes is what the registration check above looks kernels up
// with: it must name the dtypes CaseInputs gives. Every 25th row (the table
// mixes fixed index inputs and drawn ones throughout), for each of its dtypes.
TEST(CudaKernelRegistrationTest, CaseInputTypesAreTheDtypesOfCaseInputs) {
  const std::vector<Case> cases = AllCases();
  int rows_with_fixed_inputs = 0;
  for (size_t r = 0; r < cases.size(); r += 25) {
    const Case& c = cases[r];
    if (!c.fixed.empty()) ++rows_with_fixed_inputs;
    for (DataType dt : c.dtypes) {
      std::vector<DataType> drawn;
      for (const Tensor& t : CaseInputs(c, dt)) drawn.push_back(t.dtype());
      EXPECT_EQ(CaseInputTypes(c, dt), drawn)
          << c.op << " " << DataTypeName(dt);
    }
  }
  EXPECT_GT(rows_with_fixed_inputs, 0);
}

TEST(CudaKernelRegistrationTest, SkipReasonIsGivenWithoutGpu) {
  // On a machine with a GPU the reason is empty; otherwise it must say
  // something a user can act on (discovery's message).
  std::string why = CudaTestSkipReason();
  if (!why.empty()) {
    EXPECT_NE(why.find("CUDA"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace weft::test
