#include "kernels/common/matmul_shape.h"

namespace weft {

StatusOr<MatMulDims> GetMatMulDims(const Tensor& a, const Tensor& b,
                                   bool transpose_a, bool transpose_b) {
  if (a.dims() != 2) {
    return errors::InvalidArgument("a must be a matrix (rank 2) but has shape ",
                                   a.shape().DebugString());
  }
  if (b.dims() != 2) {
    return errors::InvalidArgument("b must be a matrix (rank 2) but has shape ",
                                   b.shape().DebugString());
  }
  MatMulDims d;
  d.m = a.dim_size(transpose_a ? 1 : 0);
  d.k = a.dim_size(transpose_a ? 0 : 1);
  const int64_t k_b = b.dim_size(transpose_b ? 1 : 0);
  d.n = b.dim_size(transpose_b ? 0 : 1);
  if (d.k != k_b) {
    return errors::InvalidArgument(
        "inner dimensions differ: a has shape ", a.shape().DebugString(),
        " (transpose_a=", transpose_a ? "true" : "false", ") and b has shape ",
        b.shape().DebugString(),
        " (transpose_b=", transpose_b ? "true" : "false",
        "), so a contributes ", d.k, " and b ", k_b);
  }
  return d;
}

}  // namespace weft
