#include "executor/optimizer/column_range.h"

#include <vector>

#include "ops/attr_value.h"
#include "ops/common_shape_fns.h"

namespace weft {
namespace {

// The shape of what input `i` of `n` reads, with a known rank >= 1 and a
// known last dimension; false otherwise. *last is that dimension.
bool SourceShape(const Node* n, int i, const RewriteContext& ctx,
                 PartialTensorShape* shape, int64_t* last) {
  if (n->input_type(i) != DT_FLOAT) return false;
  *shape = ctx.graph().output_shape(n->input(i).node, n->input(i).index);
  if (shape->unknown_rank() || shape->dims() == 0) return false;
  *last = shape->dim_size(shape->dims() - 1);
  return *last >= 0;
}

// Whether the constant input `i` of `n` is one axis naming the last of
// `rank` (as a negative or a non-negative index).
bool NamesLastAxis(const Node* n, int i, int rank, const RewriteContext& ctx) {
  std::vector<int64_t> axis;
  if (!ConstInts(ctx.ConstInput(n, i), &axis) || axis.size() != 1) {
    return false;
  }
  return axis[0] == -1 || axis[0] == rank - 1;
}

bool SplitColumns(const Node* n, int index, const RewriteContext& ctx,
                  ColumnRange* range) {
  PartialTensorShape shape;
  int64_t last = 0;
  const int parts = n->num_outputs();
  if (n->num_inputs() != 2 || !SourceShape(n, 1, ctx, &shape, &last) ||
      !NamesLastAxis(n, 0, shape.dims(), ctx) || parts < 1 ||
      last % parts != 0) {
    return false;
  }
  range->source = InputOf(n, 1);
  range->width = last / parts;
  range->offset = index * range->width;
  return true;
}

bool SplitVColumns(const Node* n, int index, const RewriteContext& ctx,
                   ColumnRange* range) {
  PartialTensorShape shape;
  int64_t last = 0;
  std::vector<int64_t> sizes;
  if (n->num_inputs() != 3 || !SourceShape(n, 0, ctx, &shape, &last) ||
      !NamesLastAxis(n, 2, shape.dims(), ctx) ||
      !ConstInts(ctx.ConstInput(n, 1), &sizes) ||
      static_cast<int>(sizes.size()) != n->num_outputs()) {
    return false;
  }
  // One size may be -1: what the others leave.
  int64_t known = 0;
  int inferred = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && inferred < 0) {
      inferred = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      return false;
    } else {
      known += sizes[i];
    }
  }
  if (known > last || (inferred < 0 && known != last)) return false;
  if (inferred >= 0) sizes[inferred] = last - known;
  range->source = InputOf(n, 0);
  range->offset = 0;
  for (int i = 0; i < index; ++i) range->offset += sizes[i];
  range->width = sizes[index];
  return true;
}

bool StridedSliceColumns(const Node* n, const RewriteContext& ctx,
                         ColumnRange* range) {
  PartialTensorShape shape;
  int64_t last = 0;
  std::vector<int64_t> begin, end, strides;
  if (n->num_inputs() != 4 || !SourceShape(n, 0, ctx, &shape, &last) ||
      !ConstInts(ctx.ConstInput(n, 1), &begin) ||
      !ConstInts(ctx.ConstInput(n, 2), &end) ||
      !ConstInts(ctx.ConstInput(n, 3), &strides)) {
    return false;
  }
  StridedSliceMasks masks;
  if (!ReadStridedSliceMasks(n->attrs(), &masks).ok() || masks.ellipsis != 0 ||
      masks.new_axis != 0 || masks.shrink_axis != 0) {
    return false;
  }
  const std::vector<int64_t> dims(shape.dim_sizes().begin(),
                                  shape.dim_sizes().end());
  auto plan = PlanStridedSlice(dims, static_cast<int64_t>(begin.size()), &begin,
                               &end, &strides, masks);
  const int rank = shape.dims();
  if (!plan.ok() || static_cast<int>(plan->final_source.size()) != rank) {
    return false;
  }
  for (int d = 0; d < rank; ++d) {
    if (plan->final_source[d] != d) return false;
    if (d < rank - 1 && !plan->takes_whole[d]) return false;
  }
  const int64_t width = plan->processing_shape[rank - 1];
  if (plan->strides[rank - 1] != 1 || width < 0) return false;
  range->source = InputOf(n, 0);
  range->offset = width > 0 ? plan->begin[rank - 1] : 0;
  range->width = width;
  return range->offset >= 0 && range->offset + width <= last;
}

}  // namespace

bool ColumnsOf(const Node* n, int index, const RewriteContext& ctx,
               ColumnRange* range) {
  if (n->output_type(index) != DT_FLOAT) return false;
  if (n->op() == "Split") return SplitColumns(n, index, ctx, range);
  if (n->op() == "SplitV") return SplitVColumns(n, index, ctx, range);
  if (n->op() == "StridedSlice") return StridedSliceColumns(n, ctx, range);
  return false;
}

}  // namespace weft
