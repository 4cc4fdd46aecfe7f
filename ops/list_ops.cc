// The TensorList ops, registered as TensorFlow 2.21 defines them: a list is
// a variant scalar (core/tensor_list.h) that the ops create, read and
// return changed. Keras RNN layers and tf.TensorArray in TF2 graphs carry
// their per-step inputs and outputs through While loops in such lists.
//
// Every list handle has shape []. The element shapes of results come from
// the ops' element_shape inputs when their values are known (a shape tensor:
// a vector with -1 for unknown dimensions, or the scalar -1 for unknown
// rank); these functions see one node, not the list's history, so what only
// the list itself knows stays unknown until the kernel runs.
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// Input idx is an element shape tensor: its known value as a shape (the
// scalar -1 is unknown rank), else what its length says.
Status ElementShapeInput(InferenceContext* c, int idx, ShapeHandle* out) {
  if (const Tensor* t = c->input_tensor(idx); t != nullptr && t->dims() == 0) {
    int64_t v = 0;
    WEFT_RETURN_IF_ERROR(InferenceContext::GetScalarFromTensor(t, &v));
    if (v != -1) {
      return errors::InvalidArgument(
          "input ", idx,
          " (element_shape) is a scalar, which must be -1 (unknown rank); "
          "got ",
          v);
    }
    *out = c->UnknownShape();
    return Status();
  }
  const int32_t rank = c->Rank(c->input(idx));
  if (rank == 0 || (rank == shape_inference::kUnknownRank &&
                    c->input_tensor(idx) == nullptr)) {
    *out = c->UnknownShape();
    return Status();
  }
  return c->MakeShapeFromShapeTensor(idx, out);
}

Status ScalarHandle(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  return Status();
}

Status HandleInput(InferenceContext* c, int idx) {
  ShapeHandle unused;
  return c->WithRank(c->input(idx), 0, &unused);
}

// A new list from nothing (EmptyTensorList, TensorListReserve): both inputs
// besides element_shape are scalars.
Status NewListShape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  return ScalarHandle(c);
}

Status FromTensorShape(InferenceContext* c) {
  ShapeHandle t;
  WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &t));
  ShapeHandle element, declared;
  WEFT_RETURN_IF_ERROR(c->Subshape(t, 1, &element));
  WEFT_RETURN_IF_ERROR(ElementShapeInput(c, 1, &declared));
  WEFT_RETURN_IF_ERROR(c->Merge(element, declared, &element));
  return ScalarHandle(c);
}

// [leading] + the element shape of input `shape_idx`.
Status StackedShape(InferenceContext* c, int shape_idx,
                    DimensionHandle leading) {
  ShapeHandle element, out;
  WEFT_RETURN_IF_ERROR(ElementShapeInput(c, shape_idx, &element));
  WEFT_RETURN_IF_ERROR(c->Concatenate(c->Vector(leading), element, &out));
  c->set_output(0, out);
  return Status();
}

Status StackShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  int64_t num_elements = -1;
  WEFT_RETURN_IF_ERROR(c->GetAttr("num_elements", &num_elements));
  return StackedShape(c, 1, c->MakeDim(num_elements < 0 ? -1 : num_elements));
}

Status GatherShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  ShapeHandle indices;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
  return StackedShape(c, 2, c->Dim(indices, 0));
}

Status GetItemShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  ShapeHandle unused, element;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  WEFT_RETURN_IF_ERROR(ElementShapeInput(c, 2, &element));
  c->set_output(0, element);
  return Status();
}

Status SetItemShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  return ScalarHandle(c);
}

Status PushBackShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  return ScalarHandle(c);
}

Status PopBackShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  ShapeHandle element;
  WEFT_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element));
  c->set_output(0, c->Scalar());
  c->set_output(1, element);
  return Status();
}

Status LengthShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  c->set_output(0, c->Scalar());
  return Status();
}

// A scalar -1 for a list of unknown element rank, else a vector.
Status ElementShapeShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  c->set_output(0, c->UnknownShape());
  return Status();
}

Status ResizeShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  return ScalarHandle(c);
}

// tensor: [sum of the items' first dimensions] + element_shape[1:];
// lengths: one per item.
Status ConcatShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  ShapeHandle element, rest, out;
  WEFT_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element));
  if (c->RankKnown(element)) {
    WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(element, 1, &element));
    WEFT_RETURN_IF_ERROR(c->Subshape(element, 1, &rest));
    WEFT_RETURN_IF_ERROR(
        c->Concatenate(c->Vector(c->UnknownDim()), rest, &out));
  } else {
    out = c->UnknownShape();
  }
  c->set_output(0, out);
  c->set_output(1, c->Vector(c->UnknownDim()));
  return Status();
}

Status SplitShape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &unused));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &unused));
  return ScalarHandle(c);
}

Status ScatterShape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &unused));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  return ScalarHandle(c);
}

Status ScatterIntoExistingShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(HandleInput(c, 0));
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &unused));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &unused));
  return ScalarHandle(c);
}

}  // namespace

REGISTER_OP("EmptyTensorList")
    .Input("element_shape: shape_type")
    .Input("max_num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(NewListShape);

REGISTER_OP("TensorListReserve")
    .Input("element_shape: shape_type")
    .Input("num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(NewListShape);

REGISTER_OP("TensorListFromTensor")
    .Input("tensor: element_dtype")
    .Input("element_shape: shape_type")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(FromTensorShape);

REGISTER_OP("TensorListGetItem")
    .Input("input_handle: variant")
    .Input("index: int32")
    .Input("element_shape: Tshape")
    .Output("item: element_dtype")
    .Attr("element_dtype: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(GetItemShape);

REGISTER_OP("TensorListSetItem")
    .Input("input_handle: variant")
    .Input("index: int32")
    .Input("item: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("resize_if_index_out_of_bounds: bool = false")
    .SetShapeFn(SetItemShape);

REGISTER_OP("TensorListStack")
    .Input("input_handle: variant")
    .Input("element_shape: int32")
    .Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .Attr("num_elements: int = -1")
    .SetShapeFn(StackShape);

REGISTER_OP("TensorListLength")
    .Input("input_handle: variant")
    .Output("length: int32")
    .SetShapeFn(LengthShape);

REGISTER_OP("TensorListElementShape")
    .Input("input_handle: variant")
    .Output("element_shape: shape_type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ElementShapeShape);

REGISTER_OP("TensorListPushBack")
    .Input("input_handle: variant")
    .Input("tensor: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetShapeFn(PushBackShape);

REGISTER_OP("TensorListPopBack")
    .Input("input_handle: variant")
    .Input("element_shape: int32")
    .Output("output_handle: variant")
    .Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn(PopBackShape);

REGISTER_OP("TensorListResize")
    .Input("input_handle: variant")
    .Input("size: int32")
    .Output("output_handle: variant")
    .SetShapeFn(ResizeShape);

REGISTER_OP("TensorListConcatV2")
    .Input("input_handle: variant")
    .Input("element_shape: shape_type")
    .Input("leading_dims: int64")
    .Output("tensor: element_dtype")
    .Output("lengths: int64")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ConcatShape);

REGISTER_OP("TensorListSplit")
    .Input("tensor: element_dtype")
    .Input("element_shape: shape_type")
    .Input("lengths: int64")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(SplitShape);

REGISTER_OP("TensorListGather")
    .Input("input_handle: variant")
    .Input("indices: int32")
    .Input("element_shape: int32")
    .Output("values: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn(GatherShape);

REGISTER_OP("TensorListScatterV2")
    .Input("tensor: element_dtype")
    .Input("indices: int32")
    .Input("element_shape: shape_type")
    .Input("num_elements: int32")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ScatterShape);

REGISTER_OP("TensorListScatterIntoExistingList")
    .Input("input_handle: variant")
    .Input("tensor: element_dtype")
    .Input("indices: int32")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetShapeFn(ScatterIntoExistingShape);

}  // namespace weft
