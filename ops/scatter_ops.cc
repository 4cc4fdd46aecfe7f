// Indexing ops that gather from or scatter into N-dimensional positions:
// GatherNd, ScatterNd, TensorScatterUpdate/Add/Sub/Min/Max and
// SparseToDense. Signatures, attrs and defaults follow TensorFlow 2.21's
// array_ops.cc and sparse_ops.cc so graph files validate unchanged; the
// shape functions propagate what is known as TensorFlow's do (the scatter
// ops' output is their shape input or tensor input, checked against indices
// and updates where ranks are known).
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// indices[:-1] + params[indices.shape[-1]:].
Status GatherNdShape(InferenceContext* c) {
  const ShapeHandle params = c->input(0);
  ShapeHandle indices;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(1), 1, &indices),
                           "indices (input 1)");
  if (!c->RankKnown(params) || !c->RankKnown(indices)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const int32_t ir = c->Rank(indices);
  const DimensionHandle r_dim = c->Dim(indices, ir - 1);
  if (!c->ValueKnown(r_dim)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const int64_t r = c->Value(r_dim);
  if (r > c->Rank(params)) {
    return errors::InvalidArgument("indices (input 1) ",
                                   c->DebugString(indices), " index into ", r,
                                   " dimensions, more than params (input 0) ",
                                   c->DebugString(params), " has");
  }
  ShapeHandle outer;
  ShapeHandle inner;
  WEFT_RETURN_IF_ERROR(c->Subshape(indices, 0, ir - 1, &outer));
  WEFT_RETURN_IF_ERROR(c->Subshape(params, r, &inner));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(outer, inner, &out));
  c->set_output(0, out);
  return Status();
}

// The contract between indices [..., k], updates and the output shape of
// the scatter ops: updates = indices[:-1] + shape[k:].
Status CheckScatterNd(InferenceContext* c, int indices_input, int updates_input,
                      ShapeHandle shape) {
  ShapeHandle indices;
  WEFT_RETURN_IF_ERROR_CTX(
      c->WithRankAtLeast(c->input(indices_input), 1, &indices),
      "indices (input ", indices_input, ")");
  const ShapeHandle updates = c->input(updates_input);
  if (!c->RankKnown(indices) || !c->RankKnown(updates) ||
      !c->RankKnown(shape)) {
    return Status();
  }
  const int32_t ir = c->Rank(indices);
  const DimensionHandle k_dim = c->Dim(indices, ir - 1);
  if (!c->ValueKnown(k_dim)) return Status();
  const int64_t k = c->Value(k_dim);
  if (k > c->Rank(shape)) {
    return errors::InvalidArgument(
        "indices (input ", indices_input, ") ", c->DebugString(indices),
        " index into ", k, " dimensions, but the output ",
        c->DebugString(shape), " has only ", c->Rank(shape));
  }
  const int64_t outer = ir - 1;
  const int64_t want_rank = outer + c->Rank(shape) - k;
  if (c->Rank(updates) != want_rank) {
    return errors::InvalidArgument(
        "updates (input ", updates_input, ") ", c->DebugString(updates),
        " must have rank ", want_rank, " = indices.shape[:-1] ",
        "+ output.shape[", k, ":] for indices ", c->DebugString(indices),
        " and output ", c->DebugString(shape));
  }
  for (int64_t d = 0; d < want_rank; ++d) {
    const DimensionHandle want =
        d < outer ? c->Dim(indices, d) : c->Dim(shape, k + d - outer);
    DimensionHandle merged;
    WEFT_RETURN_IF_ERROR_CTX(
        c->Merge(c->Dim(updates, d), want, &merged), "updates (input ",
        updates_input, ") ", c->DebugString(updates),
        " must be indices.shape[:-1] + output.shape[", k, ":] for indices ",
        c->DebugString(indices), " and output ", c->DebugString(shape),
        "; dimension ", d, " differs");
  }
  return Status();
}

// ScatterNd(indices, updates, shape): the output is the value of `shape`.
Status ScatterNdShape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 1, &unused),
                           "shape (input 2)");
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(2, &out));
  WEFT_RETURN_IF_ERROR(CheckScatterNd(c, 0, 1, out));
  c->set_output(0, out);
  return Status();
}

// TensorScatter*(tensor, indices, updates): the output is tensor's shape.
Status TensorScatterShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(CheckScatterNd(c, 1, 2, c->input(0)));
  c->set_output(0, c->input(0));
  return Status();
}

// SparseToDense: the output is the value of output_shape; indices are a
// scalar, a vector or [n, rank], values a scalar or [n].
Status SparseToDenseShape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtMost(c->input(0), 2, &unused),
                           "sparse_indices (input 0)");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtMost(c->input(1), 1, &unused),
                           "output_shape (input 1)");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtMost(c->input(2), 1, &unused),
                           "sparse_values (input 2)");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(3), 0, &unused),
                           "default_value (input 3)");
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  c->set_output(0, out);
  return Status();
}

REGISTER_OP("GatherNd")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16,int32,int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(GatherNdShape);

REGISTER_OP("ScatterNd")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Input("shape: Tindices")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(ScatterNdShape);

REGISTER_OP("TensorScatterUpdate")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64, uint16}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(TensorScatterShape);

#define WEFT_REGISTER_TENSOR_SCATTER(Name)     \
  REGISTER_OP(Name)                            \
      .Input("tensor: T")                      \
      .Input("indices: Tindices")              \
      .Input("updates: T")                     \
      .Output("output: T")                     \
      .Attr("T: type")                         \
      .Attr("Tindices: {int32, int64}")        \
      .Attr("bad_indices_policy: string = ''") \
      .SetShapeFn(TensorScatterShape)

WEFT_REGISTER_TENSOR_SCATTER("TensorScatterAdd");
WEFT_REGISTER_TENSOR_SCATTER("TensorScatterSub");
WEFT_REGISTER_TENSOR_SCATTER("TensorScatterMin");
WEFT_REGISTER_TENSOR_SCATTER("TensorScatterMax");
#undef WEFT_REGISTER_TENSOR_SCATTER

REGISTER_OP("SparseToDense")
    .Input("sparse_indices: Tindices")
    .Input("output_shape: Tindices")
    .Input("sparse_values: T")
    .Input("default_value: T")
    .Attr("validate_indices: bool = true")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Output("dense: T")
    .SetShapeFn(SparseToDenseShape);

}  // namespace
}  // namespace weft
