// How the separable convolution is computed (see the header for what).
#include "kernels/cpu/separable_conv.h"

#include <algorithm>
#include <cstdint>

#include "device/cpu_isa.h"
#include "kernels/cpu/depthwise_conv.h"
#include "kernels/cpu/scratch_lease.h"

namespace weft {
namespace {

// A band's depthwise output is about this many floats (256 KiB): with the
// band's outputs it stays in L2 between the two halves. Bands of 64 to 256
// pixels: fewer rows would stream the packed 1x1 filter for too little
// product, more would leave L2 (prototype on an AMD EPYC, RESULTS.md
// section 26: bands of 96, 192 and 384 pixels within 3% of each other).
constexpr int64_t kBandFloats = int64_t{1} << 16;
constexpr int64_t kMinBandPixels = 64;
constexpr int64_t kMaxBandPixels = 256;
// A depthwise output of at most this many floats (512 KiB) is computed
// whole, then multiplied whole: it stays in cache anyway, and the two
// separate splits share two threads better than a few bands do (batch-1
// layers).
constexpr int64_t kWholeFloats = 2 * kBandFloats;
// At least this many bands where the rows allow (and a multiple of it), so
// that the static partition of ParallelFor gives two or four threads equal
// shares (as conv2d_winograd.cc's units).
constexpr int64_t kUnitMultiple = 4;

}  // namespace

void SeparableConvNhwc(const ParallelForFn& parallel,
                       const DepthwiseGeometry& g, const float* in,
                       const float* filter,
                       const GemmEpilogue* depthwise_epilogue,
                       const GemmPackedRhs& pointwise,
                       const GemmEpilogue& pointwise_epilogue, float* out) {
  const int64_t rows = g.batch * g.rows.output;
  const int64_t cols = g.cols.output;
  const int64_t cm = g.out_depth();
  const int64_t k = pointwise.n();
  if (rows == 0 || cols == 0 || k == 0) return;
  const int64_t band_pixels =
      std::clamp(kBandFloats / cm, kMinBandPixels, kMaxBandPixels);
  const int64_t band_rows = std::max<int64_t>(1, band_pixels / cols);
  int64_t bands = (rows + band_rows - 1) / band_rows;
  // A multiple of kUnitMultiple where the rows allow, so that the static
  // partition of ParallelFor gives two or four threads equal shares.
  bands = std::min(rows,
                   (bands + kUnitMultiple - 1) / kUnitMultiple * kUnitMultiple);
  // On the baseline path the product's blocking (Eigen's) follows its
  // shape, so a band's bits could differ from the whole product's: whole
  // there, always.
  if (rows * cols * cm <= kWholeFloats || bands < 2 ||
      ActiveCpuIsa() == CpuIsa::kBaseline) {
    // A depthwise output this small stays in cache anyway: both halves over
    // all of it, each split its own way (the product by columns when it has
    // few rows), as the separate kernels would.
    ScratchLease mid(rows * cols * cm, /*slot=*/1);
    DepthwiseConvNhwc(parallel, g, in, filter, depthwise_epilogue, mid.data());
    Gemm(parallel, rows * cols, GemmOperand<float>{mid.data(), cm}, pointwise,
         out, k, pointwise_epilogue, GemmRhsLocality::kMemory);
    return;
  }
  const int64_t band_cost =
      (rows / bands) * cols * cm * (g.rows.window * g.cols.window + 2 * k);
  parallel(bands, band_cost, [&](int64_t begin, int64_t end) {
    ScratchLease mid(band_rows * cols * cm);
    for (int64_t b = begin; b < end; ++b) {
      // Bands of nearly equal rows: no short last band that would stream
      // the 1x1 filter for a few pixels.
      const int64_t first = b * rows / bands;
      const int64_t last = (b + 1) * rows / bands;
      DepthwiseConvRows(g, in, filter, depthwise_epilogue, mid.data(), first,
                        last);
      const int64_t pixel = first * cols;
      // A thread's first band reads the 1x1 filter from memory; its later
      // bands find it in cache (it is read whole by every band).
      GemmSerial(
          (last - first) * cols, GemmOperand<float>{mid.data(), cm}, pointwise,
          out + pixel * k, k, EpilogueAt(pointwise_epilogue, pixel, 0),
          b == begin ? GemmRhsLocality::kMemory : GemmRhsLocality::kCached);
    }
  });
}

}  // namespace weft
