// Array ops of issue 13 kept out of array_ops.cc: the legacy Gather (GatherV2
// without axis or batch_dims) and Concat (ConcatV2 with the axis first),
// which old graph files still hold, and ReverseSequence. Signatures, attrs
// and defaults follow TensorFlow 2.21's array_ops.cc.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::kUnknownRank;
using shape_inference::ShapeHandle;

// indices.shape + params.shape[1:].
Status GatherShape(InferenceContext* c) {
  ShapeHandle params;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 1, &params),
                           "params (input 0)");
  ShapeHandle inner;
  WEFT_RETURN_IF_ERROR(c->Subshape(params, 1, &inner));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(c->input(1), inner, &out));
  c->set_output(0, out);
  return Status();
}

// concat_dim (input 0, a scalar) then N values of one rank, equal except
// along the axis, which the output sums.
Status ConcatShape(InferenceContext* c) {
  const int n = c->num_inputs() - 1;
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 0, &unused),
                           "concat_dim (input 0)");
  int64_t rank = kUnknownRank;
  for (int i = 1; i <= n && rank == kUnknownRank; ++i) {
    rank = c->Rank(c->input(i));
  }
  if (rank == 0) {
    return errors::InvalidArgument(
        "values are scalars; scalars cannot be concatenated (Pack stacks "
        "them)");
  }
  for (int i = 1; i <= n && rank != kUnknownRank; ++i) {
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(i), rank, &unused),
                             "all values to concatenate must have one rank, ",
                             rank);
  }
  bool known = false;
  std::vector<int64_t> axis_value;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(0, 0, &known, &axis_value));
  if (rank == kUnknownRank) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  if (!known) {
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return Status();
  }
  int64_t axis = axis_value[0];
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("concat_dim (input 0) is ", axis,
                                   " but must be in [", -rank, ", ", rank,
                                   ") for values of rank ", rank);
  }
  if (axis < 0) axis += rank;
  std::vector<DimensionHandle> dims(rank);
  for (int64_t d = 0; d < rank; ++d) dims[d] = c->Dim(c->input(1), d);
  for (int i = 2; i <= n; ++i) {
    const ShapeHandle in = c->input(i);
    for (int64_t d = 0; d < rank; ++d) {
      const DimensionHandle di = c->Dim(in, d);
      if (d == axis) {
        WEFT_RETURN_IF_ERROR(c->Add(dims[d], di, &dims[d]));
      } else {
        WEFT_RETURN_IF_ERROR_CTX(
            c->Merge(dims[d], di, &dims[d]), "input ", i, " ",
            c->DebugString(in), " must match input 1 ",
            c->DebugString(c->input(1)), " in every dimension but the axis ",
            axis, ", and dimension ", d, " differs");
      }
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

// The input's shape, its batch_dim merged with seq_lengths' length.
Status ReverseSequenceShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  ShapeHandle lengths;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &lengths),
                           "seq_lengths (input 1)");
  int64_t seq_dim = 0;
  int64_t batch_dim = 0;
  WEFT_RETURN_IF_ERROR(c->GetAttr("seq_dim", &seq_dim));
  WEFT_RETURN_IF_ERROR(c->GetAttr("batch_dim", &batch_dim));
  if (seq_dim < 0 || batch_dim < 0) {
    return errors::InvalidArgument("attrs seq_dim (", seq_dim,
                                   ") and batch_dim (", batch_dim,
                                   ") must not be negative");
  }
  if (seq_dim == batch_dim) {
    return errors::InvalidArgument("batch_dim == seq_dim == ", seq_dim);
  }
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const int32_t rank = c->Rank(input);
  if (batch_dim >= rank) {
    return errors::InvalidArgument(
        "batch_dim must be < input rank: ", batch_dim, " vs. ", rank);
  }
  if (seq_dim >= rank) {
    return errors::InvalidArgument("seq_dim must be < input rank: ", seq_dim,
                                   " vs. ", rank);
  }
  DimensionHandle batch = c->Dim(input, batch_dim);
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(batch, c->Dim(lengths, 0), &batch), "seq_lengths (input 1) ",
      c->DebugString(lengths), " must have one entry per batch element of ",
      "input 0 ", c->DebugString(input), " (dimension ", batch_dim, ")");
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->ReplaceDim(input, batch_dim, batch, &out));
  c->set_output(0, out);
  return Status();
}

REGISTER_OP("Gather")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Attr("validate_indices: bool = true")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32,int64}")
    .SetShapeFn(GatherShape);

REGISTER_OP("Concat")
    .Input("concat_dim: int32")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .SetShapeFn(ConcatShape);

REGISTER_OP("ReverseSequence")
    .Input("input: T")
    .Input("seq_lengths: Tlen")
    .Output("output: T")
    .Attr("seq_dim: int")
    .Attr("batch_dim: int = 0")
    .Attr("T: type")
    .Attr("Tlen: {int32, int64} = DT_INT64")
    .SetShapeFn(ReverseSequenceShape);

}  // namespace
}  // namespace weft
