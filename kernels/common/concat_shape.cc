#include "kernels/common/concat_shape.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/common/alias_output.h"
#include "kernels/common/copy_util.h"

namespace weft {
namespace {

std::vector<TensorShape> InputShapes(const OpKernelContext& ctx, int n) {
  std::vector<TensorShape> shapes;
  shapes.reserve(n);
  for (int i = 0; i < n; ++i) shapes.push_back(ctx.input(i).shape());
  return shapes;
}

void ForwardIfOneInputHoldsAll(OpKernelContext* ctx, const ConcatDims& dims) {
  if (dims.forward_input >= 0) {
    ForwardInputWithShape(ctx, dims.forward_input, dims.out_shape);
  }
}

}  // namespace

StatusOr<ConcatDims> GetConcatV2Dims(absl::Span<const TensorShape> shapes,
                                     const Tensor& axis_t) {
  const int n = static_cast<int>(shapes.size());
  int64_t axis = 0;
  // A one-element vector is TensorFlow's legacy spelling of the scalar.
  WEFT_RETURN_IF_ERROR(ReadIndexScalar(axis_t,
                                       absl::StrCat("axis (input ", n, ")"),
                                       /*allow_vector_of_one=*/true, &axis));
  const TensorShape& first = shapes[0];
  const int rank = first.dims();
  if (rank == 0) {
    return errors::InvalidArgument(
        "input 0 is a scalar; scalars cannot be concatenated (Pack stacks "
        "them)");
  }
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("axis (input ", n, ") is ", axis,
                                   " but must be in [", -rank, ", ", rank,
                                   ") for inputs of rank ", rank);
  }
  if (axis < 0) axis += rank;
  int64_t axis_total = 0;
  int non_empty = 0;
  int last_non_empty = 0;
  for (int i = 0; i < n; ++i) {
    const TensorShape& s = shapes[i];
    bool match = s.dims() == rank;
    for (int d = 0; match && d < rank; ++d) {
      match = d == axis || s.dim_size(d) == first.dim_size(d);
    }
    if (!match) {
      return errors::InvalidArgument(
          "input ", i, " has shape ", s.DebugString(),
          " but must match input 0 ", first.DebugString(),
          " in rank and in every dimension but the axis ", axis);
    }
    axis_total += s.dim_size(static_cast<int>(axis));
    if (s.num_elements() > 0) {
      ++non_empty;
      last_non_empty = i;
    }
  }
  std::vector<int64_t> out_dims(first.dim_sizes().begin(),
                                first.dim_sizes().end());
  out_dims[axis] = axis_total;
  ConcatDims dims;
  WEFT_ASSIGN_OR_RETURN(dims.out_shape, TensorShape::Build(out_dims));
  // All the data in one input of the output's shape: nothing to move.
  if (non_empty == 1 && shapes[last_non_empty] == dims.out_shape) {
    dims.forward_input = last_non_empty;
    return dims;
  }
  dims.rows = 1;
  for (int d = 0; d < axis; ++d) dims.rows *= first.dim_size(d);
  dims.widths.resize(n);
  for (int i = 0; i < n; ++i) {
    dims.widths[i] = dims.rows == 0 ? 0 : shapes[i].num_elements() / dims.rows;
  }
  return dims;
}

StatusOr<ConcatDims> GetPackDims(absl::Span<const TensorShape> shapes,
                                 int64_t axis) {
  const int n = static_cast<int>(shapes.size());
  const TensorShape& first = shapes[0];
  const int rank = first.dims();
  if (axis < -(rank + 1) || axis > rank) {
    return errors::InvalidArgument("attr 'axis' is ", axis, " but must be in [",
                                   -(rank + 1), ", ", rank + 1,
                                   ") to stack inputs of rank ", rank);
  }
  if (rank >= kMaxRank) {
    return errors::InvalidArgument("stacking inputs of rank ", rank,
                                   " exceeds the maximum rank ", kMaxRank);
  }
  if (axis < 0) axis += rank + 1;
  for (int i = 1; i < n; ++i) {
    if (shapes[i] != first) {
      return errors::InvalidArgument(
          "all inputs to stack must have one shape, but input 0 is ",
          first.DebugString(), " and input ", i, " is ",
          shapes[i].DebugString());
    }
  }
  std::vector<int64_t> out_dims(first.dim_sizes().begin(),
                                first.dim_sizes().end());
  out_dims.insert(out_dims.begin() + axis, n);
  ConcatDims dims;
  WEFT_ASSIGN_OR_RETURN(dims.out_shape, TensorShape::Build(out_dims));
  // One input: the output is its data under the new shape.
  if (n == 1) {
    dims.forward_input = 0;
    return dims;
  }
  dims.rows = 1;
  for (int d = 0; d < axis; ++d) dims.rows *= first.dim_size(d);
  const int64_t width = dims.rows == 0 ? 0 : first.num_elements() / dims.rows;
  dims.widths.assign(n, width);
  return dims;
}

Status StartConcatV2(OpKernelContext* ctx, ConcatDims* dims) {
  const int n = ctx->num_inputs() - 1;
  WEFT_ASSIGN_OR_RETURN(*dims,
                        GetConcatV2Dims(InputShapes(*ctx, n), ctx->input(n)));
  ForwardIfOneInputHoldsAll(ctx, *dims);
  return Status();
}

Status StartPack(OpKernelContext* ctx, int64_t axis, ConcatDims* dims) {
  WEFT_ASSIGN_OR_RETURN(
      *dims, GetPackDims(InputShapes(*ctx, ctx->num_inputs()), axis));
  ForwardIfOneInputHoldsAll(ctx, *dims);
  return Status();
}

}  // namespace weft
