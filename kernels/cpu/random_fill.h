// Fills a tensor from a Philox generator the way TensorFlow's CPU random
// kernels do, shared by the stateless ops (stateless_random_ops.cc) and the
// stateful ones (random_ops.cc) so both reproduce TensorFlow's bits.
//
// The output is cut into groups: 4 elements per Philox block for 32-bit and
// narrower dtypes, 2 for 64-bit ones. A fixed-cost distribution (uniform,
// normal, integers) gives group g the block at counter + g; truncated normal
// rejects samples, so group g reads words one at a time from counter +
// g * (group size * 256 / 4), leaving room for 256 words per element. Groups
// are independent, so the fill splits over the arena with the same result.
#ifndef WEFT_KERNELS_CPU_RANDOM_FILL_H_
#define WEFT_KERNELS_CPU_RANDOM_FILL_H_

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/common/philox_random.h"
#include "kernels/op_kernel.h"

namespace weft {

enum class RandomDistribution {
  kUniform,          // [0, 1): half, bfloat16, float, double
  kNormal,           // standard normal: the same dtypes
  kTruncatedNormal,  // standard normal with |x| < 2: the same dtypes
  kUniformInt,       // [lo, lo + range): int32, int64, uint32, uint64
  kFullInt,          // every value of int32, int64, uint32, uint64
};

// Fills `out` (already allocated) with `dist` in out's dtype. For
// kUniformInt, `lo` is the low bound's bits and `range` = hi - lo > 0 as
// unsigned (TensorFlow's modulo: bits % range, no rejection). A dtype the
// distribution does not support is an Internal error (a registration bug).
Status FillPhiloxRandom(const OpKernelContext* ctx,
                        const philox::Philox4x32& gen, RandomDistribution dist,
                        Tensor* out, uint64_t lo = 0, uint64_t range = 0);

// The output shape of a random op: `shape_t` (input 0) must be a vector of
// int32 or int64 sizes that make a valid shape.
StatusOr<TensorShape> RandomOutputShape(const Tensor& shape_t);

// minval and maxval of the integer ops: scalars of the same integer dtype
// (int32, int64, uint32, uint64) with minval < maxval. Sets *lo to
// minval's bits (sign-extended) and *range to maxval - minval as unsigned.
// Errors name the inputs, e.g. "minval (input 4)".
Status ReadIntBounds(const Tensor& minval, const Tensor& maxval, int min_input,
                     uint64_t* lo, uint64_t* range);

// How many 128-bit blocks one fill of `elements` may consume: what a
// stateful kernel advances its generator by per run (256 words per
// element, TensorFlow's reservation, which also covers truncated normal's
// rejections).
inline uint64_t PhiloxBlocksReserved(int64_t elements) {
  return static_cast<uint64_t>(elements) * 256;
}

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_RANDOM_FILL_H_
