// Fill, ZerosLike, OnesLike and Range on the CPU. Fill and the *Like ops
// repeat one element and are dtype-agnostic (element width only; strings
// for Fill and ZerosLike, as in TensorFlow); Fill's checks and OnesLike's
// one come from kernels/common/fill_shape.h, which the CUDA kernels share.
// Range computes values and has one small instantiation per registered dtype.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/fill_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// A tensor of shape dims (input 0) holding value (input 1) everywhere.
class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& value = ctx->input(1);
    StatusOr<TensorShape> shape = ResolveFillShape(ctx->input(0), value);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    copy_util::ParallelFillElements(*ctx, value.dtype(), value.raw_data(),
                                    out->raw_data(), out->NumElements());
  }
};

// Zeros of the input's shape and dtype; all-zero bits are zero for every
// plain-bytes dtype, and a fresh string tensor holds empty strings.
class ZerosLikeOp : public OpKernel {
 public:
  explicit ZerosLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    if (x.dtype() == DT_STRING) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
      return;
    }
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &out));
    alignas(16) const unsigned char zero[16] = {};
    copy_util::ParallelFillElements(*ctx, x.dtype(), zero, out->raw_data(),
                                    out->NumElements());
  }
};

class OnesLikeOp : public OpKernel {
 public:
  explicit OnesLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, OneElement(ctx->input_type(0), one_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &out));
    copy_util::ParallelFillElements(*ctx, x.dtype(), one_, out->raw_data(),
                                    out->NumElements());
  }

 private:
  alignas(16) unsigned char one_[16] = {};
};

// ---- Range ------------------------------------------------------------------

template <typename T>
std::string ValueString(T v) {
  if constexpr (std::is_integral_v<T>) {
    return absl::StrCat(v);
  } else {
    return absl::StrCat(static_cast<double>(v));
  }
}

// The number of elements of Range(start, limit, delta), TensorFlow's rule
// (the one the op's shape function applies): ceil(|limit - start| / |delta|)
// exactly for integers, ceil(|(limit - start) / delta|) with the quotient
// rounded to T for floating types.
template <typename T>
Status RangeSize(T start, T limit, T delta, int64_t* size) {
  if (delta == T(0)) {
    return errors::InvalidArgument("delta (input 2) must not be 0");
  }
  if (delta > T(0) ? start > limit : start < limit) {
    return errors::InvalidArgument(
        "start ", ValueString(start), (delta > T(0) ? " > " : " < "), "limit ",
        ValueString(limit), " but delta ", ValueString(delta), " is ",
        delta > T(0) ? "positive" : "negative");
  }
  if constexpr (std::is_integral_v<T>) {
    const __int128 distance = static_cast<__int128>(limit) - start;
    const __int128 d = distance < 0 ? -distance : distance;
    const __int128 s = delta < 0 ? -static_cast<__int128>(delta) : delta;
    const __int128 n = (d + s - 1) / s;
    if (n > std::numeric_limits<int64_t>::max()) {
      return errors::InvalidArgument("the range from ", start, " to ", limit,
                                     " by ", delta,
                                     " has more than 2^63 elements");
    }
    *size = static_cast<int64_t>(n);
  } else {
    const T quotient = (limit - start) / delta;
    const double n = std::ceil(std::abs(static_cast<double>(quotient)));
    if (!std::isfinite(n) || n > 9.2e18) {
      return errors::InvalidArgument(
          "the range from ", ValueString(start), " to ", ValueString(limit),
          " by ", ValueString(delta), " does not have a finite int64 length");
    }
    *size = static_cast<int64_t>(n);
  }
  return Status();
}

// output[i] = start + i * delta, in T (as TensorFlow computes it). Integers
// wrap like TensorFlow's (unsigned arithmetic), which is exact whenever the
// value itself fits.
template <typename T>
class RangeOp : public OpKernel {
 public:
  explicit RangeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    static constexpr const char* kNames[] = {
        "start (input 0)", "limit (input 1)", "delta (input 2)"};
    T v[3];
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i);
      // A one-element vector is TensorFlow's legacy spelling of a scalar.
      OP_REQUIRES(
          ctx, t.dims() == 0 || (t.dims() == 1 && t.dim_size(0) == 1),
          errors::InvalidArgument(kNames[i], " must be a scalar but has shape ",
                                  t.shape().DebugString()));
      v[i] = t.data<T>()[0];
    }
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, RangeSize<T>(v[0], v[1], v[2], &size));
    StatusOr<TensorShape> shape = TensorShape::Build({size});
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    T* o = out->data<T>();
    const T start = v[0];
    const T delta = v[2];
    ctx->ParallelFor(size, 2, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if constexpr (std::is_integral_v<T>) {
          using U = std::make_unsigned_t<T>;
          o[i] = static_cast<T>(static_cast<U>(start) +
                                static_cast<U>(i) * static_cast<U>(delta));
        } else {
          o[i] = start + static_cast<T>(i) * delta;
        }
      }
    });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Fill")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING, DT_QINT8,
                                                      DT_QUINT8, DT_QINT16,
                                                      DT_QUINT16, DT_QINT32})),
    FillOp);
REGISTER_KERNEL_BUILDER(
    Name("ZerosLike")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING})),
    ZerosLikeOp);
REGISTER_KERNEL_BUILDER(Name("OnesLike")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", NumericAndBoolTypes()),
                        OnesLikeOp);

#define WEFT_REGISTER_RANGE(T) \
  REGISTER_KERNEL_BUILDER(     \
      Name("Range").Device(DEVICE_CPU).TypeConstraint<T>("Tidx"), RangeOp<T>)
WEFT_REGISTER_RANGE(half);
WEFT_REGISTER_RANGE(bfloat16);
WEFT_REGISTER_RANGE(float);
WEFT_REGISTER_RANGE(double);
WEFT_REGISTER_RANGE(int32_t);
WEFT_REGISTER_RANGE(int64_t);
#undef WEFT_REGISTER_RANGE

}  // namespace
}  // namespace weft
