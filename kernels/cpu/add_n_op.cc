// AddN on the CPU: the element-wise sum of N >= 1 tensors of one shape, for
// half, bfloat16, float, double, int32 and int64.
//
// Every addition is rounded in T (wrapping for integers), in TensorFlow's
// order, so results agree exactly with TensorFlow's kernel when it adds
// inputs in their given order: the first r inputs left to right, r = N mod 8
// (8 when that is 0, 9 when it is 1), ((x0 + x1) + x2) + ..., then each
// further group of 8 summed left to right on its own and added to the total.
// (TensorFlow moves an input whose buffer it reuses to the front; weft keeps
// the order, so its result does not depend on buffer reuse.) The work is done
// a block of elements at a time, all inputs per block, so the running sums
// stay in cache.
#include <algorithm>
#include <cstdint>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/cpu/cwise_binary_op.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  errors::InvalidArgument(
                      "inputs must all have the same shape, but input 0 has "
                      "shape ",
                      first.shape().DebugString(), " and input ", i,
                      " has shape ", ctx->input(i).shape().DebugString()));
    }
    if (n == 1) {
      ctx->set_output(0, first);
      return;
    }
    // Only input 0 or 1 may become the output: both are read in the first
    // pass before their elements are written, later inputs would not be.
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0, 1}, 0, first.shape(), &out));
    T* o = out->data<T>();
    const AddFunctor<T> add;
    const int head = n % 8 == 0 ? 8 : (n % 8 == 1 ? 9 : n % 8);
    constexpr int64_t kBlock = 1024;
    const int64_t size = first.NumElements();
    const int64_t blocks = (size + kBlock - 1) / kBlock;
    ctx->ParallelFor(blocks, kBlock * n, [&](int64_t begin, int64_t end) {
      T group_buf[kBlock];
      for (int64_t b = begin; b < end; ++b) {
        const int64_t start = b * kBlock;
        const int64_t len = std::min(kBlock, size - start);
        cwise_internal::ArrayMap<T> acc(o + start, len);
        acc = Input(*ctx, 0, start, len)
                  .binaryExpr(Input(*ctx, 1, start, len), add);
        for (int i = 2; i < std::min(head, n); ++i) {
          acc = acc.binaryExpr(Input(*ctx, i, start, len), add);
        }
        cwise_internal::ArrayMap<T> group(group_buf, len);
        for (int g = head; g < n; g += 8) {
          group = Input(*ctx, g, start, len)
                      .binaryExpr(Input(*ctx, g + 1, start, len), add);
          for (int i = g + 2; i < g + 8; ++i) {
            group = group.binaryExpr(Input(*ctx, i, start, len), add);
          }
          acc = acc.binaryExpr(group, add);
        }
      }
    });
  }

 private:
  static cwise_internal::ConstArrayMap<T> Input(const OpKernelContext& ctx,
                                                int i, int64_t start,
                                                int64_t len) {
    return cwise_internal::ConstArrayMap<T>(ctx.input(i).data<T>() + start,
                                            len);
  }
};

#define WEFT_REGISTER_ADD_N(T) \
  REGISTER_KERNEL_BUILDER(     \
      Name("AddN").Device(DEVICE_CPU).TypeConstraint<T>("T"), AddNOp<T>)

WEFT_REGISTER_ADD_N(half);
WEFT_REGISTER_ADD_N(bfloat16);
WEFT_REGISTER_ADD_N(float);
WEFT_REGISTER_ADD_N(double);
WEFT_REGISTER_ADD_N(int32_t);
WEFT_REGISTER_ADD_N(int64_t);

#undef WEFT_REGISTER_ADD_N

}  // namespace
}  // namespace weft
