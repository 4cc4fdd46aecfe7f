#include "kernels/cuda/plan/array_plan.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/common/copy_util.h"

namespace weft {
namespace {

gpu::CastType ToCastType(DataType dt) {
  switch (dt) {
    case DT_BOOL:
      return gpu::CastType::kBool;
    case DT_INT32:
      return gpu::CastType::kInt32;
    case DT_INT64:
      return gpu::CastType::kInt64;
    case DT_HALF:
      return gpu::CastType::kHalf;
    default:
      return gpu::CastType::kFloat;
  }
}

// A move of `merged` dimensions, left after merging, by a kernel that
// takes at most `max`; `what` names the op and its inputs.
Status TooManyDimensions(const std::string& what, int merged, int max) {
  return errors::Unimplemented(
      what, " needs ", merged,
      " dimensions after merging; the CUDA kernel takes at most ", max);
}

}  // namespace

CastPlan PlanCast(DataType src, DataType dst, bool truncate) {
  CastPlan plan;
  plan.src = ToCastType(src);
  plan.params.dst = ToCastType(dst);
  // The CPU kernel honours Truncate only where the destination has fewer
  // mantissa bits than a floating source; among these dtypes that is
  // float -> half.
  plan.params.truncate = truncate && src == DT_FLOAT && dst == DT_HALF;
  return plan;
}

StatusOr<TransposePlan> PlanTranspose(const TensorShape& input,
                                      const TransposeDims& dims) {
  const int rank = input.dims();
  const std::vector<int64_t>& perm = dims.perm;
  TransposePlan plan;
  // Only the dimensions larger than 1 decide the layout.
  std::vector<int> kept_index(rank, -1);
  std::vector<int64_t> kept_dims;
  for (int d = 0; d < rank; ++d) {
    if (input.dim_size(d) != 1) {
      kept_index[d] = static_cast<int>(kept_dims.size());
      kept_dims.push_back(input.dim_size(d));
    }
  }
  std::vector<int> kept_perm;
  for (int i = 0; i < rank; ++i) {
    if (kept_index[perm[i]] >= 0) kept_perm.push_back(kept_index[perm[i]]);
  }
  // Runs of output dimensions that are consecutive input dimensions move
  // together: each run becomes one dimension, given by its first input
  // dimension.
  std::vector<std::pair<int, int>> runs;  // [first, last] input dimension
  for (int d : kept_perm) {
    if (!runs.empty() && runs.back().second + 1 == d) {
      runs.back().second = d;
    } else {
      runs.push_back({d, d});
    }
  }
  const int merged = static_cast<int>(runs.size());
  if (merged > gpu::kMaxTransposeRank) {
    return TooManyDimensions(
        absl::StrCat("transposing input 0 ", input.DebugString(),
                     " by perm (input 1) ", IndexListString(perm)),
        merged, gpu::kMaxTransposeRank);
  }
  // Input strides of the runs: the product of the kept sizes after each.
  std::vector<int64_t> kept_strides(kept_dims.size());
  int64_t stride = 1;
  for (int d = static_cast<int>(kept_dims.size()) - 1; d >= 0; --d) {
    kept_strides[d] = stride;
    stride *= kept_dims[d];
  }
  plan.params.rank = merged;
  for (int j = 0; j < merged; ++j) {
    int64_t size = 1;
    for (int d = runs[j].first; d <= runs[j].second; ++d) size *= kept_dims[d];
    plan.params.out_dims[j] = size;
    plan.params.in_strides[j] = kept_strides[runs[j].second];
  }
  // After merging, a swap of the last two dimensions is [cols, rows] with
  // strides [1, cols], or [batch, cols, rows] with [rows * cols, 1, cols].
  const gpu::TransposeParams& m = plan.params;
  gpu::SwapParams& s = plan.swap_params;
  if (merged == 2 && m.in_strides[0] == 1 && m.in_strides[1] == m.out_dims[0]) {
    s.batch = 1;
    s.rows = m.out_dims[1];
    s.cols = m.out_dims[0];
  } else if (merged == 3 && m.in_strides[1] == 1 &&
             m.in_strides[2] == m.out_dims[1] &&
             m.in_strides[0] == m.out_dims[1] * m.out_dims[2]) {
    s.batch = m.out_dims[0];
    s.rows = m.out_dims[2];
    s.cols = m.out_dims[1];
  }
  plan.swap = s.batch > 0 && s.rows >= TransposePlan::kMinSwapSide &&
              s.cols >= TransposePlan::kMinSwapSide;
  return plan;
}

StatusOr<gpu::TileParams> PlanTile(const TensorShape& input,
                                   const TileDims& dims) {
  gpu::TileParams params;
  if (dims.out_shape.num_elements() == 0) return params;
  const int rank = input.dims();
  const std::vector<int64_t>& multiples = dims.multiples;
  // A dimension tiled once continues the one before it: (in_a, m) then
  // (in_b, 1) reads the same elements as (in_a * in_b, m). Dimensions of
  // size 1 tiled once are dropped.
  std::vector<int64_t> in_dims, mults;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = input.dim_size(d);
    if (multiples[d] == 1) {
      if (size == 1) continue;
      if (!in_dims.empty()) {
        in_dims.back() *= size;
        continue;
      }
    }
    in_dims.push_back(size);
    mults.push_back(multiples[d]);
  }
  const int merged = static_cast<int>(in_dims.size());
  if (merged > gpu::kMaxTileRank) {
    return TooManyDimensions(
        absl::StrCat("tiling input 0 ", input.DebugString(), " by ",
                     IndexListString(multiples)),
        merged, gpu::kMaxTileRank);
  }
  params.rank = merged;
  int64_t stride = 1;
  for (int d = merged - 1; d >= 0; --d) {
    params.in_dims[d] = in_dims[d];
    params.out_dims[d] = in_dims[d] * mults[d];
    params.in_strides[d] = stride;
    stride *= in_dims[d];
  }
  return params;
}

std::vector<gpu::ConcatParams> ConcatLaunches(
    const ConcatDims& dims, absl::Span<const void* const> inputs) {
  std::vector<gpu::ConcatParams> launches;
  if (dims.forward_input >= 0 || dims.rows == 0) return launches;
  int64_t row_width = 0;
  for (int64_t w : dims.widths) row_width += w;
  if (row_width == 0) return launches;
  int64_t col = 0;
  for (size_t k = 0; k < dims.widths.size(); ++k) {
    const int64_t w = dims.widths[k];
    if (w == 0) continue;
    if (launches.empty() ||
        launches.back().num_inputs == gpu::kMaxConcatInputs) {
      gpu::ConcatParams p;
      p.out_row_width = row_width;
      p.col_begin = col;
      launches.push_back(p);
    }
    gpu::ConcatParams& p = launches.back();
    p.inputs[p.num_inputs] = inputs[k];
    p.col_offsets[p.num_inputs] = p.width;
    p.width += w;
    p.col_offsets[++p.num_inputs] = p.width;
    col += w;
  }
  return launches;
}

}  // namespace weft
