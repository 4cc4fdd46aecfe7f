// The vector paths' softmax rows of floats; see softmax_float.h.
#include "kernels/cpu/softmax_float.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include "device/cpu_isa.h"

namespace weft {
namespace {

#define WEFT_FLOAT_BODY "kernels/cpu/softmax_float.inc"
#include "kernels/cpu/float_paths.inc"

}  // namespace

bool SoftmaxFloatRowsOnVectorPath(const float* in, float* out, int64_t rows,
                                  int64_t depth, bool log) {
  return RunOnVectorPath(
      [&] {
        log ? avx512::SoftmaxRowsRun<true>(in, out, rows, depth)
            : avx512::SoftmaxRowsRun<false>(in, out, rows, depth);
      },
      [&] {
        log ? avx2::SoftmaxRowsRun<true>(in, out, rows, depth)
            : avx2::SoftmaxRowsRun<false>(in, out, rows, depth);
      });
}

}  // namespace weft
