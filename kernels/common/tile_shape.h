// The shape contract of Tile, shared by its kernels on every device so that
// they accept the same multiples and report the same errors.
#ifndef WEFT_KERNELS_COMMON_TILE_SHAPE_H_
#define WEFT_KERNELS_COMMON_TILE_SHAPE_H_

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "kernels/op_kernel.h"

namespace weft {

struct TileDims {
  // The multiples input's values, one per input dimension.
  std::vector<int64_t> multiples;
  // All multiples are 1: the output is the input itself.
  bool same = false;
  // input.dim_size(d) * multiples[d]; the input's shape when `same`.
  TensorShape out_shape;
};

// Checks `multiples` (input 1) against `input` (input 0).
// Errors (InvalidArgument): multiples is not a vector of one int32/int64
// per input dimension, a multiple is negative, or an output size
// overflows.
StatusOr<TileDims> GetTileDims(const TensorShape& input,
                               const Tensor& multiples);

// The start of every Tile kernel's Compute: GetTileDims for inputs 0 and 1
// into *dims and, when all multiples are 1, output 0 set to input 0: the
// kernel has nothing left to do.
// Errors: GetTileDims's.
Status StartTile(OpKernelContext* ctx, TileDims* dims);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_TILE_SHAPE_H_
