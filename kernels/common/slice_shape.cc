#include "kernels/common/slice_shape.h"

#include <utility>
#include <vector>

#include "kernels/common/copy_util.h"

namespace weft {
namespace {

// The view's output shape, and whether the view is all of the input in
// order (size-1 dimensions may start anywhere and step any way).
StatusOr<SliceView> FinishView(const Tensor& input, std::vector<int64_t> begin,
                               std::vector<int64_t> steps,
                               std::vector<int64_t> dims,
                               const std::vector<int64_t>& out_dims) {
  SliceView view;
  WEFT_ASSIGN_OR_RETURN(view.shape, TensorShape::Build(out_dims));
  bool whole = true;
  for (int d = 0; d < input.dims(); ++d) {
    const int64_t size = input.dim_size(d);
    whole = whole && dims[d] == size &&
            (size <= 1 || (begin[d] == 0 && steps[d] == 1));
  }
  view.whole = whole;
  view.begin = std::move(begin);
  view.steps = std::move(steps);
  view.dims = std::move(dims);
  return view;
}

}  // namespace

StatusOr<SliceView> ResolveSlice(const Tensor& input, const Tensor& begin_t,
                                 const Tensor& size_t_) {
  const int rank = input.dims();
  if (!(begin_t.dims() == 1 && size_t_.dims() == 1 &&
        begin_t.dim_size(0) == rank && size_t_.dim_size(0) == rank)) {
    return errors::InvalidArgument(
        "begin (input 1) and size (input 2) must be vectors of ", rank,
        " values, one per dimension of input 0 ", input.shape().DebugString(),
        ", but have shapes ", begin_t.shape().DebugString(), " and ",
        size_t_.shape().DebugString());
  }
  std::vector<int64_t> begin;
  std::vector<int64_t> size;
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(begin_t, "begin (input 1)", &begin));
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(size_t_, "size (input 2)", &size));
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = input.dim_size(d);
    if (begin[d] < 0 || begin[d] > dim) {
      return errors::InvalidArgument("begin (input 1) is ",
                                     IndexListString(begin), " but begin[", d,
                                     "] must be in [0, ", dim, "] for input 0 ",
                                     input.shape().DebugString());
    }
    if (size[d] == -1) size[d] = dim - begin[d];
    if (size[d] < 0 || size[d] > dim - begin[d]) {
      return errors::InvalidArgument(
          "size (input 2) is ", IndexListString(size), " but size[", d,
          "] must be in [0, ", dim - begin[d], "] (or -1) to slice dimension ",
          d, " of input 0 ", input.shape().DebugString(), " from ", begin[d]);
    }
  }
  return FinishView(input, std::move(begin), std::vector<int64_t>(rank, 1),
                    size, size);
}

StatusOr<SliceView> ResolveStridedSlice(const Tensor& input,
                                        const Tensor& begin, const Tensor& end,
                                        const Tensor& strides,
                                        const StridedSliceMasks& masks) {
  static constexpr const char* kNames[] = {"begin (input 1)", "end (input 2)",
                                           "strides (input 3)"};
  const Tensor* tensors[] = {&begin, &end, &strides};
  std::vector<int64_t> spec[3];
  for (int i = 0; i < 3; ++i) {
    const Tensor& t = *tensors[i];
    if (t.dims() != 1) {
      return errors::InvalidArgument(kNames[i],
                                     " must be a vector but has shape ",
                                     t.shape().DebugString());
    }
    WEFT_RETURN_IF_ERROR(ReadIndexTensor(t, kNames[i], &spec[i]));
  }
  const std::vector<int64_t> input_dims(input.shape().dim_sizes().begin(),
                                        input.shape().dim_sizes().end());
  WEFT_ASSIGN_OR_RETURN(
      StridedSlicePlan plan,
      PlanStridedSlice(input_dims, static_cast<int64_t>(spec[0].size()),
                       &spec[0], &spec[1], &spec[2], masks));
  return FinishView(input, std::move(plan.begin), std::move(plan.strides),
                    std::move(plan.processing_shape), plan.final_shape);
}

Status ReadStridedSliceMasks(OpKernelConstruction* ctx,
                             StridedSliceMasks* masks) {
  return ReadStridedSliceMasks(ctx->def().attr, masks);
}

}  // namespace weft
