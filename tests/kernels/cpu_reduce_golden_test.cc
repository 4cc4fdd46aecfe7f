// Replays TensorFlow's reference outputs for the reductions and
// contractions (testdata/reduce_goldens.txt, written by
// gen_reduce_goldens.py from tf.raw_ops on the CPU) through the weft
// kernels, at one and at two threads (which must agree bit for bit).
//
// Tolerances, with u_T the unit roundoff of the dtype (2^-24 float, 2^-53
// double, 2^-11 half, 2^-8 bfloat16), u_c that of the precision weft
// accumulates in (float for half and bfloat16) and u_tf that of
// TensorFlow's accumulation, taken as u_T for half and bfloat16 (its half
// reductions add in half) and u_c otherwise:
//  - Max, Min, All, Any, ArgMax, ArgMin, and every integer case: exact.
//    Comparisons and selections do no arithmetic, and integer arithmetic
//    wraps identically in both (see reduction_util.h).
//  - Sum over d terms: |weft - tf| <= (d - 1)(u_c + u_tf) sum |x| +
//    2 u_T |tf|: each implementation is within (d - 1) u sum |x| of the
//    exact sum in any summation order (Higham, eq. 4.4) and rounds once to
//    the dtype.
//  - Mean: the Sum bound divided by d, plus the division's rounding in each
//    (u_c and u_T relative).
//  - Prod over d terms: relative ((d - 1)(u_c + u_tf) + 2 u_T), each
//    product rounding by a relative u (first order, with 1% slack).
//  - BatchMatMulV2 and Einsum: per output element, summing t products,
//    t (u_c + u_tf) sum |products| + 2 u_T |tf| (the dot-product bound,
//    Higham eq. 3.5, for each side, plus the final roundings). Pure layout
//    (transposes, diagonals, zeros off a repeated output label) has t <= 1
//    and so is held to a rounding of the dtype, in practice exact.
// A NaN or an infinity in the reference must be met exactly.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/golden_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_reduce_golden_test {

using test::GoldenCase;
using test::ToDoubles;

std::string GoldenPath() {
  if (const char* env = std::getenv("WEFT_REDUCE_GOLDENS")) return env;
  return test::GoldenPath("reduce_goldens.txt");
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

bool IsFloating(DataType dt) {
  return dt == DT_HALF || dt == DT_BFLOAT16 || dt == DT_FLOAT ||
         dt == DT_DOUBLE;
}

// Per output element: how many terms were summed, the sum of their
// magnitudes, and (for Prod) their product's magnitude.
struct TermStats {
  std::vector<int64_t> count;
  std::vector<double> abs_sum;
};

// The input elements each output element of a reduction combines.
std::vector<std::vector<int64_t>> ReductionGroups(const Tensor& x,
                                                  const Tensor& axes_t) {
  const int rank = x.dims();
  std::vector<bool> reduced(rank, false);
  for (double a : ToDoubles(axes_t)) {
    const int d = static_cast<int>(a);
    reduced[d < 0 ? d + rank : d] = true;
  }
  int64_t outputs = 1;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) outputs *= x.dim_size(d);
  }
  std::vector<std::vector<int64_t>> groups(outputs);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) o = o * x.dim_size(d) + index[d];
    }
    groups[o].push_back(i);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < x.dim_size(d)) break;
      index[d] = 0;
    }
  }
  return groups;
}

// Brute-force term statistics of an einsum equation: every assignment of
// the labels adds one product to the output element it selects. "..."
// dimensions align at the right and broadcast (a size-1 dimension reads
// index 0).
TermStats ContractionStats(const std::string& equation,
                           const std::vector<Tensor>& inputs) {
  const std::vector<std::string> sides = absl::StrSplit(equation, "->");
  const std::vector<std::string> subs = absl::StrSplit(sides[0], ',');
  int ell = 0;
  for (size_t i = 0; i < subs.size(); ++i) {
    if (subs[i].find("...") != std::string::npos) {
      ell = std::max(ell,
                     inputs[i].dims() - static_cast<int>(subs[i].size()) + 3);
    }
  }
  auto expand = [&](const std::string& sub, int rank) {
    std::vector<int> labels;
    const size_t pos = sub.find("...");
    const int own = rank - static_cast<int>(sub.size()) +
                    (pos == std::string::npos ? 0 : 3);
    for (size_t k = 0; k < sub.size(); ++k) {
      if (k == pos) {
        for (int e = 0; e < own; ++e) labels.push_back(1000 + ell - own + e);
        k += 2;
      } else {
        labels.push_back(static_cast<unsigned char>(sub[k]));
      }
    }
    return labels;
  };
  std::vector<std::vector<int>> in_labels;
  std::map<int, int64_t> size;
  for (size_t i = 0; i < subs.size(); ++i) {
    in_labels.push_back(expand(subs[i], inputs[i].dims()));
    for (int d = 0; d < inputs[i].dims(); ++d) {
      int64_t& s = size[in_labels[i][d]];
      s = std::max(s, inputs[i].dim_size(d));
    }
  }
  const bool out_ell = sides[1].find("...") != std::string::npos;
  const std::vector<int> out_labels =
      expand(sides[1], static_cast<int>(sides[1].size()) - (out_ell ? 3 : 0) +
                           (out_ell ? ell : 0));
  std::vector<int64_t> out_dims;
  int64_t outputs = 1;
  for (int l : out_labels) {
    out_dims.push_back(size[l]);
    outputs *= size[l];
  }
  TermStats stats{std::vector<int64_t>(outputs, 0),
                  std::vector<double>(outputs, 0)};
  std::vector<std::vector<double>> values;
  for (const Tensor& t : inputs) values.push_back(ToDoubles(t));
  std::vector<int> labels;
  int64_t total = 1;
  for (const auto& [l, s] : size) {
    labels.push_back(l);
    total *= s;
  }
  std::map<int, int64_t> at;
  for (int64_t step = 0; step < total; ++step) {
    double product = 1;
    for (size_t i = 0; i < inputs.size(); ++i) {
      int64_t offset = 0;
      for (int d = 0; d < inputs[i].dims(); ++d) {
        const int64_t n = inputs[i].dim_size(d);
        offset = offset * n + (n == 1 ? 0 : at[in_labels[i][d]]);
      }
      product *= values[i][offset];
    }
    int64_t o = 0;
    for (size_t p = 0; p < out_labels.size(); ++p) {
      o = o * out_dims[p] + at[out_labels[p]];
    }
    stats.count[o] += 1;
    stats.abs_sum[o] += std::fabs(product);
    for (int k = static_cast<int>(labels.size()) - 1; k >= 0; --k) {
      if (++at[labels[k]] < size[labels[k]]) break;
      at[labels[k]] = 0;
    }
  }
  return stats;
}

// "...ik,...kj->...ij" with the adjoints' subscripts swapped.
std::string BatchMatMulEquation(const GoldenCase& c) {
  const bool adj_x = c.attrs.at("adj_x").b;
  const bool adj_y = c.attrs.at("adj_y").b;
  return std::string("...") + (adj_x ? "ki" : "ik") + ",..." +
         (adj_y ? "jk" : "kj") + "->...ij";
}

// Per-element bounds; empty for cases that must match exactly.
std::vector<double> Tolerances(const GoldenCase& c) {
  const DataType dt = c.expected[0].dtype();
  if (!IsFloating(dt) || c.op == "Max" || c.op == "Min") return {};
  const double u_t = test::UnitRoundoff(dt);
  const double u_c = test::UnitRoundoff(dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT);
  const double u_tf = (dt == DT_HALF || dt == DT_BFLOAT16) ? u_t : u_c;
  const std::vector<double> e = ToDoubles(c.expected[0]);
  std::vector<double> tol(e.size(), 0);
  if (c.op == "Sum" || c.op == "Mean" || c.op == "Prod") {
    const std::vector<double> x = ToDoubles(c.inputs[0]);
    const auto groups = ReductionGroups(c.inputs[0], c.inputs[1]);
    for (size_t o = 0; o < e.size(); ++o) {
      const double d = static_cast<double>(groups[o].size());
      double abs = 0;
      for (int64_t i : groups[o]) abs += std::fabs(x[i]);
      if (c.op == "Prod") {
        tol[o] = ((d - 1) * (u_c + u_tf) + 2 * u_t) * 1.01 * std::fabs(e[o]);
      } else {
        const double sum_bound = std::max(d - 1, 0.0) * (u_c + u_tf) * abs;
        tol[o] = c.op == "Sum" ? sum_bound + 2 * u_t * std::fabs(e[o])
                               : sum_bound / std::max(d, 1.0) +
                                     (u_c + 3 * u_t) * std::fabs(e[o]);
      }
    }
    return tol;
  }
  const std::string equation =
      c.op == "Einsum" ? c.attrs.at("equation").s : BatchMatMulEquation(c);
  const TermStats stats = ContractionStats(equation, c.inputs);
  for (size_t o = 0; o < e.size(); ++o) {
    tol[o] = stats.count[o] * (u_c + u_tf) * stats.abs_sum[o] * 1.0001 +
             2 * u_t * std::fabs(e[o]);
  }
  return tol;
}

void CheckCase(const GoldenCase& c, const Tensor& got) {
  const Tensor& want = c.expected[0];
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  const std::vector<double> tol = Tolerances(c);
  if (tol.empty()) {
    test::ExpectTensorEqual(got, want);
    return;
  }
  const std::vector<double> g = ToDoubles(got);
  const std::vector<double> e = ToDoubles(want);
  for (size_t i = 0; i < e.size(); ++i) {
    if (std::isnan(e[i])) {
      EXPECT_TRUE(std::isnan(g[i]))
          << "element " << i << ": got " << g[i] << ", TensorFlow NaN";
    } else if (std::isinf(e[i])) {
      EXPECT_EQ(g[i], e[i]) << "element " << i;
    } else {
      EXPECT_LE(std::fabs(g[i] - e[i]), tol[i])
          << "element " << i << ": got " << g[i] << ", TensorFlow " << e[i];
    }
  }
}

TEST(CpuReduceGoldenTest, MatchesTensorFlow) {
  const std::vector<GoldenCase>& cases = Goldens();
  ASSERT_FALSE(cases.empty()) << "no cases in " << GoldenPath();
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(GoldenPath() + ":" + std::to_string(c.line) + ": " + c.name);
    StatusOr<std::vector<Tensor>> out =
        test::OpRunner(c.op, c.attrs).Run(c.inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 1u);
    CheckCase(c, (*out)[0]);
    StatusOr<std::vector<Tensor>> threaded =
        test::OpRunner(c.op, c.attrs, 2).Run(c.inputs);
    ASSERT_TRUE(threaded.ok()) << threaded.status();
    test::ExpectTensorEqual((*threaded)[0], (*out)[0]);
  }
}

// Every dtype a kernel of these ops is registered for (T, and output_type
// for ArgMax and ArgMin) has at least one TensorFlow case, so a newly
// registered dtype cannot go unchecked.
TEST(CpuReduceGoldenTest, CoversEveryRegisteredDtype) {
  std::set<std::pair<std::string, DataType>> inputs;
  std::set<std::pair<std::string, DataType>> outputs;
  std::set<std::string> ops;
  for (const GoldenCase& c : Goldens()) {
    ops.insert(c.op);
    inputs.insert({c.op, c.inputs[0].dtype()});
    outputs.insert({c.op, c.expected[0].dtype()});
  }
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min", "All", "Any",
                         "ArgMax", "ArgMin", "BatchMatMulV2", "Einsum"}) {
    EXPECT_TRUE(ops.count(op)) << "no golden case for " << op;
    const std::vector<const KernelDef*> defs =
        KernelRegistry::Global()->KernelsForOp(op);
    EXPECT_FALSE(defs.empty()) << "no kernels for " << op;
    for (const KernelDef* def : defs) {
      if (def->device_type != DEVICE_CPU) continue;
      for (const char* attr : {"T", "output_type"}) {
        const KernelDef::AttrConstraint* k = def->FindConstraint(attr);
        if (k == nullptr) continue;
        const auto& covered = std::string(attr) == "T" ? inputs : outputs;
        for (DataType dt : k->allowed_types) {
          EXPECT_TRUE(covered.count({op, dt}))
              << op << " has a CPU kernel for " << attr << "="
              << DataTypeName(dt)
              << " but no golden case; add one to gen_reduce_goldens.py";
        }
      }
    }
  }
}

}  // namespace cpu_reduce_golden_test
}  // namespace weft
