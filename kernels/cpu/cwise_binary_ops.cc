// CPU kernels of the broadcasting arithmetic ops: Add, AddV2, Sub, Mul,
// RealDiv, Maximum, Minimum. Dtypes: the floating types TensorFlow models
// carry (half, bfloat16, float, double) and the index types (int32, int64);
// RealDiv is floating only, as in TensorFlow.
#include "kernels/cpu/cwise_binary_op.h"
#include "kernels/kernel_registry.h"

namespace weft {

// Add and AddV2 differ only in graph-rewriting properties (AddV2 is
// commutative and aggregate); the kernels are the same.
WEFT_REGISTER_BINARY_NUMERIC("Add", AddFunctor);
WEFT_REGISTER_BINARY_NUMERIC("AddV2", AddFunctor);
WEFT_REGISTER_BINARY_NUMERIC("Sub", SubFunctor);
WEFT_REGISTER_BINARY_NUMERIC("Mul", MulFunctor);
WEFT_REGISTER_BINARY_FLOAT("RealDiv", DivFunctor);
WEFT_REGISTER_BINARY_NUMERIC("Maximum", MaximumFunctor);
WEFT_REGISTER_BINARY_NUMERIC("Minimum", MinimumFunctor);

}  // namespace weft
