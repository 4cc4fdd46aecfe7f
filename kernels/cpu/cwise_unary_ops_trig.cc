// CPU kernels of the inverse trigonometric, hyperbolic and remaining
// transcendental unary ops: Acos, Acosh, Asin, Asinh, Atan, Atanh, Cosh,
// Sinh, Tan, Expm1, and the binary Atan2 (broadcasting, atan2(y, x) with
// y first as in TensorFlow), for half, bfloat16, float and double (the real
// types TensorFlow registers them for on the CPU). Each is the C library's
// function in the compute type (float for half and bfloat16, rounded once);
// glibc's are within an ulp or two of the exact value, where TensorFlow's
// Eigen functors (some vectorized approximations) are within a few ulps:
// cpu_inference_golden_test.cc states the bound the two meet. Out-of-domain
// arguments give NaN (acos(2), acosh(0.5), atanh(2)); atanh(+-1) is +-inf.
#include <cmath>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/cpu/cwise_binary_op.h"
#include "kernels/cpu/cwise_unary_op.h"
#include "kernels/kernel_registry.h"

namespace weft {
namespace {

#define WEFT_LIBM_FUNCTOR(Name, fn)                       \
  template <typename C>                                   \
  struct Name {                                           \
    C operator()(const C& x) const { return std::fn(x); } \
  }

WEFT_LIBM_FUNCTOR(AcosFunctor, acos);
WEFT_LIBM_FUNCTOR(AcoshFunctor, acosh);
WEFT_LIBM_FUNCTOR(AsinFunctor, asin);
WEFT_LIBM_FUNCTOR(AsinhFunctor, asinh);
WEFT_LIBM_FUNCTOR(AtanFunctor, atan);
WEFT_LIBM_FUNCTOR(AtanhFunctor, atanh);
WEFT_LIBM_FUNCTOR(CoshFunctor, cosh);
WEFT_LIBM_FUNCTOR(SinhFunctor, sinh);
WEFT_LIBM_FUNCTOR(TanFunctor, tan);
WEFT_LIBM_FUNCTOR(Expm1Functor, expm1);

#undef WEFT_LIBM_FUNCTOR

WEFT_REGISTER_UNARY_REAL("Acos", AcosFunctor);
WEFT_REGISTER_UNARY_REAL("Acosh", AcoshFunctor);
WEFT_REGISTER_UNARY_REAL("Asin", AsinFunctor);
WEFT_REGISTER_UNARY_REAL("Asinh", AsinhFunctor);
WEFT_REGISTER_UNARY_REAL("Atan", AtanFunctor);
WEFT_REGISTER_UNARY_REAL("Atanh", AtanhFunctor);
WEFT_REGISTER_UNARY_REAL("Cosh", CoshFunctor);
WEFT_REGISTER_UNARY_REAL("Sinh", SinhFunctor);
WEFT_REGISTER_UNARY_REAL("Tan", TanFunctor);
WEFT_REGISTER_UNARY_REAL("Expm1", Expm1Functor);

template <typename T>
struct Atan2Functor {
  T operator()(const T& y, const T& x) const {
    using C = CwiseComputeT<T>;
    return static_cast<T>(std::atan2(static_cast<C>(y), static_cast<C>(x)));
  }
};

WEFT_REGISTER_BINARY_FLOAT("Atan2", Atan2Functor);

}  // namespace
}  // namespace weft
