// Select and SelectV2 against a reference written here (per output index,
// read the condition, t and e at their broadcast positions), for every
// registered dtype, the shape rules of each op and their errors.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_select_test {

using test::AsScalar;
using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

StatusOr<Tensor> RunSelect(const std::string& op, std::vector<Tensor> in,
                           int threads = 0) {
  OpRunner runner(op, {}, threads);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run(std::move(in)));
  return out[0];
}

Tensor MustSelect(const std::string& op, std::vector<Tensor> in,
                  int threads = 0) {
  StatusOr<Tensor> out = RunSelect(op, std::move(in), threads);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : Tensor();
}

// NumPy broadcasting of the three shapes by brute force.
Tensor Reference(const Tensor& c, const Tensor& t, const Tensor& e) {
  const Tensor* in[] = {&c, &t, &e};
  int rank = 0;
  for (const Tensor* x : in) rank = std::max(rank, x->dims());
  std::vector<std::vector<int64_t>> dims(3, std::vector<int64_t>(rank, 1));
  std::vector<int64_t> od(rank, 1);
  TensorShape shape;
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < in[k]->dims(); ++i) {
      dims[k][rank - in[k]->dims() + i] = in[k]->dim_size(i);
    }
  }
  for (int d = 0; d < rank; ++d) {
    for (int k = 0; k < 3; ++k) {
      if (dims[k][d] != 1) od[d] = dims[k][d];
    }
    EXPECT_TRUE(shape.AddDim(od[d]).ok());
  }
  const std::vector<double> cv = ToDoubles(c), tv = ToDoubles(t),
                            ev = ToDoubles(e);
  std::vector<double> out;
  std::vector<int64_t> idx(rank);
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    int64_t r = i;
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = r % od[d];
      r /= od[d];
    }
    int64_t at[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
      for (int d = 0; d < rank; ++d) {
        at[k] = at[k] * dims[k][d] + (dims[k][d] == 1 ? 0 : idx[d]);
      }
    }
    out.push_back(cv[at[0]] != 0 ? tv[at[1]] : ev[at[2]]);
  }
  return AsTensorOfType(t.dtype(), out, shape);
}

Tensor Random(DataType dt, const TensorShape& shape, std::mt19937* rng) {
  std::uniform_int_distribution<int> v(dt == DT_BOOL ? 0 : -50,
                                       dt == DT_BOOL ? 1 : 50);
  std::vector<double> values;
  for (int64_t i = 0; i < shape.num_elements(); ++i) values.push_back(v(*rng));
  return AsTensorOfType(dt, values, shape);
}

const DataType kTypes[] = {DT_HALF,  DT_BFLOAT16, DT_FLOAT, DT_DOUBLE,
                           DT_INT32, DT_INT64,    DT_BOOL};

TEST(SelectTest, SameShapesEveryDtype) {
  std::mt19937 rng(1);
  for (const char* op : {"Select", "SelectV2"}) {
    for (DataType dt : kTypes) {
      SCOPED_TRACE(std::string(op) + " " + DataTypeName(dt));
      const Tensor c = Random(DT_BOOL, {3, 4}, &rng);
      const Tensor t = Random(dt, {3, 4}, &rng);
      const Tensor e = Random(dt, {3, 4}, &rng);
      ExpectTensorEqual(MustSelect(op, {c, t, e}), Reference(c, t, e));
    }
  }
}

TEST(SelectTest, SelectScalarAndRowConditions) {
  std::mt19937 rng(2);
  const Tensor t = Random(DT_FLOAT, {3, 2, 2}, &rng);
  const Tensor e = Random(DT_FLOAT, {3, 2, 2}, &rng);
  // A scalar condition picks a whole input, passed through.
  StatusOr<Tensor> all_t = RunSelect("Select", {AsScalar<bool>(true), t, e});
  ASSERT_TRUE(all_t.ok()) << all_t.status();
  EXPECT_EQ(all_t->raw_data(), t.raw_data());
  ExpectTensorEqual(MustSelect("Select", {AsScalar<bool>(false), t, e}), e);
  // A vector condition picks rows: as if it had shape [3, 1, 1].
  const Tensor rows = AsTensor<bool>({true, false, true}, {3});
  ExpectTensorEqual(
      MustSelect("Select", {rows, t, e}),
      Reference(AsTensor<bool>({true, false, true}, {3, 1, 1}), t, e));
  // A vector condition with vector branches is element-wise.
  const Tensor tv = Random(DT_INT32, {3}, &rng);
  const Tensor ev = Random(DT_INT32, {3}, &rng);
  ExpectTensorEqual(MustSelect("Select", {rows, tv, ev}),
                    Reference(rows, tv, ev));
  // Empty.
  EXPECT_EQ(
      MustSelect("Select", {AsTensor<bool>({}, {0}), Tensor(DT_FLOAT, {0, 4}),
                            Tensor(DT_FLOAT, {0, 4})})
          .shape(),
      TensorShape({0, 4}));
}

TEST(SelectTest, SelectShapeErrors) {
  const Tensor t = Tensor(DT_FLOAT, {3, 2});
  struct Case {
    Tensor c, t, e;
    const char* message;
  };
  const std::vector<Case> cases = {
      {Tensor(DT_BOOL, {3, 2}), t, Tensor(DT_FLOAT, {2, 3}), "same shape"},
      {AsScalar<bool>(true), t, Tensor(DT_FLOAT, {3}), "same shape"},
      {Tensor(DT_BOOL, {2}), t, t, "first dimension"},
      {Tensor(DT_BOOL, {3, 1}), t, t, "condition must be"},
      {Tensor(DT_BOOL, {2}), Tensor(DT_FLOAT, {3}), Tensor(DT_FLOAT, {3}),
       "condition must be"},
      {Tensor(DT_BOOL, {3}), AsScalar<float>(1), AsScalar<float>(2),
       "at least a vector"},
  };
  for (const Case& c : cases) {
    StatusOr<Tensor> out = RunSelect("Select", {c.c, c.t, c.e});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(out.status().message(), c.message))
        << out.status();
    EXPECT_TRUE(absl::StrContains(out.status().message(), "(Select)"))
        << out.status();
  }
}

TEST(SelectTest, SelectV2BroadcastsAllThree) {
  std::mt19937 rng(3);
  struct Shapes {
    TensorShape c, t, e;
  };
  const std::vector<Shapes> shapes = {
      {{}, {2, 3}, {2, 3}},
      {{2, 1}, {2, 3}, {1, 3}},
      {{1, 3, 1}, {2, 1, 1}, {4}},
      {{2, 2}, {}, {}},
      {{3}, {2, 3}, {2, 3}},
      {{2, 1, 2, 1, 3}, {1, 2, 1, 2, 1}, {2, 2, 2, 2, 3}},
      {{1, 2, 1, 2, 1, 2, 3}, {2, 1, 2, 1, 2, 1, 3}, {1}},
      {{0, 3}, {1, 3}, {1}},
      {{}, {}, {}},
      // A tensor against one value, and one value against a tensor, with
      // the condition broadcast over a middle dimension (an attention
      // mask).
      {{2, 1, 5, 7}, {2, 3, 5, 7}, {}},
      {{2, 1, 5, 7}, {}, {2, 3, 5, 7}},
  };
  for (DataType dt : kTypes) {
    for (const Shapes& s : shapes) {
      SCOPED_TRACE(std::string(DataTypeName(dt)) + " " + s.c.DebugString() +
                   s.t.DebugString() + s.e.DebugString());
      const Tensor c = Random(DT_BOOL, s.c, &rng);
      const Tensor t = Random(dt, s.t, &rng);
      const Tensor e = Random(dt, s.e, &rng);
      ExpectTensorEqual(MustSelect("SelectV2", {c, t, e}), Reference(c, t, e));
    }
  }
}

TEST(SelectTest, SelectV2ShapeErrorNamesAllThree) {
  StatusOr<Tensor> out = RunSelect(
      "SelectV2",
      {Tensor(DT_BOOL, {2}), Tensor(DT_FLOAT, {3}), Tensor(DT_FLOAT, {3})});
  ASSERT_FALSE(out.ok());
  const std::string msg(out.status().message());
  EXPECT_TRUE(absl::StrContains(
      msg,
      "condition has shape [2], t has shape [3] and e has shape [3], "
      "which do not broadcast: in dimension 0 of the rank-1 result "
      "condition has size 2 and t has size 3"))
      << msg;
  EXPECT_TRUE(absl::StrContains(msg, "(SelectV2)")) << msg;
}

TEST(SelectTest, LargeInputsMatchOnTwoThreads) {
  std::mt19937 rng(4);
  const std::vector<std::vector<TensorShape>> shapes = {
      {{400001}, {400001}, {400001}},
      {{1000, 1}, {1000, 500}, {500}},
      {{}, {300000}, {1}},
      {{3, 1, 50000}, {1, 4, 1}, {3, 4, 50000}}};
  for (DataType dt : {DT_FLOAT, DT_HALF, DT_INT64, DT_BOOL}) {
    for (const auto& s : shapes) {
      SCOPED_TRACE(DataTypeName(dt) + " " + s[1].DebugString());
      const Tensor c = Random(DT_BOOL, s[0], &rng);
      const Tensor t = Random(dt, s[1], &rng);
      const Tensor e = Random(dt, s[2], &rng);
      const Tensor one = MustSelect("SelectV2", {c, t, e}, 0);
      ExpectTensorEqual(MustSelect("SelectV2", {c, t, e}, 2), one);
      if (s[1].num_elements() < 1000000) {
        ExpectTensorEqual(one, Reference(c, t, e));
      }
    }
  }
}

// An unshared t or e that covers the output becomes it.
TEST(SelectTest, ForwardsAnUnsharedBranch) {
  OpRunner runner("SelectV2");
  const Tensor c = AsTensor<bool>({true, false, true}, {3});
  Tensor e = AsTensor<float>({4, 5, 6}, {3});
  const void* e_buffer = e.raw_data();
  StatusOr<std::vector<Tensor>> out =
      runner.Run(test::Inputs(c, AsScalar<float>(1), std::move(e)));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].raw_data(), e_buffer);
  ExpectTensorEqual((*out)[0], AsTensor<float>({1, 5, 1}, {3}));
}

TEST(SelectTest, UnservedDtypeIsRefused) {
  StatusOr<Tensor> out = RunSelect(
      "SelectV2", {AsScalar<bool>(true), AsTensorOfType(DT_UINT8, {1}, {1}),
                   AsTensorOfType(DT_UINT8, {2}, {1})});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(), "no kernel"))
      << out.status();
}

}  // namespace cpu_select_test
}  // namespace weft
