// Per-output-element bodies of the direct CUDA convolutions, Conv2D and
// DepthwiseConv2dNative: one thread computes one output element by walking
// its window. Compiled by nvcc into the kernels of nn_ops_gpu.cu and by the
// host compiler into cuda_nn_body_test.cc, which runs them over every
// output index and compares with the CPU kernels. Plain C++: nothing of
// CUDA, weft, absl or Eigen.
//
// Both layouts are indexed in place through strides (no NCHW <-> NHWC
// copies): the output index is decomposed in the output's own layout, and
// the input is read through per-dimension element strides.
#ifndef WEFT_KERNELS_CUDA_CONV_BODY_H_
#define WEFT_KERNELS_CUDA_CONV_BODY_H_

#include <cstdint>

#include "kernels/cuda/host_device.h"
#include "kernels/cuda/nn_math_body.h"

namespace weft::gpu {

// The geometry of one convolution, as the host planned it (nn_plan.h).
struct ConvParams {
  int64_t batch = 0;
  int64_t in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t out_rows = 0, out_cols = 0, out_depth = 0;
  int64_t filter_rows = 1, filter_cols = 1;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;
  int64_t pad_top = 0, pad_left = 0;
  // Conv2D: input channels per group (the filter's third dimension) and
  // output channels per group. Depthwise: the channel multiplier M in
  // `multiplier`, the others unused.
  int64_t filter_depth = 0;
  int64_t out_depth_per_group = 1;
  int64_t multiplier = 1;
  // Element strides of the input's n, row, col and channel dimensions.
  int64_t in_stride_n = 0, in_stride_r = 0, in_stride_c = 0, in_stride_d = 0;
  // The output is NCHW (else NHWC).
  bool out_nchw = false;

  int64_t output_size() const {
    return batch * out_rows * out_cols * out_depth;
  }
};

// The coordinates of output element `i` in its layout.
struct ConvOutIndex {
  int64_t n, r, c, d;
};

WEFT_HOST_DEVICE ConvOutIndex DecomposeConvOutput(const ConvParams& p,
                                                  int64_t i) {
  ConvOutIndex o;
  if (p.out_nchw) {
    o.c = i % p.out_cols;
    i /= p.out_cols;
    o.r = i % p.out_rows;
    i /= p.out_rows;
    o.d = i % p.out_depth;
    o.n = i / p.out_depth;
  } else {
    o.d = i % p.out_depth;
    i /= p.out_depth;
    o.c = i % p.out_cols;
    i /= p.out_cols;
    o.r = i % p.out_rows;
    o.n = i / p.out_rows;
  }
  return o;
}

// The taps [*lo, *hi) of a window of `window` taps dilated by `dilation`
// starting at input position `start` that fall inside [0, size): the same
// range as the CPU's ValidTaps (window_shape.h).
WEFT_HOST_DEVICE void ConvValidTaps(int64_t start, int64_t size, int64_t window,
                                    int64_t dilation, int64_t* lo,
                                    int64_t* hi) {
  int64_t first = 0;
  if (start < 0) first = (-start + dilation - 1) / dilation;
  int64_t last = 0;
  const int64_t room = size - start;
  if (room > 0) {
    last = (room - 1) / dilation + 1;
    if (last > window) last = window;
  }
  *lo = first < last ? first : last;
  *hi = last;
}

// Conv2D output element `i`: the sum over in-bounds taps (kh, kw) and the
// input channels of the output channel's group, in that order (the k order
// of the CPU's im2col product), of input * filter[kh, kw, ci, co], in
// float. Out-of-bounds taps are skipped; the CPU multiplies zeros there,
// which is the same sum for finite filters. A filter is [filter_rows,
// filter_cols, filter_depth, out_depth].
template <typename T>
WEFT_HOST_DEVICE float Conv2DOutput(const ConvParams& p, const T* in,
                                    const T* filter, int64_t i) {
  const ConvOutIndex o = DecomposeConvOutput(p, i);
  const int64_t r0 = o.r * p.stride_rows - p.pad_top;
  const int64_t c0 = o.c * p.stride_cols - p.pad_left;
  int64_t kh_lo, kh_hi, kw_lo, kw_hi;
  ConvValidTaps(r0, p.in_rows, p.filter_rows, p.dilation_rows, &kh_lo, &kh_hi);
  ConvValidTaps(c0, p.in_cols, p.filter_cols, p.dilation_cols, &kw_lo, &kw_hi);
  const int64_t ci0 = (o.d / p.out_depth_per_group) * p.filter_depth;
  const T* image = in + o.n * p.in_stride_n + ci0 * p.in_stride_d;
  float acc = 0.0f;
  for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
    const T* line = image + (r0 + kh * p.dilation_rows) * p.in_stride_r;
    for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
      const T* pixel = line + (c0 + kw * p.dilation_cols) * p.in_stride_c;
      const T* taps = filter +
                      (kh * p.filter_cols + kw) * p.filter_depth * p.out_depth +
                      o.d;
      for (int64_t j = 0; j < p.filter_depth; ++j) {
        acc += static_cast<float>(pixel[j * p.in_stride_d]) *
               static_cast<float>(taps[j * p.out_depth]);
      }
    }
  }
  return acc;
}

// DepthwiseConv2dNative output element `i` (channel d = c * M + m): the sum
// 0 + p0 + p1 + ... over in-bounds taps (kh, kw), in that order, of the
// products input[.., c] * filter[kh, kw, c, m], each rounded to float (no
// multiply-add), exactly as the CPU's float depthwise kernel sums (it skips
// out-of-bounds taps too), so float results match it bit for bit. A filter is
// [filter_rows, filter_cols, in_depth, multiplier].
template <typename T>
WEFT_HOST_DEVICE float DepthwiseConvOutput(const ConvParams& p, const T* in,
                                           const T* filter, int64_t i) {
  const ConvOutIndex o = DecomposeConvOutput(p, i);
  const int64_t r0 = o.r * p.stride_rows - p.pad_top;
  const int64_t c0 = o.c * p.stride_cols - p.pad_left;
  int64_t kh_lo, kh_hi, kw_lo, kw_hi;
  ConvValidTaps(r0, p.in_rows, p.filter_rows, p.dilation_rows, &kh_lo, &kh_hi);
  ConvValidTaps(c0, p.in_cols, p.filter_cols, p.dilation_cols, &kw_lo, &kw_hi);
  const int64_t channel = o.d / p.multiplier;
  const T* image = in + o.n * p.in_stride_n + channel * p.in_stride_d;
  float acc = 0.0f;
  for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
    const T* line = image + (r0 + kh * p.dilation_rows) * p.in_stride_r;
    for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
      const float x =
          static_cast<float>(line[(c0 + kw * p.dilation_cols) * p.in_stride_c]);
      const float w = static_cast<float>(
          filter[(kh * p.filter_cols + kw) * p.out_depth + o.d]);
      acc += MulRn(x, w);
    }
  }
  return acc;
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_CONV_BODY_H_
