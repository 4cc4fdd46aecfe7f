// Dense matrix products for CPU kernels: MatMul, and the convolutions that
// lower to a product of a patch matrix and a filter matrix.
//
// Operands are row-major matrices anywhere in memory, described by a
// pointer, a leading dimension (elements from one row to the next) and a
// transpose flag, so that a kernel can multiply a slice of a larger tensor
// (one group's channels of a filter, a band of output rows) without copying
// it out first.
//
// float products on the AVX2 + FMA and AVX-512 paths (chosen at run time,
// device/cpu_isa.h) are weft's own blocked GEMM: panels of op(b) and
// op(a) are packed into contiguous buffers sized for the caches and
// multiplied by a register-blocked FMA micro-kernel (6 x 16 with AVX2,
// 14 x 32 with AVX-512; gemm_packed.inc, compiled once per path). On the
// baseline path, and for double, they are Eigen's blocked GEMM on one
// thread; uint32_t is a plain loop (see below). The two vector paths sum in
// different blocks, so their results may differ in the last bits; each is
// deterministic.
//
// Determinism: Gemm splits the work into units chosen from the shape alone
// and runs them through a ParallelForFn (parallel_for.h), so results are
// bit-identical at every thread count. Eigen's own thread-pool device is
// not used: it blocks on a barrier, which inside a one-thread arena would
// wait forever. On the packed float path the k-sum of an output element is
// accumulated in blocks whose size depends on k alone (each block summed
// by FMAs in k order, then added to c), so an element's value depends only
// on k, its row of op(a) and its column of op(b): GemmSerial of a band of
// rows or columns gives the same bits as the whole product, and Gemm the
// same as GemmSerial. On the baseline float path Eigen's blocking follows
// the shape of each product, so a band's bits may differ from the whole
// product's; GemmSerial computes the same bands as Gemm, so the two still
// agree bit for bit.
//
// Scratch: the float path packs into per-thread buffers that are reused
// from call to call (a few MiB per thread at most, kept for the thread's
// life); a call nested inside another on the same thread (a TBB thread
// that steals another kernel's work while it waits) gets fresh buffers.
// No locks are taken.
//
// Instantiated (in gemm.cc, the one translation unit that pays for Eigen's
// GEMM templates) for float, double and uint32_t. uint32_t is how int32
// kernels multiply: unsigned arithmetic wraps modulo 2^32, which is the
// two's-complement wrapping TensorFlow's int32 convolutions show, without
// signed overflow; callers view int32 buffers as uint32_t (the same object
// representation, and aliasing between the two is allowed).
#ifndef WEFT_KERNELS_CPU_GEMM_H_
#define WEFT_KERNELS_CPU_GEMM_H_

#include <cstdint>

#include "kernels/cpu/parallel_for.h"

namespace weft {

// op(M) of a row-major matrix M at `data`: element (i, j) of op(M) is
// data[i * ld + j], or data[j * ld + i] when `transposed`.
template <typename T>
struct GemmOperand {
  const T* data = nullptr;
  int64_t ld = 0;
  bool transposed = false;
};

// c = op(a) * op(b) on the calling thread, for op(a) m x k and op(b) k x n,
// into the row-major m x n matrix at `c` with leading dimension `ldc`
// (overwritten, never read). k == 0 gives zeros. `c` must not overlap the
// operands.
template <typename T>
void GemmSerial(int64_t m, int64_t k, int64_t n, GemmOperand<T> a,
                GemmOperand<T> b, T* c, int64_t ldc);

// The same product split into units through `parallel` (bands of
// output rows or columns; on the packed float path, blocks of rows times
// columns sharing one packed op(b)). Small products stay one unit.
template <typename T>
void Gemm(const ParallelForFn& parallel, int64_t m, int64_t k, int64_t n,
          GemmOperand<T> a, GemmOperand<T> b, T* c, int64_t ldc);

// What a fused kernel applies to each output element after the product,
// while the tile is still in cache:
//   c[i][j] = act((sum_k(...) + bias[j]) + residual[i * residual_ld + j]).
// Exactly the separate ops' results: the bias is one float addition after
// the complete sum over k (BiasAdd), the residual one more (the AddV2 of a
// residual connection, ResNet's shortcut), then the activation, as
// TensorFlow's kernels compute it:
//   kNone       x
//   kRelu       x < 0 ? 0 : x            (NaN and -0 pass through, as Relu)
//   kRelu6      x < 0 ? 0 : (x > 6 ? 6 : x)           (NaN passes, Relu6)
//   kElu        x < 0 ? exp(x) - 1 : x   (exp - 1 as TensorFlow, not expm1;
//               weft's vectorized exp, so within an ulp of the Elu op)
//   kLeakyRelu  x > 0 ? x : alpha * x    (LeakyRelu; NaN passes)
//   kSwish      x * sigmoid(beta * x)    (the _Swish op's bits: SwishFloat,
//               sigmoid_float.h)
//   kHardSwish  x * (relu6(x + 3) / 6)   (Keras' hard_silu: AddV2, Relu6,
//               RealDiv and Mul, each rounded as the op rounds it)
struct GemmEpilogue {
  enum class Activation {
    kNone,
    kRelu,
    kRelu6,
    kElu,
    kLeakyRelu,
    kSwish,
    kHardSwish
  };
  // bias[j] is added to column j of the (m x n) output; null: no bias.
  const float* bias = nullptr;
  Activation activation = Activation::kNone;
  // LeakyRelu's slope, already rounded to float.
  float alpha = 0.2f;
  // Swish's factor inside the sigmoid.
  float beta = 1.0f;
  // A tensor of the output's shape added before the activation: element
  // (i, j) of the (m x n) output at residual[i * residual_ld + j]; null:
  // none. It must not overlap c (c holds partial sums over k before the
  // epilogue runs).
  const float* residual = nullptr;
  int64_t residual_ld = 0;
};

// Whether `ep` does anything: a bias, a residual or an activation.
inline bool HasEpilogue(const GemmEpilogue& ep) {
  return ep.bias != nullptr || ep.residual != nullptr ||
         ep.activation != GemmEpilogue::Activation::kNone;
}

// The part of `ep` for the block of output whose first element is (row,
// col): its bias and residual moved there. How a caller that computes an
// output in blocks (a convolution's chunks of rows, a group's columns)
// hands each block its epilogue.
inline GemmEpilogue EpilogueAt(const GemmEpilogue& ep, int64_t row,
                               int64_t col) {
  GemmEpilogue e = ep;
  if (e.bias != nullptr) e.bias += col;
  if (e.residual != nullptr) e.residual += row * e.residual_ld + col;
  return e;
}

// c = epilogue(op(a) * op(b)), float only; otherwise as GemmSerial / Gemm
// above. A default GemmEpilogue gives the plain product, bit for bit.
void GemmSerial(int64_t m, int64_t k, int64_t n, GemmOperand<float> a,
                GemmOperand<float> b, float* c, int64_t ldc,
                const GemmEpilogue& epilogue);
void Gemm(const ParallelForFn& parallel, int64_t m, int64_t k, int64_t n,
          GemmOperand<float> a, GemmOperand<float> b, float* c, int64_t ldc,
          const GemmEpilogue& epilogue);

// op(b) of k x n products, packed once for many left-hand sides (a
// convolution's filter against chunks of patches, a constant weight against
// every run's activations: OpKernelConstruction::constant_input), so that
// each product skips packing it. Read-only once built: threads and
// concurrent runs may share it. Memory: on the AVX2 and AVX-512 paths about
// a copy of op(b), k x n floats with n rounded up to the micro-kernel's
// width (16 or 32 columns) and k to a multiple of its blocks; nothing on the
// baseline path, which multiplies from `b` where it is (as few-row products
// of a narrow op(b) do on the others), so `b`'s memory must outlive it. In the
// layout of the process's CPU path. `parallel`, when given, packs through it.
class GemmPackedRhs {
 public:
  GemmPackedRhs(int64_t k, int64_t n, GemmOperand<float> b,
                const ParallelForFn* parallel = nullptr);
  ~GemmPackedRhs();
  GemmPackedRhs(const GemmPackedRhs&) = delete;
  GemmPackedRhs& operator=(const GemmPackedRhs&) = delete;

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  // For gemm.cc: the operand, and its packed panels (null when not packed).
  const GemmOperand<float>& operand() const { return b_; }
  const float* packed() const { return packed_; }

 private:
  int64_t k_;
  int64_t n_;
  GemmOperand<float> b_;
  float* packed_ = nullptr;
};

// Where a product over a GemmPackedRhs will find its panels. kCached: in
// the shared cache, read moments ago (a later band of one layer's output).
// kMemory: not read since the run began (the first band of a layer: a
// network's weights do not stay in cache from one run to the next). The
// hint changes no result, only whether the product prefetches the panels
// of a large op(b) ahead of the micro-kernel as it streams them, which on
// an op(b) already in cache costs instructions for nothing.
enum class GemmRhsLocality { kCached, kMemory };

// An op(b) of at least this many floats (1 MiB: more than a core's L2 on
// the machines measured) is taken not to stay in cache from one product to
// the next: a product over it with kMemory prefetches its panels, and a
// caller that multiplies it piece by piece (separable_conv.cc's bands)
// reads it from memory each time.
constexpr int64_t kGemmLargeRhsFloats = int64_t{1} << 18;

// Filters of at least this many floats (256 KiB) are multiplied by
// GemmSerialStrided as not in L2 (GemmRhsLocality::kMemory): in a network
// each layer's filter comes from L3 or memory, and a 3x3 filter of 128 ->
// 128 channels (147K floats) taken in turn with 29 others on an 8x8 map ran
// in 0.87 (AVX-512) and 0.93 (AVX2) of the time with the prefetches
// (bench/RESULTS.md section 45). A 3x3 filter of 128 -> 32 channels (37K
// floats) multiplied again while in L2 took 1.03-1.05 of the time on the
// AVX2 path with them.
constexpr int64_t kGemmStridedFetchMinFloats = int64_t{1} << 16;

// The locality GemmSerialStrided's callers pass for a filter of `floats`.
inline GemmRhsLocality StridedFilterLocality(int64_t floats) {
  return floats >= kGemmStridedFetchMinFloats ? GemmRhsLocality::kMemory
                                              : GemmRhsLocality::kCached;
}

// c = epilogue(op(a) * op(b)) for op(a) m x b.k(), on the calling thread:
// bit for bit what GemmSerial(m, b.k(), b.n(), a, b.operand(), c, ldc,
// epilogue) gives.
void GemmSerial(int64_t m, GemmOperand<float> a, const GemmPackedRhs& b,
                float* c, int64_t ldc,
                const GemmEpilogue& epilogue = GemmEpilogue(),
                GemmRhsLocality locality = GemmRhsLocality::kCached);

// The same through `parallel`, split into units from the shape alone: bit
// for bit what Gemm(parallel, m, b.k(), b.n(), a, b.operand(), c, ldc,
// epilogue) and GemmSerial above give, at every thread count. m == 0 writes
// nothing; k == 0 gives epilogue(0).
void Gemm(const ParallelForFn& parallel, int64_t m, GemmOperand<float> a,
          const GemmPackedRhs& b, float* c, int64_t ldc,
          const GemmEpilogue& epilogue = GemmEpilogue(),
          GemmRhsLocality locality = GemmRhsLocality::kCached);

// A per-column transform of op(a) applied as the product reads it: the
// product's left-hand side is a' with
//   a'[i][l] = act((0 + a[i][l] * scale[l]) + shift[l])
// each operation rounded to float as written (no fused multiply-add), act one
// of kNone, kRelu and kRelu6 as GemmEpilogue defines them. These are the bits
// of a 1x1 depthwise convolution by `scale` with the epilogue (shift,
// activation) (depthwise_conv.h: its sum starts at +0), so a standalone batch
// normalization before a 1x1 convolution (DenseNet's, ResNetV2's) is done
// while the product packs op(a), instead of as a pass over memory of its own.
struct GemmLhsPrologue {
  const float* scale = nullptr;  // k values
  const float* shift = nullptr;  // k values, or null: none
  GemmEpilogue::Activation activation = GemmEpilogue::Activation::kNone;
};

// Whether a prologue may apply `activation`.
inline bool GemmLhsPrologueSupports(GemmEpilogue::Activation activation) {
  return activation == GemmEpilogue::Activation::kNone ||
         activation == GemmEpilogue::Activation::kRelu ||
         activation == GemmEpilogue::Activation::kRelu6;
}

// c = epilogue(a' * op(b)) for a' = prologue(op(a)) (above), op(a) an
// untransposed m x b.k() operand, through `parallel`: bit for bit what Gemm
// (parallel, m, a row-major copy of a', b, c, ldc, epilogue) gives, at every
// thread count. On the vector paths a' is made a block at a time as op(a) is
// packed (never stored whole); the baseline path makes it whole first.
void Gemm(const ParallelForFn& parallel, int64_t m, GemmOperand<float> a,
          const GemmLhsPrologue& prologue, const GemmPackedRhs& b, float* c,
          int64_t ldc, const GemmEpilogue& epilogue = GemmEpilogue(),
          GemmRhsLocality locality = GemmRhsLocality::kCached);

// The layout in which a caller may gather op(a) itself, straight into what
// the packed float GEMM multiplies from, sparing the product its copy of
// op(a) (a convolution's patches: the gather writes them anyway). An m x k
// op(a) is cut into blocks of `block_depth` columns (the GEMM's k blocks,
// which depend on k alone); block b holds rows of its columns `row_stride`
// floats apart, and starts m * row_stride floats after block b - 1:
// element (i, l) at Offset(m, i, l). `row_tile` is the micro-kernel's
// height: products of a multiple of it many rows waste no pass on a short
// tile.
struct GemmLhsLayout {
  int64_t block_depth = 0;
  int64_t row_stride = 0;
  int64_t row_tile = 0;

  int64_t Offset(int64_t m, int64_t i, int64_t l) const {
    return (l / block_depth) * m * row_stride + i * row_stride +
           l % block_depth;
  }
  // Floats an m x k op(a) takes.
  int64_t Size(int64_t m, int64_t k) const {
    return (k + block_depth - 1) / block_depth * m * row_stride;
  }
};

// The layout for a k-column op(a) on the active CPU path, or false on the
// baseline path (which multiplies from a row-major op(a): use Gemm). k > 0.
bool GemmGatheredLhsLayout(int64_t k, GemmLhsLayout* layout);

// c = epilogue(op(a) * op(b)) on the calling thread for op(a) m x b.k()
// gathered at `a` in the layout GemmGatheredLhsLayout(b.k()) gave: bit for
// bit what GemmSerial(m, row-major op(a), b, c, ldc, epilogue) gives. Only
// where that layout exists; m > 0, b.n() > 0.
void GemmSerialGathered(int64_t m, const float* a, const GemmPackedRhs& b,
                        float* c, int64_t ldc,
                        const GemmEpilogue& epilogue = GemmEpilogue(),
                        GemmRhsLocality locality = GemmRhsLocality::kCached);

// An op(a) that is not stored but read where it lies: a convolution's
// patches in its (padded) input. Its rows come in groups of `group_rows`
// (the pixels of one output row), row r of group g starting at
//   data + g * group_stride + r * row_stride,
// and a row's k elements are runs of `run` floats (a filter row's taps),
// run j at + j * run_stride: element l at
// (l / run) * run_stride + l % run.
// A run whose taps are not contiguous (a convolution's groups, or its
// dilated columns: a tap's channels, then a gap) is in pieces of `piece`
// contiguous floats `piece_stride` apart, piece i of a run at + i *
// piece_stride (run a multiple of piece); piece 0: the run is contiguous.
struct GemmStridedLhs {
  const float* data = nullptr;
  int64_t group_rows = 0;
  int64_t group_stride = 0;
  int64_t row_stride = 0;
  int64_t run = 0;
  int64_t run_stride = 0;
  int64_t piece = 0;
  int64_t piece_stride = 0;
};

// Whether GemmSerialStrided exists on the active CPU path (false on the
// baseline path: gather op(a) and use GemmSerial there).
bool GemmStridedLhsSupported();

// Whether, on the active CPU path, a float product of a band of op(a)'s
// rows gives those rows the bits of the whole product (the packed vector
// paths: see Determinism above), so that callers may split a product by
// rows themselves; false on the baseline path.
bool GemmRowBandsExact();

// Part `index` of `count` nearly equal parts of a product's columns, cut
// between the packed panels of op(b) (whose width depends on the CPU path):
// how a caller splits a product by columns without knowing that width. A
// part may be empty when count exceeds the panels.
struct GemmColumnPart {
  int64_t index = 0;
  int64_t count = 1;
};

// c = epilogue(op(a) * op(b)) on the calling thread for op(a) of m rows
// (whole groups) and b.k() columns given by `a`, row i of c at c + i * ldc,
// in the columns of `part` (c, bias and residual indexed as for the whole
// product; other columns are not touched): bit for bit what GemmSerial(m,
// a row-major copy of op(a), b, c, ldc, epilogue) gives there. Each k block
// of a packed panel of op(b) is used for all m rows before the next, so m
// rows read their columns of the filter once. Only where
// GemmStridedLhsSupported(); m > 0, b.k() > 0, b.n() > 0. `accumulate`:
// c = epilogue(c + op(a) * op(b)) instead, c's values added to the first k
// block's sums (a product summed over several calls: a convolution's taps,
// conv2d_taps.h); each element's sum over k is the same as without.
// `locality` kMemory: op(b) is taken not to be in this core's L2, so each
// pass over a panel of b asks for a share of the next panel into L2 while
// it multiplies (op(a) in pieces excepted); the results are the same either
// way. It costs 3-5% on the AVX2 path where op(b) is small and found in L2
// after all, so callers pass it for a whole filter of at least
// kGemmStridedFetchMinFloats.
void GemmSerialStrided(int64_t m, const GemmStridedLhs& a,
                       const GemmPackedRhs& b, float* c, int64_t ldc,
                       const GemmEpilogue& epilogue = GemmEpilogue(),
                       GemmColumnPart part = GemmColumnPart(),
                       bool accumulate = false,
                       GemmRhsLocality locality = GemmRhsLocality::kCached);

#define WEFT_DECLARE_GEMM(T)                                                   \
  extern template void GemmSerial<T>(                                          \
      int64_t, int64_t, int64_t, GemmOperand<T>, GemmOperand<T>, T*, int64_t); \
  extern template void Gemm<T>(const ParallelForFn&, int64_t, int64_t,         \
                               int64_t, GemmOperand<T>, GemmOperand<T>, T*,    \
                               int64_t);
WEFT_DECLARE_GEMM(float)
WEFT_DECLARE_GEMM(double)
WEFT_DECLARE_GEMM(uint32_t)
#undef WEFT_DECLARE_GEMM

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_GEMM_H_
