// CPU kernels of the broadcasting arithmetic ops: Add, AddV2, Sub, Mul,
// RealDiv, Maximum, Minimum. Dtypes: the floating types TensorFlow models
// carry (half, bfloat16, float, double) and the index types (int32, int64);
// RealDiv is floating only, as in TensorFlow.
#include "kernels/cpu/cwise_binary_op.h"
#include "kernels/kernel_registry.h"

namespace weft {

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

// Add and AddV2 differ only in graph-rewriting properties (AddV2 is
// commutative and aggregate); the kernels are the same.
WEFT_REGISTER_BINARY_NUMERIC("Add", AddFunctor);
WEFT_REGISTER_BINARY_NUMERIC("AddV2", AddFunctor);
WEFT_REGISTER_BINARY_NUMERIC("Sub", SubFunctor);
WEFT_REGISTER_BINARY_NUMERIC("Mul", MulFunctor);
WEFT_REGISTER_BINARY_FLOAT("RealDiv", DivFunctor);
WEFT_REGISTER_BINARY_NUMERIC("Maximum", MaximumFunctor);
WEFT_REGISTER_BINARY_NUMERIC("Minimum", MinimumFunctor);

#undef WEFT_REGISTER_BINARY_NUMERIC
#undef WEFT_REGISTER_BINARY_FLOAT
#undef WEFT_REGISTER_BINARY

}  // namespace weft
