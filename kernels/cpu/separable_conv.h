// A depthwise convolution followed by a 1x1 convolution of its output (a
// separable convolution), computed band of output rows by band of output
// rows: each band's depthwise output goes to a per-thread buffer that stays
// in cache and is multiplied by the packed 1x1 filter right away, instead of
// being written out whole and read back by a second kernel (what
// _FusedSeparableConv2D computes; see ops/nn_fused_ops.cc).
//
// Numerics: exactly the two separate kernels' results, bit for bit. The
// depthwise values are DepthwiseConvRows' (each pixel's sum in tap order,
// depthwise_conv.h), and a band's product is GemmSerial's on its rows,
// which gives each output element the bits the whole product gives it
// (gemm.h): the 1x1 convolution of an NHWC tensor is that product (what
// Conv2DNhwc computes for a 1x1 filter at unit strides). A depthwise output
// small enough to stay in cache whole is computed whole and multiplied
// whole (Gemm: the same bits again), and so is every layer on the baseline
// path, where a band's product may round differently from the whole one
// (gemm.h). Bands and splits follow the shapes alone (a thread may multiply
// several consecutive bands in one product: GemmSerial's bits again), and a
// small layer computed whole at one thread and band by band at two (below)
// gets the same bits both ways, so results do not depend on the thread count
// either. A depthwise convolution that only scales each channel (a 1x1
// window at unit strides, multiplier 1: a batch normalization standing
// alone) with no epilogue or one of a bias and Relu or Relu6 is not computed
// apart at all: the whole product applies it to its rows as it packs them
// (gemm.h's GemmLhsPrologue, the same bits again).
#ifndef WEFT_KERNELS_CPU_SEPARABLE_CONV_H_
#define WEFT_KERNELS_CPU_SEPARABLE_CONV_H_

#include "kernels/common/conv_shape.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel_for.h"

namespace weft {

// A 1x1 convolution at unit strides before the depthwise one (an inverted
// residual's expansion: MobileNetV2's and EfficientNet's blocks):
// the depthwise convolution's input is epilogue(x * filter) for the NHWC
// tensor x it is given, computed a band of input rows at a time into a
// per-thread buffer beside the band's depthwise output instead of being
// written out whole (what _FusedExpandSeparableConv2D computes). `filter` is
// the packed [Cx, C] matrix of the 1x1 filter; `epilogue`'s bias has C
// values and it adds no residual. The expanded values are the 1x1
// convolution's bits (a band's product is GemmSerial's on its rows; the
// rows two bands read are computed once per thread and kept), so the result
// is again the separate kernels', bit for bit.
struct SeparableExpansion {
  const GemmPackedRhs* filter = nullptr;
  GemmEpilogue epilogue;
};

// out = pointwise_epilogue(depthwise_epilogue(depthwise(x)) * pointwise)
// for NHWC float x of geometry `g` ([batch, rows.input, cols.input, C]),
// the depthwise `filter` ([rows, cols, C, M]), `pointwise` the 1x1 filter
// as a packed [C * M, K] matrix, and `out` [batch, rows.output,
// cols.output, K], C * M > 0 (as for a 1x1 Conv2D, whose filter must have
// input channels). x is `in` when `expand` is null, else the expansion of
// `in` ([batch, rows.input, cols.input, expand->filter->k()]), C =
// expand->filter->n(). `depthwise_epilogue` may be null (none); the
// pointwise epilogue's bias has K values and its residual, when set, has
// the output's shape (residual_ld = K). `out` must not overlap the
// operands. `threads` is how many threads `parallel` runs on (the device's;
// 1 for SerialFor): it changes no bit, only how the work is cut. With two or
// more, a layer small enough to be computed whole goes band by band as well
// when its bands split evenly between the threads and its 1x1 filters are
// small enough for every band to find them in L2, so that each thread keeps
// its rows in its own cache from the expansion to the product.
void SeparableConvNhwc(const ParallelForFn& parallel, int threads,
                       const DepthwiseGeometry& g, const float* in,
                       const SeparableExpansion* expand, const float* filter,
                       const GemmEpilogue* depthwise_epilogue,
                       const GemmPackedRhs& pointwise,
                       const GemmEpilogue& pointwise_epilogue, float* out);

// DepthwiseConvNhwc (depthwise_conv.h) of the expansion of `in` (above):
// out = epilogue(depthwise(expand(in))), `out` [batch, rows.output,
// cols.output, C * M], computed band by band as above but for the 1x1
// product after it (what _FusedExpandDepthwiseConv2dNative computes: an
// expansion whose depthwise output goes elsewhere than one 1x1
// convolution, EfficientNet's squeeze-and-excitation). `epilogue` may be
// null (none). The separate kernels' bits.
void ExpandDepthwiseConvNhwc(const ParallelForFn& parallel, int threads,
                             const DepthwiseGeometry& g, const float* in,
                             const SeparableExpansion& expand,
                             const float* filter, const GemmEpilogue* epilogue,
                             float* out);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_SEPARABLE_CONV_H_
