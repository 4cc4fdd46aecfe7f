// How the float depthwise convolution is computed (see the header for what
// it computes).
//
// Each output row (n, oh) is one unit of work. Its valid filter rows
// [kh_lo, kh_hi) are the same for every pixel of the row, so each pixel's
// sum only varies in its valid filter columns, and those are all of them
// except near the left and right borders. The row is therefore cut into
// edge pixels, computed one at a time over their valid columns, and the
// interior, where no bounds are checked.
//
// Interior pixels are computed in strips of kStrip pixels along W (kStrip3
// for 3-column windows at stride 1), one block of L channels (L floats: a
// vector register, 16 on the AVX-512 path, 8 on AVX2, 4 on the baseline)
// at a time: the strip's accumulators stay in registers across all taps,
// each filter tap is loaded once per strip and block rather than once per
// pixel, and for the common 3x3 and 5x5 filters with stride 1 or 2
// (window and stride compile-time constants) each input vector of a filter
// row is loaded once and used by every pixel of the strip whose window
// covers it. The strip is inlined whole, epilogue included, so that its
// sums never leave registers (bench/RESULTS.md section 20: 0.57 to 0.97 of
// the time on MobileNet's layers). Channel counts that are not a multiple
// of the widest vector end with narrower blocks (8, 4, then single floats),
// computed the same way.
//
// Rows whose input rows under the filter, taps and output row do not fit
// in L1 together go a group of channels at a time, all the rows of a band
// of 8 for one group before the next group, so that the input rows shared
// by consecutive output rows are read from L1, when the whole input is
// small enough to stay in L2 (see Rows). An input too large for L2 comes
// from L3 or memory: each output row then asks for the input rows the next
// one adds, a strip's share at a time, while it computes its own.
//
// A multiplier M > 1 repeats each input channel M times; the valid input
// rows are first expanded to C * M channels into a per-thread buffer, so the
// loops above only ever see one input value per output channel.
//
// The epilogue's bias and Relu, Relu6 or LeakyRelu are applied to the
// accumulators before they are stored; Elu and Swish, which need exp, run on
// each output row right after it is computed, while the row is still in cache.
#include "kernels/cpu/depthwise_conv.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "device/cpu_isa.h"
#include "kernels/cpu/fused_epilogue.h"

namespace weft {
namespace {

// kStrip3: each output's sum is a chain of dependent adds (the order is
// fixed, see the header), so a strip's pixels are the only independent
// chains a vector's lanes have. Four of them left the adds of a 3-column
// window waiting on each other's latency on the 8-lane path; six (15 of the
// 16 registers) took 0.86-0.90 of the time there on MobileNet-shaped 3x3
// layers of 16 to 256 channels on Zen 4, 0.89-0.96 on the 4-lane path
// (bench/RESULTS.md section 62). Wider windows keep kStrip: six pixels of
// a 5-column window need 17 registers and lost (1.10-1.17).
namespace baseline {
constexpr int kMaxLanes = 4;
constexpr int kStrip = 4;
constexpr int kStrip3 = 6;
#include "kernels/cpu/depthwise_conv_rows.inc"
}  // namespace baseline

namespace avx2 {
WEFT_ISA_AVX2_BEGIN
constexpr int kMaxLanes = 8;
constexpr int kStrip = 4;
constexpr int kStrip3 = 6;
#include "kernels/cpu/depthwise_conv_rows.inc"
WEFT_ISA_END
}  // namespace avx2

namespace avx512 {
WEFT_ISA_AVX512_BEGIN
constexpr int kMaxLanes = 16;
constexpr int kStrip = 8;
constexpr int kStrip3 = 8;
#include "kernels/cpu/depthwise_conv_rows.inc"
WEFT_ISA_END
}  // namespace avx512

}  // namespace

void DepthwiseConvRows(const DepthwiseGeometry& g, const float* in,
                       const float* filter, const GemmEpilogue* epilogue,
                       float* out, int64_t first, int64_t last,
                       bool continues) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      return avx512::Rows(g, in, filter, epilogue, out, first, last, continues);
    case CpuIsa::kAvx2:
      return avx2::Rows(g, in, filter, epilogue, out, first, last, continues);
    case CpuIsa::kBaseline:
      break;
  }
  baseline::Rows(g, in, filter, epilogue, out, first, last, continues);
}

void DepthwiseConvNhwc(const ParallelForFn& parallel,
                       const DepthwiseGeometry& g, const float* in,
                       const float* filter, const GemmEpilogue* epilogue,
                       float* out) {
  const int64_t rows = g.batch * g.rows.output;
  if (rows == 0 || g.cols.output == 0 || g.out_depth() == 0) {
    return;
  }
  const int64_t row_cost =
      g.cols.output * g.rows.window * g.cols.window * g.out_depth();
  parallel(rows, row_cost, [&](int64_t first, int64_t last) {
    DepthwiseConvRows(g, in, filter, epilogue,
                      out + first * g.cols.output * g.out_depth(), first, last);
  });
}

}  // namespace weft
