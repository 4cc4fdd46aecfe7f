// The right-hand side of MatMul and _FusedMatMul packed once, when it is a
// constant (a Dense layer's weights: OpKernelConstruction::constant_input),
// so that runs multiply by it without packing it again (gemm.h's
// GemmPackedRhs; about one more copy of the weights on the AVX2 and AVX-512
// paths, none on the baseline path).
#ifndef WEFT_KERNELS_CPU_MATMUL_PACKED_RHS_H_
#define WEFT_KERNELS_CPU_MATMUL_PACKED_RHS_H_

#include <cstdint>
#include <memory>

#include "core/tensor.h"
#include "core/types.h"
#include "kernels/cpu/gemm.h"
#include "kernels/op_kernel.h"

namespace weft {

class MatMulPackedRhs {
 public:
  // op(b) of a float matrix `b` (transposed when `transpose_b`) packed;
  // null for another dtype or rank (the kernel's checks in Compute report
  // those). Keeps a reference to b's buffer (the baseline path reads it).
  static std::unique_ptr<MatMulPackedRhs> Make(const Tensor& b,
                                               bool transpose_b) {
    if (b.dtype() != DT_FLOAT || b.dims() != 2) return nullptr;
    const int64_t k = transpose_b ? b.dim_size(1) : b.dim_size(0);
    const int64_t n = transpose_b ? b.dim_size(0) : b.dim_size(1);
    return std::unique_ptr<MatMulPackedRhs>(new MatMulPackedRhs(
        b, k, n,
        GemmOperand<float>{b.data<float>(), b.dim_size(1), transpose_b}));
  }

  // The packing when `b` (the op's input in this run) is the packed tensor,
  // else null (a signature that feeds it: pack per call).
  const GemmPackedRhs* For(const Tensor& b) const {
    return ConstantInputMatches(b, b_) ? &packed_ : nullptr;
  }

 private:
  MatMulPackedRhs(const Tensor& b, int64_t k, int64_t n,
                  GemmOperand<float> operand)
      : b_(b), packed_(k, n, operand) {}

  const Tensor b_;
  const GemmPackedRhs packed_;
};

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_MATMUL_PACKED_RHS_H_
