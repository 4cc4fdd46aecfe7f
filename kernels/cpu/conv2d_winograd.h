// 3x3 convolutions at unit strides and dilations by Winograd's minimal
// filtering F(2x2, 3x3): each 2x2 block of output pixels ("tile") of one
// output channel is computed from the 4x4 input pixels under it with 16
// products per input channel instead of 36:
//   Y = A^T [(G g G^T) .* (B^T d B)] A
// for the 3x3 filter g, the 4x4 input d and the constant matrices
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],
//   G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1],
//   A^T = [1 1 1 0; 0 1 -1 -1].
// Over the input channels the 16 element-wise products become 16 matrix
// products, [tiles, in_depth] x [in_depth, out_depth], one per position
// of the 4x4 transformed tile, run by gemm.h's packed GEMM against the
// filter transformed and packed once (WinogradFilter: conv2d.h's
// Conv2DPackedFilter makes it at the first convolution it applies to). The work
// is cut into blocks of tiles (all images together) times parts of the output
// channels, from the shapes alone; a unit transforms its block's input into a
// buffer that stays in L2, multiplies it by its part of the 16 filter matrices
// and transforms the products back into the output, where the epilogue (bias,
// residual, activation) is applied.
//
// Numerics: the transforms only add, subtract and halve, so an output
// element differs from the direct sum by a few float32 rounding errors of
// the size of its terms (measured against float64 in the kernel tests, and
// within the model tests' bound against TensorFlow), rather than by the
// direct path's summation order alone. A NaN input reaches the outputs whose
// window holds it, as directly; an infinite input may give NaN where the
// direct sum gives an infinity (a tile's transformed inputs subtract taps
// from each other), and inputs near the float range may overflow in the
// transform where the direct sum would not. Each output element is computed
// by one unit whatever the thread count, and the GEMM's sums do not depend
// on the split (gemm.h), so results are bit-identical at every thread count.
// Set WEFT_CONV_WINOGRAD=0 to make kernels without it (the direct path's
// bits, less memory).
//
// Only on the AVX2 and AVX-512 paths (the GEMM reads the transformed input
// in place there: GemmSerialStrided); the baseline path convolves directly.
#ifndef WEFT_KERNELS_CPU_CONV2D_WINOGRAD_H_
#define WEFT_KERNELS_CPU_CONV2D_WINOGRAD_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/conv_shape.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel_for.h"

namespace weft {

// A float [3, 3, in_depth, out_depth] filter as F(2x2, 3x3) multiplies it:
// the 16 in_depth x out_depth matrices G g G^T (computed in double and
// rounded once), each cut into parts of the output channels and packed for
// the GEMM. Memory: 16/9 of the filter. Read-only once made: concurrent
// runs share it.
class WinogradFilter {
 public:
  // Whether Make gives a filter: float [3, 3, in_depth, out_depth], depths
  // of at least kMinInDepth / kMinOutDepth, an AVX2 or AVX-512 CPU path,
  // and not WEFT_CONV_WINOGRAD=0 in the environment. Cheap.
  static bool Eligible(const Tensor& filter);
  // The transformed filter where Eligible, else null: about a copy of the
  // filter's worth of work and 16/9 of its memory in fresh pages (VGG16's
  // at 96x96: its first run at 1 thread took 142-144 ms instead of 62-81),
  // on the calling thread, or through `parallel` when given (the same
  // bits either way).
  static std::unique_ptr<WinogradFilter> Make(
      const Tensor& filter, const ParallelForFn* parallel = nullptr);
  ~WinogradFilter();

  // Below these the products are too thin to pay for the transforms, whose
  // cost per output goes with 1 / out_depth (the input's) and 1 / in_depth
  // (the output's): measured layer by layer against the direct path on the
  // Intel Xeon of bench/RESULTS.md (section 25), 32 input channels gained
  // on some shapes and lost on others, 48 and more gained on all.
  static constexpr int64_t kMinInDepth = 48;
  static constexpr int64_t kMinOutDepth = 16;

  int64_t parts() const { return static_cast<int64_t>(part_begin_.size()) - 1; }
  // Part p's output channels [part_begin(p), part_begin(p + 1)).
  int64_t part_begin(int64_t p) const { return part_begin_[p]; }
  // The most output channels of any part.
  int64_t widest_part() const { return widest_part_; }
  // Position x's (0..15, row-major in the 4x4 tile) matrix, part p's columns.
  const GemmPackedRhs& matrix(int64_t p, int64_t x) const {
    return *matrices_[p * 16 + x];
  }

 private:
  WinogradFilter() = default;
  std::vector<int64_t> part_begin_;
  int64_t widest_part_ = 0;
  std::vector<std::unique_ptr<GemmPackedRhs>> matrices_;
};

// Whether WinogradConv2D computes the convolution of geometry `s`: a 3x3
// window, no groups, unit strides and dilations, padding not negative, the
// depths Eligible asks for, and enough output pixels that the tiles fill
// the GEMM's rows (a few-pixel late layer is left to the direct path,
// which reads the smaller filter once; on the AVX-512 path, whose direct
// products are faster, more pixels for a filter too large for L2).
bool WinogradApplies(const Conv2DGeometry& s);

// out = epilogue(conv(in, filter)) for NHWC float `in` and `out` of
// geometry `s`, where WinogradApplies and `filter` is the transform of the
// convolution's filter; epilogue as Conv2DNhwc's (conv2d.h).
// `out` must not overlap `in` or the residual.
void WinogradConv2D(const ParallelForFn& parallel, const Conv2DGeometry& s,
                    const float* in, const WinogradFilter& filter,
                    const GemmEpilogue& epilogue, float* out);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_CONV2D_WINOGRAD_H_
