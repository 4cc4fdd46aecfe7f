// CPU kernels of LogicalAnd and LogicalOr (bool, with broadcasting) and
// LogicalNot.
#include <cstdint>

#include "core/tensor.h"
#include "kernels/cpu/cwise_binary_op.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Bitwise on the operands' 0/1 values rather than && and ||: no short
// circuit, so the loops vectorize (LogicalAnd ran at 1 ns per element, the
// causal mask of every attention layer of a decoder).
struct LogicalAndFunctor {
  bool operator()(const bool& a, const bool& b) const { return a & b; }
};
struct LogicalOrFunctor {
  bool operator()(const bool& a, const bool& b) const { return a | b; }
};

class LogicalNotOp : public OpKernel {
 public:
  explicit LogicalNotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    const bool* in = x.data<bool>();
    bool* out = y->data<bool>();
    ctx->ParallelFor(x.NumElements(), 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = !in[i];
    });
  }
};

}  // namespace
}  // namespace weft

namespace Eigen::internal {
template <>
struct functor_traits<weft::LogicalAndFunctor> {
  enum { Cost = 1, PacketAccess = false };
};
template <>
struct functor_traits<weft::LogicalOrFunctor> {
  enum { Cost = 1, PacketAccess = false };
};
}  // namespace Eigen::internal

namespace weft {
namespace {

REGISTER_KERNEL_BUILDER(Name("LogicalAnd").Device(DEVICE_CPU),
                        BinaryCwiseOp<bool, LogicalAndFunctor>);
REGISTER_KERNEL_BUILDER(Name("LogicalOr").Device(DEVICE_CPU),
                        BinaryCwiseOp<bool, LogicalOrFunctor>);
REGISTER_KERNEL_BUILDER(Name("LogicalNot").Device(DEVICE_CPU), LogicalNotOp);

}  // namespace
}  // namespace weft
