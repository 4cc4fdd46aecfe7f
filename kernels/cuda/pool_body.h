// Per-output-element bodies of the CUDA MaxPool and AvgPool kernels: one
// thread computes one output element by walking its window. Compiled by
// nvcc into nn_ops_gpu.cu and by the host compiler into
// cuda_nn_body_test.cc, which compares them with the CPU kernels over every
// output index. Plain C++: nothing of CUDA, weft, absl or Eigen.
#ifndef WEFT_KERNELS_CUDA_POOL_BODY_H_
#define WEFT_KERNELS_CUDA_POOL_BODY_H_

#include <cstdint>

#include "kernels/cuda/conv_body.h"
#include "kernels/cuda/host_device.h"

namespace weft::gpu {

enum class PoolKind : int {
  kMax = 0,       // spatial max over the window
  kAvg = 1,       // spatial mean over the window's in-bounds elements
  kDepthMax = 2,  // max over groups of `depth_window` channels
};

// The geometry of one pool, as the host planned it (nn_plan.h). The
// layout fields follow ConvParams (out_depth = in_depth for spatial pools,
// in_depth / depth_window for kDepthMax).
struct PoolParams {
  PoolKind kind = PoolKind::kMax;
  ConvParams geometry;  // filter_* hold the window; dilations are 1
  int64_t depth_window = 1;
  // MaxPool's start value: the lowest finite value of the element type, as
  // TensorFlow's SpatialMaxPool starts (so NaNs are skipped and a window
  // of -inf gives it).
  float lowest = 0.0f;

  int64_t output_size() const { return geometry.output_size(); }
};

// Output element `i`, in float (MaxPool's value is one of the inputs or
// `lowest`, exact in every type; AvgPool's is rounded once by the caller).
// The window is visited in row-major order as on the CPU: `acc < v ? v :
// acc` for the max, a float sum divided by the in-bounds count for the
// mean. kDepthMax starts from its group's first value, as TensorFlow's
// reduction does.
template <typename T>
WEFT_HOST_DEVICE float PoolOutput(const PoolParams& pp, const T* in,
                                  int64_t i) {
  const ConvParams& p = pp.geometry;
  const ConvOutIndex o = DecomposeConvOutput(p, i);
  if (pp.kind == PoolKind::kDepthMax) {
    const T* x = in + o.n * p.in_stride_n + o.r * p.in_stride_r +
                 o.c * p.in_stride_c + o.d * pp.depth_window * p.in_stride_d;
    float acc = static_cast<float>(x[0]);
    for (int64_t j = 1; j < pp.depth_window; ++j) {
      const float v = static_cast<float>(x[j * p.in_stride_d]);
      acc = acc < v ? v : acc;
    }
    return acc;
  }
  const int64_t r0 = o.r * p.stride_rows - p.pad_top;
  const int64_t c0 = o.c * p.stride_cols - p.pad_left;
  int64_t kh_lo, kh_hi, kw_lo, kw_hi;
  ConvValidTaps(r0, p.in_rows, p.filter_rows, 1, &kh_lo, &kh_hi);
  ConvValidTaps(c0, p.in_cols, p.filter_cols, 1, &kw_lo, &kw_hi);
  const T* image = in + o.n * p.in_stride_n + o.d * p.in_stride_d;
  const bool is_max = pp.kind == PoolKind::kMax;
  float acc = is_max ? pp.lowest : 0.0f;
  for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
    const T* line = image + (r0 + kh) * p.in_stride_r;
    for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
      const float v = static_cast<float>(line[(c0 + kw) * p.in_stride_c]);
      if (is_max) {
        acc = acc < v ? v : acc;
      } else {
        acc += v;
      }
    }
  }
  if (is_max) return acc;
  // Paddings are smaller than the window, so the count is at least 1.
  return acc / static_cast<float>((kh_hi - kh_lo) * (kw_hi - kw_lo));
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_POOL_BODY_H_
