// Sparse-tensor ops of the inference set: SparseFillEmptyRows and
// SparseReshape, registered exactly as TensorFlow 2.21's sparse_ops.cc
// defines them. A sparse tensor travels as three dense tensors: indices
// [N, rank] (int64), values [N] and dense_shape [rank] (int64). The shape
// functions follow TensorFlow's: N and rank are propagated where known; the
// number of output entries of SparseFillEmptyRows depends on the values and
// stays unknown, and its row count is known when dense_shape is a constant.
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;
using shape_inference::ShapeHandle;

Status SparseFillEmptyRowsShape(InferenceContext* c) {
  ShapeHandle indices;
  ShapeHandle values;
  ShapeHandle dense_shape;
  ShapeHandle default_value;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 2, &indices),
                           "indices (input 0) must be a matrix");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &values),
                           "values (input 1) must be a vector");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 1, &dense_shape),
                           "dense_shape (input 2) must be a vector");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(3), 0, &default_value),
                           "default_value (input 3) must be a scalar");
  DimensionHandle n;
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(indices, 0), c->Dim(values, 0), &n),
      "values (input 1) must have one entry per row of indices (input 0)");
  DimensionHandle rank;
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(indices, 1), c->Dim(dense_shape, 0), &rank),
      "indices (input 0) must have one column per entry of dense_shape "
      "(input 2)");
  if (c->Value(c->Dim(dense_shape, 0)) == 0) {
    return errors::InvalidArgument("dense_shape must not be empty");
  }
  ShapeHandle known_shape;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(2, &known_shape));
  const DimensionHandle rows =
      c->RankKnown(known_shape) && c->Rank(known_shape) > 0
          ? c->Dim(known_shape, 0)
          : c->UnknownDim();
  c->set_output(0, c->Matrix(kUnknownDim, rank));
  c->set_output(1, c->Vector(kUnknownDim));
  c->set_output(2, c->Vector(rows));
  c->set_output(3, c->Vector(n));
  return Status();
}

Status SparseReshapeShape(InferenceContext* c) {
  ShapeHandle indices;
  ShapeHandle input_shape;
  ShapeHandle new_shape;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 2, &indices),
                           "input_indices (input 0) must be a matrix");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &input_shape),
                           "input_shape (input 1) must be a vector");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 1, &new_shape),
                           "new_shape (input 2) must be a vector");
  c->set_output(0, c->Matrix(c->Dim(indices, 0), c->Dim(new_shape, 0)));
  c->set_output(1, new_shape);
  return Status();
}

REGISTER_OP("SparseFillEmptyRows")
    .Input("indices: int64")
    .Input("values: T")
    .Input("dense_shape: int64")
    .Input("default_value: T")
    .Output("output_indices: int64")
    .Output("output_values: T")
    .Output("empty_row_indicator: bool")
    .Output("reverse_index_map: int64")
    .Attr("T: type")
    .SetShapeFn(SparseFillEmptyRowsShape);

REGISTER_OP("SparseReshape")
    .Input("input_indices: int64")
    .Input("input_shape: int64")
    .Input("new_shape: int64")
    .Output("output_indices: int64")
    .Output("output_shape: int64")
    .SetShapeFn(SparseReshapeShape);

}  // namespace
}  // namespace weft
