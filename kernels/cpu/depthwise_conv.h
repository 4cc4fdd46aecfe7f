// The float depthwise convolution shared by DepthwiseConv2dNative
// (depthwise_conv_op.cc) and _FusedDepthwiseConv2dNative (fused_conv_ops.cc):
// for an NHWC input and a filter [rows, cols, C, M],
//   output[n, oh, ow, c * M + m] = sum over taps (kh, kw) of
//     input[n, oh * sh - pad_top + kh * dh, ow * sw - pad_left + kw * dw, c]
//       * filter[kh, kw, c, m]
// positions outside the input contributing nothing, then the epilogue (bias
// and activation) when there is one.
//
// Numerics: every output value is computed as 0 + p0 + p1 + ... with the
// products p of its in-bounds taps taken in (kh, kw) order, each product
// and sum rounded to float (no fused multiply-add), whatever the instruction
// set, the channel count or the thread count. Out-of-bounds taps are
// skipped, not multiplied by zero, so an infinite or NaN filter value next
// to the border does not reach outputs whose window does not cover the
// input there.
#ifndef WEFT_KERNELS_CPU_DEPTHWISE_CONV_H_
#define WEFT_KERNELS_CPU_DEPTHWISE_CONV_H_

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/common/conv_shape.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel_for.h"

namespace weft {

// The NHWC float convolution of `in` ([batch, rows.input, cols.input, C])
// with `filter` into `out` ([batch, rows.output, cols.output, C * M]), then
// `epilogue` (null: none) applied to every output value as
// ApplyEpilogueRows does. Output rows are split through `parallel`; the
// result does not depend on how. `in` and `out` must not overlap.
void DepthwiseConvNhwc(const ParallelForFn& parallel,
                       const DepthwiseGeometry& g, const float* in,
                       const float* filter, const GemmEpilogue* epilogue,
                       float* out);

// Output rows [first, last) (row r is image r / rows.output, row
// r % rows.output) of DepthwiseConvNhwc, on the calling thread, into `out`,
// which holds row `first` (rows cols.output * C * M floats apart): the whole
// output at its row `first`, or a buffer of last - first rows.
//
// `continues`: the caller's previous call on this thread read the same `in`
// (unchanged since) with the same `g`, and no other call ran on the thread
// in between (the bands of one task, each followed by serial work). Input
// rows that call copied for itself (channel counts a multiple of 1024) are
// then reused instead of copied again. The result is the same either way.
void DepthwiseConvRows(const DepthwiseGeometry& g, const float* in,
                       const float* filter, const GemmEpilogue* epilogue,
                       float* out, int64_t first, int64_t last,
                       bool continues = false);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_DEPTHWISE_CONV_H_
