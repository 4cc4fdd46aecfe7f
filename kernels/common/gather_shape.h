// The input contract of GatherV2, shared by its kernels on every device so
// that they accept the same graphs, produce the same shape and report the
// same errors. Index values are not looked at here: the CPU kernel checks
// them itself, and the CUDA kernel cannot read them on the host.
#ifndef WEFT_KERNELS_COMMON_GATHER_SHAPE_H_
#define WEFT_KERNELS_COMMON_GATHER_SHAPE_H_

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"

namespace weft {

// output[b, o, j, k] = params[b, o, indices[b, j], k] with params viewed as
// [batch, outer, gather_dim, inner] (batch = the first batch_dims
// dimensions, shared with indices) and indices as [batch, n].
struct GatherDims {
  TensorShape shape;
  // In [0, params.dims()).
  int64_t axis = 0;
  int64_t batch = 1;
  int64_t outer = 1;
  int64_t gather_dim = 0;
  int64_t n = 1;
  int64_t inner = 1;
};

// GatherV2(params, indices, axis) with the batch_dims attr: params of rank
// >= 1, axis a scalar (input 2) in [-rank, rank) of params, batch_dims in
// [-rank, rank] of indices and then less than the rank of params and at
// most axis, and the batch dimensions of params and indices equal.
// InvalidArgument otherwise, and the errors of ReadIndexScalar and
// TensorShape::Build.
StatusOr<GatherDims> ResolveGather(const Tensor& params, const Tensor& indices,
                                   const Tensor& axis, int64_t batch_dims);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_GATHER_SHAPE_H_
