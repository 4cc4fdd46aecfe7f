#include "kernels/cpu/conv2d.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <vector>

#include <immintrin.h>

#include "device/cpu_isa.h"
#include "kernels/cpu/depthwise_conv.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/cpu/scratch_lease.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// A chunk's patch buffer holds about this many elements (256 KiB of float):
// enough rows that the GEMM streams each packed filter panel over many rows
// of patches, few enough that the patches and the output rows they produce
// stay in a core's L2 (1 MiB on the AMD EPYC this is tuned on) between the
// gather and the product.
constexpr int64_t kPatchElements = int64_t{1} << 16;
constexpr int64_t kMinChunkRows = 16;
// The most patch elements gathered at once when the filter is worth it
// (16 MiB of float; see ChunkRowsForFilter).
constexpr int64_t kMaxGatherAllElements = int64_t{1} << 22;

int64_t ChunkRows(int64_t m, int64_t k) {
  return std::min(m, std::max(kMinChunkRows, kPatchElements / k));
}

// ChunkRows for the float path, whose chunks each stream the whole packed
// k x n filter through the GEMM: few output rows against a large filter (a
// network's late layers at batch 1; VGG16's 12x12 layers at 96x96 input
// read a 9.4 MB filter once per 16-row chunk, 9 times) are cheaper gathered
// at once, although the m x k patches then outgrow L2 and cost one more
// pass. In units of k floats: chunked, the filter costs n per chunk;
// gathered at once, the patches about 2m more, the filter n. The choice
// depends on the shape alone, so it is the same at every thread count; on
// the vector paths an element's k-sum does not depend on the rows around it
// (gemm.h), so the results are the same bits either way.
int64_t ChunkRowsForFilter(int64_t m, int64_t k, int64_t n) {
  const int64_t rows = ChunkRows(m, k);
  if (rows < m && m * k <= kMaxGatherAllElements &&
      2 * m + n < CeilDiv(m, rows) * n) {
    return m;
  }
  return rows;
}

// The valid taps [lo, hi) of each output position along one dimension,
// computed once per call: ValidTaps divides, which per patch row would cost
// as much as gathering a small patch.
struct TapRange {
  int64_t lo;
  int64_t hi;
};

std::vector<TapRange> TapTable(const WindowDim& d) {
  std::vector<TapRange> table(d.output);
  for (int64_t o = 0; o < d.output; ++o) {
    ValidTaps(d, o, &table[o].lo, &table[o].hi);
  }
  return table;
}

// Where GatherPatches writes: element (rr, l) of the rows gathered (rr =
// r - r0) at patches + (l / block_depth) * block_floats + rr * row_stride +
// l % block_depth. Row-major im2col: block_depth = row_stride = k (one
// block); the packed GEMM's own layout (gemm.h's GemmLhsLayout), which
// spares it copying the patches again.
struct PatchLayout {
  int64_t block_depth;
  int64_t block_floats;
  int64_t row_stride;
};

PatchLayout RowMajor(int64_t k) { return {k, 0, k}; }

// Element runs of the gather: a few to a few hundred elements each (Cin, or
// a filter row's kw * Cin), too short for memcpy's call and size dispatch to
// pay off, so the vector paths move floats with whole-register moves, the
// last one masked. The baseline path (and every type but float) converts or
// copies element by element.
namespace baseline {

template <typename A, typename S>
inline void CopyRun(const S* src, A* dst, int64_t n) {
  ConvertElements(src, dst, n);
}

template <typename A>
inline void ZeroRun(A* dst, int64_t n) {
  std::fill_n(dst, n, A(0));
}

#include "kernels/cpu/conv2d_gather.inc"

}  // namespace baseline

namespace avx2 {
WEFT_ISA_AVX2_BEGIN

// Lanes [0, n) of 8, n < 8.
inline __m256i TailMask(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

inline void CopyRun(const float* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(dst + i, _mm256_loadu_ps(src + i));
  }
  if (i < n) {
    const __m256i mask = TailMask(n - i);
    _mm256_maskstore_ps(dst + i, mask, _mm256_maskload_ps(src + i, mask));
  }
}

inline void ZeroRun(float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_setzero_ps());
  if (i < n) _mm256_maskstore_ps(dst + i, TailMask(n - i), _mm256_setzero_ps());
}

#include "kernels/cpu/conv2d_gather.inc"

WEFT_ISA_END
}  // namespace avx2

namespace avx512 {
WEFT_ISA_AVX512_BEGIN

inline void CopyRun(const float* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(dst + i, _mm512_loadu_ps(src + i));
  }
  if (i < n) {
    const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(dst + i, mask, _mm512_maskz_loadu_ps(mask, src + i));
  }
}

inline void ZeroRun(float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(dst + i, _mm512_setzero_ps());
  if (i < n) {
    _mm512_mask_storeu_ps(dst + i, static_cast<__mmask16>((1u << (n - i)) - 1),
                          _mm512_setzero_ps());
  }
}

#include "kernels/cpu/conv2d_gather.inc"

WEFT_ISA_END
}  // namespace avx512

// Rows [r0, r0 + rows) of group g's im2col matrix into `patches` in
// `layout` (conv2d_gather.inc), on the active path for float, else the
// baseline.
template <typename S, typename A>
void GatherPatches(const Conv2DGeometry& s, const TapRange* col_taps,
                   const S* in, int64_t r0, int64_t rows, int64_t g, A* patches,
                   const PatchLayout& layout) {
  if constexpr (std::is_same_v<S, float> && std::is_same_v<A, float>) {
    switch (ActiveCpuIsa()) {
      case CpuIsa::kAvx512:
        return avx512::GatherPatches(s, col_taps, in, r0, rows, g, patches,
                                     layout);
      case CpuIsa::kAvx2:
        return avx2::GatherPatches(s, col_taps, in, r0, rows, g, patches,
                                   layout);
      case CpuIsa::kBaseline:
        break;
    }
  }
  baseline::GatherPatches(s, col_taps, in, r0, rows, g, patches, layout);
}

// Groups of fewer output channels than this are multiplied several at a
// time (MergedGroups): a product per group of 4 or 8 columns fills a
// quarter or half of the narrowest micro-kernel (16 columns with AVX-512,
// 8 with AVX2), and its k of a few taps times a few channels is too short
// to pay for the tile's start and finish. Measured on the AMD EPYC of
// bench/RESULTS.md section 33 (AVX-512, 1 thread, input read in place),
// against a product per group: ResNeXt's 32 groups of 4 channels (28 x 28 x
// 128, 3x3) merged to 16 columns 0.81 of the time, 8 groups of 8 (56 x 56 x
// 64) 0.97; merged to 32 columns, 1.20 and 1.42.
constexpr int64_t kMergedGroupColumns = 16;
// A convolution of at least this many groups whose patches are gathered at
// once is split by groups (see there).
constexpr int64_t kGroupUnitsMin = 4;

// How many neighbouring groups of `s` one product takes: the largest
// divisor of the group count whose groups together have at most
// kMergedGroupColumns output channels (1: none merged).
int64_t GroupMergeFactor(const Conv2DGeometry& s) {
  const int64_t cout = s.out_depth_per_group();
  if (s.groups < 2 || s.filter_depth < 2 || cout >= kMergedGroupColumns) {
    return 1;
  }
  for (int64_t d = kMergedGroupColumns / cout; d > 1; --d) {
    if (s.groups % d == 0) return d;
  }
  return 1;
}

// No element of p[0, n) is infinite or NaN (the bits of |x| below the
// infinity's; a loop the compiler vectorizes).
bool AllFinite(const float* p, int64_t n) {
  uint32_t worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, p + i, sizeof(bits));
    worst = std::max(worst, bits & 0x7fffffffu);
  }
  return worst < 0x7f800000u;
}

// The filter of `merge` neighbouring groups taken as one, into `wide`
// ([rows, cols, merge * filter_depth, out_depth]): block diagonal, group
// g's filter where its inputs meet its outputs, zeros elsewhere.
void MergeGroupFilters(const Conv2DGeometry& s, int64_t merge,
                       const float* filter, float* wide) {
  const int64_t cin = s.filter_depth;
  const int64_t cout = s.out_depth_per_group();
  const int64_t taps = s.rows.window * s.cols.window;
  for (int64_t t = 0; t < taps; ++t) {
    for (int64_t r = 0; r < merge * cin; ++r) {
      // Row r of the merged taps is input channel r % cin of the merged
      // groups' member r / cin.
      const float* src = filter + (t * cin + r % cin) * s.out_depth;
      float* dst = wide + (t * merge * cin + r) * s.out_depth;
      for (int64_t g = 0; g < s.groups; ++g) {
        if (g % merge == r / cin) {
          std::copy_n(src + g * cout, cout, dst + g * cout);
        } else {
          std::fill_n(dst + g * cout, cout, 0.0f);
        }
      }
    }
  }
}

// A 1x1 filter whose every output reads an input element (no padding before,
// the last output inside the input): no patch has a zero.
bool ReadsInPlace(const WindowDim& d) {
  return d.window == 1 && d.pad_before == 0 &&
         (d.output - 1) * d.stride < d.input;
}

// A 1x1 filter at unit strides reading every input pixel once: the NHWC
// input is the [N * H * W, in_depth] patch matrix itself.
bool Pointwise(const Conv2DGeometry& s) {
  return ReadsInPlace(s.rows) && ReadsInPlace(s.cols) && s.rows.stride == 1 &&
         s.cols.stride == 1 && s.rows.output == s.rows.input &&
         s.cols.output == s.cols.input;
}

// Where the vector paths can, a convolution whose output rows are at
// least kStridedMinOutputCols pixels wide and whose filter is at most
// kStridedMaxFilterFloats (16 MiB) is multiplied from the input where it
// lies (StridedConv2D) rather than from gathered patches: the gather, a
// copy of kh * kw times the input, costs about what the product does when
// k is small (a stem's 27 or 147) and 5 to 15% of it when it is large. The
// micro-kernel's tiles do not cross output rows there, so narrower rows
// would run short tiles; each unit of output rows reads the whole filter,
// so a filter far beyond the caches is left to the chunks that read it
// once. Measured on the Intel Xeon of bench/RESULTS.md section 19 (1 and
// 2 threads, batch 1 and 8, VGG16, ResNet50 and InceptionV3): limits of
// 1, 4 and 64 MiB each gained more than 256 KiB; 64 MiB lost to 4 MiB at
// 2 threads on InceptionV3 and at batch 8 on ResNet50. Groups and dilated
// columns are read in place too, a tap's channels of a group at a time
// (GemmStridedLhs pieces), one product per group (bench/RESULTS.md section
// 33, AMD EPYC, 1 thread, against their gathered patches: ResNeXt's 32
// groups of 4 channels 0.60 of the time, 32 groups of 16 0.67, a 3x3
// convolution dilated by 2 0.95).
constexpr int64_t kStridedMaxFilterFloats = int64_t{1} << 22;
constexpr int64_t kStridedMinOutputCols = 8;
// About this many output pixels per unit of work of StridedConv2D (whole
// output rows, at least one), and at least kStridedMinItems units where
// there are that many output rows, so that threads share a small batch.
constexpr int64_t kStridedItemPixels = 256;
constexpr int64_t kStridedMinItems = 4;
// A filter of more floats than this (2 MiB, a core's L2 on the Intel Xeon of
// bench/RESULTS.md) does not stay in a core's L2 from one unit of output
// rows to the next, so units that each multiply all of it read it from L3
// or memory once per unit (VGG16's 3x3 convolutions of 512 channels, 9 MiB,
// at batch 1: four units of three rows, the filter read four times). Such a
// convolution is cut into units of output rows times parts of the output
// channels instead: rows as many as a band of kStridedBandFloats of input
// holds, parts so that a part's share of the filter fits this budget, the
// units ordered part by part so that a thread's consecutive units share a
// band (copied once) and its parts of the filter are read once for all its
// rows. Measured on the Intel Xeon of bench/RESULTS.md section 23, new/old
// alternated run by run in one process: VGG16 batch 1 0.956 (1 thread) and
// 0.983 (2 threads), its 12x12 512-channel layer alone 0.905 and 0.984; a
// budget of 1 MiB, which also split the 256-channel layers, lost 4% on them
// at 2 threads. 4 MiB until section 44: 3x3 convolutions of 256 channels on
// a 9x9 map (2.4 MB filters; batch 1 on the AVX-512 path, where Winograd
// leaves them here) went in 8 units of one or two rows, each reading all
// of the filter: a chain of 20 took 0.754 (1 thread) and 0.810 (2 threads)
// of the time with parts; 1 MiB also cut a 5x5 128 -> 128 filter (1.6 MB,
// which stays in L2): 1.10-1.11 on the AVX-512 path.
constexpr int64_t kStridedFilterCacheFloats = int64_t{1} << 19;
constexpr int64_t kStridedBandFloats = int64_t{1} << 18;
// Parts are at least this many output channels wide (a panel of the
// AVX-512 micro-kernel), and their count a multiple of kEqualShareUnits
// (parallel_for.h).
constexpr int64_t kStridedMinPartChannels = 32;

bool UseStridedConv2D(const Conv2DGeometry& s) {
  return s.rows.pad_before >= 0 && s.cols.pad_before >= 0 &&
         s.cols.output >= kStridedMinOutputCols &&
         s.patch_size() * s.out_depth <= kStridedMaxFilterFloats &&
         GemmStridedLhsSupported();
}

// Extent of the zero-padded input along `d` that holds every tap of every
// output (and the input itself).
int64_t PaddedExtent(const WindowDim& d) {
  return std::max(d.pad_before + d.input,
                  (d.output - 1) * d.stride + (d.window - 1) * d.dilation + 1);
}

// The convolution as products of the (zero-padded) input read in place:
// the patch of output pixel (n, oh, ow) is, per filter row kh, the
// kw * Cin contiguous floats of padded input row oh * sh + kh * dh from
// column ow * sw on, so the GEMM reads it as a GemmStridedLhs and nothing
// is gathered. Units of whole output rows of one image; each element's
// sum is the gathered path's (gemm.h), whatever the split.
//
// A padded input is not built whole first: each unit copies the band of
// input rows its output rows read into a zero-bordered scratch of its own
// thread, overlapping its neighbours' bands by the filter's extra rows. The
// scratch a thread keeps is then a band (VGG16's first layers at batch 8:
// 98 KiB) rather than the whole padded input (18.8 MiB), and the band is
// in the multiplying core's cache; the run time measured alike (in-process
// alternation on VGG16, ResNet50, InceptionV3 and DenseNet121, 1 and 2
// threads: 0.97 to 1.03).
void StridedConv2D(const ParallelForFn& parallel, const Conv2DGeometry& s,
                   const float* in,
                   const std::vector<const GemmPackedRhs*>& filters,
                   const GemmEpilogue& epilogue, float* out) {
  const int64_t c = s.in_depth;
  const int64_t h = s.rows.input;
  const int64_t w = s.cols.input;
  const int64_t hp = PaddedExtent(s.rows);
  const int64_t wp = PaddedExtent(s.cols);
  const bool padded = hp != h || wp != w;
  const int64_t top = s.rows.pad_before;
  const int64_t left = s.cols.pad_before;
  const int64_t oh_count = s.rows.output;
  const int64_t ow_count = s.cols.output;
  // Padded input rows that `rows` output rows read.
  auto band_rows = [&](int64_t rows) {
    return (rows - 1) * s.rows.stride + (s.rows.window - 1) * s.rows.dilation +
           1;
  };
  int64_t rows_per_item =
      std::max<int64_t>(1, std::min({oh_count, kStridedItemPixels / ow_count,
                                     s.batch * oh_count / kStridedMinItems}));
  int64_t parts = 1;
  const int64_t filter_floats = s.patch_size() * s.out_depth;
  if (filter_floats > kStridedFilterCacheFloats && s.groups == 1) {
    rows_per_item = 1;
    while (rows_per_item < oh_count &&
           band_rows(rows_per_item + 1) * wp * c <= kStridedBandFloats) {
      ++rows_per_item;
    }
    parts =
        std::min(RoundUp(CeilDiv(filter_floats, kStridedFilterCacheFloats),
                         kEqualShareUnits),
                 std::max<int64_t>(1, s.out_depth / kStridedMinPartChannels));
  }
  // The items of an image share its output rows nearly equally (item i
  // rows [i * oh / items_per_image, (i + 1) * oh / items_per_image)), and
  // without channel parts there are a multiple of kEqualShareUnits
  // items where the rows allow: the static partition of ParallelFor gives
  // each thread an equal count of units, and 9 items of 5 rows (InceptionV3's
  // 45-row maps at batch 1) left a thread of two with 25 of the 45 rows.
  int64_t items_per_image = CeilDiv(oh_count, rows_per_item);
  while (parts == 1 && (s.batch * items_per_image) % kEqualShareUnits &&
         items_per_image < oh_count) {
    ++items_per_image;
  }
  rows_per_item = CeilDiv(oh_count, items_per_image);
  const int64_t items = s.batch * items_per_image;
  const int64_t ldo = s.out_depth;
  const GemmRhsLocality locality =
      StridedFilterLocality(s.patch_size() * s.out_depth);
  parallel(
      items * parts,
      rows_per_item * ow_count * s.patch_size() * CeilDiv(ldo, parts),
      [&](int64_t first, int64_t last) {
        std::optional<ScratchLease> band;
        if (padded) band.emplace(band_rows(rows_per_item) * wp * c);
        int64_t band_item = -1;  // the item whose rows `band` holds
        for (int64_t unit = first; unit < last; ++unit) {
          const int64_t item = unit % items;
          const int64_t n = item / items_per_image;
          const int64_t i = item % items_per_image;
          const int64_t oh0 = i * oh_count / items_per_image;
          const int64_t rows = (i + 1) * oh_count / items_per_image - oh0;
          // Padded row oh0 * sh of image n on.
          const float* a_rows = in + (n * hp + oh0 * s.rows.stride) * wp * c;
          if (padded) {
            if (item != band_item) {
              float* dst = band->data();
              const int64_t needed = band_rows(rows);
              for (int64_t r = 0; r < needed; ++r, dst += wp * c) {
                const int64_t ih = oh0 * s.rows.stride + r - top;
                if (ih < 0 || ih >= h) {
                  std::fill_n(dst, wp * c, 0.0f);
                  continue;
                }
                std::fill_n(dst, left * c, 0.0f);
                std::copy_n(in + (n * h + ih) * w * c, w * c, dst + left * c);
                std::fill_n(dst + (left + w) * c, (wp - left - w) * c, 0.0f);
              }
              band_item = item;
            }
            a_rows = band->data();
          }
          // A filter row's taps: with groups or dilated columns, a group's
          // channels of each tap (pieces), else one contiguous run.
          GemmStridedLhs a;
          a.group_rows = ow_count;
          a.group_stride = s.rows.stride * wp * c;
          a.row_stride = s.cols.stride * c;
          a.run = s.cols.window * s.filter_depth;
          a.run_stride = s.rows.dilation * wp * c;
          if (s.groups > 1 || s.cols.dilation > 1) {
            a.piece = s.filter_depth;
            a.piece_stride = s.cols.dilation * c;
          }
          const int64_t r0 = (n * oh_count + oh0) * ow_count;
          for (int64_t g = 0; g < s.groups; ++g) {
            a.data = a_rows + g * s.filter_depth;
            const int64_t col = g * s.out_depth_per_group();
            GemmSerialStrided(rows * ow_count, a, *filters[g],
                              out + r0 * ldo + col, ldo,
                              EpilogueAt(epilogue, r0, col),
                              GemmColumnPart{unit / items, parts},
                              /*accumulate=*/false, locality);
          }
        }
      });
}

// Whether a convolution of these attrs has unit strides and dilations in
// its spatial dimensions.
bool UnitStridesAndDilations(const WindowAttrs& attrs) {
  for (char dim : {'H', 'W'}) {
    const int i = attrs.index(dim);
    if (attrs.strides[i] != 1 || attrs.dilations[i] != 1) return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<Conv2DPackedFilter> Conv2DPackedFilter::Make(
    const Tensor& filter, int64_t groups, const WindowAttrs* attrs) {
  if (filter.dtype() != DT_FLOAT || filter.dims() != 4 || groups <= 0 ||
      filter.dim_size(3) % groups != 0) {
    return nullptr;
  }
  std::unique_ptr<Conv2DPackedFilter> packed(new Conv2DPackedFilter());
  packed->filter_ = filter;
  const int64_t k =
      filter.dim_size(0) * filter.dim_size(1) * filter.dim_size(2);
  const int64_t ld = filter.dim_size(3);
  const int64_t cout = ld / groups;
  const float* data = filter.data<float>();
  for (int64_t g = 0; g < groups; ++g) {
    packed->groups_.push_back(std::make_unique<GemmPackedRhs>(
        k, cout, GemmOperand<float>{data + g * cout, ld}));
  }
  if (groups == 1 && attrs != nullptr && UnitStridesAndDilations(*attrs)) {
    packed->winograd_eligible_ = WinogradFilter::Eligible(filter);
  }
  return packed;
}

Conv2DPackedFilter::~Conv2DPackedFilter() {
  delete winograd_.load(std::memory_order_acquire);
  delete taps_.load(std::memory_order_acquire);
}

namespace {

// `*slot`'s value, or when null the one `make()` gives, published unless
// another call published one first (then that one, and `make()`'s is
// dropped): a lazily made, shared form without a lock or a wait.
template <typename T, typename Make>
const T* MadeOnce(std::atomic<const T*>* slot, Make make) {
  if (const T* made = slot->load(std::memory_order_acquire)) return made;
  std::unique_ptr<T> mine = make();
  const T* expected = nullptr;
  if (slot->compare_exchange_strong(expected, mine.get(),
                                    std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
    return mine.release();
  }
  return expected;
}

}  // namespace

const WinogradFilter* Conv2DPackedFilter::WinogradFor(
    const Conv2DGeometry& s, const ParallelForFn& parallel) const {
  if (!winograd_eligible_ || !WinogradApplies(s)) return nullptr;
  return MadeOnce(&winograd_,
                  [&] { return WinogradFilter::Make(filter_, &parallel); });
}

const TapFilters* Conv2DPackedFilter::TapsFor(
    const Conv2DGeometry& s, const ParallelForFn& parallel) const {
  if (!TapConv2DApplies(s)) return nullptr;
  return MadeOnce(&taps_, [&] {
    return std::make_unique<TapFilters>(
        filter_.data<float>(), filter_.dim_size(0), filter_.dim_size(1),
        filter_.dim_size(2), filter_.dim_size(3), &parallel);
  });
}

const Conv2DPackedFilter* Conv2DPackedFilter::For(
    const Tensor& filter, const Conv2DGeometry& s) const {
  return ConstantInputMatches(filter, filter_) && s.groups == groups()
             ? this
             : nullptr;
}

namespace {

// Conv2DNhwc for groups of one input channel each: a depthwise convolution
// (Keras 3's Conv2D(groups=channels), ConvNeXt's 7x7 layers). The filter
// [rows, cols, 1, C * M] is, element for element, the depthwise filter
// [rows, cols, C, M]; as groups of k = rows * cols products of one or few
// columns each it would spend its time on packing and edges.
void OneChannelGroups(const ParallelForFn& parallel, const Conv2DGeometry& s,
                      const float* in, const float* filter,
                      const GemmEpilogue& epilogue, float* out) {
  DepthwiseGeometry d;
  d.batch = s.batch;
  d.depth = s.in_depth;
  d.multiplier = s.out_depth_per_group();
  d.rows = s.rows;
  d.cols = s.cols;
  const bool residual = epilogue.residual != nullptr;
  const bool in_rows = epilogue.bias != nullptr ||
                       epilogue.activation != GemmEpilogue::Activation::kNone;
  // The depthwise rows apply bias and activation, not a residual: with
  // one, the whole epilogue runs over the finished output instead.
  DepthwiseConvNhwc(parallel, d, in, filter,
                    in_rows && !residual ? &epilogue : nullptr, out);
  if (residual) {
    ApplyEpilogueRows(epilogue, out, s.output_pixels(), s.out_depth,
                      s.out_depth);
  }
}

// Conv2DNhwc for narrow groups, GroupMergeFactor of them at a time through
// a block-diagonal filter; false (nothing done) where none merge or the
// input is not finite: the products the merge adds are exact zeros, which
// change no sum, but a zero times an infinite or NaN input of a
// neighbouring group would make a NaN.
bool MergedGroups(const ParallelForFn& parallel, const Conv2DGeometry& s,
                  const float* in, const float* filter,
                  const GemmEpilogue& epilogue, float* out) {
  const int64_t merge = GroupMergeFactor(s);
  if (merge < 2 ||
      !AllFinite(in, s.batch * s.rows.input * s.cols.input * s.in_depth)) {
    return false;
  }
  Conv2DGeometry merged = s;
  merged.groups = s.groups / merge;
  merged.filter_depth = s.filter_depth * merge;
  ScratchLease wide(
      s.rows.window * s.cols.window * merged.filter_depth * s.out_depth,
      /*slot=*/1);
  MergeGroupFilters(s, merge, filter, wide.data());
  Conv2DNhwc(parallel, merged, in, wide.data(), epilogue, out);
  return true;
}

}  // namespace

void Conv2DNhwc(const ParallelForFn& parallel, const Conv2DGeometry& s,
                const float* in, const float* filter,
                const GemmEpilogue& epilogue, float* out,
                const Conv2DPackedFilter* packed) {
  const int64_t m = s.output_pixels();
  if (m == 0 || s.out_depth == 0) return;
  if (s.in_depth == 0) {
    std::fill_n(out, m * s.out_depth, 0.0f);
    ApplyEpilogueRows(epilogue, out, m, s.out_depth, s.out_depth);
    return;
  }
  if (s.groups > 1 && s.filter_depth == 1) {
    OneChannelGroups(parallel, s, in, filter, epilogue, out);
    return;
  }
  if (MergedGroups(parallel, s, in, filter, epilogue, out)) return;
  if (const WinogradFilter* winograd =
          packed != nullptr ? packed->WinogradFor(s, parallel) : nullptr) {
    WinogradConv2D(parallel, s, in, *winograd, epilogue, out);
    return;
  }
  if (TapConv2DApplies(s)) {
    // Taps mostly in the padding: only those inside the input multiplied.
    if (packed != nullptr) {
      TapConv2D(parallel, s, in, *packed->TapsFor(s, parallel), epilogue, out);
    } else {
      const TapFilters taps(filter, s.rows.window, s.cols.window, s.in_depth,
                            s.out_depth, &parallel);
      TapConv2D(parallel, s, in, taps, epilogue, out);
    }
    return;
  }
  const int64_t cin = s.filter_depth;
  const int64_t cout = s.out_depth_per_group();
  const int64_t ldo = s.out_depth;
  // Group g owns output columns [g * cout, (g + 1) * cout), their biases
  // and their part of the residual.
  auto group_epilogue = [&](int64_t g) {
    return EpilogueAt(epilogue, 0, g * cout);
  };
  auto group_filter = [&](int64_t g) {
    return GemmOperand<float>{filter + g * cout, ldo};
  };
  // Each group's filter packed for the GEMM: the caller's, or packed now
  // into `owned`.
  auto packed_groups = [&](std::vector<std::unique_ptr<GemmPackedRhs>>* owned) {
    std::vector<const GemmPackedRhs*> rhs;
    for (int64_t g = 0; g < s.groups; ++g) {
      if (packed != nullptr) {
        rhs.push_back(&packed->group(g));
      } else {
        owned->push_back(std::make_unique<GemmPackedRhs>(
            s.patch_size(), cout, group_filter(g), &parallel));
        rhs.push_back(owned->back().get());
      }
    }
    return rhs;
  };
  // Group g's product of all m rows of `a` (m x k) into its output columns,
  // by the filter packed ahead when there is one.
  auto group_product = [&](int64_t g, GemmOperand<float> a, int64_t k) {
    if (packed != nullptr) {
      // A constant filter: read once per run, from memory when large.
      Gemm(parallel, m, a, packed->group(g), out + g * cout, ldo,
           group_epilogue(g), GemmRhsLocality::kMemory);
    } else {
      Gemm(parallel, m, k, cout, a, group_filter(g), out + g * cout, ldo,
           group_epilogue(g));
    }
  };

  if (Pointwise(s)) {
    // The input already is the [m, in_depth] patch matrix: one product per
    // group, split by the GEMM itself.
    for (int64_t g = 0; g < s.groups; ++g) {
      group_product(g, GemmOperand<float>{in + g * cin, s.in_depth}, cin);
    }
    return;
  }

  if (UseStridedConv2D(s)) {
    std::vector<std::unique_ptr<GemmPackedRhs>> packed_here;
    StridedConv2D(parallel, s, in, packed_groups(&packed_here), epilogue, out);
    return;
  }

  const int64_t k = s.patch_size();
  // Where the vector paths have one, chunks of patches are gathered in the
  // packed GEMM's own layout (GemmLhsLayout), which spares the product its
  // copy of them, and hold a multiple of the micro-kernel's rows.
  GemmLhsLayout lhs;
  const bool gathered = GemmGatheredLhsLayout(k, &lhs);
  int64_t chunk = ChunkRowsForFilter(m, k, cout);
  if (gathered && chunk < m) {
    chunk = std::max(lhs.row_tile, chunk / lhs.row_tile * lhs.row_tile);
  }
  const int64_t num_chunks = CeilDiv(m, chunk);
  const std::vector<TapRange> col_taps = TapTable(s.cols);
  if (num_chunks == 1 && s.groups >= kGroupUnitsMin) {
    // Few output pixels and many groups: a unit per group, each gathering
    // and multiplying its own. Split inside each group's product instead,
    // a fork-join per group cost more than the product (14 x 14 x 512 in
    // 32 groups of 16: 2.4 times the 1-thread time at 2 threads).
    parallel(s.groups, m * k * cout, [&](int64_t first, int64_t last) {
      ScratchLease patches(m * k);
      for (int64_t g = first; g < last; ++g) {
        GatherPatches(s, col_taps.data(), in, 0, m, g, patches.data(),
                      RowMajor(k));
        GemmSerial(m, k, cout, GemmOperand<float>{patches.data(), k},
                   group_filter(g), out + g * cout, ldo, group_epilogue(g));
      }
    });
    return;
  }
  if (num_chunks == 1) {
    // Few output pixels (the late layers of a network at batch 1): gather
    // them all and let the GEMM split the product, by columns when there
    // are few rows, reading the filter where it is rather than packing a
    // filter it would use for a handful of rows.
    ScratchLease patches(m * k);
    for (int64_t g = 0; g < s.groups; ++g) {
      GatherPatches(s, col_taps.data(), in, 0, m, g, patches.data(),
                    RowMajor(k));
      group_product(g, GemmOperand<float>{patches.data(), k}, k);
    }
    return;
  }

  // Many chunks: each group's filter is packed once (now, unless the
  // caller packed it), shared by all chunks.
  std::vector<std::unique_ptr<GemmPackedRhs>> packed_here;
  const std::vector<const GemmPackedRhs*> group_rhs =
      packed_groups(&packed_here);
  // A thread's first chunk reads the filter from memory; its later chunks
  // find it in cache (every chunk reads all of it).
  parallel(
      num_chunks, chunk * k * s.out_depth, [&](int64_t first, int64_t last) {
        ScratchLease patches(gathered ? lhs.Size(chunk, k) : chunk * k);
        for (int64_t c = first; c < last; ++c) {
          const int64_t r0 = c * chunk;
          const int64_t rows = std::min(chunk, m - r0);
          for (int64_t g = 0; g < s.groups; ++g) {
            float* const ct = out + r0 * ldo + g * cout;
            const GemmEpilogue ep = EpilogueAt(epilogue, r0, g * cout);
            if (gathered) {
              GatherPatches(s, col_taps.data(), in, r0, rows, g, patches.data(),
                            PatchLayout{lhs.block_depth, rows * lhs.row_stride,
                                        lhs.row_stride});
              GemmSerialGathered(rows, patches.data(), *group_rhs[g], ct, ldo,
                                 ep,
                                 c == first ? GemmRhsLocality::kMemory
                                            : GemmRhsLocality::kCached);
            } else {
              GatherPatches(s, col_taps.data(), in, r0, rows, g, patches.data(),
                            RowMajor(k));
              GemmSerial(rows, GemmOperand<float>{patches.data(), k},
                         *group_rhs[g], ct, ldo, ep,
                         c == first ? GemmRhsLocality::kMemory
                                    : GemmRhsLocality::kCached);
            }
          }
        }
      });
}

template <typename S, typename A>
void Conv2DNhwc(const ParallelForFn& parallel, const Conv2DGeometry& s,
                const S* in, const A* filter, S* out) {
  const int64_t m = s.output_pixels();
  if (m == 0 || s.out_depth == 0) return;
  if (s.in_depth == 0) {
    std::fill_n(out, m * s.out_depth, S(0));
    return;
  }
  const int64_t cin = s.filter_depth;
  const int64_t cout = s.out_depth_per_group();
  const int64_t ldo = s.out_depth;
  if constexpr (std::is_same_v<S, A>) {
    if (Pointwise(s)) {
      for (int64_t g = 0; g < s.groups; ++g) {
        Gemm<A>(parallel, m, cin, cout,
                GemmOperand<A>{in + g * cin, s.in_depth},
                GemmOperand<A>{filter + g * cout, ldo}, out + g * cout, ldo);
      }
      return;
    }
  }
  const int64_t k = s.patch_size();
  const int64_t chunk = ChunkRows(m, k);
  const int64_t num_chunks = CeilDiv(m, chunk);
  const std::vector<TapRange> col_taps = TapTable(s.cols);
  parallel(num_chunks, chunk * k * s.out_depth,
           [&](int64_t first, int64_t last) {
             std::vector<A> patches(chunk * k);
             // half and bfloat16 sum into float rows, rounded once at the end.
             std::vector<A> result;
             if constexpr (!std::is_same_v<S, A>) result.resize(chunk * ldo);
             for (int64_t c = first; c < last; ++c) {
               const int64_t r0 = c * chunk;
               const int64_t rows = std::min(chunk, m - r0);
               A* dst;
               if constexpr (std::is_same_v<S, A>) {
                 dst = out + r0 * ldo;
               } else {
                 dst = result.data();
               }
               for (int64_t g = 0; g < s.groups; ++g) {
                 GatherPatches(s, col_taps.data(), in, r0, rows, g,
                               patches.data(), RowMajor(k));
                 GemmSerial<A>(rows, k, cout, GemmOperand<A>{patches.data(), k},
                               GemmOperand<A>{filter + g * cout, ldo},
                               dst + g * cout, ldo);
               }
               if constexpr (!std::is_same_v<S, A>) {
                 ConvertElements(result.data(), out + r0 * ldo, rows * ldo);
               }
             }
           });
}

template void Conv2DNhwc<double, double>(const ParallelForFn&,
                                         const Conv2DGeometry&, const double*,
                                         const double*, double*);
template void Conv2DNhwc<half, float>(const ParallelForFn&,
                                      const Conv2DGeometry&, const half*,
                                      const float*, half*);
template void Conv2DNhwc<bfloat16, float>(const ParallelForFn&,
                                          const Conv2DGeometry&,
                                          const bfloat16*, const float*,
                                          bfloat16*);
template void Conv2DNhwc<uint32_t, uint32_t>(const ParallelForFn&,
                                             const Conv2DGeometry&,
                                             const uint32_t*, const uint32_t*,
                                             uint32_t*);

}  // namespace weft
