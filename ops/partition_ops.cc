// Ops that split, merge or count elements by value: Unique,
// UniqueWithCounts, DynamicPartition, DynamicStitch, ParallelDynamicStitch,
// Bincount and DenseBincount. Signatures, attrs and defaults follow
// TensorFlow 2.21's array_ops.cc, data_flow_ops.cc and math_ops.cc so graph
// files validate unchanged. Their output sizes depend on the values, so the
// shape functions leave those dimensions unknown unless the deciding input
// is a known constant (DynamicStitch's indices, the bincounts' size).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;
using shape_inference::ShapeHandle;

Status UniqueShape(InferenceContext* c) {
  ShapeHandle x;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 1, &x), "x (input 0)");
  const ShapeHandle uniq = c->Vector(kUnknownDim);
  c->set_output(0, uniq);
  c->set_output(1, x);
  if (c->num_outputs() > 2) c->set_output(2, uniq);
  return Status();
}

// Every output is [?] + data.shape[rank(partitions):]; data's shape must
// start with partitions'.
Status DynamicPartitionShape(InferenceContext* c) {
  const ShapeHandle data = c->input(0);
  const ShapeHandle partitions = c->input(1);
  ShapeHandle out = c->UnknownShape();
  if (c->RankKnown(partitions)) {
    const int32_t rank = c->Rank(partitions);
    ShapeHandle prefix;
    WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(data, rank, &prefix),
                             "data (input 0) must have "
                             "at least the rank of partitions (input 1) ",
                             c->DebugString(partitions));
    WEFT_RETURN_IF_ERROR(c->Subshape(data, 0, rank, &prefix));
    ShapeHandle unused;
    WEFT_RETURN_IF_ERROR_CTX(
        c->Merge(prefix, partitions, &unused), "the shape of data (input 0) ",
        c->DebugString(data), " must start with that of partitions (input 1)");
    ShapeHandle suffix;
    WEFT_RETURN_IF_ERROR(c->Subshape(data, rank, &suffix));
    WEFT_RETURN_IF_ERROR(c->Concatenate(c->Vector(kUnknownDim), suffix, &out));
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return Status();
}

// [max index + 1] + data[i].shape[rank(indices[i]):], the first dimension
// known when every indices input is a known constant.
Status DynamicStitchShape(InferenceContext* c) {
  const int n = c->num_inputs() / 2;
  bool all_constant = true;
  int64_t max_index = -1;
  ShapeHandle extra = c->UnknownShape();
  for (int i = 0; i < n; ++i) {
    const ShapeHandle indices = c->input(i);
    const ShapeHandle data = c->input(n + i);
    if (!c->RankKnown(indices)) {
      all_constant = false;
      continue;
    }
    const int32_t rank = c->Rank(indices);
    ShapeHandle prefix;
    WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(data, rank, &prefix),
                             "data (input ", n + i,
                             ") must have at least the rank of indices (input ",
                             i, ") ", c->DebugString(indices));
    WEFT_RETURN_IF_ERROR(c->Subshape(data, 0, rank, &prefix));
    ShapeHandle unused;
    WEFT_RETURN_IF_ERROR_CTX(
        c->Merge(prefix, indices, &unused), "the shape of data (input ", n + i,
        ") ", c->DebugString(data), " must start with that of indices (input ",
        i, ")");
    ShapeHandle rest;
    WEFT_RETURN_IF_ERROR(c->Subshape(data, rank, &rest));
    WEFT_RETURN_IF_ERROR_CTX(c->Merge(extra, rest, &extra), "data (input ",
                             n + i, ") ", c->DebugString(data),
                             " must match the other data inputs past the "
                             "dimensions of their indices");
    bool known = false;
    std::vector<int64_t> values;
    WEFT_RETURN_IF_ERROR(c->GetInputInts(i, 8, &known, &values));
    if (!known) {
      all_constant = false;
      continue;
    }
    for (int64_t v : values) max_index = std::max(max_index, v);
  }
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(
      c->Vector(all_constant ? DimensionHandle(c->MakeDim(max_index + 1))
                             : c->UnknownDim()),
      extra, &out));
  c->set_output(0, out);
  return Status();
}

// [size], size a scalar (input 1); negative sizes are errors.
Status BincountShape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 0, &unused),
                           "size (input 1)");
  DimensionHandle size;
  WEFT_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &size));
  c->set_output(0, c->Vector(size));
  return Status();
}

// input [n] gives [size], input [b, n] gives [b, size].
Status DenseBincountShape(InferenceContext* c) {
  ShapeHandle input;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtMost(c->input(0), 2, &input),
                           "input (input 0)");
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 0, &unused),
                           "size (input 1)");
  DimensionHandle size;
  WEFT_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &size));
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
  } else if (c->Rank(input) == 2) {
    c->set_output(0, c->MakeShape({c->Dim(input, 0), size}));
  } else {
    c->set_output(0, c->Vector(size));
  }
  return Status();
}

REGISTER_OP("Unique")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueShape);

REGISTER_OP("UniqueWithCounts")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Output("count: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueShape);

REGISTER_OP("DynamicPartition")
    .Input("data: T")
    .Input("partitions: int32")
    .Output("outputs: num_partitions * T")
    .Attr("num_partitions: int >= 1")
    .Attr("T: type")
    .SetShapeFn(DynamicPartitionShape);

REGISTER_OP("DynamicStitch")
    .Input("indices: N * int32")
    .Input("data: N * T")
    .Output("merged: T")
    .Attr("N : int >= 1")
    .Attr("T : type")
    .SetShapeFn(DynamicStitchShape);

REGISTER_OP("ParallelDynamicStitch")
    .Input("indices: N * int32")
    .Input("data: N * T")
    .Output("merged: T")
    .Attr("N : int >= 1")
    .Attr("T : type")
    .SetShapeFn(DynamicStitchShape);

REGISTER_OP("Bincount")
    .Input("arr: int32")
    .Input("size: int32")
    .Input("weights: T")
    .Attr("T: {int32, int64, float, double}")
    .Output("bins: T")
    .SetShapeFn(BincountShape);

REGISTER_OP("DenseBincount")
    .Input("input: Tidx")
    .Input("size: Tidx")
    .Input("weights: T")
    .Attr("Tidx: {int32, int64}")
    .Attr("T: {int32, int64, float, double}")
    .Attr("binary_output: bool = false")
    .Output("output: T")
    .SetShapeFn(DenseBincountShape);

}  // namespace
}  // namespace weft
