// The vector paths' float Add, Sub, Mul and RealDiv (binary_float.h), and
// the element-wise kernels' BinaryRun for them (cwise_binary_op.h).
#include "kernels/cpu/binary_float.h"

#include <cstdint>
#include <cstring>

#include "device/cpu_isa.h"
#include "kernels/cpu/cwise_binary_op.h"

namespace weft {
namespace {

#define WEFT_FLOAT_BODY "kernels/cpu/binary_float.inc"
#include "kernels/cpu/float_paths.inc"

}  // namespace

bool BinaryFloatOnVectorPath(BinaryFloatOp op, const float* x, int64_t xs,
                             const float* y, int64_t ys, float* out,
                             int64_t n) {
  return RunOnVectorPath([&] { avx512::BinaryRun(op, x, xs, y, ys, out, n); },
                         [&] { avx2::BinaryRun(op, x, xs, y, ys, out, n); });
}

namespace cwise_internal {

#define WEFT_DEFINE_FLOAT_BINARY_RUN(F, OP)                                  \
  template <>                                                                \
  void BinaryRun<float, float, Eigen::internal::F<float, float>>(            \
      const float* x, int64_t xs, const float* y, int64_t ys, float* out,    \
      int64_t n, const Eigen::internal::F<float, float>& f) {                \
    if (!BinaryFloatOnVectorPath(BinaryFloatOp::OP, x, xs, y, ys, out, n)) { \
      BinaryRunGeneric(x, xs, y, ys, out, n, f);                             \
    }                                                                        \
  }
WEFT_DEFINE_FLOAT_BINARY_RUN(scalar_sum_op, kAdd)
WEFT_DEFINE_FLOAT_BINARY_RUN(scalar_difference_op, kSub)
WEFT_DEFINE_FLOAT_BINARY_RUN(scalar_product_op, kMul)
WEFT_DEFINE_FLOAT_BINARY_RUN(scalar_quotient_op, kDiv)
#undef WEFT_DEFINE_FLOAT_BINARY_RUN

}  // namespace cwise_internal

void BinaryFloat(BinaryFloatOp op, const float* x, int64_t xs, const float* y,
                 int64_t ys, float* out, int64_t n) {
  switch (op) {
    case BinaryFloatOp::kAdd:
      return cwise_internal::BinaryRun(x, xs, y, ys, out, n,
                                       AddFunctor<float>());
    case BinaryFloatOp::kSub:
      return cwise_internal::BinaryRun(x, xs, y, ys, out, n,
                                       SubFunctor<float>());
    case BinaryFloatOp::kMul:
      return cwise_internal::BinaryRun(x, xs, y, ys, out, n,
                                       MulFunctor<float>());
    case BinaryFloatOp::kDiv:
      return cwise_internal::BinaryRun(x, xs, y, ys, out, n,
                                       DivFunctor<float>());
  }
}
}  // namespace weft
