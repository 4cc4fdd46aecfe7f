// DenseToDenseSetOperation, registered exactly as TensorFlow 2.21's
// set_ops.cc defines it: a set operation (a-b, b-a, intersection, union)
// between the last-dimension rows of two dense tensors, returned as a
// sparse tensor (indices, values, dense_shape). The shape function follows
// TensorFlow's: both inputs have the same rank >= 2 and compatible leading
// dimensions; the number of result values is data-dependent.
#include <cstdint>

#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;
using shape_inference::ShapeHandle;

Status DenseToDenseSetOperationShape(InferenceContext* c) {
  ShapeHandle set1;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 2, &set1),
                           "set1 (input 0) must have rank >= 2");
  DimensionHandle rank;
  if (c->RankKnown(set1)) {
    const int32_t r = c->Rank(set1);
    ShapeHandle set2;
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), r, &set2),
                             "set2 (input 1) must have the rank of set1 "
                             "(input 0)");
    ShapeHandle group1;
    ShapeHandle group2;
    ShapeHandle unused;
    WEFT_RETURN_IF_ERROR(c->Subshape(set1, 0, r - 1, &group1));
    WEFT_RETURN_IF_ERROR(c->Subshape(set2, 0, r - 1, &group2));
    WEFT_RETURN_IF_ERROR_CTX(c->Merge(group1, group2, &unused),
                             "set1 (input 0) and set2 (input 1) must agree "
                             "in all but the last dimension");
    rank = c->MakeDim(r);
  } else {
    ShapeHandle set2;
    WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(1), 2, &set2),
                             "set2 (input 1) must have rank >= 2");
    rank = c->RankKnown(set2) ? c->MakeDim(c->Rank(set2)) : c->UnknownDim();
  }
  c->set_output(0, c->Matrix(kUnknownDim, rank));
  c->set_output(1, c->Vector(kUnknownDim));
  c->set_output(2, c->Vector(rank));
  return Status();
}

REGISTER_OP("DenseToDenseSetOperation")
    .Input("set1: T")
    .Input("set2: T")
    .Attr("set_operation: string")
    .Attr("validate_indices: bool = true")
    .Attr("T: {int8, int16, int32, int64, uint8, uint16, string}")
    .Output("result_indices: int64")
    .Output("result_values: T")
    .Output("result_shape: int64")
    .SetShapeFn(DenseToDenseSetOperationShape);

}  // namespace
}  // namespace weft
