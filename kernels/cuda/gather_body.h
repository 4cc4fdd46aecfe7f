// Per-element body of the CUDA GatherV2 kernel (slice_ops_gpu.cu), compiled
// for the device and for the host tests
// (tests/kernels/cuda_slice_body_test.cc). Instantiated per element size
// and index type.
#ifndef WEFT_KERNELS_CUDA_GATHER_BODY_H_
#define WEFT_KERNELS_CUDA_GATHER_BODY_H_

#include <cstdint>

#include "kernels/cuda/host_device.h"

namespace weft::gpu {

// output[b, o, j, k] = params[b, o, indices[b, j], k] with params viewed as
// [batch, outer, gather_dim, inner] and indices as [batch, n].
struct GatherParams {
  int64_t batch = 1;
  int64_t outer = 1;
  int64_t gather_dim = 0;
  int64_t n = 0;
  int64_t inner = 1;
};

// The indices live in device memory, so the host cannot check them without
// waiting for the device. As TensorFlow's GPU kernel does, an index outside
// [0, gather_dim) produces a zero element instead of an error, and nothing
// outside params is ever read.
template <typename E, typename Index>
WEFT_HOST_DEVICE void GatherElement(const GatherParams& p, const E* params,
                                    const Index* indices, E* out, int64_t i) {
  const int64_t k = i % p.inner;
  const int64_t r = i / p.inner;
  const int64_t j = r % p.n;
  const int64_t bo = r / p.n;  // b * outer + o
  const int64_t b = bo / p.outer;
  const int64_t index = static_cast<int64_t>(indices[b * p.n + j]);
  if (index >= 0 && index < p.gather_dim) {
    out[i] = params[(bo * p.gather_dim + index) * p.inner + k];
  } else {
    out[i] = E(0);
  }
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_GATHER_BODY_H_
