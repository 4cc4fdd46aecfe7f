// The shape contract of the reductions (Sum, Mean, Prod, Max, Min, All,
// Any), shared by their kernels on every device (kernels/cpu/
// reduction_util.cc, kernels/cuda/reduce_ops.cc) and by Einsum: the checks
// of the axes and their errors, the output shape, and the order of the
// passes that reduce one run of dimensions each, so that both devices
// accept the same graphs and reduce in the same structure.
//
// A reduction is planned once per call from the input shape and the axes:
// dimensions of size 1 carry nothing and are dropped, and adjacent
// dimensions that are both reduced or both kept are merged, so the input
// becomes alternating runs such as [kept, reduced, kept]. Each reduced run
// is then one pass over an [outer, len, inner] view, innermost run first;
// each pass leaves the kept runs around it in place, so no transpose is
// needed.
#ifndef WEFT_KERNELS_COMMON_REDUCTION_SHAPE_H_
#define WEFT_KERNELS_COMMON_REDUCTION_SHAPE_H_

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "kernels/op_kernel.h"

namespace weft {

// A reduction of one input over a set of axes, simplified for the loops.
struct ReductionPlan {
  // The result's shape (reduced dimensions kept as 1 with keep_dims).
  TensorShape output_shape;
  // The input as alternating runs of kept and reduced dimensions (size-1
  // dimensions dropped, neighbours of the same kind merged); empty when the
  // input has no dimension larger than 1. Meaningful only when the input
  // is not empty.
  absl::InlinedVector<int64_t, 8> runs;
  // Whether runs[0] is a reduced run (they alternate from there).
  bool first_reduced = false;
  // Input elements per output element: the product of the reduced
  // dimensions (the divisor of a Mean).
  int64_t reduced_count = 1;

  // Whether each output element is exactly one input element, in order:
  // the output is the input reshaped.
  bool IsCopy() const;
};

// Plans reducing `input` over `axes`, each in [-rank, rank) (negative
// counting from the end). InvalidArgument for an axis out of range or an
// axis given twice (TensorFlow rejects duplicates), naming the input shape
// and the axes.
Status PlanReduction(const TensorShape& input, absl::Span<const int64_t> axes,
                     bool keep_dims, ReductionPlan* plan);

// The start of every reduction kernel's Compute: plans reducing input 0
// over the axes in input 1 (int32 or int64, any shape; its elements are the
// axes; errors as ReadIndexTensor's and PlanReduction's) and allocates
// output 0 as *out. When the plan is a copy (an empty axes list, or only
// size-1 dimensions reduced) output 0 is input 0 reshaped instead, sharing
// its buffer, and *out is null: the kernel has nothing left to do.
Status StartReduction(OpKernelContext* ctx, bool keep_dims, ReductionPlan* plan,
                      Tensor** out);

// One pass: reduces the middle of the [outer, len, inner] view of its
// source.
struct ReductionPassShape {
  int64_t outer = 1;
  int64_t len = 1;
  int64_t inner = 1;
  // No other reduced run is left: this pass makes the final values.
  bool last = true;
};

// The passes of a plan, innermost reduced run first:
//
//   ReductionPasses passes(plan);
//   ReductionPassShape pass;
//   while (passes.Next(&pass)) { ...reduce...; passes.Reduced(1); }
//
// A pass may also reduce its run only partly (in pieces whose results stay
// a reduced run): Reduced(pieces) with pieces > 1, and the next pass
// reduces those.
class ReductionPasses {
 public:
  explicit ReductionPasses(const ReductionPlan& plan);
  // The innermost reduced run's pass; false when no reduced run is left.
  bool Next(ReductionPassShape* pass) const;
  // The run of the last Next is now `remaining` values long; 1 removes it
  // (its kept neighbours become one run).
  void Reduced(int64_t remaining);

 private:
  struct Run {
    int64_t size;
    bool reduced;
  };
  // The index of the innermost reduced run, or -1.
  int Innermost() const;
  std::vector<Run> runs_;
};

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_REDUCTION_SHAPE_H_
