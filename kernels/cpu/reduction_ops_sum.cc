// Sum and Mean on the CPU for half, bfloat16, float, double, int32 and int64
// (the numeric types TensorFlow registers that weft carries). See
// reduction_util.h for the accumulation types and the loop structure.
#include "kernels/cpu/reduction_util.h"
#include "kernels/kernel_registry.h"

namespace weft {

const ReduceFns* SumReduceFns(DataType dtype) {
  switch (dtype) {
    case DT_HALF:
      return &ReduceFnsFor<SumReducer, half>();
    case DT_BFLOAT16:
      return &ReduceFnsFor<SumReducer, bfloat16>();
    case DT_FLOAT:
      return &ReduceFnsFor<SumReducer, float>();
    case DT_DOUBLE:
      return &ReduceFnsFor<SumReducer, double>();
    case DT_INT32:
      return &ReduceFnsFor<SumReducer, int32_t>();
    case DT_INT64:
      return &ReduceFnsFor<SumReducer, int64_t>();
    default:
      return nullptr;
  }
}

#define WEFT_REGISTER_SUM_MEAN(T)                             \
  REGISTER_KERNEL_BUILDER(                                    \
      Name("Sum").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
      ReductionOpFor<SumReducer, T>);                         \
  REGISTER_KERNEL_BUILDER(                                    \
      Name("Mean").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ReductionOpFor<MeanReducer, T>)

WEFT_REGISTER_SUM_MEAN(half);
WEFT_REGISTER_SUM_MEAN(bfloat16);
WEFT_REGISTER_SUM_MEAN(float);
WEFT_REGISTER_SUM_MEAN(double);
WEFT_REGISTER_SUM_MEAN(int32_t);
WEFT_REGISTER_SUM_MEAN(int64_t);

#undef WEFT_REGISTER_SUM_MEAN

}  // namespace weft
