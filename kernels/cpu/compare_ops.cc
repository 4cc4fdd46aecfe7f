// CPU kernels of the broadcasting comparisons Equal, NotEqual, Less,
// LessEqual, Greater and GreaterEqual, which produce bool. Dtypes: half,
// bfloat16, float, double, int32, int64, and bool for Equal and NotEqual (as
// TensorFlow registers them on the CPU among weft's dtypes). A NaN compares
// unequal to everything, itself included, and neither less nor greater.
//
// Equal and NotEqual take incompatible_shape_error (default true): when it is
// false and the shapes do not broadcast, the result is the scalar false
// (Equal) or true (NotEqual) instead of an error, as in TensorFlow.
#include <cstdint>

#include "core/tensor.h"
#include "kernels/common/broadcast.h"
#include "kernels/cpu/cwise_binary_op.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Comparisons of half and bfloat16 are exact in float (Eigen's operators
// widen), so each functor is the plain operator.
template <typename T>
struct EqualTo {
  bool operator()(const T& a, const T& b) const { return a == b; }
};
template <typename T>
struct NotEqualTo {
  bool operator()(const T& a, const T& b) const { return a != b; }
};
template <typename T>
struct LessThan {
  bool operator()(const T& a, const T& b) const { return a < b; }
};
template <typename T>
struct LessEqual {
  bool operator()(const T& a, const T& b) const { return a <= b; }
};
template <typename T>
struct GreaterThan {
  bool operator()(const T& a, const T& b) const { return a > b; }
};
template <typename T>
struct GreaterEqual {
  bool operator()(const T& a, const T& b) const { return a >= b; }
};

}  // namespace
}  // namespace weft

namespace Eigen::internal {
template <typename T>
struct functor_traits<weft::EqualTo<T>> {
  enum { Cost = 1, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::NotEqualTo<T>> {
  enum { Cost = 1, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::LessThan<T>> {
  enum { Cost = 1, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::LessEqual<T>> {
  enum { Cost = 1, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::GreaterThan<T>> {
  enum { Cost = 1, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::GreaterEqual<T>> {
  enum { Cost = 1, PacketAccess = false };
};
}  // namespace Eigen::internal

namespace weft {
namespace {

// Equal and NotEqual: BinaryCwiseOp plus the incompatible_shape_error attr.
template <typename T, typename Functor, bool kIncompatibleValue>
class EqualityOp : public OpKernel {
 public:
  explicit EqualityOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("incompatible_shape_error",
                                     &incompatible_shape_error_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BinaryBroadcast bcast;
    const Status status = bcast.Init(x.shape(), y.shape());
    Tensor* z = nullptr;
    if (!status.ok()) {
      OP_REQUIRES_OK(ctx, incompatible_shape_error_ ? status : Status());
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &z));
      *z->data<bool>() = kIncompatibleValue;
      return;
    }
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, bcast.output_shape(), &z));
    BinaryBroadcastCompute<T, bool, Functor>(*ctx, bcast, x.data<T>(),
                                             y.data<T>(), z->data<bool>(), 4);
  }

 private:
  bool incompatible_shape_error_ = true;
};

#define WEFT_REGISTER_EQUALITY(T)                                 \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("Equal").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      EqualityOp<T, EqualTo<T>, false>);                          \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("NotEqual").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      EqualityOp<T, NotEqualTo<T>, true>)

#define WEFT_REGISTER_ORDER(T)                                        \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("Less").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      BinaryCwiseOp<T, LessThan<T>>);                                 \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("LessEqual").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      BinaryCwiseOp<T, LessEqual<T>>);                                \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("Greater").Device(DEVICE_CPU).TypeConstraint<T>("T"),      \
      BinaryCwiseOp<T, GreaterThan<T>>);                              \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("GreaterEqual").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BinaryCwiseOp<T, GreaterEqual<T>>)

#define WEFT_REGISTER_COMPARISONS(T) \
  WEFT_REGISTER_EQUALITY(T);         \
  WEFT_REGISTER_ORDER(T)

WEFT_REGISTER_COMPARISONS(half);
WEFT_REGISTER_COMPARISONS(bfloat16);
WEFT_REGISTER_COMPARISONS(float);
WEFT_REGISTER_COMPARISONS(double);
WEFT_REGISTER_COMPARISONS(int32_t);
WEFT_REGISTER_COMPARISONS(int64_t);
WEFT_REGISTER_EQUALITY(bool);

#undef WEFT_REGISTER_COMPARISONS
#undef WEFT_REGISTER_ORDER
#undef WEFT_REGISTER_EQUALITY

}  // namespace
}  // namespace weft
