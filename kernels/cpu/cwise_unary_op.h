// Element-wise unary kernels: the kernel class every "y = f(x)" op
// instantiates with a functor, the loop that applies it, and the functors
// that more than one file shares.
//
// A functor is an Eigen unary functor on the *compute type* of the tensor's
// dtype: float for half, bfloat16 and float, double for double, the type
// itself for integers. half and bfloat16 are widened to float, computed and
// rounded once, so one compiled float functor serves three dtypes:
//
//   REGISTER_KERNEL_BUILDER(
//       Name("Exp").Device(DEVICE_CPU).TypeConstraint<half>("T"),
//       UnaryCwiseOp<half, Eigen::internal::scalar_exp_op<float>>);
//
// Where Eigen's functor_traits<F>::PacketAccess says so, *every* element goes
// through the functor's packetOp, the tail of a block included (padded to a
// whole packet). Eigen's own loops would give the elements around a block's
// edges to the scalar operator(), which for transcendental functions rounds
// differently, so results would depend on how ParallelFor split the work;
// here they never do.
#ifndef WEFT_KERNELS_CPU_CWISE_UNARY_OP_H_
#define WEFT_KERNELS_CPU_CWISE_UNARY_OP_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/op_kernel.h"

namespace weft {

// The type a dtype's element-wise math is done in (see the file comment).
template <typename T>
struct CwiseComputeType {
  using type = T;
};
template <>
struct CwiseComputeType<half> {
  using type = float;
};
template <>
struct CwiseComputeType<bfloat16> {
  using type = float;
};
template <typename T>
using CwiseComputeT = typename CwiseComputeType<T>::type;

namespace cwise_internal {

template <typename C, typename F>
inline constexpr bool kUsePackets =
    static_cast<bool>(Eigen::internal::functor_traits<F>::PacketAccess) &&
    static_cast<bool>(Eigen::internal::packet_traits<C>::Vectorizable);

// out[i] = f(in[i]) for i < n; `out` may be `in`.
template <typename C, typename F>
void UnaryRun(const C* in, C* out, int64_t n, const F& f) {
  namespace ei = Eigen::internal;
  if constexpr (kUsePackets<C, F>) {
    using Packet = typename ei::packet_traits<C>::type;
    constexpr int64_t kSize = ei::packet_traits<C>::size;
    int64_t i = 0;
    for (; i + kSize <= n; i += kSize) {
      ei::pstoreu(out + i, f.packetOp(ei::ploadu<Packet>(in + i)));
    }
    if (i < n) {
      C buf[kSize] = {};
      std::copy(in + i, in + n, buf);
      ei::pstoreu(buf, f.packetOp(ei::ploadu<Packet>(buf)));
      std::copy(buf, buf + (n - i), out + i);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
  }
}

}  // namespace cwise_internal

// Writes f(in[i]) to out[i] for the n elements, split through `ctx`; `out`
// may be `in`. `cost_per_element` is in ParallelFor's units (cycles).
template <typename T, typename F>
void UnaryCompute(const OpKernelContext& ctx, const T* in, T* out, int64_t n,
                  const F& f, int64_t cost_per_element) {
  using C = CwiseComputeT<T>;
  if constexpr (std::is_same_v<T, C>) {
    ctx.ParallelFor(n, cost_per_element, [&](int64_t begin, int64_t end) {
      cwise_internal::UnaryRun<C>(in + begin, out + begin, end - begin, f);
    });
  } else {
    // Widened a chunk at a time into a buffer that stays in L1.
    ctx.ParallelFor(n, cost_per_element + 2, [&](int64_t begin, int64_t end) {
      constexpr int64_t kChunk = 256;
      alignas(64) C buf[kChunk];
      for (int64_t s = begin; s < end; s += kChunk) {
        const int64_t len = std::min(kChunk, end - s);
        for (int64_t i = 0; i < len; ++i) buf[i] = static_cast<C>(in[s + i]);
        cwise_internal::UnaryRun<C>(buf, buf, len, f);
        for (int64_t i = 0; i < len; ++i) out[s + i] = static_cast<T>(buf[i]);
      }
    });
  }
}

// y = f(x); y takes over x's buffer when nothing else holds it.
template <typename T, typename Functor>
class UnaryCwiseOp : public OpKernel {
 public:
  static_assert(std::is_same_v<typename std::invoke_result_t<
                                   const Functor&, const CwiseComputeT<T>&>,
                               CwiseComputeT<T>>,
                "the functor must map the compute type to itself");

  explicit UnaryCwiseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    UnaryCompute<T>(*ctx, x.data<T>(), y->data<T>(), x.NumElements(), Functor(),
                    kCost);
  }

 private:
  // The functor plus a load and a store.
  static constexpr int64_t kCost =
      Eigen::internal::functor_traits<Functor>::Cost + 2;
};

// ---- shared functors --------------------------------------------------------

// sqrt(x), correctly rounded, for a packet. Eigen 3.4's float psqrt under
// EIGEN_FAST_MATH (its default) is the hardware's reciprocal square root
// estimate refined once: up to a few ulps off, and NaN for +inf. The
// hardware's own square root is exact; double's psqrt already is that.
template <typename Packet>
Packet ExactSqrt(const Packet& x) {
  namespace ei = Eigen::internal;
  using Scalar = typename ei::unpacket_traits<Packet>::type;
  // (Packets are told apart by size: naming the x86 vector types as template
  // arguments draws -Wignored-attributes.)
  constexpr bool kFloat = std::is_same_v<Scalar, float>;
  if constexpr (std::is_same_v<Scalar, double>) {
    return ei::psqrt(x);
  }
#if defined(EIGEN_VECTORIZE_AVX512)
  else if constexpr (kFloat && sizeof(Packet) == 64) {
    return _mm512_sqrt_ps(x);
  }
#endif
#if defined(EIGEN_VECTORIZE_AVX)
  else if constexpr (kFloat && sizeof(Packet) == 32) {
    return _mm256_sqrt_ps(x);
  }
#endif
#if defined(EIGEN_VECTORIZE_SSE)
  else if constexpr (kFloat && sizeof(Packet) == 16) {
    return _mm_sqrt_ps(x);
  }
#endif
  else {
    constexpr int kSize = ei::unpacket_traits<Packet>::size;
    Scalar v[kSize];
    ei::pstoreu(v, x);
    for (Scalar& e : v) e = std::sqrt(e);
    return ei::ploadu<Packet>(v);
  }
}

template <typename C>
struct SqrtFunctor {
  C operator()(const C& x) const { return std::sqrt(x); }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    return ExactSqrt(x);
  }
};

// exp(x) that is also right where the result is below the smallest normal
// number: Eigen's vectorized exp clamps its argument at about -88.7 (float)
// or -709.4 (double) and so returns a tiny positive value for exp(-inf) and
// anything below. There exp(x) is computed as exp(x/2)^2 (x/2 is exact), which
// underflows to 0 on its own.
template <typename C>
struct ExpFunctor {
  static_assert(std::is_same_v<C, float> || std::is_same_v<C, double>);
  static constexpr C kLow = std::is_same_v<C, float> ? C(-87) : C(-708);
  C operator()(const C& x) const { return std::exp(x); }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    const Packet low = pcmp_lt(x, pset1<Packet>(kLow));
    const Packet arg = pselect(low, pmul(x, pset1<Packet>(C(0.5))), x);
    // Eigen's generic exp, which its SSE and AVX builds use; its AVX-512
    // float exp is a separate, less accurate one (4 ulps near FLT_MIN).
    Packet e;
    if constexpr (std::is_same_v<C, float>) {
      e = pexp_float(arg);
    } else {
      e = pexp_double(arg);
    }
    return pselect(low, pmul(e, e), e);
  }
};

}  // namespace weft

namespace Eigen::internal {
template <typename C>
struct functor_traits<weft::SqrtFunctor<C>> {
  enum {
    Cost = functor_traits<scalar_sqrt_op<C>>::Cost,
    PacketAccess = packet_traits<C>::HasSqrt,
  };
};
template <typename C>
struct functor_traits<weft::ExpFunctor<C>> {
  enum {
    Cost = functor_traits<scalar_exp_op<C>>::Cost + 4,
    PacketAccess = packet_traits<C>::HasExp && packet_traits<C>::HasCmp,
  };
};
}  // namespace Eigen::internal

// Registration of the unary kernels, used inside namespace weft of a .cc
// that includes kernels/kernel_registry.h: op `op` for dtype T computing
// functor<CwiseComputeT<T>>, and the same for the four float types.
#define WEFT_REGISTER_UNARY(op, T, functor)                                   \
  REGISTER_KERNEL_BUILDER(Name(op).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          UnaryCwiseOp<T, functor<CwiseComputeT<T>>>)

#define WEFT_REGISTER_UNARY_REAL(op, functor) \
  WEFT_REGISTER_UNARY(op, half, functor);     \
  WEFT_REGISTER_UNARY(op, bfloat16, functor); \
  WEFT_REGISTER_UNARY(op, float, functor);    \
  WEFT_REGISTER_UNARY(op, double, functor)

#endif  // WEFT_KERNELS_CPU_CWISE_UNARY_OP_H_
