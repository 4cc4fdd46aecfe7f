// CPU kernels of the transcendental unary ops: Exp, Log, Log1p, Sqrt, Rsqrt,
// Sin, Cos, Tanh, Sigmoid, Erf, Erfc, for half, bfloat16, float and double (the
// real types TensorFlow registers them for on the CPU), and the optimizer's
// _Swish (x * Sigmoid(beta * x)) for float.
//
// Sqrt is correctly rounded (the hardware's square root, not Eigen 3.4's
// fast-math approximation) and Rsqrt is 1 / Sqrt. The others use Eigen's
// vectorized approximations for float (and so half and bfloat16), as
// TensorFlow's kernels do: within a few ulps of the exact value, not
// correctly rounded, and a few ulps from TensorFlow's newer Eigen
// (tolerances in cpu_cwise_golden_test.cc). Exp and Sigmoid are written
// here so that results below the smallest normal number stay right (see
// ExpFunctor). On the AVX2 and AVX-512 paths float Exp, Sigmoid, Tanh and
// Erfc run loops of their own, as wide as the path's vectors (exp_float.h,
// sigmoid_float.h, tanh_float.h, erfc_float.h). double is vectorized where
// Eigen has double packet functions (exp, log, sqrt) and otherwise calls the C
// library.
//
// Deliberate difference: TensorFlow 2.21's double Erf gives NaN at +-inf;
// weft gives +-1, as TensorFlow does for the other dtypes.
#include <algorithm>
#include <cmath>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "kernels/cpu/cwise_unary_op.h"
#include "kernels/cpu/erfc_float.h"
#include "kernels/cpu/exp_float.h"
#include "kernels/cpu/sigmoid_float.h"
#include "kernels/cpu/tanh_float.h"
#include "kernels/kernel_registry.h"

namespace weft {
namespace {

// 1/sqrt(x) as two correctly rounded operations (Eigen's own vectorized
// rsqrt starts from the hardware's 12-bit estimate): within one ulp;
// rsqrt(+-0) = +-inf, rsqrt(inf) = 0, negative: NaN.
template <typename C>
struct RsqrtFunctor {
  C operator()(const C& x) const { return C(1) / std::sqrt(x); }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    return pdiv(pset1<Packet>(C(1)), ExactSqrt(x));
  }
};

// The Exp kernel's functor: ExpFunctor under a name of this file, so that
// the float specialization of UnaryRun below serves the Exp kernel alone
// (ExpFunctor's packets also serve Elu, Softplus and the products' Elu
// epilogue, which must keep giving the same bits as each other).
template <typename C>
struct ExpOpFunctor : ExpFunctor<C> {};

// 1 / (1 + exp(-x)), written for each sign so that nothing cancels:
// e = exp(-|x|) <= 1, and the result is 1 / (1 + e) for x >= 0 and
// e / (1 + e) for x < 0, a few ulps from the exact value over the whole range
// (tiny results for very negative x included) and exactly 0 and 1 at -inf and
// +inf.
template <typename C>
struct SigmoidFunctor {
  C operator()(const C& x) const {
    const C e = std::exp(-std::fabs(x));
    const C d = C(1) + e;
    return x < C(0) ? e / d : C(1) / d;
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    const Packet one = pset1<Packet>(C(1));
    const Packet e = ExpFunctor<C>().packetOp(pnegate(pabs(x)));
    const Packet d = padd(one, e);
    return pselect(pcmp_lt(x, pzero(x)), pdiv(e, d), pdiv(one, d));
  }
};

// erfc(x) for float, vectorized: Eigen 3.4 has no packet erfc, and the C
// library's, one element at a time, made Erfc (the exact GELU of Keras 3)
// the slowest node of a transformer block. Evaluated in double with the
// Chebyshev-fitted form erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z/2),
// z = |x| (Press et al., Numerical Recipes, "erfcc"), whose relative error
// is below 1.2e-7 for every z >= 0: with double arithmetic that is about
// two float ulps, and the tiny results for large z keep their relative
// accuracy (no 1 - erf cancellation). erfc(x) = 2 - erfc(-x) for x < 0.
// Results: NaN for NaN, 0 at +inf (t = 0), 2 at -inf. double keeps the C
// library's erfc.
template <typename C>
struct ErfcFunctor {
  C operator()(const C& x) const { return std::erfc(x); }

  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    namespace ei = Eigen::internal;
    static_assert(std::is_same_v<C, float>);
    using DPacket = typename ei::packet_traits<double>::type;
    constexpr int kSize = ei::unpacket_traits<Packet>::size;
    constexpr int kDSize = ei::unpacket_traits<DPacket>::size;
    static_assert(kSize % kDSize == 0);
    alignas(64) float xf[kSize];
    alignas(64) double xd[kSize];
    ei::pstore(xf, x);
    for (int i = 0; i < kSize; ++i) xd[i] = xf[i];
    for (int i = 0; i < kSize; i += kDSize) {
      ei::pstore(xd + i, ErfcDouble(ei::pload<DPacket>(xd + i)));
    }
    for (int i = 0; i < kSize; ++i) xf[i] = static_cast<float>(xd[i]);
    return ei::pload<Packet>(xf);
  }

 private:
  template <typename DPacket>
  static DPacket ErfcDouble(const DPacket& x) {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    static constexpr double kP[] = {
        0.17087277,  -0.82215223, 1.48851587, -1.13520398, 0.27886807,
        -0.18628806, 0.09678418,  0.37409196, 1.00002368,  -1.26551223};
    const DPacket one = pset1<DPacket>(1.0);
    const DPacket z = pabs(x);
    const DPacket t = pdiv(one, pmadd(pset1<DPacket>(0.5), z, one));
    DPacket p = pset1<DPacket>(kP[0]);
    for (int i = 1; i < 10; ++i) p = pmadd(p, t, pset1<DPacket>(kP[i]));
    // exp's argument -z^2 + P(t); Eigen's exp clamps it at about -709,
    // where the float result is 0 anyway.
    const DPacket r = pmul(t, pexp_double(psub(p, pmul(z, z))));
    return pselect(pcmp_lt(x, pzero(x)), psub(pset1<DPacket>(2.0), r), r);
  }
};

// ErfcFunctor<float>'s packet loop under another name, for the baseline
// path of the UnaryRun specialization below.
struct ErfcPackets : ErfcFunctor<float> {};
// The same for SigmoidFunctor<float> (see the UnaryRun specialization).
struct SigmoidPackets : SigmoidFunctor<float> {};

// Eigen's vectorized float tanh, erf, sin and cos, called directly. Eigen
// 3.4 advertises them (HasTanh, HasErf, HasSin, HasCos) only under
// EIGEN_FAST_MATH, which weft's build turns off for its sqrt (see
// cmake/WeftOptions.cmake); through scalar_tanh_op and friends they would
// fall back to the C library one element at a time (Tanh at 2% of memory
// bandwidth). double has no packet versions and uses the C library.
enum class FloatPacketFn { kTanh, kErf, kSin, kCos };

template <typename C, FloatPacketFn kFn>
struct FloatPacketFunctor {
  C operator()(const C& x) const {
    switch (kFn) {
      case FloatPacketFn::kTanh:
        return std::tanh(x);
      case FloatPacketFn::kErf:
        return std::erf(x);
      case FloatPacketFn::kSin:
        return std::sin(x);
      case FloatPacketFn::kCos:
        return std::cos(x);
    }
    return x;
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    namespace ei = Eigen::internal;
    static_assert(std::is_same_v<C, float>);
    if constexpr (kFn == FloatPacketFn::kTanh) {
      return ei::ptanh(x);
    } else if constexpr (kFn == FloatPacketFn::kErf) {
      return ei::generic_fast_erf_float(x);
    } else if constexpr (kFn == FloatPacketFn::kSin) {
      return ei::psin(x);
    } else {
      return ei::pcos(x);
    }
  }
};
template <typename C>
using TanhFunctor = FloatPacketFunctor<C, FloatPacketFn::kTanh>;
template <typename C>
using ErfFunctor = FloatPacketFunctor<C, FloatPacketFn::kErf>;
template <typename C>
using SinFunctor = FloatPacketFunctor<C, FloatPacketFn::kSin>;
template <typename C>
using CosFunctor = FloatPacketFunctor<C, FloatPacketFn::kCos>;
// TanhFunctor<float>'s packet loop under another name, for the baseline
// path of the UnaryRun specialization below.
struct TanhPackets : TanhFunctor<float> {};

}  // namespace
}  // namespace weft

namespace Eigen::internal {
template <typename C, weft::FloatPacketFn kFn>
struct functor_traits<weft::FloatPacketFunctor<C, kFn>> {
  enum {
    Cost = 60,
    PacketAccess =
        std::is_same_v<C, float> && packet_traits<float>::Vectorizable,
  };
};
template <typename C>
struct functor_traits<weft::ExpOpFunctor<C>>
    : functor_traits<weft::ExpFunctor<C>> {};
template <typename C>
struct functor_traits<weft::ErfcFunctor<C>> {
  enum {
    Cost = 120,
    PacketAccess = std::is_same_v<C, float> && packet_traits<double>::HasExp &&
                   packet_traits<double>::HasDiv &&
                   packet_traits<double>::HasCmp,
  };
};
template <>
struct functor_traits<weft::ErfcPackets>
    : functor_traits<weft::ErfcFunctor<float>> {};
template <typename C>
struct functor_traits<weft::RsqrtFunctor<C>> {
  enum {
    Cost = functor_traits<scalar_sqrt_op<C>>::Cost + NumTraits<C>::MulCost * 4,
    PacketAccess = packet_traits<C>::HasSqrt && packet_traits<C>::HasDiv,
  };
};
template <typename C>
struct functor_traits<weft::SigmoidFunctor<C>> {
  enum {
    Cost = functor_traits<weft::ExpFunctor<C>>::Cost + 30,
    PacketAccess = functor_traits<weft::ExpFunctor<C>>::PacketAccess &&
                   packet_traits<C>::HasDiv,
  };
};
template <>
struct functor_traits<weft::SigmoidPackets>
    : functor_traits<weft::SigmoidFunctor<float>> {};
template <>
struct functor_traits<weft::TanhPackets>
    : functor_traits<weft::TanhFunctor<float>> {};
}  // namespace Eigen::internal

namespace weft {

// float Exp on the AVX2 and AVX-512 paths: exp_float.h's loop (Eigen's
// SSE packets in the portable build); ExpFunctor's packets on the baseline
// path.
template <>
void cwise_internal::UnaryRun<float, ExpOpFunctor<float>>(
    const float* in, float* out, int64_t n, const ExpOpFunctor<float>&) {
  if (!ExpFloatOnVectorPath(in, out, n)) {
    cwise_internal::UnaryRun<float>(in, out, n, ExpFunctor<float>());
  }
}

// float Erfc on the AVX2 and AVX-512 paths: erfc_float.h's loop, 4 or 8
// doubles wide (Eigen's packets are SSE in the portable build, which made
// Erfc 5 times slower than a -march=native build's); ErfcFunctor's packets
// on the baseline path.
template <>
void cwise_internal::UnaryRun<float, ErfcFunctor<float>>(
    const float* in, float* out, int64_t n, const ErfcFunctor<float>&) {
  if (!ErfcFloatOnVectorPath(in, out, n)) {
    cwise_internal::UnaryRun<float>(in, out, n, ErfcPackets());
  }
}

// float Sigmoid on the AVX2 and AVX-512 paths: sigmoid_float.h's loop
// (SSE packets in the portable build made Sigmoid most of EfficientNet's
// run); SigmoidFunctor's packets on the baseline path.

template <>
void cwise_internal::UnaryRun<float, SigmoidFunctor<float>>(
    const float* in, float* out, int64_t n, const SigmoidFunctor<float>&) {
  if (!SigmoidFloatOnVectorPath(in, out, n)) {
    cwise_internal::UnaryRun<float>(in, out, n, SigmoidPackets());
  }
}

// float Tanh on the AVX2 and AVX-512 paths: tanh_float.h's loop (Eigen's
// SSE packets in the portable build ran at a quarter of Sigmoid's rate);
// TanhFunctor's packets on the baseline path.
template <>
void cwise_internal::UnaryRun<float, TanhFunctor<float>>(
    const float* in, float* out, int64_t n, const TanhFunctor<float>&) {
  if (!TanhFloatOnVectorPath(in, out, n)) {
    cwise_internal::UnaryRun<float>(in, out, n, TanhPackets());
  }
}

void SigmoidFloat(const float* in, float* out, int64_t n) {
  cwise_internal::UnaryRun<float>(in, out, n, SigmoidFunctor<float>());
}

void TanhFloat(const float* in, float* out, int64_t n) {
  cwise_internal::UnaryRun<float>(in, out, n, TanhFunctor<float>());
}

void ExpFloat(const float* in, float* out, int64_t n) {
  cwise_internal::UnaryRun<float>(in, out, n, ExpOpFunctor<float>());
}

void SwishFloat(const float* in, float* out, int64_t n, float beta) {
  if (SwishFloatOnVectorPath(in, out, n, beta)) return;
  // A chunk's sigmoids go to a buffer that stays in L1, then the products
  // (`out` may be `in`: each element is read before it is written).
  constexpr int64_t kChunk = 256;
  alignas(64) float s[kChunk];
  for (int64_t c = 0; c < n; c += kChunk) {
    const int64_t len = std::min(kChunk, n - c);
    for (int64_t i = 0; i < len; ++i) s[i] = beta * in[c + i];
    cwise_internal::UnaryRun<float>(s, s, len, SigmoidFunctor<float>());
    for (int64_t i = 0; i < len; ++i) out[c + i] = in[c + i] * s[i];
  }
}

namespace {

// _Swish (ops/nn_fused_ops.cc), float: x * sigmoid(beta * x) with the
// Sigmoid kernel's sigmoid, each operation rounded: bit for bit what the
// Mul, Sigmoid and Mul it replaces give (SwishFloat), in one pass.
class SwishOp : public OpKernel {
 public:
  explicit SwishOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("beta", &beta_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    const float* in = x.data<float>();
    float* out = y->data<float>();
    const float beta = beta_;
    constexpr int64_t kCost =
        Eigen::internal::functor_traits<SigmoidFunctor<float>>::Cost + 4;
    ctx->ParallelFor(x.NumElements(), kCost, [&](int64_t begin, int64_t end) {
      SwishFloat(in + begin, out + begin, end - begin, beta);
    });
  }

 private:
  float beta_ = 1.0f;
};

REGISTER_KERNEL_BUILDER(
    Name("_Swish").Device(DEVICE_CPU).TypeConstraint<float>("T"), SwishOp);

namespace ei = Eigen::internal;

WEFT_REGISTER_UNARY_REAL("Exp", ExpOpFunctor);
WEFT_REGISTER_UNARY_REAL("Log", ei::scalar_log_op);
WEFT_REGISTER_UNARY_REAL("Log1p", ei::scalar_log1p_op);
WEFT_REGISTER_UNARY_REAL("Sqrt", SqrtFunctor);
WEFT_REGISTER_UNARY_REAL("Rsqrt", RsqrtFunctor);
WEFT_REGISTER_UNARY_REAL("Sin", SinFunctor);
WEFT_REGISTER_UNARY_REAL("Cos", CosFunctor);
WEFT_REGISTER_UNARY_REAL("Tanh", TanhFunctor);
WEFT_REGISTER_UNARY_REAL("Sigmoid", SigmoidFunctor);
WEFT_REGISTER_UNARY_REAL("Erf", ErfFunctor);
WEFT_REGISTER_UNARY_REAL("Erfc", ErfcFunctor);

}  // namespace
}  // namespace weft
