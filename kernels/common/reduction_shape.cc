#include "kernels/common/reduction_shape.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/common/copy_util.h"

namespace weft {

bool ReductionPlan::IsCopy() const { return reduced_count == 1; }

Status PlanReduction(const TensorShape& input, absl::Span<const int64_t> axes,
                     bool keep_dims, ReductionPlan* plan) {
  const int rank = input.dims();
  absl::InlinedVector<bool, 8> reduced(rank, false);
  for (const int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument(
          "reduction axis ", axis, " is out of range for input 0 of shape ",
          input.DebugString(), ": axes must be in [", -rank, ", ", rank,
          ") (axes given: ", IndexListString(axes), ")");
    }
    const int64_t d = axis < 0 ? axis + rank : axis;
    if (reduced[d]) {
      return errors::InvalidArgument(
          "reduction axes ", IndexListString(axes), " name dimension ", d,
          " of input 0 (shape ", input.DebugString(),
          ") more than once; each axis may be given once");
    }
    reduced[d] = true;
  }
  plan->runs.clear();
  plan->first_reduced = false;
  plan->reduced_count = 1;
  absl::InlinedVector<int64_t, 8> out_dims;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = input.dim_size(d);
    if (!reduced[d]) {
      out_dims.push_back(size);
    } else {
      plan->reduced_count *= size;
      if (keep_dims) out_dims.push_back(1);
    }
    if (size == 1) continue;
    // Runs alternate from first_reduced: the last, index k, is reduced when
    // k is even exactly if the first is.
    const bool last_reduced =
        !plan->runs.empty() &&
        ((plan->runs.size() - 1) % 2 == 0) == plan->first_reduced;
    if (!plan->runs.empty() && last_reduced == reduced[d]) {
      plan->runs.back() *= size;
    } else {
      if (plan->runs.empty()) plan->first_reduced = reduced[d];
      plan->runs.push_back(size);
    }
  }
  WEFT_ASSIGN_OR_RETURN(plan->output_shape, TensorShape::Build(out_dims));
  return Status();
}

Status StartReduction(OpKernelContext* ctx, bool keep_dims, ReductionPlan* plan,
                      Tensor** out) {
  *out = nullptr;
  const Tensor& in = ctx->input(0);
  std::vector<int64_t> axes;
  WEFT_RETURN_IF_ERROR(
      ReadIndexTensor(ctx->input(1), "reduction_indices (input 1)", &axes));
  WEFT_RETURN_IF_ERROR(PlanReduction(in.shape(), axes, keep_dims, plan));
  if (plan->IsCopy()) {
    WEFT_ASSIGN_OR_RETURN(Tensor same, in.Reshaped(plan->output_shape));
    ctx->set_output(0, std::move(same));
    return Status();
  }
  return ctx->allocate_output(0, plan->output_shape, out);
}

ReductionPasses::ReductionPasses(const ReductionPlan& plan) {
  for (size_t i = 0; i < plan.runs.size(); ++i) {
    runs_.push_back({plan.runs[i], (i % 2 == 0) == plan.first_reduced});
  }
}

int ReductionPasses::Innermost() const {
  int i = static_cast<int>(runs_.size()) - 1;
  while (i >= 0 && !runs_[i].reduced) --i;
  return i;
}

bool ReductionPasses::Next(ReductionPassShape* pass) const {
  const int i = Innermost();
  if (i < 0) return false;
  ReductionPassShape p;
  p.len = runs_[i].size;
  for (int j = 0; j < i; ++j) {
    p.outer *= runs_[j].size;
    if (runs_[j].reduced) p.last = false;
  }
  for (size_t j = i + 1; j < runs_.size(); ++j) p.inner *= runs_[j].size;
  *pass = p;
  return true;
}

void ReductionPasses::Reduced(int64_t remaining) {
  const int i = Innermost();
  if (remaining > 1) {
    runs_[i].size = remaining;
  } else if (i > 0 && i + 1 < static_cast<int>(runs_.size())) {
    runs_[i - 1].size *= runs_[i + 1].size;
    runs_.erase(runs_.begin() + i, runs_.begin() + i + 2);
  } else {
    runs_.erase(runs_.begin() + i);
  }
}

}  // namespace weft
