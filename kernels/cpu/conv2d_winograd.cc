#include "kernels/cpu/conv2d_winograd.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include <immintrin.h>

#include "device/cpu_isa.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/scratch_lease.h"

namespace weft {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A part of the transformed filter (its 16 matrices' columns of the part)
// holds at most about this many floats (4 MiB, about twice a core's L2 on
// the machines of bench/RESULTS.md, as conv2d.cc's strided path budgets its
// filter), so that the units a thread runs one after another, which share
// a part, find it in cache. Parts are at least kPartChannels wide (a panel
// of the AVX-512 micro-kernel) and their count a multiple of
// kEqualShareUnits (parallel_for.h).
constexpr int64_t kPartFilterFloats = int64_t{1} << 20;
constexpr int64_t kPartChannels = 32;
// A block's transformed input and products take about this many floats
// (512 KiB): they stay in L2 from the transform to the product and from the
// product to the transform back. Within [kMinBlockTiles, kMaxBlockTiles]
// tiles: fewer rows than a couple of micro-kernel tiles would stream the
// filter part for too little work.
constexpr int64_t kBlockFloats = int64_t{1} << 17;
constexpr int64_t kMinBlockTiles = 16;
constexpr int64_t kMaxBlockTiles = 128;
// Below this many tiles the convolution is left to the direct path.
constexpr int64_t kMinTiles = 16;
// And on the AVX-512 path below this many when the filter is large
// (kGemmLargeRhsFloats: read from memory at batch 1), where the direct
// product is faster (its few-row products at ~110 GFLOP/s against ~65 on
// the AVX2 path) and reads 9/16 of the transformed filter's bytes. Chains
// of 20 convolutions taking their filters in turn, 1 thread, Winograd off
// against on (bench/RESULTS.md section 44): AVX-512 7x7 512 -> 512 (16
// tiles) 0.76, 9x9 256 -> 256 (25) 0.91-0.93, 12x12 256 -> 256 (36) 1.22;
// AVX2 7x7 1.22, 9x9 1.19. Small filters keep Winograd at 16 tiles:
// InceptionV3 at batch 1, whose 9x9 layers have 64 and 96 channels (filters
// of 55k-83k floats), took 1.14 of the time with those direct.
constexpr int64_t kMinTilesLargeFilterAvx512 = 32;

namespace avx2 {
WEFT_ISA_AVX2_BEGIN

constexpr int64_t kLanes = 8;
using Vec = __m256;

inline __m256i Mask(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline Vec Load(const float* p, int64_t n) {
  return n == kLanes ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, Mask(n));
}
inline void Store(float* p, Vec v, int64_t n) {
  if (n == kLanes) {
    _mm256_storeu_ps(p, v);
  } else {
    _mm256_maskstore_ps(p, Mask(n), v);
  }
}
inline Vec Add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec Sub(Vec a, Vec b) { return _mm256_sub_ps(a, b); }
inline Vec Max(Vec a, Vec b) { return _mm256_max_ps(a, b); }
inline Vec Min(Vec a, Vec b) { return _mm256_min_ps(a, b); }
inline Vec Zero() { return _mm256_setzero_ps(); }
inline Vec Set1(float x) { return _mm256_set1_ps(x); }

#include "kernels/cpu/conv2d_winograd.inc"

WEFT_ISA_END
}  // namespace avx2

namespace avx512 {
WEFT_ISA_AVX512_BEGIN

constexpr int64_t kLanes = 16;
using Vec = __m512;

inline __mmask16 Mask(int64_t n) {
  return static_cast<__mmask16>((1u << n) - 1);
}
inline Vec Load(const float* p, int64_t n) {
  return n == kLanes ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(Mask(n), p);
}
inline void Store(float* p, Vec v, int64_t n) {
  if (n == kLanes) {
    _mm512_storeu_ps(p, v);
  } else {
    _mm512_mask_storeu_ps(p, Mask(n), v);
  }
}
inline Vec Add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline Vec Sub(Vec a, Vec b) { return _mm512_sub_ps(a, b); }
inline Vec Max(Vec a, Vec b) {
  return _mm512_maskz_max_ps(static_cast<__mmask16>(0xFFFF), a, b);
}
inline Vec Min(Vec a, Vec b) {
  return _mm512_maskz_min_ps(static_cast<__mmask16>(0xFFFF), a, b);
}
inline Vec Zero() { return _mm512_setzero_ps(); }
inline Vec Set1(float x) { return _mm512_set1_ps(x); }

#include "kernels/cpu/conv2d_winograd.inc"

WEFT_ISA_END
}  // namespace avx512

bool Enabled() {
  const char* env = std::getenv("WEFT_CONV_WINOGRAD");
  return env == nullptr || std::strcmp(env, "0") != 0;
}

// The distance between a block's 16 matrices (of `floats` each): a whole
// number of cache lines plus one, so that the 16 rows a tile's transform
// reads or writes do not all fall in one L1 set (at power-of-two sizes,
// 64 tiles of 64 channels, they would, and evict each other).
int64_t MatrixStride(int64_t floats) { return (floats + 15) / 16 * 16 + 16; }

int64_t TileCount(const Conv2DGeometry& s) {
  return s.batch * CeilDiv(s.rows.output, 2) * CeilDiv(s.cols.output, 2);
}

bool UnitWindow(const WindowDim& d) {
  return d.window == 3 && d.stride == 1 && d.dilation == 1 && d.pad_before >= 0;
}

}  // namespace

bool WinogradFilter::Eligible(const Tensor& filter) {
  return filter.dtype() == DT_FLOAT && filter.dims() == 4 &&
         filter.dim_size(0) == 3 && filter.dim_size(1) == 3 &&
         filter.dim_size(2) >= kMinInDepth &&
         filter.dim_size(3) >= kMinOutDepth && GemmStridedLhsSupported() &&
         Enabled();
}

std::unique_ptr<WinogradFilter> WinogradFilter::Make(
    const Tensor& filter, const ParallelForFn* parallel) {
  if (!Eligible(filter)) return nullptr;
  std::unique_ptr<WinogradFilter> f(new WinogradFilter());
  const int64_t cin = filter.dim_size(2);
  const int64_t cout = filter.dim_size(3);
  int64_t parts = CeilDiv(16 * cin * cout, kPartFilterFloats);
  if (parts > 1) {
    parts = std::min(CeilDiv(parts, kEqualShareUnits) * kEqualShareUnits,
                     std::max<int64_t>(1, cout / kPartChannels));
  }
  const int64_t panels = CeilDiv(cout, kPartChannels);
  for (int64_t p = 0; p <= parts; ++p) {
    f->part_begin_.push_back(
        std::min(cout, p * panels / parts * kPartChannels));
  }
  f->part_begin_.back() = cout;
  for (int64_t p = 0; p < parts; ++p) {
    f->widest_part_ =
        std::max(f->widest_part_, f->part_begin_[p + 1] - f->part_begin_[p]);
  }

  // U = G g G^T per (input, output) channel, in double, rounded once, part
  // by part into a buffer of the part's size (at most about
  // kPartFilterFloats: transforming the whole filter first took a copy of
  // 16/9 of it in fresh pages, which cost more of a load than the
  // transform), then packed: u[x][ci][co - c0] for x = 4 * row + column of
  // U. The transform runs along output channels, contiguous in both, in
  // vectors of doubles (TransformFilterChannels): one channel at a time it
  // took 14-19 of the 20-29 ms that a 3x3 x 512 x 512 filter's Make took,
  // which a model's first run pays.
  const float* g = filter.data<float>();
  const int64_t plane = cin * cout;
  // With `parallel`, each part's input channels are transformed, and its 16
  // matrices packed, through it: the part's buffer is shared, and which
  // thread computes a value changes none of its bits.
  const ParallelForFn& run = parallel != nullptr ? *parallel : SerialFor();
  const bool avx512 = ActiveCpuIsa() == CpuIsa::kAvx512;
  std::unique_ptr<float[]> u(new float[16 * cin * f->widest_part_]);
  f->matrices_.resize(16 * parts);
  for (int64_t p = 0; p < parts; ++p) {
    const int64_t c0 = f->part_begin_[p];
    const int64_t width = f->part_begin_[p + 1] - c0;
    const int64_t matrix = cin * width;
    // About 9 loads, 16 stores and 30 operations in double per value.
    run(cin, width * 64, [&](int64_t begin, int64_t end) {
      for (int64_t ci = begin; ci < end; ++ci) {
        const float* gi = g + ci * cout + c0;
        float* ui = u.get() + ci * width;
        if (avx512) {
          avx512::TransformFilterChannels(gi, plane, width, matrix, ui);
        } else {
          avx2::TransformFilterChannels(gi, plane, width, matrix, ui);
        }
      }
    });
    // The 16 matrices packed a few to a thread, each into pages of its own
    // (most of a first run's cost here is those pages' faults).
    run(16, matrix * 4, [&](int64_t begin, int64_t end) {
      for (int64_t x = begin; x < end; ++x) {
        f->matrices_[p * 16 + x] = std::make_unique<GemmPackedRhs>(
            cin, width, GemmOperand<float>{u.get() + x * matrix, width});
      }
    });
  }
  return f;
}

WinogradFilter::~WinogradFilter() = default;

bool WinogradApplies(const Conv2DGeometry& s) {
  if (s.groups != 1 || s.in_depth < WinogradFilter::kMinInDepth ||
      s.out_depth < WinogradFilter::kMinOutDepth || !UnitWindow(s.rows) ||
      !UnitWindow(s.cols)) {
    return false;
  }
  const int64_t tiles = TileCount(s);
  if (tiles < kMinTiles) return false;
  const bool large_filter = s.patch_size() * s.out_depth >= kGemmLargeRhsFloats;
  return !large_filter || tiles >= kMinTilesLargeFilterAvx512 ||
         ActiveCpuIsa() != CpuIsa::kAvx512;
}

void WinogradConv2D(const ParallelForFn& parallel, const Conv2DGeometry& s,
                    const float* in, const WinogradFilter& filter,
                    const GemmEpilogue& epilogue, float* out) {
  const int64_t cin = s.in_depth;
  const int64_t parts = filter.parts();
  const int64_t widest = filter.widest_part();
  const int64_t tiles = TileCount(s);
  const int64_t block_tiles = std::clamp(kBlockFloats / (16 * (cin + widest)),
                                         kMinBlockTiles, kMaxBlockTiles);
  int64_t blocks = CeilDiv(tiles, block_tiles);
  while ((blocks * parts) % kEqualShareUnits != 0 && blocks < tiles) ++blocks;
  const int64_t most_tiles = CeilDiv(tiles, blocks);
  const bool avx512 = ActiveCpuIsa() == CpuIsa::kAvx512;
  // As the direct path decides, by the untransformed filter.
  const GemmRhsLocality locality =
      StridedFilterLocality(s.patch_size() * s.out_depth);
  auto transform_input = [&](int64_t b, const float* zeros, float* v) {
    const int64_t t0 = b * tiles / blocks;
    const int64_t count = (b + 1) * tiles / blocks - t0;
    const int64_t v_stride = MatrixStride(count * cin);
    if (avx512) {
      avx512::TransformInputBlock(s, in, t0, count, zeros, v, v_stride);
    } else {
      avx2::TransformInputBlock(s, in, t0, count, zeros, v, v_stride);
    }
  };
  const int64_t block_v = 16 * MatrixStride(most_tiles * cin);
  const int64_t block_m = 16 * MatrixStride(most_tiles * widest);
  // With parts, every block's input is transformed once, before the
  // products, into a buffer all units read (36 tiles of 512 channels at
  // 12x12, batch 1: 1.2 MB): each of a block's units would otherwise
  // transform it again.
  std::optional<ScratchLease> staged;
  const float* staged_v = nullptr;
  if (parts > 1) {
    staged.emplace(blocks * block_v + cin, /*slot=*/1);
    float* zeros = staged->data() + blocks * block_v;
    std::fill_n(zeros, cin, 0.0f);
    parallel(blocks, 16 * most_tiles * cin * 4,
             [&](int64_t first, int64_t last) {
               for (int64_t b = first; b < last; ++b) {
                 transform_input(b, zeros, staged->data() + b * block_v);
               }
             });
    staged_v = staged->data();
  }
  // Units part by part, so that a thread's consecutive units share a part
  // of the filter.
  parallel(blocks * parts, 16 * most_tiles * cin * widest,
           [&](int64_t first, int64_t last) {
             const int64_t own_v = staged_v == nullptr ? block_v + cin : 0;
             ScratchLease scratch(block_m + own_v);
             float* m = scratch.data();
             float* v = m + block_m;
             if (staged_v == nullptr) std::fill_n(v + block_v, cin, 0.0f);
             int64_t v_block = -1;  // the block whose input `v` holds
             for (int64_t unit = first; unit < last; ++unit) {
               const int64_t p = unit / blocks;
               const int64_t b = unit % blocks;
               const int64_t t0 = b * tiles / blocks;
               const int64_t count = (b + 1) * tiles / blocks - t0;
               const float* vb;
               if (staged_v != nullptr) {
                 vb = staged_v + b * block_v;
               } else {
                 if (b != v_block) transform_input(b, v + block_v, v);
                 v_block = b;
                 vb = v;
               }
               const int64_t v_stride = MatrixStride(count * cin);
               const int64_t c0 = filter.part_begin(p);
               const int64_t width = filter.part_begin(p + 1) - c0;
               const int64_t m_stride = MatrixStride(count * width);
               for (int x = 0; x < 16; ++x) {
                 GemmStridedLhs a;
                 a.data = vb + x * v_stride;
                 a.group_rows = count;
                 a.group_stride = count * cin;
                 a.row_stride = cin;
                 a.run = cin;
                 a.run_stride = cin;
                 GemmSerialStrided(count, a, filter.matrix(p, x),
                                   m + x * m_stride, width, GemmEpilogue(),
                                   GemmColumnPart(), /*accumulate=*/false,
                                   locality);
               }
               if (avx512) {
                 avx512::TransformOutputBlock(s, m, m_stride, t0, count, c0,
                                              width, epilogue, out);
               } else {
                 avx2::TransformOutputBlock(s, m, m_stride, t0, count, c0,
                                            width, epilogue, out);
               }
             }
           });
}

}  // namespace weft
