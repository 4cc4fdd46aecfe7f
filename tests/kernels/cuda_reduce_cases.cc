// Rows of the CUDA-vs-CPU table for kernels/cuda/reduce_ops.cc (Sum, Mean,
// Prod, Max, Min) and softmax_op.cc (Softmax, LogSoftmax). The shapes reach
// every strategy of PlanGpuReduction (a thread, a warp or a block per row,
// a thread per column, runs cut into pieces, several reduced runs) and both
// softmax strategies; tests/kernels/cuda_reduce_body_test.cc checks the
// same plans on the host.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/kernels/cuda_kernel_cases.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {
namespace {

struct Reduction {
  std::vector<int64_t> shape;
  std::vector<int64_t> axes;
  bool keep_dims = false;
  DataType axes_type = DT_INT32;
};

std::string Label(const Reduction& r) {
  std::string s = "axes";
  for (int64_t a : r.axes)
    absl::StrAppend(&s, "_", a < 0 ? "m" : "", a < 0 ? -a : a);
  if (r.keep_dims) absl::StrAppend(&s, "_keep");
  if (r.axes_type == DT_INT64) absl::StrAppend(&s, "_i64");
  return s;
}

void ReductionRows(std::vector<Case>* rows) {
  const Reduction reductions[] = {
      {{}, {}},
      {{7}, {0}},
      {{7}, {-1}, true, DT_INT64},
      {{0}, {0}},
      {{3, 0}, {1}},
      {{0, 3}, {1}},
      {{3, 5}, {1}},
      {{3, 5}, {0}, false, DT_INT64},
      {{3, 5}, {-2}, true},
      {{3, 5}, {0, 1}},
      {{4, 1, 6}, {1}},
      {{2, 3, 4, 5}, {1, 3}},
      {{2, 3, 4, 5}, {0, 2}, true},
      {{2, 3, 4, 5}, {-4, -3, -2, -1}},
      {{8, 16}, {1}},
      {{3, 100}, {1}},
      {{2, 5000}, {1}},
      {{300, 200}, {0}},
      {{5000, 3}, {0}},
      {{2, 40000, 3}, {1}},
      {{3, 2, 20000}, {0, 2}},
      {{1, 100000}, {1}},
      {{(1 << 20) + 3}, {0}},
      {{1024, 1025}, {1}},
      {{1024, 1025}, {0}},
  };
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    const std::string name = op;
    for (const Reduction& r : reductions) {
      int64_t count = 1;
      for (size_t d = 0; d < r.shape.size(); ++d) {
        for (int64_t a : r.axes) {
          if (a == static_cast<int64_t>(d) ||
              a + static_cast<int64_t>(r.shape.size()) ==
                  static_cast<int64_t>(d)) {
            count *= r.shape[d];
          }
        }
      }
      Case c;
      c.op = op;
      TensorShape shape = *TensorShape::Build(r.shape);
      const int64_t n_axes = static_cast<int64_t>(r.axes.size());
      c.shapes = {shape, TensorShape({n_axes})};
      // Products of values in [-1, 1) vanish over long runs; the rows stay
      // meaningful with factors of magnitude [0.5, 2) on short runs.
      c.values = {name == "Prod" ? Values::kNonZero : Values::kSigned,
                  Values::kSigned};
      if (name == "Prod" && count > 64) continue;
      std::vector<double> axes(r.axes.begin(), r.axes.end());
      c.fixed[1] = AsTensorOfType(r.axes_type, axes, TensorShape({n_axes}));
      c.attrs["keep_dims"] = AttrValue::Bool(r.keep_dims);
      c.label = Label(r);
      if (name == "Max" || name == "Min") {
        // Both pick the same element: no rounding.
        c.atol_ulps = 0;
        c.rtol_ulps = 0;
      } else if (name == "Prod") {
        // count - 1 products on each side, each rounded once in float.
        c.atol_ulps = 4;
        c.rtol_ulps = 2.0 * count + 4;
      } else {
        // Sums of `count` terms of [-1, 1) in another order than the CPU's,
        // in float for both dtypes: as for MatMul's k, an error growing
        // with count (a random walk of roundings of partial sums of size
        // about sqrt(count) stays far below 4 count ulps); Mean divides it
        // by count. half adds one final rounding on each side.
        c.atol_ulps = name == "Mean" ? 8 : 4.0 * std::max<int64_t>(count, 1);
        c.rtol_ulps = 4;
      }
      // Sum, Mean and Prod accumulate in float for half as well: the ulps
      // above are float's, and CaseTolerance adds half's final roundings.
      c.float_compute = name != "Max" && name != "Min";
      rows->push_back(c);
    }
  }
}

void SoftmaxRows(std::vector<Case>* rows) {
  const std::vector<TensorShape> shapes = {
      TensorShape({1}),       TensorShape({3, 5}),      TensorShape({0, 5}),
      TensorShape({2, 3, 4}), TensorShape({4, 1024}),   TensorShape({3, 1025}),
      TensorShape({2, 5000}), TensorShape({1024, 1025})};
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    const bool log = std::string(op) == "LogSoftmax";
    for (const TensorShape& s : shapes) {
      Case c;
      c.op = op;
      c.shapes = {s};
      c.values = {Values::kWide};
      const double depth = static_cast<double>(s.dim_size(s.dims() - 1));
      // The row sum of exp rounds within (depth / threads + tree levels) u
      // relative on the GPU and depth u on the CPU; exp adds a few ulps.
      // Softmax errs relative to its value; LogSoftmax absolutely, by the
      // sum's relative error plus u (|x - m| + |log s|) <= u (8 + 9).
      // All of it is float for half too (float_compute), rounded once.
      c.atol_ulps = log ? 32 + 2 * depth : 8;
      c.rtol_ulps = log ? 8 : 16 + 2 * depth;
      c.float_compute = true;
      rows->push_back(c);
    }
  }
}

}  // namespace

std::vector<Case> ReduceCases() {
  std::vector<Case> rows;
  ReductionRows(&rows);
  SoftmaxRows(&rows);
  return rows;
}

}  // namespace weft::test
