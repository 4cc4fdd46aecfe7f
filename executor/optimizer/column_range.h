// Outputs that are a range of columns of another tensor: what a Split or
// SplitV along the last axis, or a StridedSlice that takes part of the last
// axis and all of the others, hands on. The element-wise fusion reads such a
// range in place (_FusedElementwise's `slices`) instead of running the node
// that copies it out: an RNN cell splits its gates this way in every step.
#ifndef WEFT_EXECUTOR_OPTIMIZER_COLUMN_RANGE_H_
#define WEFT_EXECUTOR_OPTIMIZER_COLUMN_RANGE_H_

#include <cstdint>

#include "executor/optimizer/rewrite_context.h"
#include "graph/graph.h"

namespace weft {

struct ColumnRange {
  NodeOutput source;   // the tensor the range is taken from
  int64_t offset = 0;  // the first column taken, on source's last axis
  int64_t width = 0;   // how many columns
};

// Whether output `index` of `n` is a range of columns of a float tensor,
// and which (*range): `n` is
// - a Split whose axis is a constant naming the last axis of a value whose
//   last dimension is known;
// - a SplitV of that kind whose sizes are constants (one may be -1);
// - a StridedSlice with constant begin, end and strides and no ellipsis,
//   new or shrunk axes, taking every other axis whole and a known range of
//   the last with stride 1.
// The shapes are the inferred ones in ctx.graph(); the constants are
// ctx.ConstInput's. Says nothing about who else reads `n`.
bool ColumnsOf(const Node* n, int index, const RewriteContext& ctx,
               ColumnRange* range);

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_COLUMN_RANGE_H_
