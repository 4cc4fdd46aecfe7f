// CheckNumerics and EnsureShape on the CPU: both pass their input through
// unchanged (the output shares its buffer) after a check.
//  - CheckNumerics: an InvalidArgument "<message> : Tensor had NaN values"
//    (Inf, or Inf and NaN) when any element is NaN or infinite, as
//    TensorFlow words it; SetStatus prefixes the node.
//  - EnsureShape: an InvalidArgument when the input's shape is not
//    compatible with the `shape` attr (unknown dimensions match any size).
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const T* v = x.data<T>();
    constexpr int kNaN = 1;
    constexpr int kInf = 2;
    std::atomic<int> found{0};
    ctx->ParallelFor(x.NumElements(), 2, [&](int64_t begin, int64_t end) {
      int local = 0;
      for (int64_t i = begin; i < end; ++i) {
        using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
        const C f = static_cast<C>(v[i]);
        if (std::isnan(f)) local |= kNaN;
        if (std::isinf(f)) local |= kInf;
      }
      if (local != 0) found.fetch_or(local, std::memory_order_relaxed);
    });
    const int bits = found.load();
    if (bits != 0) {
      const char* what = bits == (kNaN | kInf) ? "Inf and NaN"
                         : bits == kNaN        ? "NaN"
                                               : "Inf";
      ctx->SetStatus(
          errors::InvalidArgument(message_, " : Tensor had ", what, " values"));
      return;
    }
    ctx->set_output(0, x);
  }

 private:
  std::string message_;
};

#define WEFT_REGISTER_CHECK_NUMERICS(T)                                \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      CheckNumericsOp<T>)

WEFT_REGISTER_CHECK_NUMERICS(half);
WEFT_REGISTER_CHECK_NUMERICS(bfloat16);
WEFT_REGISTER_CHECK_NUMERICS(float);
WEFT_REGISTER_CHECK_NUMERICS(double);

#undef WEFT_REGISTER_CHECK_NUMERICS

class EnsureShapeOp : public OpKernel {
 public:
  explicit EnsureShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, shape_.IsCompatibleWith(x.shape()),
                errors::InvalidArgument(
                    "Shape of tensor input ", x.shape().DebugString(),
                    " is not compatible with expected shape ",
                    shape_.DebugString(), "."));
    ctx->set_output(0, x);
  }

  bool IsExpensive() const override { return false; }

 private:
  PartialTensorShape shape_;
};

REGISTER_KERNEL_BUILDER(Name("EnsureShape").Device(DEVICE_CPU), EnsureShapeOp);

}  // namespace
}  // namespace weft
