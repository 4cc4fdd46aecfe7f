// CPU kernels of the exact unary ops, whose every result is one correctly
// rounded operation (or none): Neg, Abs, Square, Reciprocal, Sign, Floor,
// Ceil, Round, Rint, and the predicates IsNan, IsFinite and IsInf.
//
// Dtypes are those TensorFlow registers on the CPU among the ones weft
// serves: Neg, Abs, Square, Sign and Round for half, bfloat16, float, double,
// int32 and int64; Reciprocal, Floor, Ceil, IsNan, IsFinite and IsInf for
// the four floating types only; Rint (Round of a floating value, half to
// even) for float and double. Integers wrap as in TensorFlow: Neg and Abs of
// the most negative value give it back, Square keeps the low bits.
//
// Deliberate difference: TensorFlow 2.21's raw Round kernel for int32 and
// int64 returns 0 for every element (tf.math.round never calls it for
// integers; it returns x). weft's Round of an integer is the integer.
// (TensorFlow's float Reciprocal is a refined hardware estimate, within an
// ulp; weft's is the correctly rounded 1 / x.)
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/cpu/cwise_unary_op.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// ---- integer functors (the compiler vectorizes their plain loops) ----------

template <typename T>
struct WrappingNeg {
  using U = std::make_unsigned_t<T>;
  T operator()(const T& x) const { return static_cast<T>(U(0) - U(x)); }
};

template <typename T>
struct WrappingAbs {
  T operator()(const T& x) const { return x < 0 ? WrappingNeg<T>()(x) : x; }
};

template <typename T>
struct WrappingSquare {
  using U = std::make_unsigned_t<T>;
  T operator()(const T& x) const { return static_cast<T>(U(x) * U(x)); }
};

template <typename T>
struct IntSign {
  T operator()(const T& x) const { return static_cast<T>((x > 0) - (x < 0)); }
};

// Round of an integer is the integer.
template <typename T>
struct IntIdentity {
  T operator()(const T& x) const { return x; }
};

// ---- floating functors ------------------------------------------------------

// -x by flipping the sign bit, so that Neg(0) is -0 as in TensorFlow. Eigen
// 3.4's AVX-512 negation computes 0 - x, which gives +0 for x = +0.
template <typename C>
struct NegFunctor {
  C operator()(const C& x) const { return -x; }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    return pxor(x, pset1<Packet>(C(-0.0)));
  }
};

// -1, 0 or 1; NaN stays NaN and both zeros give +0, as in TensorFlow.
template <typename C>
struct SignFunctor {
  C operator()(const C& x) const {
    if (std::isnan(x)) return x;
    return C((x > C(0)) - (x < C(0)));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    const Packet zero = pzero(x);
    const Packet one = pset1<Packet>(C(1));
    const Packet s =
        psub(pand(pcmp_lt(zero, x), one), pand(pcmp_lt(x, zero), one));
    return pselect(pcmp_eq(x, x), s, x);
  }
};

enum class Rounding { kFloor, kCeil, kHalfToEven };

// Floor, Ceil and Round (half to even, as TensorFlow's Round). Built on
// Eigen's print (round to nearest even in the current mode), then moved one
// step for floor and ceil. Eigen's SSE2 versions of these drop the sign of a
// zero result (floor(-0) and ceil(-0.5) must be -0); every result has the sign
// of its argument, so the sign bit is copied back.
template <typename C, Rounding kMode>
struct RoundingFunctor {
  C operator()(const C& x) const {
    switch (kMode) {
      case Rounding::kFloor:
        return std::floor(x);
      case Rounding::kCeil:
        return std::ceil(x);
      case Rounding::kHalfToEven:
        return std::nearbyint(x);
    }
    return x;
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    Packet r = print(x);
    const Packet one = pset1<Packet>(C(1));
    if constexpr (kMode == Rounding::kFloor) {
      r = psub(r, pand(pcmp_lt(x, r), one));
    } else if constexpr (kMode == Rounding::kCeil) {
      r = padd(r, pand(pcmp_lt(r, x), one));
    }
    const Packet sign = pset1<Packet>(C(-0.0));
    return por(r, pand(x, sign));
  }
};

template <typename C>
using FloorFunctor = RoundingFunctor<C, Rounding::kFloor>;
template <typename C>
using CeilFunctor = RoundingFunctor<C, Rounding::kCeil>;
template <typename C>
using RoundFunctor = RoundingFunctor<C, Rounding::kHalfToEven>;

// ---- IsNan, IsFinite, IsInf ------------------------------------------------

enum class FloatPredicate { kIsNan, kIsFinite, kIsInf };

template <typename T, FloatPredicate kPredicate>
class FloatPredicateOp : public OpKernel {
 public:
  explicit FloatPredicateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const T* in = x.data<T>();
    bool* out = y->data<bool>();
    ctx->ParallelFor(x.NumElements(), 2, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const CwiseComputeT<T> v = static_cast<CwiseComputeT<T>>(in[i]);
        if constexpr (kPredicate == FloatPredicate::kIsNan) {
          out[i] = std::isnan(v);
        } else if constexpr (kPredicate == FloatPredicate::kIsFinite) {
          out[i] = std::isfinite(v);
        } else {
          out[i] = std::isinf(v);
        }
      }
    });
  }
};

}  // namespace
}  // namespace weft

namespace Eigen::internal {
template <typename C>
struct functor_traits<weft::NegFunctor<C>> {
  enum { Cost = 1, PacketAccess = packet_traits<C>::Vectorizable };
};
template <typename C>
struct functor_traits<weft::SignFunctor<C>> {
  enum { Cost = 5, PacketAccess = packet_traits<C>::HasCmp };
};
template <typename C, weft::Rounding kMode>
struct functor_traits<weft::RoundingFunctor<C, kMode>> {
  enum {
    Cost = 6,
    PacketAccess = packet_traits<C>::HasRint && packet_traits<C>::HasCmp,
  };
};
}  // namespace Eigen::internal

namespace weft {
namespace {

namespace ei = Eigen::internal;

#define WEFT_REGISTER_UNARY_SIGNED(op, functor, int_functor) \
  WEFT_REGISTER_UNARY_REAL(op, functor);                     \
  WEFT_REGISTER_UNARY(op, int32_t, int_functor);             \
  WEFT_REGISTER_UNARY(op, int64_t, int_functor)

WEFT_REGISTER_UNARY_SIGNED("Neg", NegFunctor, WrappingNeg);
WEFT_REGISTER_UNARY_SIGNED("Abs", ei::scalar_abs_op, WrappingAbs);
WEFT_REGISTER_UNARY_SIGNED("Square", ei::scalar_square_op, WrappingSquare);
WEFT_REGISTER_UNARY_SIGNED("Sign", SignFunctor, IntSign);
WEFT_REGISTER_UNARY_SIGNED("Round", RoundFunctor, IntIdentity);
WEFT_REGISTER_UNARY_REAL("Reciprocal", ei::scalar_inverse_op);
WEFT_REGISTER_UNARY_REAL("Floor", FloorFunctor);
WEFT_REGISTER_UNARY_REAL("Ceil", CeilFunctor);
// TensorFlow registers Rint on the CPU for float and double only.
WEFT_REGISTER_UNARY("Rint", float, RoundFunctor);
WEFT_REGISTER_UNARY("Rint", double, RoundFunctor);

#undef WEFT_REGISTER_UNARY_SIGNED

#define WEFT_REGISTER_PREDICATE(T)                                \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("IsNan").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      FloatPredicateOp<T, FloatPredicate::kIsNan>);               \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("IsFinite").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      FloatPredicateOp<T, FloatPredicate::kIsFinite>);            \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("IsInf").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      FloatPredicateOp<T, FloatPredicate::kIsInf>)

WEFT_REGISTER_PREDICATE(half);
WEFT_REGISTER_PREDICATE(bfloat16);
WEFT_REGISTER_PREDICATE(float);
WEFT_REGISTER_PREDICATE(double);

#undef WEFT_REGISTER_PREDICATE

}  // namespace
}  // namespace weft
