// The 2-D convolution that Conv2D (conv_ops.cc) and _FusedConv2D
// (fused_conv_ops.cc) share: validating the operands into a geometry, and
// computing
//   out[n, oh, ow, co] = epilogue(sum over taps (kh, kw) and the input
//     channels ci of co's group of
//       in[n, oh * sh - pad_top + kh * dh, ow * sw - pad_left + kw * dw, ci]
//       * filter[kh, kw, ci - group start, co])
// in NHWC, positions outside the input contributing zero. Filters are
// [rows, cols, in_depth / groups, out_depth]; groups = in_depth / filter
// in depth (grouped convolution, as TensorFlow's CPU kernel has it).
//
// How: the output pixels (N * OH * OW of them, all images together) are the
// rows of an im2col matrix, cut into chunks whose size depends on the
// shapes alone. A chunk's patches (one row of rows * cols * in_depth values
// per pixel, zeros for padding) are gathered into a buffer that stays in L2
// and multiplied by the filter, seen as a [rows * cols * in_depth,
// out_depth] matrix, straight into the output rows. For float the filter is
// packed for gemm.h's GEMM once per call and shared by the chunks (or once
// for the session when it is a constant: Conv2DPackedFilter), and the
// epilogue (bias, activation) runs on each tile as the GEMM finishes it.
// On the AVX2 and AVX-512 paths, a convolution whose output rows are 8
// pixels or wider and whose filter is at most 2^22 floats gathers nothing
// either: the patch of a pixel is, per filter row, kw * in_depth contiguous
// floats of the input (copied once with zero padding when there is
// padding), which the GEMM reads where they lie (gemm.h's GemmStridedLhs),
// in units of whole output rows (and, without groups, for a filter too
// large to stay in cache, parts of the output channels); with groups or
// dilated columns, the filter row's taps are pieces of a group's channels,
// one product per group.
// A 1x1 filter with unit strides and no padding needs no gather: the input
// is multiplied in place, one product per group. (A strided 1x1 filter
// gathers one Cin run per pixel.) When all the output pixels fit one chunk
// (late layers at batch 1), the patches are gathered once and the GEMM
// splits the product itself, so two threads share even a few-pixel layer.
// Float groups of one input channel each (a depthwise convolution written
// as Conv2D, as Keras 3 writes Conv2D(groups=channels)) go to the
// depthwise kernel (depthwise_conv.h), whose filter [rows, cols, C, M] has
// the same elements in the same order, and whose numerics (sums in tap
// order, no fused multiply-add) they then have. Groups of fewer than 16
// output channels and more than one input channel (ResNeXt's) are
// multiplied several at a time through a block-diagonal filter made per
// call, when the input is finite (a zero of the filter times an infinite
// input of a neighbouring group would be a NaN); the zero products change
// no sum, but the k blocks fall elsewhere, so the last bits may differ from
// a product per group.
// A dilated convolution without groups whose taps often fall in the
// padding goes tap by tap instead, each tap's product only over the pixels
// it reads inside the input (conv2d_taps.h).
// A constant 3x3 filter at unit strides and dilations is also transformed
// for Winograd's F(2x2, 3x3) (conv2d_winograd.h), at the first convolution
// of a shape it applies to, which it then computes with 16 products per 4
// output pixels instead of 36.
//
// Determinism: every split (chunks, bands, the GEMM's own units, the
// Winograd blocks) follows the shapes alone and each output element's k-sum is
// computed the same way whichever split holds it (gemm.h), so results are
// bit-identical at every thread count, and Conv2D equals _FusedConv2D without
// an epilogue bit for bit.
#ifndef WEFT_KERNELS_CPU_CONV2D_H_
#define WEFT_KERNELS_CPU_CONV2D_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/common/conv_shape.h"
#include "kernels/common/window_shape.h"
#include "kernels/cpu/conv2d_taps.h"
#include "kernels/cpu/conv2d_winograd.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel_for.h"

namespace weft {

// A float filter packed once for every convolution that uses it: a
// constant filter (OpKernelConstruction::constant_input) that Conv2D and
// _FusedConv2D pack when the kernel is made, instead of in every run. Per
// group, the filter's [rows * cols * filter_depth, out_depth / groups]
// matrix as a GemmPackedRhs: about one more copy of the filter in memory
// on the AVX2 and AVX-512 paths (gemm.h), none on the baseline path. Keeps
// a reference to the filter's buffer, which it reads on the baseline path.
// Read-only once made (but for its Winograd and tap forms, made once,
// below): concurrent runs share it. With `attrs` (the op's) of unit strides
// and dilations, a filter WinogradFilter::Eligible takes is transformed for
// Winograd too, by the first convolution WinogradApplies to (not when the
// kernel is made: a network's late layers at small inputs never use it,
// and a load would pay for them), which takes 16/9 of the filter more.
class Conv2DPackedFilter {
 public:
  // Packs `filter` (float, [rows, cols, filter_depth, out_depth]) for
  // convolutions of `groups` groups; null for another dtype or rank, or
  // when `groups` does not divide out_depth.
  static std::unique_ptr<Conv2DPackedFilter> Make(
      const Tensor& filter, int64_t groups, const WindowAttrs* attrs = nullptr);
  ~Conv2DPackedFilter();

  // This packing when `filter` (the op's filter input of a convolution of
  // geometry `s`) is the packed tensor and `s` has its groups, else null:
  // a signature that feeds the filter, or a grouped convolution of a
  // filter packed for another group count, is packed per call.
  const Conv2DPackedFilter* For(const Tensor& filter,
                                const Conv2DGeometry& s) const;

  int64_t groups() const { return static_cast<int64_t>(groups_.size()); }
  const GemmPackedRhs& group(int64_t g) const { return *groups_[g]; }
  // The Winograd form for a convolution of geometry `s` (this filter's,
  // through For), made through `parallel` by the first call that asks for
  // it, or null where it is not used: the filter is not eligible, or
  // WinogradApplies(s) is false. Callers that find it missing at the same
  // time (concurrent runs' first calls) each make one and all get the one
  // published first: none waits for another, so a thread that runs another
  // run's task while its ParallelFor waits cannot wait on itself.
  const WinogradFilter* WinogradFor(const Conv2DGeometry& s,
                                    const ParallelForFn& parallel) const;
  // The filter packed tap by tap for a convolution of geometry `s` (this
  // filter's, through For) that TapConv2DApplies to, made as the Winograd
  // form, or null where it does not apply. Shapes whose taps are mostly
  // inside the input never make it.
  const TapFilters* TapsFor(const Conv2DGeometry& s,
                            const ParallelForFn& parallel) const;

 private:
  Conv2DPackedFilter() = default;
  Tensor filter_;
  std::vector<std::unique_ptr<GemmPackedRhs>> groups_;
  bool winograd_eligible_ = false;
  // Owned; null until made (WinogradFor, TapsFor).
  mutable std::atomic<const WinogradFilter*> winograd_{nullptr};
  mutable std::atomic<const TapFilters*> taps_{nullptr};
};

// out = epilogue(in * filter) for NHWC float `in` and `out` of geometry
// `s`; `filter` as the op's input. `out` must not overlap the operands. A
// default GemmEpilogue gives the plain convolution; epilogue.bias, when set,
// has out_depth values; epilogue.residual, when set, is a tensor of the
// output's shape (residual_ld = out_depth) that does not overlap `out`. An
// input without channels gives epilogue(0).
// `packed`, when given, is `filter` packed for s.groups groups
// (Conv2DPackedFilter::For): the result is the same bit for bit, without
// packing the filter, unless it has a Winograd form that applies to `s`
// (then WinogradConv2D computes it).
void Conv2DNhwc(const ParallelForFn& parallel, const Conv2DGeometry& s,
                const float* in, const float* filter,
                const GemmEpilogue& epilogue, float* out,
                const Conv2DPackedFilter* packed = nullptr);

// The same convolution for the other element types: S is how elements are
// stored, A what products are summed in (float for half and bfloat16,
// rounded to S once per output; uint32_t for int32, wrapping modulo 2^32
// as TensorFlow's int32 kernel does). `filter` is already converted to A.
// Instantiated for <double, double>, <half, float>, <bfloat16, float> and
// <uint32_t, uint32_t>.
template <typename S, typename A>
void Conv2DNhwc(const ParallelForFn& parallel, const Conv2DGeometry& s,
                const S* in, const A* filter, S* out);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_CONV2D_H_
