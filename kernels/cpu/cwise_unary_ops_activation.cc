// CPU kernels of the element-wise activations LeakyRelu, Elu, Selu, Softplus
// and Softsign, for half, bfloat16, float and double.
//
// Each is TensorFlow's formula, constants included, so results agree beyond
// the accuracy of the exponential:
//   LeakyRelu  x > 0 ? x : alpha * x      (alpha rounded to T; may be > 1)
//   Elu        x < 0 ? exp(x) - 1 : x     (not expm1: TensorFlow's values)
//   Selu       x < 0 ? sa (exp(x) - 1) : s x, s and sa rounded to T
//   Softplus   x > -t ? x : x < t ? exp(x) : log1p(exp(x)),
//              t = log(epsilon_T) + 2 computed in T
//   Softsign   x / (|x| + 1)
// half and bfloat16 are computed in float and rounded once; TensorFlow rounds
// some intermediate results to T as well, so those dtypes agree to a few of
// their ulps. The Selu and Softplus constants are shared with the CUDA
// kernels (kernels/common/activation_constants.h).
#include <cmath>
#include <cstdint>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/common/activation_constants.h"
#include "kernels/cpu/cwise_unary_op.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// The constant `v` as TensorFlow's kernel for T sees it (static_cast<T>),
// widened to the compute type.
template <typename T>
CwiseComputeT<T> RoundedConstant(double v) {
  return static_cast<CwiseComputeT<T>>(static_cast<T>(v));
}

template <typename C>
struct LeakyReluFunctor {
  C alpha;
  C operator()(const C& x) const { return x > C(0) ? x : x * alpha; }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    return pselect(pcmp_lt(pzero(x), x), x, pmul(x, pset1<Packet>(alpha)));
  }
};

// exp(x) - 1 where x < 0, x elsewhere (NaN included), scaled by `neg_scale`
// and `pos_scale`: Elu is (1, 1).
template <typename C>
struct ExpLinearFunctor {
  C neg_scale;
  C pos_scale;
  C operator()(const C& x) const {
    return x < C(0) ? neg_scale * (std::exp(x) - C(1)) : pos_scale * x;
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    const Packet em1 = psub(ExpFunctor<C>().packetOp(x), pset1<Packet>(C(1)));
    return pselect(pcmp_lt(x, pzero(x)), pmul(pset1<Packet>(neg_scale), em1),
                   pmul(pset1<Packet>(pos_scale), x));
  }
};

template <typename C>
struct SoftplusFunctor {
  // Below `threshold` softplus(x) is exp(x) to within T's precision; above
  // -threshold it is x.
  C threshold;
  C operator()(const C& x) const {
    if (x > -threshold) return x;
    const C e = std::exp(x);
    return x < threshold ? e : std::log1p(e);
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    const Packet t = pset1<Packet>(threshold);
    const Packet e = ExpFunctor<C>().packetOp(x);
    const Packet small = pselect(pcmp_lt(x, t), e, plog1p(e));
    return pselect(pcmp_lt(pnegate(t), x), x, small);
  }
};

template <typename C>
struct SoftsignFunctor {
  C operator()(const C& x) const { return x / (std::fabs(x) + C(1)); }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    return pdiv(x, padd(pabs(x), pset1<Packet>(C(1))));
  }
};

}  // namespace
}  // namespace weft

namespace Eigen::internal {
template <typename C>
struct functor_traits<weft::LeakyReluFunctor<C>> {
  enum { Cost = 4, PacketAccess = packet_traits<C>::HasCmp };
};
template <typename C>
struct functor_traits<weft::ExpLinearFunctor<C>> {
  enum {
    Cost = functor_traits<weft::ExpFunctor<C>>::Cost + 5,
    PacketAccess = functor_traits<weft::ExpFunctor<C>>::PacketAccess,
  };
};
template <typename C>
struct functor_traits<weft::SoftplusFunctor<C>> {
  enum {
    Cost = functor_traits<weft::ExpFunctor<C>>::Cost +
           functor_traits<scalar_log1p_op<C>>::Cost + 5,
    PacketAccess = functor_traits<weft::ExpFunctor<C>>::PacketAccess &&
                   packet_traits<C>::HasLog1p,
  };
};
template <typename C>
struct functor_traits<weft::SoftsignFunctor<C>> {
  enum { Cost = 12, PacketAccess = packet_traits<C>::HasDiv };
};
}  // namespace Eigen::internal

namespace weft {
namespace {

// The functors per T: the compute-type functors above with T's constants.
template <typename T>
ExpLinearFunctor<CwiseComputeT<T>> MakeElu() {
  return {1, 1};
}

template <typename T>
ExpLinearFunctor<CwiseComputeT<T>> MakeSelu() {
  return {static_cast<CwiseComputeT<T>>(SeluNegativeScale<T>()),
          static_cast<CwiseComputeT<T>>(SeluScale<T>())};
}

template <typename T>
SoftplusFunctor<CwiseComputeT<T>> MakeSoftplus() {
  return {static_cast<CwiseComputeT<T>>(SoftplusThreshold<T>())};
}

template <typename T>
SoftsignFunctor<CwiseComputeT<T>> MakeSoftsign() {
  return {};
}

// y = f(x) with the functor kMake() returns. Functors of one compute type
// are shared by the dtypes computed in it (half, bfloat16 and float compile
// one float loop each).
template <typename T, typename F, F (*kMake)()>
class PresetUnaryOp : public OpKernel {
 public:
  explicit PresetUnaryOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), functor_(kMake()) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    UnaryCompute<T>(*ctx, x.data<T>(), y->data<T>(), x.NumElements(), functor_,
                    Eigen::internal::functor_traits<F>::Cost + 2);
  }

 private:
  const F functor_;
};

template <typename T>
class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float alpha = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha));
    functor_.alpha = RoundedConstant<T>(alpha);
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    UnaryCompute<T>(*ctx, x.data<T>(), y->data<T>(), x.NumElements(), functor_,
                    6);
  }

 private:
  LeakyReluFunctor<CwiseComputeT<T>> functor_;
};

#define WEFT_REGISTER_ACTIVATION(op, T, ...)                                  \
  REGISTER_KERNEL_BUILDER(Name(op).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          __VA_ARGS__)

#define WEFT_REGISTER_PRESET(op, T, functor, make) \
  WEFT_REGISTER_ACTIVATION(                        \
      op, T, PresetUnaryOp<T, functor<CwiseComputeT<T>>, &make<T>>)

#define WEFT_REGISTER_ACTIVATIONS(T)                                  \
  WEFT_REGISTER_ACTIVATION("LeakyRelu", T, LeakyReluOp<T>);           \
  WEFT_REGISTER_PRESET("Elu", T, ExpLinearFunctor, MakeElu);          \
  WEFT_REGISTER_PRESET("Selu", T, ExpLinearFunctor, MakeSelu);        \
  WEFT_REGISTER_PRESET("Softplus", T, SoftplusFunctor, MakeSoftplus); \
  WEFT_REGISTER_PRESET("Softsign", T, SoftsignFunctor, MakeSoftsign)

WEFT_REGISTER_ACTIVATIONS(half);
WEFT_REGISTER_ACTIVATIONS(bfloat16);
WEFT_REGISTER_ACTIVATIONS(float);
WEFT_REGISTER_ACTIVATIONS(double);

#undef WEFT_REGISTER_ACTIVATIONS
#undef WEFT_REGISTER_PRESET
#undef WEFT_REGISTER_ACTIVATION

}  // namespace
}  // namespace weft
