// How the separable convolution is computed (see the header for what).
#include "kernels/cpu/separable_conv.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

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
// A 1x1 filter of kGemmLargeRhsFloats or more (gemm.h) does not stay in L2 from
// one band to the next, so every band reads all of it from memory again.
// Without an expansion, when one thread computes every band, consecutive bands
// whose depthwise output takes at most kGroupFloats (1 MiB) go as one: their
// depthwise rows, then one product over all of them, which reads each k block
// of the filter from memory once. Xception's 728 x 728 layers at batch 8 on one
// thread (bench/RESULTS.md section 39): the model 0.986 of the banded time on
// the AVX-512 path, a chain of 24 such layers 0.972 (AVX-512) and 0.976 (AVX2).
// Not on two threads, where each takes half the bands: level or 1% slower there
// (AVX-512, 12 rounds).
constexpr int64_t kGroupFloats = int64_t{1} << 18;
// A small layer (kWholeFloats) on two or more threads goes band by band when
// its 1x1 filters take at most this many floats (512 KiB) together, so that
// each band finds them in L2: split whole, each of its three parts is cut
// its own way (the products by columns, the depthwise part by rows), and
// half of what one part writes is read by the other core in the next.
// MobileNetV2 and EfficientNetB0 at 2 threads, batch 1, traced: 0.89-1.05 of
// the nodes' time from pass to pass, about 0.96 on the whole; at one thread
// the bands' smaller products lose (1.01 at batch 8, up to 1.1 at batch 1),
// and against filters of a megabyte (the 512- and 728-channel layers of
// MobileNet and Xception) every band would stream them again
// (bench/RESULTS.md section 42).
constexpr int64_t kThreadBandFilterFloats = int64_t{1} << 17;

// Input rows [begin, end) of one image that a band of output rows reads.
struct RowSpan {
  int64_t begin = 0;
  int64_t end = 0;
};

// The input rows one output row's window spans, first tap to last.
int64_t Reach(const WindowDim& d) { return (d.window - 1) * d.dilation + 1; }

// The input rows output rows [first, last) of an image read through `d`
// (their windows' first to last tap), clamped to the input.
RowSpan InputRows(const WindowDim& d, int64_t first, int64_t last) {
  const int64_t lo = first * d.stride - d.pad_before;
  const int64_t hi = (last - 1) * d.stride - d.pad_before + Reach(d);
  RowSpan s;
  s.begin = std::clamp<int64_t>(lo, 0, d.input);
  s.end = std::clamp<int64_t>(hi, s.begin, d.input);
  return s;
}

// Output rows per band with an expansion: the band's expanded input rows
// (its window's reach) take at most kBandFloats, or one output row's.
int64_t ExpandedBandRows(const DepthwiseGeometry& g, int64_t band_rows) {
  const int64_t row_floats = g.cols.input * g.depth;
  const int64_t reach = Reach(g.rows);
  const int64_t fit = kBandFloats / std::max<int64_t>(1, row_floats);
  const int64_t rows =
      fit <= reach ? 1
                   : (fit - reach) / std::max<int64_t>(1, g.rows.stride) + 1;
  return std::clamp<int64_t>(rows, 1, band_rows);
}

// The whole of each part, one after the other (see below).
void Whole(const ParallelForFn& parallel, const DepthwiseGeometry& g,
           const float* in, const SeparableExpansion* expand,
           const float* filter, const GemmEpilogue* depthwise_epilogue,
           const GemmPackedRhs* pointwise,
           const GemmEpilogue& pointwise_epilogue, float* out) {
  const int64_t pixels = g.batch * g.rows.output * g.cols.output;
  const int64_t cm = g.out_depth();
  const int64_t in_pixels = g.batch * g.rows.input * g.cols.input;
  const int64_t expanded = expand != nullptr ? in_pixels * g.depth : 0;
  ScratchLease mid(expanded + (pointwise != nullptr ? pixels * cm : 0),
                   /*slot=*/1);
  const float* x = in;
  if (expand != nullptr) {
    Gemm(parallel, in_pixels, GemmOperand<float>{in, expand->filter->k()},
         *expand->filter, mid.data(), g.depth, expand->epilogue,
         GemmRhsLocality::kMemory);
    x = mid.data();
  }
  if (pointwise == nullptr) {
    DepthwiseConvNhwc(parallel, g, x, filter, depthwise_epilogue, out);
    return;
  }
  float* depthwise = mid.data() + expanded;
  DepthwiseConvNhwc(parallel, g, x, filter, depthwise_epilogue, depthwise);
  Gemm(parallel, pixels, GemmOperand<float>{depthwise, cm}, *pointwise, out,
       pointwise->n(), pointwise_epilogue, GemmRhsLocality::kMemory);
}

// Whether the depthwise convolution of `g` is a per-channel scale (a 1x1
// window at unit strides, one output per channel, reading every pixel) with
// an epilogue a GemmLhsPrologue can apply: then the separable convolution is
// the 1x1 product with that prologue (a batch normalization standing alone
// before it, DenseNet's and ResNetV2's), and the scaled values are never
// stored: the product makes them as it packs its rows (gemm.h).
bool ScaleAsPrologue(const DepthwiseGeometry& g, const GemmEpilogue* ep) {
  auto unit = [](const WindowDim& d) {
    return d.window == 1 && d.stride == 1 && d.pad_before == 0 &&
           d.output == d.input;
  };
  return unit(g.rows) && unit(g.cols) && g.multiplier == 1 &&
         (ep == nullptr ||
          (ep->residual == nullptr && GemmLhsPrologueSupports(ep->activation)));
}

// SeparableConvNhwc, or without `pointwise` ExpandDepthwiseConvNhwc.
void Compute(const ParallelForFn& parallel, int threads,
             const DepthwiseGeometry& g, const float* in,
             const SeparableExpansion* expand, const float* filter,
             const GemmEpilogue* depthwise_epilogue,
             const GemmPackedRhs* pointwise,
             const GemmEpilogue& pointwise_epilogue, float* out) {
  const int64_t rows = g.batch * g.rows.output;
  const int64_t cols = g.cols.output;
  const int64_t cm = g.out_depth();
  const int64_t k = pointwise != nullptr ? pointwise->n() : 0;
  if (rows == 0 || cols == 0 || (pointwise != nullptr ? k : cm) == 0) return;
  if (expand == nullptr && pointwise != nullptr &&
      ScaleAsPrologue(g, depthwise_epilogue)) {
    GemmLhsPrologue prologue;
    prologue.scale = filter;
    if (depthwise_epilogue != nullptr) {
      prologue.shift = depthwise_epilogue->bias;
      prologue.activation = depthwise_epilogue->activation;
    }
    Gemm(parallel, rows * cols, GemmOperand<float>{in, cm}, prologue,
         *pointwise, out, k, pointwise_epilogue, GemmRhsLocality::kMemory);
    return;
  }
  const int64_t band_pixels =
      std::clamp(kBandFloats / cm, kMinBandPixels, kMaxBandPixels);
  // Without a product after it, the depthwise output goes straight out: its
  // rows need no buffer, only the expanded rows bound a band.
  int64_t band_rows = pointwise == nullptr
                          ? g.rows.output
                          : std::max<int64_t>(1, band_pixels / cols);
  // With an expansion a band stays inside one image (its expanded rows are
  // that image's), so bands go per image; without, over all rows.
  int64_t per_image = 0;
  int64_t bands = 0;
  if (expand != nullptr) {
    band_rows = ExpandedBandRows(g, band_rows);
    per_image = (g.rows.output + band_rows - 1) / band_rows;
    if (g.batch % kEqualShareUnits != 0) {
      per_image =
          std::min(g.rows.output, (per_image + kEqualShareUnits - 1) /
                                      kEqualShareUnits * kEqualShareUnits);
    }
    bands = g.batch * per_image;
  } else {
    bands = (rows + band_rows - 1) / band_rows;
    // A multiple of kEqualShareUnits where the rows allow (parallel_for.h).
    bands = std::min(rows, (bands + kEqualShareUnits - 1) / kEqualShareUnits *
                               kEqualShareUnits);
  }
  // On the baseline path the product's blocking (Eigen's) follows its
  // shape, so a band's bits could differ from the whole product's: whole
  // there, always. An expansion and a depthwise output this small stay in
  // cache anyway (the depthwise output is not kept when it goes out): each
  // part over all of it, split its own way (a product by columns when it
  // has few rows), as the separate kernels would; but on two or more
  // threads band by band where kThreadBandFilterFloats says.
  const int64_t expanded_floats =
      expand != nullptr ? g.batch * g.rows.input * g.cols.input * g.depth : 0;
  const bool small = expanded_floats <= kWholeFloats &&
                     (pointwise == nullptr || rows * cols * cm <= kWholeFloats);
  const bool large_filter = expand == nullptr && pointwise != nullptr &&
                            pointwise->k() * k >= kGemmLargeRhsFloats;
  const int64_t filter_floats =
      (pointwise != nullptr ? pointwise->k() * k : 0) +
      (expand != nullptr ? expand->filter->k() * expand->filter->n() : 0);
  const bool thread_bands = threads >= 2 && bands % kEqualShareUnits == 0 &&
                            filter_floats <= kThreadBandFilterFloats;
  if ((small && !thread_bands) || bands < 2 ||
      ActiveCpuIsa() == CpuIsa::kBaseline) {
    Whole(parallel, g, in, expand, filter, depthwise_epilogue, pointwise,
          pointwise_epilogue, out);
    return;
  }
  const int64_t band_cost =
      (rows / bands) * cols * cm * (g.rows.window * g.cols.window + 2 * k);
  if (expand == nullptr) {
    parallel(bands, band_cost, [&](int64_t begin, int64_t end) {
      // Bands per group (kGroupFloats): consecutive bands computed as one.
      const int64_t group =
          large_filter && begin == 0 && end == bands
              ? std::max<int64_t>(1, kGroupFloats / (band_rows * cols * cm))
              : 1;
      ScratchLease mid(std::min(group, end - begin) * band_rows * cols * cm);
      for (int64_t b = begin; b < end; b += group) {
        // Bands of nearly equal rows: no short last band that would stream
        // the 1x1 filter for a few pixels.
        const int64_t first = b * rows / bands;
        const int64_t last = std::min(b + group, end) * rows / bands;
        // The task's later bands continue its first: input rows copied
        // for one band (1024 channels) serve the next.
        DepthwiseConvRows(g, in, filter, depthwise_epilogue, mid.data(), first,
                          last, /*continues=*/b != begin);
        const int64_t pixel = first * cols;
        // A thread's first band (or group) reads the 1x1 filter from
        // memory; its later ones find it in cache, or part of it when the
        // filter is larger than L2 (prefetched as from memory for them too:
        // 0.99-1.03 of the time, bench/RESULTS.md section 39).
        GemmSerial(
            (last - first) * cols, GemmOperand<float>{mid.data(), cm},
            *pointwise, out + pixel * k, k,
            EpilogueAt(pointwise_epilogue, pixel, 0),
            b == begin ? GemmRhsLocality::kMemory : GemmRhsLocality::kCached);
      }
    });
    return;
  }
  const int64_t in_depth = expand->filter->k();
  const int64_t row_floats = g.cols.input * g.depth;
  const int64_t max_band = (g.rows.output + per_image - 1) / per_image;
  // The most input rows a band reads.
  const int64_t span_rows =
      std::min(g.rows.input, (max_band - 1) * g.rows.stride + Reach(g.rows));
  const int64_t expand_cost = g.rows.input * row_floats * in_depth / per_image;
  parallel(bands, band_cost + expand_cost, [&](int64_t begin, int64_t end) {
    ScratchLease lease(span_rows * row_floats +
                       (pointwise != nullptr ? max_band * cols * cm : 0));
    float* expanded = lease.data();
    float* mid = expanded + span_rows * row_floats;
    // The expanded input rows in the buffer: image `held_image`, rows
    // `held`. The next band of the image reads the last of them again.
    int64_t held_image = -1;
    RowSpan held;
    for (int64_t b = begin; b < end; ++b) {
      const int64_t n = b / per_image;
      const int64_t j = b % per_image;
      const int64_t first = j * g.rows.output / per_image;
      const int64_t last = (j + 1) * g.rows.output / per_image;
      const RowSpan need = InputRows(g.rows, first, last);
      int64_t have = need.begin;
      if (held_image == n && held.begin <= need.begin &&
          need.begin < held.end) {
        have = std::min(held.end, need.end);
        std::memmove(expanded,
                     expanded + (need.begin - held.begin) * row_floats,
                     (have - need.begin) * row_floats * sizeof(float));
      }
      if (have < need.end) {
        GemmSerial(
            (need.end - have) * g.cols.input,
            GemmOperand<float>{
                in + (n * g.rows.input + have) * g.cols.input * in_depth,
                in_depth},
            *expand->filter, expanded + (have - need.begin) * row_floats,
            g.depth, expand->epilogue,
            b == begin ? GemmRhsLocality::kMemory : GemmRhsLocality::kCached);
      }
      held_image = n;
      held = need;
      // The band as a convolution of its own: one image whose input is the
      // held rows, padded above by what falls before them (the same taps,
      // in the same order, as in the whole image).
      DepthwiseGeometry band = g;
      band.batch = 1;
      band.rows.input = need.end - need.begin;
      band.rows.output = last - first;
      band.rows.pad_before =
          g.rows.pad_before + need.begin - first * g.rows.stride;
      const int64_t pixel = (n * g.rows.output + first) * cols;
      if (pointwise == nullptr) {
        DepthwiseConvRows(band, expanded, filter, depthwise_epilogue,
                          out + pixel * cm, 0, last - first);
        continue;
      }
      DepthwiseConvRows(band, expanded, filter, depthwise_epilogue, mid, 0,
                        last - first);
      GemmSerial(
          (last - first) * cols, GemmOperand<float>{mid, cm}, *pointwise,
          out + pixel * k, k, EpilogueAt(pointwise_epilogue, pixel, 0),
          b == begin ? GemmRhsLocality::kMemory : GemmRhsLocality::kCached);
    }
  });
}

}  // namespace

void SeparableConvNhwc(const ParallelForFn& parallel, int threads,
                       const DepthwiseGeometry& g, const float* in,
                       const SeparableExpansion* expand, const float* filter,
                       const GemmEpilogue* depthwise_epilogue,
                       const GemmPackedRhs& pointwise,
                       const GemmEpilogue& pointwise_epilogue, float* out) {
  Compute(parallel, threads, g, in, expand, filter, depthwise_epilogue,
          &pointwise, pointwise_epilogue, out);
}

void ExpandDepthwiseConvNhwc(const ParallelForFn& parallel, int threads,
                             const DepthwiseGeometry& g, const float* in,
                             const SeparableExpansion& expand,
                             const float* filter, const GemmEpilogue* epilogue,
                             float* out) {
  Compute(parallel, threads, g, in, &expand, filter, epilogue, nullptr,
          GemmEpilogue(), out);
}

}  // namespace weft
