// The vector paths' sigmoid of floats; see sigmoid_float.h.
#include "kernels/cpu/sigmoid_float.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include "device/cpu_isa.h"

namespace weft {
namespace {

namespace avx2 {
WEFT_ISA_AVX2_BEGIN
constexpr int kFloats = 8;
#include "kernels/cpu/sigmoid_float.inc"
WEFT_ISA_END
}  // namespace avx2

namespace avx512 {
WEFT_ISA_AVX512_BEGIN
constexpr int kFloats = 16;
#include "kernels/cpu/sigmoid_float.inc"
WEFT_ISA_END
}  // namespace avx512

}  // namespace

bool SwishFloatOnVectorPath(const float* in, float* out, int64_t n,
                            float beta) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      avx512::SigmoidRun<true>(in, out, n, beta);
      return true;
    case CpuIsa::kAvx2:
      avx2::SigmoidRun<true>(in, out, n, beta);
      return true;
    case CpuIsa::kBaseline:
      break;
  }
  return false;
}

bool SigmoidFloatOnVectorPath(const float* in, float* out, int64_t n) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      avx512::SigmoidRun<false>(in, out, n, 1.0f);
      return true;
    case CpuIsa::kAvx2:
      avx2::SigmoidRun<false>(in, out, n, 1.0f);
      return true;
    case CpuIsa::kBaseline:
      break;
  }
  return false;
}

}  // namespace weft
