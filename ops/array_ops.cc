// Array ops: constants, placeholders, identities and shape manipulation.
// Names, arguments, attrs and defaults follow TensorFlow's array_ops.cc so
// graph files validate unchanged.
#include <set>
#include <string>
#include <vector>

#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

Status ConstShape(InferenceContext* c) {
  Tensor value;
  WEFT_RETURN_IF_ERROR(c->GetAttr("value", &value));
  DataType dtype = DT_INVALID;
  WEFT_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (value.dtype() != dtype) {
    return errors::InvalidArgument(
        "attr 'value' is a ", DataTypeName(value.dtype()),
        " tensor but attr 'dtype' is ", DataTypeName(dtype));
  }
  c->set_output(0, c->MakeShapeFromTensorShape(value.shape()));
  return Status();
}

Status PlaceholderShape(InferenceContext* c) {
  PartialTensorShape shape;
  WEFT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  c->set_output(0, out);
  return Status();
}

// The default must fit the declared shape; the output is the declared shape,
// since a fed value may be anything the declaration allows.
Status PlaceholderWithDefaultShape(InferenceContext* c) {
  PartialTensorShape shape;
  WEFT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(c->input(0), out, &unused),
                           "the default value (input 0) does not fit attr "
                           "'shape' ",
                           c->DebugString(out));
  c->set_output(0, out);
  return Status();
}

Status IdentityNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) c->set_output(i, c->input(i));
  return Status();
}

Status ShapeShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  c->set_output(0,
                c->Vector(c->RankKnown(input) ? c->Rank(input)
                                              : shape_inference::kUnknownDim));
  return Status();
}

Status ExpandDimsShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &unused));
  const Tensor* dim_t = c->input_tensor(1);
  if (dim_t != nullptr && dim_t->NumElements() != 1) {
    return errors::InvalidArgument(
        "input 1 ('dim') must hold exactly one "
        "value but has shape ",
        dim_t->shape().DebugString());
  }
  if (c->Rank(input) >= kMaxRank) {
    return errors::InvalidArgument("cannot add a dimension to input 0 of rank ",
                                   c->Rank(input), ", the maximum rank");
  }
  if (dim_t == nullptr || !c->RankKnown(input)) {
    // Without the axis only the rank is known.
    c->set_output(0, c->RankKnown(input)
                         ? c->UnknownShapeOfRank(c->Rank(input) + 1)
                         : c->UnknownShape());
    return Status();
  }
  int64_t dim = 0;
  if (dim_t->dtype() == DT_INT32) {
    dim = dim_t->data<int32_t>()[0];
  } else if (dim_t->dtype() == DT_INT64) {
    dim = dim_t->data<int64_t>()[0];
  } else {
    return errors::InvalidArgument(
        "input 1 ('dim') must be int32 or int64 "
        "but is ",
        DataTypeName(dim_t->dtype()));
  }
  const int64_t rank = c->Rank(input);
  if (dim < -rank - 1 || dim > rank) {
    return errors::InvalidArgument(
        "dim ", dim, " is out of range for input 0 ", c->DebugString(input),
        " of rank ", rank, "; it must be in [", -rank - 1, ", ", rank, "]");
  }
  if (dim < 0) dim += rank + 1;
  ShapeHandle front;
  ShapeHandle back;
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Subshape(input, 0, dim, &front));
  WEFT_RETURN_IF_ERROR(c->Subshape(input, dim, &back));
  WEFT_RETURN_IF_ERROR(c->Concatenate(front, c->Vector(1), &out));
  WEFT_RETURN_IF_ERROR(c->Concatenate(out, back, &out));
  c->set_output(0, out);
  return Status();
}

Status SqueezeShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  std::vector<int64_t> squeeze_dims;
  WEFT_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &squeeze_dims));
  const int32_t rank = c->Rank(input);
  std::set<int64_t> wanted;
  for (int64_t d : squeeze_dims) {
    if (d < -rank || d >= rank) {
      return errors::InvalidArgument(
          "attr 'squeeze_dims' names dimension ", d, " but input 0 ",
          c->DebugString(input), " has rank ", rank,
          "; dimensions must be in [", -rank, ", ", rank, ")");
    }
    wanted.insert(d < 0 ? d + rank : d);
  }
  std::vector<DimensionHandle> dims;
  for (int32_t i = 0; i < rank; ++i) {
    const DimensionHandle d = c->Dim(input, i);
    const bool listed = wanted.count(i) > 0;
    if (!c->ValueKnown(d)) {
      if (listed) continue;  // Taken to be 1; the kernel checks.
      if (squeeze_dims.empty()) {
        // Whether it is squeezed depends on its run-time size.
        c->set_output(0, c->UnknownShape());
        return Status();
      }
      dims.push_back(d);
    } else if (c->Value(d) == 1) {
      if (!listed && !squeeze_dims.empty()) dims.push_back(d);
    } else {
      if (listed) {
        return errors::InvalidArgument(
            "cannot squeeze dimension ", i, " of input 0 ",
            c->DebugString(input), ": its size is ", c->Value(d), ", not 1");
      }
      dims.push_back(d);
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

}  // namespace

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape);

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = <unknown>")
    .SetShapeFn(PlaceholderShape);

REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn(PlaceholderWithDefaultShape);

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 1")
    .SetShapeFn(IdentityNShape);

REGISTER_OP("NoOp").SetShapeFn(shape_inference::NoOutputs);

REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ReshapeShape);

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeShape);

REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = DT_INT32")
    .SetShapeFn(ExpandDimsShape);

REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) >= 0 = []")
    .SetShapeFn(SqueezeShape);

}  // namespace weft
