#include "kernels/cpu/conv2d_taps.h"

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/fused_epilogue.h"

namespace weft {
namespace {

// TapConv2D computes a dilated convolution when at most this fraction of
// its (pixel, tap) pairs is inside the input, and its output rows are at
// least kTapsMinOutputCols pixels wide. Each tap costs a pass over its
// output rows (their sums read and written back) and products of one
// output row at a time; the patch products of conv2d.cc multiply every
// tap, in padding or not. Measured on the AMD EPYC of bench/RESULTS.md
// section 35 (AVX-512, 1 thread, 3x3 filters, taps against patches): 0.41
// of the time at 0.40 inside (33 x 33 x 256, dilation 18), 0.58 at 0.57
// (dilation 12), 0.85 at 0.85 (17 x 17 x 256 at batch 8, dilation 2), 0.93
// at 0.92, level at 0.96 (64 x 64 x 128, dilation 2), 1.06 at 0.98 (129 x
// 129 x 64). Undilated layers are left alone: those with that much padding
// are small maps (3x3 maps at the end of ResNet50 at 96 x 96, InceptionV3's
// 1x7 filters on 4x4 maps), whose rows of a few pixels make short products:
// ResNet50 at batch 1 was 14% slower with them.
constexpr double kTapsMaxInsideFraction = 0.95;
// Below 32 input channels, output rows of fewer pixels than this go by
// patches whatever their padding (MaxInsideFraction).
constexpr int64_t kShallowTapsMinOutputCols = 32;
// Shallow inputs need more of the taps in the padding: a tap's product
// then sums only in_depth terms into each output before writing it back,
// so the per-tap passes cost more than the zeros they skip. On the Zen 4 of
// bench/RESULTS.md section 58 (3x3, in_depth = out_depth, taps / patches,
// both ISA paths): 16 channels 1.5 at 0.85 inside, 1.2 at 0.71, 0.77 at
// 0.57 (33-pixel rows) but 0.96-1.0 at 0.58 on 17-pixel rows, and 1.17 in
// tests/models' atrous_pyramid, whose batch normalization the taps apply
// in a pass of their own; 32 channels 1.0-1.06 at 0.85, 0.86-0.9 at 0.71,
// 0.9 at 0.77; 64 channels 0.92-1.0 at 0.92, 0.76 at 0.71.
double MaxInsideFraction(const Conv2DGeometry& s) {
  if (s.in_depth < 32) {
    return s.cols.output < kShallowTapsMinOutputCols ? 0.0 : 0.6;
  }
  return s.in_depth < 64 ? 0.8 : kTapsMaxInsideFraction;
}
constexpr int64_t kTapsMinOutputCols = 8;

// About this many output pixels per unit of work (whole output rows), and
// at least kMinItems units where the rows allow, a multiple of
// kEqualShareUnits (parallel_for.h) when they do, as conv2d.cc's
// StridedConv2D splits.
constexpr int64_t kItemPixels = 256;
constexpr int64_t kMinItems = 4;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
// floor(a / b) for b > 0 and any a.
int64_t FloorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The outputs o in [*lo, *hi) of `d` whose tap t reads inside the input:
// 0 <= o * stride - pad_before + t * dilation < input.
void OutputsInside(const WindowDim& d, int64_t t, int64_t* lo, int64_t* hi) {
  const int64_t offset = t * d.dilation - d.pad_before;
  // The first o with o * stride >= -offset: ceil(-offset / stride).
  *lo = std::max<int64_t>(0, -FloorDiv(offset, d.stride));
  *hi = std::min(d.output, FloorDiv(d.input - 1 - offset, d.stride) + 1);
  if (*hi < *lo) *hi = *lo;
}

// Pairs (output, tap) of `d` inside the input, over all outputs and taps.
int64_t PairsInside(const WindowDim& d) {
  int64_t pairs = 0;
  for (int64_t t = 0; t < d.window; ++t) {
    int64_t lo, hi;
    OutputsInside(d, t, &lo, &hi);
    pairs += hi - lo;
  }
  return pairs;
}

}  // namespace

TapFilters::TapFilters(const float* filter, int64_t rows, int64_t cols,
                       int64_t in_depth, int64_t out_depth,
                       const ParallelForFn* parallel)
    : cols_(cols) {
  for (int64_t t = 0; t < rows * cols; ++t) {
    taps_.push_back(std::make_unique<GemmPackedRhs>(
        in_depth, out_depth,
        GemmOperand<float>{filter + t * in_depth * out_depth, out_depth},
        parallel));
  }
}

TapFilters::~TapFilters() = default;

double TapsInsideFraction(const Conv2DGeometry& s) {
  const double all = static_cast<double>(s.rows.output * s.rows.window) *
                     static_cast<double>(s.cols.output * s.cols.window);
  if (all == 0) return 1.0;
  return static_cast<double>(PairsInside(s.rows)) *
         static_cast<double>(PairsInside(s.cols)) / all;
}

bool TapConv2DApplies(const Conv2DGeometry& s) {
  return s.groups == 1 && GemmStridedLhsSupported() &&
         (s.rows.dilation > 1 || s.cols.dilation > 1) &&
         s.cols.output >= kTapsMinOutputCols &&
         TapsInsideFraction(s) <= MaxInsideFraction(s);
}

void TapConv2D(const ParallelForFn& parallel, const Conv2DGeometry& s,
               const float* in, const TapFilters& taps,
               const GemmEpilogue& epilogue, float* out) {
  const int64_t c = s.in_depth;
  const int64_t ldo = s.out_depth;
  const int64_t oh_count = s.rows.output;
  const int64_t ow_count = s.cols.output;
  const int64_t in_row = s.cols.input * c;
  // The output columns each filter column kw reads inside the input.
  std::vector<int64_t> col_lo(s.cols.window), col_hi(s.cols.window);
  for (int64_t kw = 0; kw < s.cols.window; ++kw) {
    OutputsInside(s.cols, kw, &col_lo[kw], &col_hi[kw]);
  }
  const int64_t rows_per_item =
      std::max<int64_t>(1, std::min({oh_count, kItemPixels / ow_count,
                                     s.batch * oh_count / kMinItems}));
  int64_t items_per_image = CeilDiv(oh_count, rows_per_item);
  while ((s.batch * items_per_image) % kEqualShareUnits != 0 &&
         items_per_image < oh_count) {
    ++items_per_image;
  }
  const int64_t items = s.batch * items_per_image;
  const bool epilogue_after = HasEpilogue(epilogue);
  parallel(items,
           CeilDiv(oh_count, items_per_image) * ow_count * s.patch_size() * ldo,
           [&](int64_t first, int64_t last) {
             for (int64_t item = first; item < last; ++item) {
               const int64_t n = item / items_per_image;
               const int64_t i = item % items_per_image;
               const int64_t oh0 = i * oh_count / items_per_image;
               const int64_t oh1 = (i + 1) * oh_count / items_per_image;
               const int64_t r0 = (n * oh_count + oh0) * ow_count;
               float* const rows_out = out + r0 * ldo;
               std::fill_n(rows_out, (oh1 - oh0) * ow_count * ldo, 0.0f);
               // Tap by tap, each tap's products over all the item's rows, so
               // that its packed filter stays in cache across them.
               for (int64_t kh = 0; kh < s.rows.window; ++kh) {
                 for (int64_t kw = 0; kw < s.cols.window; ++kw) {
                   const int64_t lo = col_lo[kw];
                   const int64_t pixels = col_hi[kw] - lo;
                   if (pixels <= 0) continue;
                   const int64_t iw = lo * s.cols.stride - s.cols.pad_before +
                                      kw * s.cols.dilation;
                   for (int64_t oh = oh0; oh < oh1; ++oh) {
                     const int64_t ih = oh * s.rows.stride - s.rows.pad_before +
                                        kh * s.rows.dilation;
                     if (ih < 0 || ih >= s.rows.input) continue;
                     GemmStridedLhs a;
                     a.data = in + (n * s.rows.input + ih) * in_row + iw * c;
                     a.group_rows = pixels;
                     a.row_stride = s.cols.stride * c;
                     a.run = c;
                     GemmSerialStrided(
                         pixels, a, taps.tap(kh, kw),
                         rows_out + ((oh - oh0) * ow_count + lo) * ldo, ldo,
                         GemmEpilogue(), GemmColumnPart(), /*accumulate=*/true);
                   }
                 }
               }
               if (epilogue_after) {
                 ApplyEpilogueRows(EpilogueAt(epilogue, r0, 0), rows_out,
                                   (oh1 - oh0) * ow_count, ldo, ldo);
               }
             }
           });
}

}  // namespace weft
