// ComplexAbs on the CPU: |x| = hypot(re, im) per element, complex64 to
// float and complex128 to double (TensorFlow's CPU pairs). std::abs of a
// std::complex is the C library's cabs, which is what TensorFlow's Eigen
// functor calls for complex scalars too: no overflow for large parts, Inf
// when either part is infinite, NaN otherwise when one is NaN.
#include <complex>
#include <cstdint>

#include "core/dtype_traits.h"
#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename S>
class ComplexAbsOp : public OpKernel {
 public:
  explicit ComplexAbsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const std::complex<S>* in = x.data<std::complex<S>>();
    S* out = y->data<S>();
    ctx->ParallelFor(x.NumElements(), 20, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = std::abs(in[i]);
    });
  }
};

REGISTER_KERNEL_BUILDER(Name("ComplexAbs")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_COMPLEX64})
                            .TypeConstraint("Tout", {DT_FLOAT}),
                        ComplexAbsOp<float>);
REGISTER_KERNEL_BUILDER(Name("ComplexAbs")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_COMPLEX128})
                            .TypeConstraint("Tout", {DT_DOUBLE}),
                        ComplexAbsOp<double>);

}  // namespace
}  // namespace weft
