// Per-element body of the CUDA Pad, PadV2 and MirrorPad kernel
// (slice_ops_gpu.cu), compiled for the device and for the host tests
// (tests/kernels/cuda_slice_body_test.cc). Instantiated per element size.
#ifndef WEFT_KERNELS_CUDA_PAD_BODY_H_
#define WEFT_KERNELS_CUDA_PAD_BODY_H_

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/slice_body.h"

namespace weft::gpu {

enum class PadMode : int { kConstant = 0, kReflect = 1, kSymmetric = 2 };

// The output, row-major over out_dims, is the input (in_dims, row-major
// in_strides) shifted by `before` per dimension. The host merges runs of
// unpadded dimensions first, so an NHWC pad of H and W indexes three
// dimensions, not four.
struct PadParams {
  PadMode mode = PadMode::kConstant;
  int rank = 0;
  int64_t out_dims[kMaxMoveRank] = {};
  int64_t in_dims[kMaxMoveRank] = {};
  int64_t in_strides[kMaxMoveRank] = {};
  int64_t before[kMaxMoveRank] = {};
};

// Where output element i reads in the input, or -1 where it is the
// constant. Mirror modes reflect a coordinate outside [0, n) once, which is
// enough because the host checked the padding against n (REFLECT at most
// n - 1, SYMMETRIC at most n, as the CPU kernel requires).
WEFT_HOST_DEVICE int64_t PadSource(const PadParams& p, int64_t i) {
  int64_t src = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t c = i % p.out_dims[d];
    i /= p.out_dims[d];
    int64_t j = c - p.before[d];
    const int64_t n = p.in_dims[d];
    if (j < 0 || j >= n) {
      if (p.mode == PadMode::kConstant) return -1;
      const int64_t sym = p.mode == PadMode::kSymmetric ? 1 : 0;
      j = j < 0 ? -j - sym : 2 * n - 2 + sym - j;
    }
    src += j * p.in_strides[d];
  }
  return src;
}

template <typename E>
WEFT_HOST_DEVICE void PadElement(const PadParams& p, const E* in, E value,
                                 E* out, int64_t i) {
  const int64_t s = PadSource(p, i);
  out[i] = s < 0 ? value : in[s];
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_PAD_BODY_H_
