// The float convolution of conv2d.h computed tap by tap, for the shapes
// whose taps mostly fall in the padding: a 3x3 filter dilated by 12 or 18
// over a 33x33 map (DeepLab's atrous pyramid) reaches outside the input at
// 43-62% of its (pixel, tap) pairs. The patch products of conv2d.cc multiply
// those as zeros; here each tap (kh, kw) is one product of in_depth x
// out_depth, over only the output pixels whose input position at that tap
// lies inside the input, read where it lies (gemm.h's GemmStridedLhs), and
// summed into the output (GemmSerialStrided's accumulate). Nothing is
// gathered and no padded copy is made.
//
// Numerics: output element = epilogue(((0 + s_0) + s_1) + ...), s_t the
// in_depth-long sum of tap t (its k blocks as gemm.h forms them), over the
// taps inside the input in (kh, kw) order; each element's sums do not depend
// on how rows are split, so the results are the same bits at every thread
// count. Taps in the padding are skipped rather than multiplied by zero, as
// the depthwise kernel does (depthwise_conv.h): an infinite or NaN filter
// value reaches only the outputs whose window covers the input there. The
// last bits differ from conv2d.cc's patch products, which sum over all taps
// at once.
#ifndef WEFT_KERNELS_CPU_CONV2D_TAPS_H_
#define WEFT_KERNELS_CPU_CONV2D_TAPS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/conv_shape.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel_for.h"

namespace weft {

// A filter [rows, cols, in_depth, out_depth] of one group packed tap by
// tap: rows * cols GemmPackedRhs of in_depth x out_depth, tap (kh, kw) the
// filter's rows for it (contiguous in the filter). As much memory as the
// filter packed whole; the filter's buffer must outlive it (gemm.h).
class TapFilters {
 public:
  TapFilters(const float* filter, int64_t rows, int64_t cols, int64_t in_depth,
             int64_t out_depth, const ParallelForFn* parallel = nullptr);
  ~TapFilters();
  TapFilters(const TapFilters&) = delete;
  TapFilters& operator=(const TapFilters&) = delete;

  const GemmPackedRhs& tap(int64_t kh, int64_t kw) const {
    return *taps_[kh * cols_ + kw];
  }

 private:
  int64_t cols_;
  std::vector<std::unique_ptr<GemmPackedRhs>> taps_;
};

// Whether TapConv2D computes `s`: one group, dilated, on a path with
// GemmStridedLhsSupported(), output rows of 8 pixels or more, and at most
// 0.95 of its (output pixel, tap) pairs inside the input
// (TapsInsideFraction), 0.8 for fewer than 64 input channels and 0.6 for
// fewer than 32 (and none of those in output rows under 32 pixels);
// conv2d_taps.cc says why.
bool TapConv2DApplies(const Conv2DGeometry& s);

// The fraction of (output pixel, tap) pairs of `s` whose input position
// lies inside the input (1 without padding).
double TapsInsideFraction(const Conv2DGeometry& s);

// out = epilogue(in * filter) as Conv2DNhwc (conv2d.h) computes it, for a
// geometry TapConv2DApplies to, `taps` its filter packed by TapFilters.
void TapConv2D(const ParallelForFn& parallel, const Conv2DGeometry& s,
               const float* in, const TapFilters& taps,
               const GemmEpilogue& epilogue, float* out);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_CONV2D_TAPS_H_
