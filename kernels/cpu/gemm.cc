#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include <immintrin.h>

#include <Eigen/Core>

#include "core/allocator.h"
#include "device/cpu_isa.h"
#include "kernels/cpu/cwise_unary_op.h"
#include "kernels/cpu/sigmoid_float.h"

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
// computes one band (m', n', a', b', c', and the row and column of c where
// c' starts).
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
        band_fn(len, n, RowsFrom(a, start), b, c + start * ldc, start,
                int64_t{0});
      } else {
        band_fn(m, len, a, ColsFrom(b, start), c + start, int64_t{0}, start);
      }
    }
  });
}

// ---------------------------------------------------------------------------
// The epilogue, on a rows x cols block of c whose first element is element
// (row0, col0) of the whole output.

// (x + bias[j]) + residual[j] (each when there is one) then the
// activation, as scalar code that compilers turn into compares and blends.
// Adding a zero bias would turn -0 into +0, hence the separate loops.
template <typename Act>
void BiasAndActivate(float* row, const float* bias, const float* residual,
                     int64_t cols, Act act) {
  if (residual != nullptr) {
    if (bias != nullptr) {
      for (int64_t j = 0; j < cols; ++j) {
        row[j] = act((row[j] + bias[j]) + residual[j]);
      }
    } else {
      for (int64_t j = 0; j < cols; ++j) row[j] = act(row[j] + residual[j]);
    }
  } else if (bias != nullptr) {
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

void ApplyEpilogue(const GemmEpilogue& ep, int64_t row0, int64_t col0, float* c,
                   int64_t ldc, int64_t rows, int64_t cols) {
  using Act = GemmEpilogue::Activation;
  const float* bias = ep.bias != nullptr ? ep.bias + col0 : nullptr;
  for (int64_t i = 0; i < rows; ++i) {
    float* row = c + i * ldc;
    const float* res = ep.residual != nullptr
                           ? ep.residual + (row0 + i) * ep.residual_ld + col0
                           : nullptr;
    switch (ep.activation) {
      case Act::kNone:
        BiasAndActivate(row, bias, res, cols, [](float x) { return x; });
        break;
      case Act::kRelu:
        BiasAndActivate(row, bias, res, cols,
                        [](float x) { return x < 0.0f ? 0.0f : x; });
        break;
      case Act::kRelu6:
        BiasAndActivate(row, bias, res, cols, [](float x) {
          return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
        });
        break;
      case Act::kLeakyRelu: {
        const float alpha = ep.alpha;
        BiasAndActivate(row, bias, res, cols,
                        [alpha](float x) { return x > 0.0f ? x : x * alpha; });
        break;
      }
      case Act::kElu:
        BiasAndActivate(row, bias, res, cols, [](float x) { return x; });
        EluRow(row, cols);
        break;
      case Act::kSwish:
        BiasAndActivate(row, bias, res, cols, [](float x) { return x; });
        SwishFloat(row, row, cols, ep.beta);
        break;
      case Act::kHardSwish:
        BiasAndActivate(row, bias, res, cols, [](float x) {
          const float t = x + 3.0f;
          return x * ((t < 0.0f ? 0.0f : (t > 6.0f ? 6.0f : t)) / 6.0f);
        });
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
  // 64-byte aligned; large ones (packed weights) on huge pages.
  void* p = AlignedHostAlloc(
      64, static_cast<size_t>(RoundUp(count, 16)) * sizeof(float));
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

// a'[i][l] of a GemmLhsPrologue (gemm.h) for x = a[i][l]: the operations of
// the 1x1 depthwise convolution and its epilogue, in their order, so their
// bits. The vector paths' PrologueRow (gemm_packed.inc) does the same a
// vector at a time.
inline float PrologueValue(const GemmLhsPrologue& p, int64_t l, float x) {
  using Act = GemmEpilogue::Activation;
  float v = 0.0f + x * p.scale[l];
  if (p.shift != nullptr) v = v + p.shift[l];
  if (p.activation == Act::kRelu) {
    v = v < 0.0f ? 0.0f : v;
  } else if (p.activation == Act::kRelu6) {
    v = v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v);
  }
  return v;
}

thread_local ScratchSlot tls_a_scratch;
thread_local ScratchSlot tls_b_scratch;
// The baseline path's transformed op(a) of a product with a GemmLhsPrologue.
thread_local ScratchSlot tls_prologue_scratch;

// ---------------------------------------------------------------------------
// The packed float GEMM, once per instruction set (gemm_packed.inc).

namespace avx512 {
WEFT_ISA_AVX512_BEGIN
// The element-wise kernels' vector helpers (the sigmoid), in their own
// namespace.
namespace vf {
constexpr int kFloats = 16;
#include "kernels/cpu/vector_float.inc"
}  // namespace vf

// 14 x 32: 28 zmm accumulators, 2 for the row of b, 1 for the broadcast of
// a.
struct Isa {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr int kVec = 16;
  static constexpr int kMr = 14;
  static constexpr int kNr = 32;
  // Masked loads and stores cost what plain ones do: full tiles use the
  // masked code too (one Finish per micro-kernel, less to compile).
  static constexpr bool kSlowMaskedMoves = false;
  static Mask MakeMask(int valid) {
    return valid >= kVec ? Mask(0xFFFF)
                         : (valid <= 0 ? Mask(0) : Mask((1u << valid) - 1));
  }
  static V Zero() { return _mm512_setzero_ps(); }
  static V LoadAligned(const float* p) { return _mm512_load_ps(p); }
  static V LoadUnaligned(const float* p) { return _mm512_loadu_ps(p); }
  static void StoreUnaligned(float* p, V v) { _mm512_storeu_ps(p, v); }
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
  // zeros, which is what the scalar activations below give. (The maskz forms
  // with every lane set are the same instructions; the plain ones start
  // from _mm512_undefined_ps, which GCC 12 reports as maybe-uninitialized
  // when inlined into a target region.)
  static V Max(V a, V b) { return _mm512_maskz_max_ps(Mask(0xFFFF), a, b); }
  static V Min(V a, V b) { return _mm512_maskz_min_ps(Mask(0xFFFF), a, b); }
  // x > 0 ? x : x * alpha.
  static V Leaky(V x, V alpha) {
    return _mm512_mask_blend_ps(
        _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ),
        _mm512_mul_ps(x, alpha), x);
  }
  // x * sigmoid(beta * x): the same operations as the _Swish kernel's
  // vector loop (sigmoid_float.inc), so the same bits.
  static V Swish(V x, V beta) { return x * vf::Sigmoid(beta * x); }
  // x * (relu6(x + 3) / 6), Relu6 as above.
  static V HardSwish(V x) {
    return x * (Min(Set1(6.0f), Max(Zero(), x + Set1(3.0f))) / Set1(6.0f));
  }
};

#include "kernels/cpu/gemm_packed.inc"

WEFT_ISA_END
}  // namespace avx512

namespace avx2 {
WEFT_ISA_AVX2_BEGIN
namespace vf {
constexpr int kFloats = 8;
#include "kernels/cpu/vector_float.inc"
}  // namespace vf

// AVX2 + FMA, 6 x 16: 12 ymm accumulators, 2 for b, 1 broadcast.
struct Isa {
  using V = __m256;
  using Mask = __m256i;
  static constexpr int kVec = 8;
  static constexpr int kMr = 6;
  static constexpr int kNr = 16;
  // vmaskmovps takes a vector ALU micro-op beside the load or store on
  // Intel's cores, and its store is microcoded on AMD's: whole vectors use
  // plain moves (gemm_packed.inc's Tile).
  static constexpr bool kSlowMaskedMoves = true;
  static Mask MakeMask(int valid) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(valid),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static V Zero() { return _mm256_setzero_ps(); }
  static V LoadAligned(const float* p) { return _mm256_load_ps(p); }
  static V LoadUnaligned(const float* p) { return _mm256_loadu_ps(p); }
  static void StoreUnaligned(float* p, V v) { _mm256_storeu_ps(p, v); }
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
  static V Swish(V x, V beta) { return x * vf::Sigmoid(beta * x); }
  static V HardSwish(V x) {
    return x * (Min(Set1(6.0f), Max(Zero(), x + Set1(3.0f))) / Set1(6.0f));
  }
};

#include "kernels/cpu/gemm_packed.inc"

WEFT_ISA_END
}  // namespace avx2

// The float product on the baseline path: Eigen by bands, then the
// epilogue over each band. GemmSerial (parallel == nullptr) runs the same
// bands on the calling thread: Eigen's blocking follows the shape of the
// product it is given, so only the same bands give Gemm's bits.
void FallbackFloat(const ParallelForFn* parallel, int64_t m, int64_t k,
                   int64_t n, GemmOperand<float> a, GemmOperand<float> b,
                   float* c, int64_t ldc, const GemmEpilogue& ep) {
  auto band = [&](int64_t bm, int64_t bn, GemmOperand<float> ba,
                  GemmOperand<float> bb, float* bc, int64_t row0,
                  int64_t col0) {
    ReferenceSerial<float>(bm, k, bn, ba, bb, bc, ldc);
    if (HasEpilogue(ep)) ApplyEpilogue(ep, row0, col0, bc, ldc, bm, bn);
  };
  ForEachBand(parallel != nullptr ? *parallel : SerialFor(), m, k, n, a, b, c,
              ldc, band);
}

void FloatGemm(const ParallelForFn* parallel, int64_t m, int64_t k, int64_t n,
               GemmOperand<float> a, GemmOperand<float> b, float* c,
               int64_t ldc, const GemmEpilogue& ep) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      return avx512::PackedGemm(parallel, m, k, n, a, b, c, ldc, ep);
    case CpuIsa::kAvx2:
      return avx2::PackedGemm(parallel, m, k, n, a, b, c, ldc, ep);
    case CpuIsa::kBaseline:
      break;
  }
  FallbackFloat(parallel, m, k, n, a, b, c, ldc, ep);
}

}  // namespace

// The packed layout (panel width kNr) is the active path's, which is fixed
// for the life of the process, so every GemmSerial below reads what this
// constructor wrote.
GemmPackedRhs::GemmPackedRhs(int64_t k, int64_t n, GemmOperand<float> b,
                             const ParallelForFn* parallel)
    : k_(k), n_(n), b_(b) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      packed_ = avx512::PackRhs(k, n, b, parallel);
      break;
    case CpuIsa::kAvx2:
      packed_ = avx2::PackRhs(k, n, b, parallel);
      break;
    case CpuIsa::kBaseline:
      break;
  }
}

GemmPackedRhs::~GemmPackedRhs() { std::free(packed_); }

namespace {

// The product with a packed op(b), through `parallel` or (null) on the
// calling thread; the baseline path multiplies from the operand, as Gemm.
void PackedRhsGemm(const ParallelForFn* parallel, int64_t m,
                   GemmOperand<float> a, const GemmPackedRhs& b, float* c,
                   int64_t ldc, const GemmEpilogue& epilogue,
                   GemmRhsLocality locality = GemmRhsLocality::kCached) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      return avx512::MultiplyPackedRhs(parallel, m, a, b, c, ldc, epilogue,
                                       locality);
    case CpuIsa::kAvx2:
      return avx2::MultiplyPackedRhs(parallel, m, a, b, c, ldc, epilogue,
                                     locality);
    case CpuIsa::kBaseline:
      break;
  }
  FallbackFloat(parallel, m, b.k(), b.n(), a, b.operand(), c, ldc, epilogue);
}

}  // namespace

bool GemmGatheredLhsLayout(int64_t k, GemmLhsLayout* layout) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      *layout = avx512::GatheredLhsLayout(k);
      return true;
    case CpuIsa::kAvx2:
      *layout = avx2::GatheredLhsLayout(k);
      return true;
    case CpuIsa::kBaseline:
      break;
  }
  return false;
}

void GemmSerialGathered(int64_t m, const float* a, const GemmPackedRhs& b,
                        float* c, int64_t ldc, const GemmEpilogue& epilogue,
                        GemmRhsLocality locality) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      return avx512::MultiplyGathered(m, a, b, c, ldc, epilogue, locality);
    case CpuIsa::kAvx2:
      return avx2::MultiplyGathered(m, a, b, c, ldc, epilogue, locality);
    case CpuIsa::kBaseline:
      break;
  }
  std::abort();  // no gathered layout on this path (GemmGatheredLhsLayout)
}

bool GemmStridedLhsSupported() { return ActiveCpuIsa() != CpuIsa::kBaseline; }

bool GemmRowBandsExact() { return ActiveCpuIsa() != CpuIsa::kBaseline; }

void GemmSerialStrided(int64_t m, const GemmStridedLhs& a,
                       const GemmPackedRhs& b, float* c, int64_t ldc,
                       const GemmEpilogue& epilogue, GemmColumnPart part,
                       bool accumulate, GemmRhsLocality locality) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      return avx512::MultiplyStrided(m, a, b, c, ldc, epilogue, part,
                                     accumulate, locality);
    case CpuIsa::kAvx2:
      return avx2::MultiplyStrided(m, a, b, c, ldc, epilogue, part, accumulate,
                                   locality);
    case CpuIsa::kBaseline:
      break;
  }
  std::abort();  // not on this path (GemmStridedLhsSupported)
}

void GemmSerial(int64_t m, GemmOperand<float> a, const GemmPackedRhs& b,
                float* c, int64_t ldc, const GemmEpilogue& epilogue,
                GemmRhsLocality locality) {
  PackedRhsGemm(nullptr, m, a, b, c, ldc, epilogue, locality);
}

void Gemm(const ParallelForFn& parallel, int64_t m, GemmOperand<float> a,
          const GemmPackedRhs& b, float* c, int64_t ldc,
          const GemmEpilogue& epilogue, GemmRhsLocality locality) {
  PackedRhsGemm(&parallel, m, a, b, c, ldc, epilogue, locality);
}

void Gemm(const ParallelForFn& parallel, int64_t m, GemmOperand<float> a,
          const GemmLhsPrologue& prologue, const GemmPackedRhs& b, float* c,
          int64_t ldc, const GemmEpilogue& epilogue, GemmRhsLocality locality) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      return avx512::MultiplyPackedRhs(&parallel, m, a, b, c, ldc, epilogue,
                                       locality, &prologue);
    case CpuIsa::kAvx2:
      return avx2::MultiplyPackedRhs(&parallel, m, a, b, c, ldc, epilogue,
                                     locality, &prologue);
    case CpuIsa::kBaseline:
      break;
  }
  // Eigen's blocking follows the shape it is given, so a' is made whole
  // and multiplied as Gemm would multiply it.
  const int64_t k = b.k();
  ScratchLease lhs(tls_prologue_scratch, std::max<int64_t>(1, m * k));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t l = 0; l < k; ++l) {
      lhs.data()[i * k + l] = PrologueValue(prologue, l, a.data[i * a.ld + l]);
    }
  }
  FallbackFloat(&parallel, m, k, b.n(), GemmOperand<float>{lhs.data(), k},
                b.operand(), c, ldc, epilogue);
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
    ForEachBand(parallel, m, k, n, a, b, c, ldc,
                [&](int64_t bm, int64_t bn, GemmOperand<T> ba,
                    GemmOperand<T> bb, T* bc, int64_t, int64_t) {
                  ReferenceSerial<T>(bm, k, bn, ba, bb, bc, ldc);
                });
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
