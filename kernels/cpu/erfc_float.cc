// The vector paths' erfc of floats; see erfc_float.h.
#include "kernels/cpu/erfc_float.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "device/cpu_isa.h"

namespace weft {
namespace {

namespace avx2 {
WEFT_ISA_AVX2_BEGIN
constexpr int kDoubles = 4;
#include "kernels/cpu/erfc_float.inc"
WEFT_ISA_END
}  // namespace avx2

namespace avx512 {
WEFT_ISA_AVX512_BEGIN
constexpr int kDoubles = 8;
#include "kernels/cpu/erfc_float.inc"
WEFT_ISA_END
}  // namespace avx512

}  // namespace

bool ErfcFloatOnVectorPath(const float* in, float* out, int64_t n) {
  return RunOnVectorPath([&] { avx512::ErfcRun(in, out, n); },
                         [&] { avx2::ErfcRun(in, out, n); });
}

}  // namespace weft
