// Max and Min on the CPU for half, bfloat16, float, double, int32 and int64.
// A NaN anywhere in a reduced group gives NaN, as in TensorFlow; an empty
// group gives -inf / +inf (floating) or the lowest / highest integer. See
// reduction_util.h.
#include "kernels/cpu/reduction_util.h"
#include "kernels/kernel_registry.h"

namespace weft {

#define WEFT_REGISTER_MAX_MIN(T)                             \
  REGISTER_KERNEL_BUILDER(                                   \
      Name("Max").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ReductionOpFor<MaxReducer, T>);                        \
  REGISTER_KERNEL_BUILDER(                                   \
      Name("Min").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ReductionOpFor<MinReducer, T>)

WEFT_REGISTER_MAX_MIN(half);
WEFT_REGISTER_MAX_MIN(bfloat16);
WEFT_REGISTER_MAX_MIN(float);
WEFT_REGISTER_MAX_MIN(double);
WEFT_REGISTER_MAX_MIN(int32_t);
WEFT_REGISTER_MAX_MIN(int64_t);

#undef WEFT_REGISTER_MAX_MIN

}  // namespace weft
