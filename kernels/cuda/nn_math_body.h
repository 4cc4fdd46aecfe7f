// Arithmetic helpers of the NN kernel bodies (*_body.h) that keep the
// device's rounding the host's. Plain C++ on the host; nothing of CUDA is
// included (the intrinsics used on the device come with nvcc).
#ifndef WEFT_KERNELS_CUDA_NN_MATH_BODY_H_
#define WEFT_KERNELS_CUDA_NN_MATH_BODY_H_

#include "kernels/cuda/host_device.h"

namespace weft::gpu {

// a * b rounded on its own, never fused into a multiply-add with the sum it
// feeds: nvcc contracts a * b + c into an FMA by default, while weft's host
// code (the CPU kernels among it) is built with -ffp-contract=off. Bodies
// whose CPU kernel rounds every product use this to match it bit for bit.
WEFT_HOST_DEVICE float MulRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

WEFT_HOST_DEVICE double MulRn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_NN_MATH_BODY_H_
