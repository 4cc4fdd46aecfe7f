// The shape contract of Transpose, shared by its kernels on every device so
// that they accept the same permutations and report the same errors.
#ifndef WEFT_KERNELS_COMMON_TRANSPOSE_SHAPE_H_
#define WEFT_KERNELS_COMMON_TRANSPOSE_SHAPE_H_

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "kernels/op_kernel.h"

namespace weft {

struct TransposeDims {
  // The perm input with negative entries resolved: output dimension i is
  // input dimension perm[i], in [0, rank).
  std::vector<int64_t> perm;
  TensorShape out_shape;
  // False when the dimensions larger than 1 keep their order: the output
  // is the input's buffer viewed as out_shape, and no data moves.
  bool moves_data = false;
};

// Checks `perm` (input 1) against `input` (input 0), TensorFlow's rules:
// entries may be negative, counting from the end.
// Errors (InvalidArgument): perm is not a vector of int32/int64, its length
// is not the input's rank, or it is not a permutation (an entry repeated or
// out of range).
StatusOr<TransposeDims> GetTransposeDims(const TensorShape& input,
                                         const Tensor& perm);

// The start of every Transpose kernel's Compute: GetTransposeDims for
// inputs 0 and 1 into *dims and, when no data moves, output 0 set to input
// 0 viewed as dims->out_shape: the kernel has nothing left to do.
// Errors: GetTransposeDims's.
Status StartTranspose(OpKernelContext* ctx, TransposeDims* dims);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_TRANSPOSE_SHAPE_H_
