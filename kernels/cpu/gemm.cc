#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include "kernels/cpu/cwise_unary_op.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#define WEFT_GEMM_SIMD 1
#endif

namespace weft {
namespace {

template <typename T>
using RowMajorMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ColMajorMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
template <typename M>
using ConstStridedMap =
    Eigen::Map<const M, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename M>
using StridedMap = Eigen::Map<M, Eigen::Unaligned, Eigen::OuterStride<>>;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// Output bands smaller than this along the split dimension lose more to
// per-band operand packing than they gain; products below kMinSplitFlops
// multiply-adds stay one band. (Eigen and integer paths.)
constexpr int64_t kMinBand = 32;
constexpr int64_t kMaxBands = 64;
constexpr int64_t kMinSplitFlops = int64_t{1} << 17;

// Calls fn with an Eigen map of op(x) (rows x cols): a row-major map, or
// for a transposed operand the same memory seen column-major.
template <typename T, typename Fn>
void WithOperand(const GemmOperand<T>& x, int64_t rows, int64_t cols, Fn&& fn) {
  if (!x.transposed) {
    fn(ConstStridedMap<RowMajorMatrix<T>>(x.data, rows, cols,
                                          Eigen::OuterStride<>(x.ld)));
  } else {
    fn(ConstStridedMap<ColMajorMatrix<T>>(x.data, rows, cols,
                                          Eigen::OuterStride<>(x.ld)));
  }
}

// Unsigned 32-bit product: c row by row as a sum of scaled rows of op(b),
// which the compiler vectorizes when op(b) is not transposed.
void WrappingProduct(int64_t m, int64_t k, int64_t n,
                     const GemmOperand<uint32_t>& a,
                     const GemmOperand<uint32_t>& b, uint32_t* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    uint32_t* row = c + i * ldc;
    std::fill_n(row, n, 0u);
    for (int64_t l = 0; l < k; ++l) {
      const uint32_t x =
          a.transposed ? a.data[l * a.ld + i] : a.data[i * a.ld + l];
      if (!b.transposed) {
        const uint32_t* brow = b.data + l * b.ld;
        for (int64_t j = 0; j < n; ++j) row[j] += x * brow[j];
      } else {
        for (int64_t j = 0; j < n; ++j) row[j] += x * b.data[j * b.ld + l];
      }
    }
  }
}

// op(x) restricted to rows [r0, r0 + rows) (of the m x k op(a)) or columns
// [c0, c0 + cols) (of the k x n op(b)).
template <typename T>
GemmOperand<T> RowsFrom(GemmOperand<T> a, int64_t r0) {
  a.data += a.transposed ? r0 : r0 * a.ld;
  return a;
}
template <typename T>
GemmOperand<T> ColsFrom(GemmOperand<T> b, int64_t c0) {
  b.data += b.transposed ? c0 * b.ld : c0;
  return b;
}

// Products through Eigen (double; float without AVX2/AVX-512) or the
// wrapping loop (uint32_t).
template <typename T>
void ReferenceSerial(int64_t m, int64_t k, int64_t n, GemmOperand<T> a,
                     GemmOperand<T> b, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, T(0));
    return;
  }
  if constexpr (std::is_same_v<T, uint32_t>) {
    WrappingProduct(m, k, n, a, b, c, ldc);
  } else {
    StridedMap<RowMajorMatrix<T>> out(c, m, n, Eigen::OuterStride<>(ldc));
    WithOperand(a, m, k, [&](const auto& lhs) {
      WithOperand(b, k, n, [&](const auto& rhs) { out.noalias() = lhs * rhs; });
    });
  }
}

// Bands of output rows (m >= n) or columns through `parallel`; `band_fn`
// computes one band (m', n', a', b', c').
template <typename T, typename BandFn>
void ForEachBand(const ParallelForFn& parallel, int64_t m, int64_t k, int64_t n,
                 GemmOperand<T> a, GemmOperand<T> b, T* c, int64_t ldc,
                 BandFn&& band_fn) {
  if (m <= 0 || n <= 0) return;
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  int64_t band = extent;
  if (m * k * n >= kMinSplitFlops) {
    band = std::max(kMinBand, CeilDiv(extent, kMaxBands));
  }
  const int64_t num_bands = CeilDiv(extent, band);
  const int64_t band_cost =
      band * std::max<int64_t>(k, 1) * (split_rows ? n : m);
  parallel(num_bands, band_cost, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const int64_t start = i * band;
      const int64_t len = std::min(band, extent - start);
      if (split_rows) {
        band_fn(len, n, RowsFrom(a, start), b, c + start * ldc, int64_t{0});
      } else {
        band_fn(m, len, a, ColsFrom(b, start), c + start, start);
      }
    }
  });
}

// ---------------------------------------------------------------------------
// The epilogue, on a rows x cols block of c whose first column is column
// `col0` of the whole output.

// x + bias[j] (when there is a bias) then the activation, as scalar code
// that compilers turn into compares and blends. Adding a zero bias would
// turn -0 into +0, hence the two loops.
template <typename Act>
void BiasAndActivate(float* row, const float* bias, int64_t cols, Act act) {
  if (bias != nullptr) {
    for (int64_t j = 0; j < cols; ++j) row[j] = act(row[j] + bias[j]);
  } else {
    for (int64_t j = 0; j < cols; ++j) row[j] = act(row[j]);
  }
}

// Elu through the same packet exp as the Elu kernel (ExpFunctor), every
// element included, so the fused result equals Elu's bit for bit.
void EluRow(float* row, int64_t cols) {
  using Packet = Eigen::internal::packet_traits<float>::type;
  constexpr int64_t kSize = Eigen::internal::packet_traits<float>::size;
  const ExpFunctor<float> exp;
  auto elu = [&](const Packet& x) {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    const Packet em1 = psub(exp.packetOp(x), pset1<Packet>(1.0f));
    return pselect(pcmp_lt(x, pzero(x)), em1, x);
  };
  int64_t j = 0;
  for (; j + kSize <= cols; j += kSize) {
    Eigen::internal::pstoreu(row + j,
                             elu(Eigen::internal::ploadu<Packet>(row + j)));
  }
  if (j < cols) {
    alignas(64) float tail[kSize] = {};
    std::copy(row + j, row + cols, tail);
    Eigen::internal::pstore(tail, elu(Eigen::internal::pload<Packet>(tail)));
    std::copy(tail, tail + (cols - j), row + j);
  }
}

bool HasEpilogue(const GemmEpilogue& ep) {
  return ep.bias != nullptr || ep.activation != GemmEpilogue::Activation::kNone;
}

void ApplyEpilogue(const GemmEpilogue& ep, int64_t col0, float* c, int64_t ldc,
                   int64_t rows, int64_t cols) {
  using Act = GemmEpilogue::Activation;
  const float* bias = ep.bias != nullptr ? ep.bias + col0 : nullptr;
  for (int64_t i = 0; i < rows; ++i) {
    float* row = c + i * ldc;
    switch (ep.activation) {
      case Act::kNone:
        if (bias != nullptr) {
          BiasAndActivate(row, bias, cols, [](float x) { return x; });
        }
        break;
      case Act::kRelu:
        BiasAndActivate(row, bias, cols,
                        [](float x) { return x < 0.0f ? 0.0f : x; });
        break;
      case Act::kRelu6:
        BiasAndActivate(row, bias, cols, [](float x) {
          return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
        });
        break;
      case Act::kLeakyRelu: {
        const float alpha = ep.alpha;
        BiasAndActivate(row, bias, cols,
                        [alpha](float x) { return x > 0.0f ? x : x * alpha; });
        break;
      }
      case Act::kElu:
        if (bias != nullptr) {
          BiasAndActivate(row, bias, cols, [](float x) { return x; });
        }
        EluRow(row, cols);
        break;
    }
  }
}

// The work-sharing loop both entry points use: `parallel`, or inline
// on the calling thread for GemmSerial (parallel == nullptr).
template <typename Fn>
void ForUnits(const ParallelForFn* parallel, int64_t n, int64_t cost, Fn&& fn) {
  if (n <= 0) return;
  if (parallel == nullptr) {
    fn(int64_t{0}, n);
  } else {
    (*parallel)(n, cost, fn);
  }
}

#ifdef WEFT_GEMM_SIMD

// ---------------------------------------------------------------------------
// Packed float GEMM.
//
// Structure (Goto/BLIS): for each block of kNc columns and kKc depth,
// op(b) is packed into panels of kNr columns (kc rows of kNr contiguous
// floats, zero-padded), shared by all units; each unit (a block of rows
// times a range of column panels) packs its rows of op(a) into panels of
// kMr rows (each row kc contiguous floats, rows kAStride apart) and runs the
// kMr x kNr micro-kernel, which keeps the whole C tile in vector registers
// over the kc products and then adds it to c (or stores it, for the first
// k block). Edge tiles use masked loads and stores of c and micro-kernels
// instantiated for 1..kMr rows, so every element goes through the same
// FMA sequence wherever it lies: its k-sum depends on the k blocking, which
// depends on k alone. Products of few rows with an untransposed op(b) read
// op(b) in place instead of packing it (same k blocks, same sums).

#if defined(__AVX512F__)
// 14 x 32: 28 zmm accumulators, 2 for the row of b, 1 for the broadcast of
// a.
struct Isa {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr int kVec = 16;
  static constexpr int kMr = 14;
  static constexpr int kNr = 32;
  static Mask MakeMask(int valid) {
    return valid >= kVec ? Mask(0xFFFF)
                         : (valid <= 0 ? Mask(0) : Mask((1u << valid) - 1));
  }
  static V Zero() { return _mm512_setzero_ps(); }
  static V LoadAligned(const float* p) { return _mm512_load_ps(p); }
  static V LoadMasked(Mask m, const float* p) {
    return _mm512_maskz_loadu_ps(m, p);
  }
  static void StoreMasked(Mask m, float* p, V v) {
    _mm512_mask_storeu_ps(p, m, v);
  }
  static V Broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Set1(float x) { return _mm512_set1_ps(x); }
  // max/min return their second operand when either is NaN or both are
  // zeros, which is what the scalar activations below give.
  static V Max(V a, V b) { return _mm512_max_ps(a, b); }
  static V Min(V a, V b) { return _mm512_min_ps(a, b); }
  // x > 0 ? x : x * alpha.
  static V Leaky(V x, V alpha) {
    return _mm512_mask_blend_ps(
        _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ),
        _mm512_mul_ps(x, alpha), x);
  }
};
#else
// AVX2 + FMA, 6 x 16: 12 ymm accumulators, 2 for b, 1 broadcast.
struct Isa {
  using V = __m256;
  using Mask = __m256i;
  static constexpr int kVec = 8;
  static constexpr int kMr = 6;
  static constexpr int kNr = 16;
  static Mask MakeMask(int valid) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(valid),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static V Zero() { return _mm256_setzero_ps(); }
  static V LoadAligned(const float* p) { return _mm256_load_ps(p); }
  static V LoadMasked(Mask m, const float* p) {
    return _mm256_maskload_ps(p, m);
  }
  static void StoreMasked(Mask m, float* p, V v) {
    _mm256_maskstore_ps(p, m, v);
  }
  static V Broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Set1(float x) { return _mm256_set1_ps(x); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V Min(V a, V b) { return _mm256_min_ps(a, b); }
  static V Leaky(V x, V alpha) {
    return _mm256_blendv_ps(_mm256_mul_ps(x, alpha), x,
                            _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
  }
};
#endif

constexpr int64_t kMr = Isa::kMr;
constexpr int64_t kNr = Isa::kNr;
constexpr int kVecsPerRow = Isa::kNr / Isa::kVec;

// Cache blocking. A kKc x kNr panel of b (32 KiB with AVX-512) stays in L1
// while the micro-kernel streams kMr-row panels of a from L2; a unit's
// block of a (kMc x kKc) and its columns of b stay in L2; the packed b
// block (kKc x kNc) is shared by all threads.
constexpr int64_t kKc = 256;
constexpr int64_t kMc = kMr * 12;
constexpr int64_t kNc = 2048;
// Units are at least this many columns wide, and a product is cut into
// about kWantUnits units when it is large enough to be worth splitting.
constexpr int64_t kMinUnitCols = 4 * kNr;
// At most this many columns per unit, so that a unit's columns of packed b
// (kKc x 16 kNr, 512 KiB with AVX-512) and its block of a share L2.
constexpr int64_t kMaxUnitCols = 16 * kNr;
constexpr int64_t kWantUnits = 24;
// Up to this many rows, op(b) is read where it is (not packed) when it is
// not transposed: each element of b then serves at most this many FMAs, so
// packing it (a read and a write per element, and a ParallelFor per k
// block) would cost about what the product does. ResNet50's late layers at
// batch 1 (m = 4 and 16 rows against megabytes of filter) fall here.
constexpr int64_t kDirectMaxRows = 4 * kMr;
// How many rows of a direct op(b) ahead the micro-kernel prefetches. The
// rows are ld floats apart (2 to 8 KiB in ResNet50), a page each, which the
// hardware prefetchers do not follow: without it a few-row product is
// bound by the latency of one row's misses at a time (7 to 9 GB/s measured
// against about 30 available). 16 to 24 rows measured alike.
constexpr int64_t kDirectPrefetchRows = 24;
// A packed panel of op(a) keeps its kMr rows kAStride floats apart: the
// micro-kernel then reads all of them through one pointer with constant
// offsets, packing a row-major a is a copy of rows, and the extra 16 floats
// put the rows in different L1 sets.
constexpr int64_t kAStride = kKc + 16;
constexpr int64_t kAPanel = kMr * kAStride;

// The epilogue of one tile, applied by the micro-kernel to its registers
// before they are stored (Elu, which needs exp, is left to ApplyEpilogue).
struct TileEpilogue {
  const float* bias = nullptr;  // at the tile's first column, or null
  GemmEpilogue::Activation activation = GemmEpilogue::Activation::kNone;
  float alpha = 0.0f;
};

// Whether `ep` can be applied in registers, and the tile's part of it.
bool InRegisters(const GemmEpilogue& ep) {
  return ep.activation != GemmEpilogue::Activation::kElu;
}
TileEpilogue TilePart(const GemmEpilogue& ep, int64_t col0) {
  TileEpilogue t;
  t.bias = ep.bias != nullptr ? ep.bias + col0 : nullptr;
  t.activation = ep.activation;
  t.alpha = ep.alpha;
  return t;
}

// act(x + bias) in registers, the same operations as BiasAndActivate.
inline Isa::V ActivateInRegisters(Isa::V r, GemmEpilogue::Activation act,
                                  Isa::V alpha) {
  using Act = GemmEpilogue::Activation;
  switch (act) {
    case Act::kRelu:
      return Isa::Max(Isa::Zero(), r);
    case Act::kRelu6:
      return Isa::Min(Isa::Set1(6.0f), Isa::Max(Isa::Zero(), r));
    case Act::kLeakyRelu:
      return Isa::Leaky(r, alpha);
    default:
      return r;
  }
}

// The micro-kernel: c[0:kRows, 0:cols] (+)= a_panel * b_panel over kc
// steps, then `ep` (when not null) on the finished sums. `a` is packed (kMr
// floats per step); `b` advances by b_step floats per step: a packed panel
// (kDirectB false, aligned, zero-padded) or rows of the caller's op(b)
// (kDirectB true, loads masked to `cols`).
template <int kRows, bool kDirectB>
void MicroKernel(int64_t kc, const float* a, const float* b, int64_t b_step,
                 float* c, int64_t ldc, int cols, bool accumulate,
                 const TileEpilogue* ep) {
  typename Isa::Mask mask[kVecsPerRow];
  typename Isa::V acc[kRows][kVecsPerRow];
#pragma GCC unroll 4
  for (int v = 0; v < kVecsPerRow; ++v) {
    mask[v] = Isa::MakeMask(cols - v * Isa::kVec);
  }
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < kVecsPerRow; ++v) acc[i][v] = Isa::Zero();
  }
  // The tile of c is needed only after the kc steps: fetching it now hides
  // its cache and TLB misses (rows of a wide c are a page apart each).
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + kNr - 1),
                 _MM_HINT_T0);
  }
  for (int64_t l = 0; l < kc; ++l) {
    if constexpr (kDirectB) {
      // Rows of a direct op(b) are ld floats apart, often a page or more:
      // the hardware prefetchers do not follow them, so ask for the row
      // kDirectPrefetchRows ahead, keeping that many rows of loads in
      // flight.
      const float* next = b + kDirectPrefetchRows * b_step;
#pragma GCC unroll 2
      for (int line = 0; line < kNr * 4 / 64; ++line) {
        _mm_prefetch(reinterpret_cast<const char*>(next) + 64 * line,
                     _MM_HINT_T0);
      }
    }
    typename Isa::V bv[kVecsPerRow];
#pragma GCC unroll 4
    for (int v = 0; v < kVecsPerRow; ++v) {
      bv[v] = kDirectB ? Isa::LoadMasked(mask[v], b + v * Isa::kVec)
                       : Isa::LoadAligned(b + v * Isa::kVec);
    }
#pragma GCC unroll 16
    for (int i = 0; i < kRows; ++i) {
      const typename Isa::V ai = Isa::Broadcast(a + i * kAStride);
#pragma GCC unroll 4
      for (int v = 0; v < kVecsPerRow; ++v) {
        acc[i][v] = Isa::Fma(ai, bv[v], acc[i][v]);
      }
    }
    ++a;
    b += b_step;
  }
  if (ep == nullptr) {
#pragma GCC unroll 16
    for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 4
      for (int v = 0; v < kVecsPerRow; ++v) {
        float* p = c + i * ldc + v * Isa::kVec;
        typename Isa::V r = acc[i][v];
        if (accumulate) r = Isa::Add(Isa::LoadMasked(mask[v], p), r);
        Isa::StoreMasked(mask[v], p, r);
      }
    }
    return;
  }
  typename Isa::V bias[kVecsPerRow];
#pragma GCC unroll 4
  for (int v = 0; v < kVecsPerRow; ++v) {
    bias[v] = ep->bias != nullptr
                  ? Isa::LoadMasked(mask[v], ep->bias + v * Isa::kVec)
                  : Isa::Zero();
  }
  const typename Isa::V alpha = Isa::Set1(ep->alpha);
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < kVecsPerRow; ++v) {
      float* p = c + i * ldc + v * Isa::kVec;
      typename Isa::V r = acc[i][v];
      if (accumulate) r = Isa::Add(Isa::LoadMasked(mask[v], p), r);
      // No bias: nothing is added, so that -0 stays -0 as in ApplyEpilogue.
      if (ep->bias != nullptr) r = Isa::Add(r, bias[v]);
      Isa::StoreMasked(mask[v], p,
                       ActivateInRegisters(r, ep->activation, alpha));
    }
  }
}

using MicroKernelFn = void (*)(int64_t, const float*, const float*, int64_t,
                               float*, int64_t, int, bool, const TileEpilogue*);

template <bool kDirectB, size_t... kRows>
constexpr auto MakeKernelTable(std::index_sequence<kRows...>) {
  return std::array<MicroKernelFn, sizeof...(kRows)>{
      {kRows == 0 ? nullptr
                  : &MicroKernel<(kRows == 0 ? 1 : int(kRows)), kDirectB>...}};
}
// Indexed by the number of rows, 1..kMr.
constexpr auto kPackedKernels =
    MakeKernelTable<false>(std::make_index_sequence<kMr + 1>());
constexpr auto kDirectKernels =
    MakeKernelTable<true>(std::make_index_sequence<kMr + 1>());

// Per-thread packing buffers, reused across calls. A buffer is leased for
// the duration of a use; a nested lease on the same thread (a TBB thread
// that, waiting in ParallelFor, runs another kernel's Gemm) finds it busy
// and allocates a private one.
struct ScratchSlot {
  float* data = nullptr;
  int64_t capacity = 0;  // floats
  bool busy = false;
  ~ScratchSlot() { std::free(data); }
};

float* AllocateFloats(int64_t count) {
  // 64-byte aligned, size a multiple of the alignment as aligned_alloc
  // requires.
  const size_t bytes = static_cast<size_t>(RoundUp(count, 16)) * sizeof(float);
  void* p = std::aligned_alloc(64, bytes);
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<float*>(p);
}

class ScratchLease {
 public:
  ScratchLease(ScratchSlot& slot, int64_t count) {
    if (slot.busy) {
      data_ = AllocateFloats(count);
      return;
    }
    if (slot.capacity < count) {
      std::free(slot.data);
      slot.data = nullptr;
      slot.capacity = 0;
      slot.data = AllocateFloats(count);
      slot.capacity = count;
    }
    slot.busy = true;
    slot_ = &slot;
    data_ = slot.data;
  }
  ~ScratchLease() {
    if (slot_ != nullptr) {
      slot_->busy = false;
    } else {
      std::free(data_);
    }
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  float* data() const { return data_; }

 private:
  ScratchSlot* slot_ = nullptr;
  float* data_ = nullptr;
};

thread_local ScratchSlot tls_a_scratch;
thread_local ScratchSlot tls_b_scratch;

// Packs op(b)[pc : pc + kc, j0 : j0 + cols] as panels of kNr columns, the
// panel for column j0 + p * kNr at dst + p * kc * kNr.
void PackB(const GemmOperand<float>& b, int64_t pc, int64_t kc, int64_t j0,
           int64_t cols, float* dst) {
  for (int64_t jp = 0; jp < cols; jp += kNr) {
    const int64_t w = std::min(kNr, cols - jp);
    float* out = dst + (jp / kNr) * kc * kNr;
    if (!b.transposed) {
      const float* src = b.data + pc * b.ld + j0 + jp;
      if (w == kNr) {
        for (int64_t l = 0; l < kc; ++l) {
          std::memcpy(out + l * kNr, src + l * b.ld, kNr * sizeof(float));
        }
      } else {
        for (int64_t l = 0; l < kc; ++l) {
          std::copy_n(src + l * b.ld, w, out + l * kNr);
          std::fill_n(out + l * kNr + w, kNr - w, 0.0f);
        }
      }
    } else {
      // op(b)[l][j] = data[j * ld + l]: each column is contiguous in l.
      const float* src = b.data + (j0 + jp) * b.ld + pc;
      for (int64_t l0 = 0; l0 < kc; l0 += 16) {
        const int64_t lh = std::min<int64_t>(16, kc - l0);
        for (int64_t j = 0; j < w; ++j) {
          const float* s = src + j * b.ld + l0;
          for (int64_t l = 0; l < lh; ++l) out[(l0 + l) * kNr + j] = s[l];
        }
        for (int64_t l = 0; l < lh; ++l) {
          std::fill_n(out + (l0 + l) * kNr + w, kNr - w, 0.0f);
        }
      }
    }
  }
}

// Packs op(a)[i0 : i0 + rows, pc : pc + kc], kc <= kKc, as panels of kMr
// rows, the panel for row i0 + p * kMr at dst + p * kAPanel, row i of a
// panel at + i * kAStride. Rows past `rows` are left unset: the micro-kernel
// for h rows reads h rows.
void PackA(const GemmOperand<float>& a, int64_t i0, int64_t rows, int64_t pc,
           int64_t kc, float* dst) {
  for (int64_t ip = 0; ip < rows; ip += kMr) {
    const int64_t h = std::min(kMr, rows - ip);
    float* out = dst + (ip / kMr) * kAPanel;
    if (!a.transposed) {
      const float* src = a.data + (i0 + ip) * a.ld + pc;
      for (int64_t i = 0; i < h; ++i) {
        std::memcpy(out + i * kAStride, src + i * a.ld, kc * sizeof(float));
      }
    } else {
      // op(a)[i][l] = data[l * ld + i]: a transpose, reading rows of the
      // source (contiguous in i).
      const float* src = a.data + pc * a.ld + i0 + ip;
      for (int64_t l = 0; l < kc; ++l) {
        const float* s = src + l * a.ld;
        for (int64_t i = 0; i < h; ++i) out[i * kAStride + l] = s[i];
      }
    }
  }
}

// c[:, jc : jc + nc] (+)= op(a)[:, pc : pc + kc] * (the packed block of op(b)
// at packed_b, panels of kNr columns), as units of rows x columns through
// ForUnits; `first`: c is overwritten, `last`: the epilogue follows.
void MultiplyPackedBlock(const ParallelForFn* parallel, int64_t m,
                         const GemmOperand<float>& a, int64_t pc, int64_t kc,
                         int64_t jc, int64_t nc, const float* packed_b,
                         float* c, int64_t ldc, bool first, bool last,
                         const GemmEpilogue& ep) {
  const bool epilogue = last && HasEpilogue(ep);
  const bool in_registers = InRegisters(ep);
  // Units: row blocks of mc rows times column ranges of unit_cols.
  const int64_t mc = std::min(kMc, RoundUp(m, kMr));
  const int64_t row_blocks = CeilDiv(m, mc);
  const int64_t col_parts_wanted = std::max<int64_t>(
      1, std::min(CeilDiv(kWantUnits, row_blocks), nc / kMinUnitCols));
  const int64_t unit_cols =
      std::min(kMaxUnitCols, RoundUp(CeilDiv(nc, col_parts_wanted), kNr));
  const int64_t col_parts = CeilDiv(nc, unit_cols);
  ForUnits(parallel, row_blocks * col_parts, mc * unit_cols * kc / 8,
           [&](int64_t u0, int64_t u1) {
             ScratchLease a_lease(tls_a_scratch, (mc / kMr) * kAPanel);
             float* const packed_a = a_lease.data();
             int64_t packed_row_block = -1;
             for (int64_t u = u0; u < u1; ++u) {
               const int64_t rb = u / col_parts;
               const int64_t i0 = rb * mc;
               const int64_t rows = std::min(mc, m - i0);
               const int64_t j0 = (u % col_parts) * unit_cols;
               const int64_t cols = std::min(unit_cols, nc - j0);
               // Consecutive units of one row block share its packed a.
               if (rb != packed_row_block) {
                 PackA(a, i0, rows, pc, kc, packed_a);
                 packed_row_block = rb;
               }
               for (int64_t jr = 0; jr < cols; jr += kNr) {
                 const int w = static_cast<int>(std::min(kNr, cols - jr));
                 const float* bp = packed_b + ((j0 + jr) / kNr) * kc * kNr;
                 float* cj = c + jc + j0 + jr;
                 for (int64_t ir = 0; ir < rows; ir += kMr) {
                   const int64_t h = std::min(kMr, rows - ir);
                   float* ct = cj + (i0 + ir) * ldc;
                   const TileEpilogue tile = TilePart(ep, jc + j0 + jr);
                   kPackedKernels[h](
                       kc, packed_a + (ir / kMr) * kAPanel, bp, kNr, ct, ldc, w,
                       !first, epilogue && in_registers ? &tile : nullptr);
                   if (epilogue && !in_registers) {
                     ApplyEpilogue(ep, jc + j0 + jr, ct, ldc, h, w);
                   }
                 }
               }
             }
           });
}

// The blocking of op(b) for a k x n product: k in k_blocks equal blocks of
// at most kKc, n in blocks of nc_max (a multiple of kNr) columns. It
// depends on (k, n) only; an element's k-sum depends on k only.
struct RhsBlocking {
  RhsBlocking(int64_t k, int64_t n)
      : k_blocks(CeilDiv(k, kKc)),
        kc_max(CeilDiv(k, k_blocks)),
        nc_max(RoundUp(CeilDiv(n, CeilDiv(n, kNc)), kNr)) {}
  int64_t k_blocks;
  int64_t kc_max;
  int64_t nc_max;
};

// The float product with an epilogue; parallel == nullptr runs on the calling
// thread. Every blocking decision below depends on (m, k, n) only.
void PackedGemm(const ParallelForFn* parallel, int64_t m, int64_t k, int64_t n,
                const GemmOperand<float>& a, const GemmOperand<float>& b,
                float* c, int64_t ldc, const GemmEpilogue& ep) {
  if (m <= 0 || n <= 0) return;
  const bool epilogue = HasEpilogue(ep);
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, 0.0f);
    if (epilogue) ApplyEpilogue(ep, 0, c, ldc, m, n);
    return;
  }

  // k in equal blocks of at most kKc, n in equal blocks of at most kNc
  // (multiples of kNr).
  const RhsBlocking blocking(k, n);
  const int64_t k_blocks = blocking.k_blocks;
  const int64_t kc_max = blocking.kc_max;

  if (m <= kDirectMaxRows && !b.transposed) {
    // Few rows: pack op(a) (small) and read op(b) where it is; units are
    // ranges of columns, each going through k block by block so that the
    // rows of b it reads stay few pages apart. The rows are cut into
    // row_tiles tiles of nearly equal height (16 rows as 8 + 8, not 14 + 2):
    // the first tile streams a kc x kNr tile of b from memory, the others
    // find it in cache, and balanced tiles keep every pass register-bound.
    // One panel per row tile and k block.
    const int64_t row_tiles = CeilDiv(m, kMr);
    const int64_t block_floats = row_tiles * kAPanel;
    ScratchLease a_lease(tls_a_scratch, k_blocks * block_floats);
    const float* const packed_a = a_lease.data();
    for (int64_t kb = 0; kb < k_blocks; ++kb) {
      const int64_t pc = kb * kc_max;
      for (int64_t r = 0; r < row_tiles; ++r) {
        const int64_t i0 = r * m / row_tiles;
        PackA(a, i0, (r + 1) * m / row_tiles - i0, pc, std::min(kc_max, k - pc),
              a_lease.data() + kb * block_floats + r * kAPanel);
      }
    }
    const int64_t tiles = CeilDiv(n, kNr);
    const int64_t unit_tiles =
        std::max<int64_t>(kMinUnitCols / kNr, CeilDiv(tiles, kWantUnits));
    const int64_t units = CeilDiv(tiles, unit_tiles);
    ForUnits(parallel, units, unit_tiles * kNr * m * k / 8,
             [&](int64_t first, int64_t last) {
               const int64_t t0 = first * unit_tiles;
               const int64_t t1 = std::min(tiles, last * unit_tiles);
               for (int64_t kb = 0; kb < k_blocks; ++kb) {
                 const int64_t pc = kb * kc_max;
                 const int64_t kc = std::min(kc_max, k - pc);
                 const bool finish = kb + 1 == k_blocks;
                 for (int64_t t = t0; t < t1; ++t) {
                   const int64_t j = t * kNr;
                   const int w = static_cast<int>(std::min(kNr, n - j));
                   for (int64_t r = 0; r < row_tiles; ++r) {
                     const int64_t i = r * m / row_tiles;
                     const int64_t h = (r + 1) * m / row_tiles - i;
                     float* ct = c + i * ldc + j;
                     const TileEpilogue tile = TilePart(ep, j);
                     const bool here = finish && epilogue;
                     kDirectKernels[h](
                         kc, packed_a + kb * block_floats + r * kAPanel,
                         b.data + pc * b.ld + j, b.ld, ct, ldc, w, kb > 0,
                         here && InRegisters(ep) ? &tile : nullptr);
                     if (here && !InRegisters(ep)) {
                       ApplyEpilogue(ep, j, ct, ldc, h, w);
                     }
                   }
                 }
               }
             });
    return;
  }

  const int64_t nc_max = blocking.nc_max;
  ScratchLease b_lease(tls_b_scratch, kc_max * nc_max);
  float* const packed_b = b_lease.data();
  for (int64_t jc = 0; jc < n; jc += nc_max) {
    const int64_t nc = std::min(nc_max, n - jc);
    for (int64_t kb = 0; kb < k_blocks; ++kb) {
      const int64_t pc = kb * kc_max;
      const int64_t kc = std::min(kc_max, k - pc);
      const int64_t panels = CeilDiv(nc, kNr);
      ForUnits(parallel, panels, kc * kNr, [&](int64_t p0, int64_t p1) {
        PackB(b, pc, kc, jc + p0 * kNr, std::min(nc, p1 * kNr) - p0 * kNr,
              packed_b + p0 * kc * kNr);
      });
      MultiplyPackedBlock(parallel, m, a, pc, kc, jc, nc, packed_b, c, ldc,
                          kb == 0, kb + 1 == k_blocks, ep);
    }
  }
}

#endif  // WEFT_GEMM_SIMD

// The float product without a fast path: Eigen by bands, then the
// epilogue over each band.
[[maybe_unused]] void FallbackFloat(const ParallelForFn* parallel, int64_t m,
                                    int64_t k, int64_t n, GemmOperand<float> a,
                                    GemmOperand<float> b, float* c, int64_t ldc,
                                    const GemmEpilogue& ep) {
  auto band = [&](int64_t bm, int64_t bn, GemmOperand<float> ba,
                  GemmOperand<float> bb, float* bc, int64_t col0) {
    ReferenceSerial<float>(bm, k, bn, ba, bb, bc, ldc);
    if (HasEpilogue(ep)) ApplyEpilogue(ep, col0, bc, ldc, bm, bn);
  };
  if (parallel == nullptr) {
    if (m > 0 && n > 0) band(m, n, a, b, c, 0);
  } else {
    ForEachBand(*parallel, m, k, n, a, b, c, ldc, band);
  }
}

void FloatGemm(const ParallelForFn* parallel, int64_t m, int64_t k, int64_t n,
               GemmOperand<float> a, GemmOperand<float> b, float* c,
               int64_t ldc, const GemmEpilogue& ep) {
#ifdef WEFT_GEMM_SIMD
  PackedGemm(parallel, m, k, n, a, b, c, ldc, ep);
#else
  FallbackFloat(parallel, m, k, n, a, b, c, ldc, ep);
#endif
}

}  // namespace

GemmPackedRhs::GemmPackedRhs(int64_t k, int64_t n, GemmOperand<float> b,
                             const ParallelForFn* parallel)
    : k_(k), n_(n), b_(b) {
#ifdef WEFT_GEMM_SIMD
  if (k <= 0 || n <= 0) return;
  const RhsBlocking bl(k, n);
  const int64_t n_blocks = CeilDiv(n, bl.nc_max);
  const int64_t block_floats = bl.kc_max * bl.nc_max;
  packed_ = AllocateFloats(n_blocks * bl.k_blocks * block_floats);
  ForUnits(parallel, n_blocks * bl.k_blocks, block_floats,
           [&](int64_t first, int64_t last) {
             for (int64_t i = first; i < last; ++i) {
               const int64_t jc = (i / bl.k_blocks) * bl.nc_max;
               const int64_t pc = (i % bl.k_blocks) * bl.kc_max;
               PackB(b, pc, std::min(bl.kc_max, k - pc), jc,
                     std::min(bl.nc_max, n - jc), packed_ + i * block_floats);
             }
           });
#endif
}

GemmPackedRhs::~GemmPackedRhs() { std::free(packed_); }

void GemmSerial(int64_t m, GemmOperand<float> a, const GemmPackedRhs& b,
                float* c, int64_t ldc, const GemmEpilogue& epilogue) {
#ifdef WEFT_GEMM_SIMD
  const int64_t k = b.k();
  const int64_t n = b.n();
  if (k <= 0) {
    PackedGemm(nullptr, m, k, n, a, b.operand(), c, ldc, epilogue);
    return;
  }
  if (m <= 0 || n <= 0) return;
  const RhsBlocking bl(k, n);
  const int64_t block_floats = bl.kc_max * bl.nc_max;
  int64_t i = 0;
  for (int64_t jc = 0; jc < n; jc += bl.nc_max) {
    for (int64_t kb = 0; kb < bl.k_blocks; ++kb, ++i) {
      const int64_t pc = kb * bl.kc_max;
      MultiplyPackedBlock(nullptr, m, a, pc, std::min(bl.kc_max, k - pc), jc,
                          std::min(bl.nc_max, n - jc),
                          b.packed() + i * block_floats, c, ldc, kb == 0,
                          kb + 1 == bl.k_blocks, epilogue);
    }
  }
#else
  FallbackFloat(nullptr, m, b.k(), b.n(), a, b.operand(), c, ldc, epilogue);
#endif
}

template <typename T>
void GemmSerial(int64_t m, int64_t k, int64_t n, GemmOperand<T> a,
                GemmOperand<T> b, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    FloatGemm(nullptr, m, k, n, a, b, c, ldc, GemmEpilogue());
  } else {
    ReferenceSerial<T>(m, k, n, a, b, c, ldc);
  }
}

template <typename T>
void Gemm(const ParallelForFn& parallel, int64_t m, int64_t k, int64_t n,
          GemmOperand<T> a, GemmOperand<T> b, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    FloatGemm(&parallel, m, k, n, a, b, c, ldc, GemmEpilogue());
  } else {
    ForEachBand(
        parallel, m, k, n, a, b, c, ldc,
        [&](int64_t bm, int64_t bn, GemmOperand<T> ba, GemmOperand<T> bb, T* bc,
            int64_t) { ReferenceSerial<T>(bm, k, bn, ba, bb, bc, ldc); });
  }
}

void GemmSerial(int64_t m, int64_t k, int64_t n, GemmOperand<float> a,
                GemmOperand<float> b, float* c, int64_t ldc,
                const GemmEpilogue& epilogue) {
  FloatGemm(nullptr, m, k, n, a, b, c, ldc, epilogue);
}

void Gemm(const ParallelForFn& parallel, int64_t m, int64_t k, int64_t n,
          GemmOperand<float> a, GemmOperand<float> b, float* c, int64_t ldc,
          const GemmEpilogue& epilogue) {
  FloatGemm(&parallel, m, k, n, a, b, c, ldc, epilogue);
}

#define WEFT_INSTANTIATE_GEMM(T)                                         \
  template void GemmSerial<T>(int64_t, int64_t, int64_t, GemmOperand<T>, \
                              GemmOperand<T>, T*, int64_t);              \
  template void Gemm<T>(const ParallelForFn&, int64_t, int64_t, int64_t, \
                        GemmOperand<T>, GemmOperand<T>, T*, int64_t);
WEFT_INSTANTIATE_GEMM(float)
WEFT_INSTANTIATE_GEMM(double)
WEFT_INSTANTIATE_GEMM(uint32_t)
#undef WEFT_INSTANTIATE_GEMM

}  // namespace weft
