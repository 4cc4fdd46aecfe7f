// Element-wise binary kernels with NumPy broadcasting: the kernel class every
// "z = f(x, y)" op instantiates with a functor, and the functors of the
// arithmetic ops.
//
// A functor is an Eigen binary functor: a const operator()(T, T) returning
// the output scalar, and optionally, where Eigen's
// functor_traits<F>::PacketAccess says so, a packetOp that vectorizes it.
// The loops run on Eigen array maps, so a functor with packet access
// vectorizes in every loop shape: same shapes, scalar with tensor, and the
// inner loop of a broadcast. Eigen hands the elements at the edges of a run
// to operator(), so a functor's packetOp must give bit-identical results
// (exact operations only: add, multiply, divide, compare, select).
//
//   REGISTER_KERNEL_BUILDER(
//       Name("AddV2").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//       BinaryCwiseOp<float, AddFunctor<float>>);
//
// Work is split through OpKernelContext::ParallelFor (the session's arena)
// once it is large enough to pay for it; every element is computed by the
// same expression whatever the split, so results do not depend on the
// thread count.
#ifndef WEFT_KERNELS_CPU_CWISE_BINARY_OP_H_
#define WEFT_KERNELS_CPU_CWISE_BINARY_OP_H_

#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/common/broadcast.h"
#include "kernels/op_kernel.h"

namespace weft {

// ---- functors ---------------------------------------------------------------

// Signed integer overflow is undefined in C++ but wraps in TensorFlow (and in
// SIMD hardware), so the integer arithmetic functors compute in the unsigned
// type of the same width; their packet forms are the wrapping vector ops.
template <typename T>
struct WrappingAddFunctor {
  using U = std::make_unsigned_t<T>;
  T operator()(const T& a, const T& b) const {
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    return Eigen::internal::padd(a, b);
  }
};

template <typename T>
struct WrappingSubFunctor {
  using U = std::make_unsigned_t<T>;
  T operator()(const T& a, const T& b) const {
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    return Eigen::internal::psub(a, b);
  }
};

template <typename T>
struct WrappingMulFunctor {
  // Unsigned operands narrower than int would be promoted to (signed) int
  // and could overflow again; multiplying as at least unsigned int avoids it.
  using U = std::make_unsigned_t<T>;
  using W = std::common_type_t<U, unsigned int>;
  T operator()(const T& a, const T& b) const {
    return static_cast<T>(static_cast<W>(static_cast<U>(a)) *
                          static_cast<W>(static_cast<U>(b)));
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    return Eigen::internal::pmul(a, b);
  }
};

}  // namespace weft

// Eigen reads cost and vectorizability from functor_traits.
namespace Eigen::internal {
template <typename T>
struct functor_traits<weft::WrappingAddFunctor<T>> {
  enum { Cost = 1, PacketAccess = packet_traits<T>::HasAdd };
};
template <typename T>
struct functor_traits<weft::WrappingSubFunctor<T>> {
  enum { Cost = 1, PacketAccess = packet_traits<T>::HasSub };
};
template <typename T>
struct functor_traits<weft::WrappingMulFunctor<T>> {
  enum { Cost = 3, PacketAccess = packet_traits<T>::HasMul };
};
}  // namespace Eigen::internal

namespace weft {

// Floating types use Eigen's own functors (exact IEEE operations, as
// TensorFlow's CPU kernels, which use the same functors).
template <typename T>
using AddFunctor =
    std::conditional_t<std::is_integral_v<T>, WrappingAddFunctor<T>,
                       Eigen::internal::scalar_sum_op<T, T>>;
template <typename T>
using SubFunctor =
    std::conditional_t<std::is_integral_v<T>, WrappingSubFunctor<T>,
                       Eigen::internal::scalar_difference_op<T, T>>;
template <typename T>
using MulFunctor =
    std::conditional_t<std::is_integral_v<T>, WrappingMulFunctor<T>,
                       Eigen::internal::scalar_product_op<T, T>>;
template <typename T>
using DivFunctor = Eigen::internal::scalar_quotient_op<T, T>;
// A NaN in either input gives NaN, as in TensorFlow.
template <typename T>
using MaximumFunctor =
    Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>;
template <typename T>
using MinimumFunctor =
    Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>;

// ---- loops ------------------------------------------------------------------

namespace cwise_internal {

template <typename T>
using ConstArrayMap =
    Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>, Eigen::Unaligned>;
template <typename T>
using ArrayMap =
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>, Eigen::Unaligned>;

// out[i] = f(x[i * xs], y[i * ys]) for i < n, where each stride is 0 or 1
// and not both 0. `out` may alias an input with stride 1. The loop of every
// functor; BinaryRun below, the entry point, picks wider ones for a few.
template <typename In, typename Out, typename Functor>
void BinaryRunGeneric(const In* x, int64_t xs, const In* y, int64_t ys,
                      Out* out, int64_t n, const Functor& f) {
  if constexpr (!Eigen::internal::functor_traits<Functor>::PacketAccess) {
    // Nothing to vectorize by hand: plain loops, which compile much faster
    // than Eigen expressions and which the compiler vectorizes where it can.
    if (xs == 0) {
      const In a = *x;
      for (int64_t i = 0; i < n; ++i) out[i] = f(a, y[i]);
    } else if (ys == 0) {
      const In b = *y;
      for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], b);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
    }
    return;
  }
  using Array = Eigen::Array<In, Eigen::Dynamic, 1>;
  ArrayMap<Out> z(out, n);
  // A repeated operand is a constant expression, which Eigen vectorizes
  // (a broadcast register) like a map.
  if (xs == 0) {
    z = Array::Constant(n, *x).binaryExpr(ConstArrayMap<In>(y, n), f);
  } else if (ys == 0) {
    z = ConstArrayMap<In>(x, n).binaryExpr(Array::Constant(n, *y), f);
  } else {
    z = ConstArrayMap<In>(x, n).binaryExpr(ConstArrayMap<In>(y, n), f);
  }
}

// As BinaryRunGeneric.
template <typename In, typename Out, typename Functor>
void BinaryRun(const In* x, int64_t xs, const In* y, int64_t ys, Out* out,
               int64_t n, const Functor& f) {
  BinaryRunGeneric(x, xs, y, ys, out, n, f);
}

// float Add, Sub, Mul and RealDiv: binary_float.h's 8- or 16-wide loops on
// the AVX2 and AVX-512 paths, BinaryRunGeneric's on the baseline path
// (binary_float.cc). The same IEEE operation per element either way.
#define WEFT_DECLARE_FLOAT_BINARY_RUN(F)                                  \
  template <>                                                             \
  void BinaryRun<float, float, Eigen::internal::F<float, float>>(         \
      const float* x, int64_t xs, const float* y, int64_t ys, float* out, \
      int64_t n, const Eigen::internal::F<float, float>& f);
WEFT_DECLARE_FLOAT_BINARY_RUN(scalar_sum_op)
WEFT_DECLARE_FLOAT_BINARY_RUN(scalar_difference_op)
WEFT_DECLARE_FLOAT_BINARY_RUN(scalar_product_op)
WEFT_DECLARE_FLOAT_BINARY_RUN(scalar_quotient_op)
#undef WEFT_DECLARE_FLOAT_BINARY_RUN

}  // namespace cwise_internal

// Work up to this many cycles (elements times the functor's cost) runs on
// the calling thread without ParallelFor: a std::function and a virtual call
// cost more than adding a few numbers, and the device would not split work
// this small anyway (its smallest block is larger).
inline constexpr int64_t kInlineCycles = 4096;

namespace cwise_internal {

// BinaryRun<In, Out, Functor> with its types erased. The loops are the only
// code that must exist once per dtype and functor; the drivers below (the
// split into ParallelFor blocks, the broadcast's row walk, the kernel's
// shape cases and output allocation) are compiled once, in
// cwise_binary_op.cc, and reach the loop through `run`. Instantiating those
// drivers for each of the ~200 binary kernels was most of the compile time
// of the element-wise kernel files; an indirect call per block or row is
// all it costs at run time.
struct ErasedBinaryRun {
  // out[i] = f(x[i * xs], y[i * ys]) for i < n, as BinaryRun, with `f` the
  // functor object below.
  void (*run)(const void* f, const void* x, int64_t xs, const void* y,
              int64_t ys, void* out, int64_t n);
  const void* functor;
  int64_t in_bytes;   // sizeof(In)
  int64_t out_bytes;  // sizeof(Out)
};

template <typename In, typename Out, typename Functor>
void RunErased(const void* f, const void* x, int64_t xs, const void* y,
               int64_t ys, void* out, int64_t n) {
  BinaryRun(static_cast<const In*>(x), xs, static_cast<const In*>(y), ys,
            static_cast<Out*>(out), n, *static_cast<const Functor*>(f));
}

template <typename In, typename Out, typename Functor>
constexpr ErasedBinaryRun EraseBinaryRun(const Functor& f) {
  return {&RunErased<In, Out, Functor>, &f, sizeof(In), sizeof(Out)};
}

// The drivers (cwise_binary_op.cc); see the typed wrappers below.
void BinaryFlatCompute(const OpKernelContext& ctx, const void* x, int64_t xs,
                       const void* y, int64_t ys, void* out, int64_t n,
                       int64_t cost_per_element, const ErasedBinaryRun& run);
void BinaryBroadcastCompute(const OpKernelContext& ctx,
                            const BinaryBroadcast& bcast, const void* x,
                            const void* y, void* out, int64_t cost_per_element,
                            const ErasedBinaryRun& run);

}  // namespace cwise_internal

// out[i] = f(x[i * xs], y[i * ys]) for the n elements of a flat range (each
// stride 0 or 1), split through `ctx` when large enough to pay for it.
template <typename In, typename Out, typename Functor>
void BinaryFlatCompute(const OpKernelContext& ctx, const In* x, int64_t xs,
                       const In* y, int64_t ys, Out* out, int64_t n,
                       int64_t cost_per_element, const Functor& f) {
  cwise_internal::BinaryFlatCompute(
      ctx, x, xs, y, ys, out, n, cost_per_element,
      cwise_internal::EraseBinaryRun<In, Out, Functor>(f));
}

// Writes f(x, y) broadcast by `bcast` into `out` (output_size() elements),
// splitting the work through `ctx`. `cost_per_element` is in ParallelFor's
// units (cycles).
template <typename In, typename Out, typename Functor>
void BinaryBroadcastCompute(const OpKernelContext& ctx,
                            const BinaryBroadcast& bcast, const In* x,
                            const In* y, Out* out, int64_t cost_per_element,
                            const Functor& f = Functor()) {
  cwise_internal::BinaryBroadcastCompute(
      ctx, bcast, x, y, out, cost_per_element,
      cwise_internal::EraseBinaryRun<In, Out, Functor>(f));
}

// ---- the kernel -------------------------------------------------------------

namespace cwise_internal {

// Whether Functor declares
//   static Status CheckInputs(const Tensor& x, const Tensor& y);
// a check of the values (an integer divisor of 0) that BinaryCwiseOp runs
// before computing a non-empty output.
template <typename Functor, typename = void>
struct HasCheckInputs : std::false_type {};
template <typename Functor>
struct HasCheckInputs<Functor, std::void_t<decltype(&Functor::CheckInputs)>>
    : std::true_type {};

// What BinaryCwiseOp<T, Functor> hands its untyped Compute.
struct BinaryKernelSpec {
  ErasedBinaryRun run;
  // Functor::CheckInputs, or null.
  Status (*check_inputs)(const Tensor& x, const Tensor& y);
  // The output may take over an input's buffer (same dtype).
  bool forwardable;
  int64_t cost;  // cycles per element
};

// BinaryCwiseOp's Compute, compiled once (cwise_binary_op.cc).
void BinaryCwiseCompute(OpKernelContext* ctx, const BinaryKernelSpec& spec);

}  // namespace cwise_internal

// z = f(x, y) with broadcasting. The output dtype is what the functor
// returns (T for arithmetic, bool for comparisons); z takes over x's or y's
// buffer when it has the same dtype, that input covers the whole output and
// nothing else holds it. Equal shapes and a one-element operand take one
// flat loop with no broadcast analysis; a functor's CheckInputs runs before
// a non-empty output is computed.
template <typename T, typename Functor>
class BinaryCwiseOp : public OpKernel {
 public:
  using Out =
      std::decay_t<std::invoke_result_t<const Functor&, const T&, const T&>>;

  explicit BinaryCwiseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    cwise_internal::BinaryCwiseCompute(ctx, kSpec);
  }

 private:
  static constexpr Status (*CheckInputsOrNull())(const Tensor&, const Tensor&) {
    if constexpr (cwise_internal::HasCheckInputs<Functor>::value) {
      return &Functor::CheckInputs;
    } else {
      return nullptr;
    }
  }

  static inline const Functor kFunctor{};
  // Cycles per element: the functor plus two loads and a store.
  static constexpr cwise_internal::BinaryKernelSpec kSpec{
      cwise_internal::EraseBinaryRun<T, Out, Functor>(kFunctor),
      CheckInputsOrNull(), std::is_same_v<Out, T>,
      Eigen::internal::functor_traits<Functor>::Cost + 3};
};

}  // namespace weft

// Registration of the binary kernels, used inside namespace weft of a .cc
// that includes kernels/kernel_registry.h: op `op` for dtype T computing
// functor<T>; for the four float types; for those and int32, int64.
#define WEFT_REGISTER_BINARY(op, functor, T)                                  \
  REGISTER_KERNEL_BUILDER(Name(op).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryCwiseOp<T, functor<T>>)

#define WEFT_REGISTER_BINARY_FLOAT(op, functor) \
  WEFT_REGISTER_BINARY(op, functor, half);      \
  WEFT_REGISTER_BINARY(op, functor, bfloat16);  \
  WEFT_REGISTER_BINARY(op, functor, float);     \
  WEFT_REGISTER_BINARY(op, functor, double)

#define WEFT_REGISTER_BINARY_NUMERIC(op, functor) \
  WEFT_REGISTER_BINARY_FLOAT(op, functor);        \
  WEFT_REGISTER_BINARY(op, functor, int32_t);     \
  WEFT_REGISTER_BINARY(op, functor, int64_t)

#endif  // WEFT_KERNELS_CPU_CWISE_BINARY_OP_H_
