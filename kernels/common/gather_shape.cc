#include "kernels/common/gather_shape.h"

#include <vector>

#include "kernels/common/copy_util.h"

namespace weft {

StatusOr<GatherDims> ResolveGather(const Tensor& params, const Tensor& indices,
                                   const Tensor& axis_t, int64_t batch_dims) {
  int64_t axis = 0;
  WEFT_RETURN_IF_ERROR(ReadIndexScalar(axis_t, "axis (input 2)",
                                       /*allow_vector_of_one=*/false, &axis));
  const int prank = params.dims();
  const int irank = indices.dims();
  if (prank < 1) {
    return errors::InvalidArgument(
        "params (input 0) must have rank >= 1 but is a scalar");
  }
  if (axis < -prank || axis >= prank) {
    return errors::InvalidArgument(
        "axis (input 2) is ", axis, " but must be in [", -prank, ", ", prank,
        ") for params (input 0) ", params.shape().DebugString());
  }
  if (axis < 0) axis += prank;
  if (batch_dims < -irank || batch_dims > irank) {
    return errors::InvalidArgument(
        "attr 'batch_dims' is ", batch_dims, " but must be in [", -irank, ", ",
        irank, "] for indices (input 1) ", indices.shape().DebugString());
  }
  if (batch_dims < 0) batch_dims += irank;
  if (!(batch_dims < prank && batch_dims <= axis)) {
    return errors::InvalidArgument(
        "attr 'batch_dims' is ", batch_dims,
        " but must be less than the rank of params (input 0) ",
        params.shape().DebugString(), " and at most axis ", axis);
  }
  for (int d = 0; d < batch_dims; ++d) {
    if (params.dim_size(d) != indices.dim_size(d)) {
      return errors::InvalidArgument(
          "batch dimension ", d, " of params (input 0) ",
          params.shape().DebugString(), " and indices (input 1) ",
          indices.shape().DebugString(), " must agree");
    }
  }
  GatherDims g;
  g.axis = axis;
  std::vector<int64_t> out_dims;
  for (int d = 0; d < axis; ++d) {
    out_dims.push_back(params.dim_size(d));
    (d < batch_dims ? g.batch : g.outer) *= params.dim_size(d);
  }
  for (int d = static_cast<int>(batch_dims); d < irank; ++d) {
    out_dims.push_back(indices.dim_size(d));
    g.n *= indices.dim_size(d);
  }
  for (int d = static_cast<int>(axis) + 1; d < prank; ++d) {
    out_dims.push_back(params.dim_size(d));
    g.inner *= params.dim_size(d);
  }
  g.gather_dim = params.dim_size(static_cast<int>(axis));
  WEFT_ASSIGN_OR_RETURN(g.shape, TensorShape::Build(out_dims));
  return g;
}

}  // namespace weft
