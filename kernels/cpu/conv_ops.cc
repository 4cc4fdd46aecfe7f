// Conv2D on the CPU: the convolution of conv2d.h (im2col chunks multiplied
// by the filter with gemm.h's GEMM, or the input multiplied in place for 1x1
// filters), shared with _FusedConv2D. A constant float filter (a session's
// weights) is packed for the GEMM once, when the kernel is made.
//
// NCHW is computed in NHWC between two layout changes (image_layout.h).
// half and bfloat16 are gathered into float patches, multiplied with float
// accumulation and rounded once; int32 multiplies and sums modulo 2^32, as
// TensorFlow's int32 kernel wraps.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "core/tensor.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/conv2d.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// The storage type a kernel computes on and the type it accumulates in:
// int32 is computed as uint32 (wrapping, see gemm.h).
template <typename T>
struct ConvTypes {
  using Storage = T;
  using Acc = AccumulateType<T>;
};
template <>
struct ConvTypes<int32_t> {
  using Storage = uint32_t;
  using Acc = uint32_t;
};

template <typename T>
class Conv2DOp : public OpKernel {
 public:
  using S = typename ConvTypes<T>::Storage;
  using A = typename ConvTypes<T>::Acc;

  explicit Conv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
    // A constant float filter is packed now, once, for ungrouped
    // convolutions (the group count depends on the input's depth, known
    // only in Compute).
    if constexpr (std::is_same_v<T, float>) {
      if (const Tensor* f = ctx->constant_input(1)) {
        packed_ = Conv2DPackedFilter::Make(*f, 1, &attrs_);
      }
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DGeometry s;
    OP_REQUIRES_OK(ctx, MakeConv2DGeometry(attrs_, input, filter, &s));

    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0,
                            FormatShape(attrs_.format, s.batch, s.rows.output,
                                        s.cols.output, s.out_depth),
                            &output));
    if (output->NumElements() == 0) return;
    if (s.in_depth == 0) {
      std::fill_n(output->data<T>(), output->NumElements(), T(0));
      return;
    }

    // The filter in the accumulation type: converted once for half and
    // bfloat16, viewed in place otherwise.
    Tensor filter_acc;
    const A* f = nullptr;
    if constexpr (std::is_same_v<S, A>) {
      f = reinterpret_cast<const A*>(filter.data<T>());
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<A>::value,
                                             filter.shape(), &filter_acc));
      ConvertElements(filter.data<T>(), filter_acc.data<A>(),
                      filter.NumElements());
      f = filter_acc.data<A>();
    }
    WithNhwc(ctx, attrs_.format, input, output,
             [&](const Tensor& in, Tensor* out) {
               if constexpr (std::is_same_v<T, float>) {
                 Conv2DNhwc(ContextParallelFor(*ctx), s, in.data<float>(), f,
                            GemmEpilogue(), out->data<float>(),
                            packed_ ? packed_->For(filter, s) : nullptr);
               } else {
                 Conv2DNhwc<S, A>(ContextParallelFor(*ctx), s,
                                  reinterpret_cast<const S*>(in.data<T>()), f,
                                  reinterpret_cast<S*>(out->data<T>()));
               }
             });
  }

 private:
  WindowAttrs attrs_;
  std::unique_ptr<Conv2DPackedFilter> packed_;  // null: packed per call
};

#define WEFT_REGISTER_CONV2D(T) \
  REGISTER_KERNEL_BUILDER(      \
      Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Conv2DOp<T>)

WEFT_REGISTER_CONV2D(float);
WEFT_REGISTER_CONV2D(double);
WEFT_REGISTER_CONV2D(half);
WEFT_REGISTER_CONV2D(bfloat16);
WEFT_REGISTER_CONV2D(int32_t);

#undef WEFT_REGISTER_CONV2D

}  // namespace
}  // namespace weft
