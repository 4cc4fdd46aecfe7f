// BiasAdd on the CPU: adds a 1-D bias along the channel dimension of
// `value`, the last one for NHWC and dimension 1 for NCHW (both for any rank
// >= 2; for rank 2 they coincide). The output takes over `value`'s buffer
// when nothing else holds it. BiasAddV1, the form without data_format, is
// the NHWC case.
#include <cstdint>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/common/bias_add_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Integer bias adds wrap, as in TensorFlow, without signed overflow.
template <typename T>
T AddScalar(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
void AddRow(const T* in, const T* bias, T* out, int64_t n) {
  if constexpr (std::is_integral_v<T>) {
    for (int64_t i = 0; i < n; ++i) out[i] = AddScalar(in[i], bias[i]);
  } else {
    ArrayMap<T>(out, n) = ConstArrayMap<T>(in, n) + ConstArrayMap<T>(bias, n);
  }
}

template <typename T>
void AddConstant(const T* in, T value, T* out, int64_t n) {
  if constexpr (std::is_integral_v<T>) {
    for (int64_t i = 0; i < n; ++i) out[i] = AddScalar(in[i], value);
  } else {
    ArrayMap<T>(out, n) = ConstArrayMap<T>(in, n) + value;
  }
}

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (!ctx->HasAttr("data_format")) return;  // BiasAddV1
    StatusOr<bool> channels_first = ReadBiasAddChannelsFirst(ctx);
    OP_REQUIRES_OK(ctx, channels_first.status());
    channels_first_ = *channels_first;
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    StatusOr<BiasAddDims> dims = GetBiasAddDims(value, bias, channels_first_);
    OP_REQUIRES_OK(ctx, dims.status());
    const int64_t channels = dims->channels;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, value.shape(), &out));
    const int64_t total = value.NumElements();
    if (total == 0) return;
    const T* in = value.data<T>();
    const T* b = bias.data<T>();
    T* o = out->data<T>();
    if (!channels_first_ || value.dims() == 2) {
      // [rows, channels]: each row gets the whole bias. (Rank-2 NCHW has
      // its channels last too.)
      const int64_t rows = total / channels;
      ctx->ParallelFor(rows, channels * 3, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          AddRow(in + r * channels, b, o + r * channels, channels);
        }
      });
    } else {
      // [batch, channels, inner]: each (batch, channel) plane gets one
      // bias value.
      const int64_t inner = total / (value.dim_size(0) * channels);
      const int64_t planes = total / inner;
      ctx->ParallelFor(planes, inner * 3, [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          AddConstant(in + p * inner, b[p % channels], o + p * inner, inner);
        }
      });
    }
  }

 private:
  bool channels_first_ = false;
};

#define WEFT_REGISTER_BIAS_ADD(T)                                  \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      BiasAddOp<T>);                                               \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("BiasAddV1").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BiasAddOp<T>)

WEFT_REGISTER_BIAS_ADD(half);
WEFT_REGISTER_BIAS_ADD(bfloat16);
WEFT_REGISTER_BIAS_ADD(float);
WEFT_REGISTER_BIAS_ADD(double);
WEFT_REGISTER_BIAS_ADD(int32_t);
WEFT_REGISTER_BIAS_ADD(int64_t);

#undef WEFT_REGISTER_BIAS_ADD

}  // namespace
}  // namespace weft
