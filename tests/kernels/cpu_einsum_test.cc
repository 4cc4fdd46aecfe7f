// Einsum against the definition, evaluated here by brute force: every
// assignment of values to all labels of the equation (the dimensions of
// "..." aligned at the right and broadcast, a size-1 dimension reading index
// 0) adds the product of the inputs' elements to the output element its
// output labels select. The sums are in long double, or in wrapping 64-bit
// arithmetic for integers.
//
// On grid values (quarters in [-2, 2], at most a few dozen terms) every
// partial sum is exact in the accumulation precision (float for half and
// bfloat16), so the kernel must give the exact value rounded once to the
// dtype, bit for bit, whatever its summation order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_einsum_test {

using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

StatusOr<Tensor> Einsum(const std::string& equation,
                        const std::vector<Tensor>& inputs, int threads = 0) {
  AttrMap attrs;
  attrs["equation"] = AttrValue::String(equation);
  StatusOr<std::vector<Tensor>> out =
      OpRunner("Einsum", attrs, threads).Run(inputs);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Labels as ints: characters, and 1000 + position for the dimensions of
// "..." (aligned at the right across all subscripts).
std::vector<int> Expand(const std::string& sub, int rank, int ellipsis_rank) {
  std::vector<int> labels;
  const size_t ell = sub.find("...");
  const int named =
      static_cast<int>(sub.size()) - (ell == std::string::npos ? 0 : 3);
  const int own = rank - named;
  for (size_t k = 0; k < sub.size(); ++k) {
    if (k == ell) {
      for (int e = 0; e < own; ++e) {
        labels.push_back(1000 + ellipsis_rank - own + e);
      }
      k += 2;
    } else {
      labels.push_back(static_cast<unsigned char>(sub[k]));
    }
  }
  return labels;
}

struct Reference {
  TensorShape shape;
  std::vector<long double> value;
  std::vector<uint64_t> wrapped;
};

Reference BruteForce(const std::string& equation,
                     const std::vector<Tensor>& inputs) {
  const std::vector<std::string> sides = absl::StrSplit(equation, "->");
  const std::vector<std::string> subs = absl::StrSplit(sides[0], ',');
  int ellipsis_rank = 0;
  for (size_t i = 0; i < subs.size(); ++i) {
    if (subs[i].find("...") != std::string::npos) {
      ellipsis_rank = std::max<int>(
          ellipsis_rank,
          inputs[i].dims() - static_cast<int>(subs[i].size() - 3));
    }
  }
  std::vector<std::vector<int>> in_labels;
  std::map<int, int64_t> size;
  for (size_t i = 0; i < subs.size(); ++i) {
    in_labels.push_back(Expand(subs[i], inputs[i].dims(), ellipsis_rank));
    for (int d = 0; d < inputs[i].dims(); ++d) {
      int64_t& s = size[in_labels[i][d]];
      s = std::max(s, inputs[i].dim_size(d));
    }
  }
  const std::vector<int> out_labels = Expand(
      sides[1],
      static_cast<int>(sides[1].size()) -
          (sides[1].find("...") == std::string::npos ? 0 : 3) + ellipsis_rank,
      ellipsis_rank);
  std::vector<int64_t> out_dims;
  for (int l : out_labels) out_dims.push_back(size[l]);
  Reference r;
  r.shape = *TensorShape::Build(out_dims);
  r.value.assign(r.shape.num_elements(), 0);
  r.wrapped.assign(r.shape.num_elements(), 0);
  std::vector<std::vector<double>> values;
  for (const Tensor& t : inputs) values.push_back(ToDoubles(t));
  std::vector<int> labels;
  for (const auto& [l, s] : size) labels.push_back(l);
  std::map<int, int64_t> at;
  for (int l : labels) at[l] = 0;
  int64_t total = 1;
  for (int l : labels) total *= size[l];
  for (int64_t step = 0; step < total; ++step) {
    long double product = 1;
    uint64_t wrapped = 1;
    for (size_t i = 0; i < inputs.size(); ++i) {
      // A repeated label reads the same index in each of its dimensions:
      // the diagonal.
      int64_t offset = 0;
      for (int d = 0; d < inputs[i].dims(); ++d) {
        const int l = in_labels[i][d];
        const int64_t idx = inputs[i].dim_size(d) == 1 ? 0 : at[l];
        offset = offset * inputs[i].dim_size(d) + idx;
      }
      product *= values[i][offset];
      wrapped *= static_cast<uint64_t>(static_cast<int64_t>(values[i][offset]));
    }
    int64_t o = 0;
    for (size_t p = 0; p < out_labels.size(); ++p) {
      o = o * out_dims[p] + at[out_labels[p]];
    }
    r.value[o] += product;
    r.wrapped[o] += wrapped;
    for (int k = static_cast<int>(labels.size()) - 1; k >= 0; --k) {
      if (++at[labels[k]] < size[labels[k]]) break;
      at[labels[k]] = 0;
    }
  }
  return r;
}

Tensor Expected(DataType dt, const Reference& r) {
  if (dt == DT_INT32) {
    std::vector<int32_t> v;
    for (uint64_t w : r.wrapped) {
      v.push_back(static_cast<int32_t>(static_cast<uint32_t>(w)));
    }
    return AsTensor<int32_t>(v, r.shape);
  }
  if (dt == DT_INT64) {
    std::vector<int64_t> v;
    for (uint64_t w : r.wrapped) v.push_back(static_cast<int64_t>(w));
    return AsTensor<int64_t>(v, r.shape);
  }
  return AsTensorOfType(dt, std::vector<double>(r.value.begin(), r.value.end()),
                        r.shape);
}

struct Case {
  std::string equation;
  std::vector<TensorShape> shapes;
};

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      // What Keras' MultiHeadAttention and EinsumDense emit.
      {"abc,cd->abd", {{2, 3, 4}, {4, 5}}},
      {"abcd,cde->abe", {{2, 3, 4, 5}, {4, 5, 6}}},
      {"abc,cde->abde", {{2, 3, 4}, {4, 5, 6}}},
      {"aecd,abcd->acbe", {{2, 3, 4, 5}, {2, 6, 4, 5}}},
      {"acbe,aecd->abcd", {{2, 4, 6, 3}, {2, 3, 4, 5}}},
      // The attention products read in place with a matrix dimension of
      // size 1, and with batch dimensions broadcast.
      {"aecd,abcd->acbe", {{2, 1, 4, 5}, {2, 6, 4, 5}}},
      {"acbe,aecd->abcd", {{2, 4, 1, 3}, {2, 3, 4, 5}}},
      {"aecd,abcd->acbe", {{2, 3, 4, 1}, {2, 6, 4, 1}}},
      {"...bd,...ed->...be", {{2, 1, 3, 4}, {5, 6, 4}}},
      {"ab,bc->ac", {{3, 4}, {4, 5}}},
      // Batch labels, adjoint operands, swapped roles, a final permutation.
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},
      {"bij,bkj->bik", {{2, 3, 4}, {2, 5, 4}}},
      {"bji,bjk->bik", {{2, 4, 3}, {2, 4, 5}}},
      {"ibj,jbk->bik", {{3, 2, 4}, {4, 2, 5}}},
      {"ij,jk->ki", {{3, 4}, {4, 5}}},
      {"jk,ij->ik", {{4, 5}, {3, 4}}},
      {"abcd,cdbe->ae", {{2, 3, 4, 5}, {4, 5, 3, 2}}},
      // Elementwise, outer products, private labels summed out.
      {"ij,ij->ij", {{2, 3}, {2, 3}}},
      {"ij,ij->", {{2, 3}, {2, 3}}},
      {"i,j->ij", {{2}, {3}}},
      {"ij,kl->", {{2, 3}, {1, 2}}},
      {"ij,jk->k", {{2, 3}, {3, 4}}},
      // One operand: transposes, reductions, diagonals.
      {"ij->ji", {{2, 3}}},
      {"ijk->kji", {{2, 3, 4}}},
      {"ij->i", {{2, 3}}},
      {"ij->", {{2, 3}}},
      {"ii->i", {{3, 3}}},
      {"ii->", {{3, 3}}},
      {"iij->ij", {{2, 2, 3}}},
      {"iji->j", {{2, 3, 2}}},
      // Diagonals and repeated output labels with two operands.
      {"ii,ij->j", {{3, 3}, {3, 2}}},
      {"ij,jk->ikk", {{2, 3}, {3, 4}}},
      // Broadcast dimensions.
      {"...ij,...jk->...ik", {{2, 1, 2, 3}, {4, 3, 5}}},
      {"...j,...j->...", {{2, 3}, {1, 3}}},
      {"a...,a...->...", {{2, 3}, {2, 1}}},
      {"ab...,b->...a", {{2, 3, 4}, {3}}},
      {"...ii->...i", {{2, 3, 3}}},
      {"ij...,jk...->ik...", {{2, 3, 5}, {3, 4, 1}}},
      {"...ij,...jk->ik", {{2, 3}, {3, 5}}},
      {"...ij->...ji", {{2, 2, 3, 4}}},
      // Empty dimensions.
      {"ab,bc->ac", {{2, 0}, {0, 3}}},
      {"ab,bc->ac", {{0, 2}, {2, 3}}},
      {"ij->j", {{0, 3}}},
      {"bij,bjk->bik", {{0, 2, 3}, {0, 3, 4}}},
  };
  return *cases;
}

std::vector<double> Grid(DataType dt, int64_t n, std::mt19937* rng) {
  const bool integer = dt == DT_INT32 || dt == DT_INT64;
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<double> v(n);
  for (double& x : v) x = integer ? dist(*rng) : dist(*rng) / 4.0;
  return v;
}

template <typename T>
class EinsumTypedTest : public ::testing::Test {};
using Types = ::testing::Types<half, bfloat16, float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(EinsumTypedTest, Types);

TYPED_TEST(EinsumTypedTest, MatchesTheDefinition) {
  const DataType dt = DataTypeToEnum<TypeParam>::value;
  std::mt19937 rng(17);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.equation);
    std::vector<Tensor> inputs;
    for (const TensorShape& s : c.shapes) {
      inputs.push_back(AsTensorOfType(dt, Grid(dt, s.num_elements(), &rng), s));
    }
    StatusOr<Tensor> got = Einsum(c.equation, inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual(*got, Expected(dt, BruteForce(c.equation, inputs)));
  }
}

TEST(EinsumTest, IdentityEquationSharesTheInput) {
  const Tensor x = AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  StatusOr<Tensor> got = Einsum("ij->ij", {x});
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectTensorEqual(*got, x);
  EXPECT_TRUE(got->SharesBufferWith(x));
}

TEST(EinsumTest, AttentionShapesAreIdenticalAtEveryThreadCount) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> dist(-1, 1);
  const std::vector<Case> cases = {
      {"aecd,abcd->acbe", {{2, 64, 4, 16}, {2, 48, 4, 16}}},
      {"acbe,aecd->abcd", {{2, 4, 48, 64}, {2, 64, 4, 16}}},
      {"abc,cde->abde", {{4, 32, 64}, {64, 4, 16}}},
      {"abcd,cde->abe", {{4, 32, 4, 16}, {4, 16, 64}}},
      {"abc->c", {{64, 64, 64}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation);
    std::vector<Tensor> inputs;
    for (const TensorShape& s : c.shapes) {
      std::vector<double> v(s.num_elements());
      for (double& x : v) x = dist(rng);
      inputs.push_back(AsTensorOfType(DT_FLOAT, v, s));
    }
    StatusOr<Tensor> serial = Einsum(c.equation, inputs, 0);
    ASSERT_TRUE(serial.ok()) << serial.status();
    StatusOr<Tensor> parallel = Einsum(c.equation, inputs, 2);
    ASSERT_TRUE(parallel.ok()) << parallel.status();
    ExpectTensorEqual(*parallel, *serial);
    // And close to the definition (k-term dot products in float).
    const Reference r = BruteForce(c.equation, inputs);
    test::ExpectTensorNear(*serial, Expected(DT_FLOAT, r), 1e-4, 1e-4);
  }
}

TEST(EinsumTest, BadEquationsAndShapesAreErrorsNamingTheNode) {
  const Tensor a(DT_FLOAT, {2, 3});
  const Tensor b(DT_FLOAT, {4, 4});
  StatusOr<Tensor> size = Einsum("ij,jk->ik", {a, b});
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(std::string(size.status().message()),
            "node 'kernel_test/Einsum' (Einsum): label 'j' of einsum equation "
            "'ij,jk->ik' has size 3 elsewhere but dimension 0 of input 1 "
            "(shape [4,4]) is 4");
  StatusOr<Tensor> rank = Einsum("ijk,jk->i", {a, b});
  ASSERT_FALSE(rank.ok());
  EXPECT_TRUE(absl::StrContains(rank.status().message(),
                                "input 0 has shape [2,3] but subscript 'ijk'"))
      << rank.status();
  StatusOr<Tensor> diag = Einsum("ii->i", {a});
  ASSERT_FALSE(diag.ok());
  EXPECT_TRUE(absl::StrContains(diag.status().message(), "label 'i'"))
      << diag.status();
  StatusOr<Tensor> no_ellipsis =
      Einsum("...ij,...jk->ik",
             {Tensor(DT_FLOAT, {2, 2, 3}), Tensor(DT_FLOAT, {2, 3, 5})});
  ASSERT_FALSE(no_ellipsis.ok());
  EXPECT_TRUE(absl::StrContains(no_ellipsis.status().message(),
                                "has no ellipsis in its output"))
      << no_ellipsis.status();
  StatusOr<Tensor> bcast = Einsum(
      "...i,...i->...", {Tensor(DT_FLOAT, {2, 3}), Tensor(DT_FLOAT, {4, 3})});
  ASSERT_FALSE(bcast.ok());
  EXPECT_TRUE(absl::StrContains(bcast.status().message(), "do not broadcast"))
      << bcast.status();
  // Found when the kernel is built.
  StatusOr<Tensor> label = Einsum("ij,jk->iz", {a, Tensor(DT_FLOAT, {3, 4})});
  ASSERT_FALSE(label.ok());
  EXPECT_TRUE(absl::StrContains(label.status().message(),
                                "output label 'z' that no input subscript has"))
      << label.status();
  StatusOr<Tensor> arrow = Einsum("ij,jk", {a, Tensor(DT_FLOAT, {3, 4})});
  ASSERT_FALSE(arrow.ok());
  EXPECT_TRUE(absl::StrContains(arrow.status().message(), "'->'"))
      << arrow.status();
  StatusOr<Tensor> count = Einsum("ij,jk->ik", {a});
  ASSERT_FALSE(count.ok());
  EXPECT_TRUE(absl::StrContains(count.status().message(), "2 input subscripts"))
      << count.status();
}

}  // namespace cpu_einsum_test
}  // namespace weft
