// float Add, Sub, Mul and RealDiv on the AVX2 and AVX-512 paths
// (device/cpu_isa.h).
//
// The element-wise binary kernels (cwise_binary_op.h) loop over Eigen
// arrays, whose packets Eigen fixes when it is compiled: SSE, 4 floats, in
// the portable build. The four arithmetic ops that models run most (Swish's
// Mul, residual Adds, batch-norm Sub and Mul, Softmax's RealDiv) get their
// own loops on the vector paths, 8 or 16 floats wide. Each element is the
// same single IEEE operation as on the baseline path, so results are
// bit-identical on every path.
#ifndef WEFT_KERNELS_CPU_BINARY_FLOAT_H_
#define WEFT_KERNELS_CPU_BINARY_FLOAT_H_

#include <cstdint>

namespace weft {

enum class BinaryFloatOp { kAdd, kSub, kMul, kDiv };

// out[i] = op(x[i * xs], y[i * ys]) for i < n, each stride 0 or 1 (not both
// 0); `out` may be an input read with stride 1. On the active vector path;
// returns false, writing nothing, on the baseline path.
bool BinaryFloatOnVectorPath(BinaryFloatOp op, const float* x, int64_t xs,
                             const float* y, int64_t ys, float* out, int64_t n);

// The same on every path: the float loop of the op's own kernel (the
// vector loop above, or Eigen's on the baseline path), for fused kernels
// that must give the node's bits (_FusedElementwise).
void BinaryFloat(BinaryFloatOp op, const float* x, int64_t xs, const float* y,
                 int64_t ys, float* out, int64_t n);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_BINARY_FLOAT_H_
