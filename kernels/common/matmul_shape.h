// The shape contract MatMul-like kernels share on every device: MatMul,
// _FusedMatMul and the CUDA MatMul check their operands the same way and
// report a mismatch with the same message.
#ifndef WEFT_KERNELS_COMMON_MATMUL_SHAPE_H_
#define WEFT_KERNELS_COMMON_MATMUL_SHAPE_H_

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"

namespace weft {

// op(a) is m x k and op(b) is k x n.
struct MatMulDims {
  int64_t m = 0;
  int64_t k = 0;
  int64_t n = 0;
};

// Checks that `a` and `b` are matrices whose inner dimensions agree once
// `transpose_a` / `transpose_b` are applied; the error names both shapes and
// both flags.
StatusOr<MatMulDims> GetMatMulDims(const Tensor& a, const Tensor& b,
                                   bool transpose_a, bool transpose_b);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_MATMUL_SHAPE_H_
