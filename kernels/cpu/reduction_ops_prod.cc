// Prod on the CPU for half, bfloat16, float, double, int32 and int64, and
// the boolean reductions All and Any. See reduction_util.h.
#include "kernels/cpu/reduction_util.h"
#include "kernels/kernel_registry.h"

namespace weft {

#define WEFT_REGISTER_PROD(T)                                 \
  REGISTER_KERNEL_BUILDER(                                    \
      Name("Prod").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ReductionOpFor<ProdReducer, T>)

WEFT_REGISTER_PROD(half);
WEFT_REGISTER_PROD(bfloat16);
WEFT_REGISTER_PROD(float);
WEFT_REGISTER_PROD(double);
WEFT_REGISTER_PROD(int32_t);
WEFT_REGISTER_PROD(int64_t);

#undef WEFT_REGISTER_PROD

REGISTER_KERNEL_BUILDER(Name("All").Device(DEVICE_CPU),
                        ReductionOpFor<AllReducer, bool>);
REGISTER_KERNEL_BUILDER(Name("Any").Device(DEVICE_CPU),
                        ReductionOpFor<AnyReducer, bool>);

}  // namespace weft
