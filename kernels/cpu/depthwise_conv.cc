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
// Interior pixels are computed in strips of kStrip pixels along W, one
// block of L channels (L floats: a vector register, 16 with AVX-512) at a
// time: the strip's kStrip accumulators stay in registers across all taps,
// each filter tap is loaded once per strip and block rather than once per
// pixel, and for the common 3x3 and 5x5 filters with stride 1 or 2 (window
// and stride compile-time constants) each input vector of a filter row is
// loaded once and used by every pixel of the strip whose window covers it.
// Channel counts that are not a multiple of the widest vector end with
// narrower blocks (8, 4, then single floats), computed the same way.
//
// A multiplier M > 1 repeats each input channel M times; the valid input
// rows are first expanded to C * M channels into a per-thread buffer, so the
// loops above only ever see one input value per output channel.
//
// The epilogue's bias and Relu, Relu6 or LeakyRelu are applied to the
// accumulators before they are stored; Elu, which needs exp, runs on each
// output row right after it is computed, while the row is still in cache.
#include "kernels/cpu/depthwise_conv.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/fused_epilogue.h"

namespace weft {
namespace {

// The widest vector of floats the build's instruction set has registers
// for (GCC splits wider vector types into several registers, which would
// only add register pressure).
#if defined(__AVX512F__)
constexpr int kMaxLanes = 16;
#elif defined(__AVX__)
constexpr int kMaxLanes = 8;
#else
constexpr int kMaxLanes = 4;
#endif

// Output pixels per interior strip: accumulators plus the input vectors of
// one filter row ((kStrip - 1) * stride + window of them) must fit in the
// register file (32 vector registers with AVX-512, 16 below).
#if defined(__AVX512F__)
constexpr int kStrip = 8;
#else
constexpr int kStrip = 4;
#endif

template <int L>
struct VecType {
  typedef float type __attribute__((vector_size(L * sizeof(float))));
};
template <>
struct VecType<1> {
  using type = float;
};
template <int L>
using Vec = typename VecType<L>::type;

template <int L>
struct Lanes {
  static constexpr int kLanes = L;
};

// Unaligned loads and stores (channel blocks start anywhere).
template <typename V>
inline V Load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
template <typename V>
inline void Store(float* p, const V& v) {
  std::memcpy(p, &v, sizeof(V));
}

// Calls fn(Lanes<L>{}, c) for channel blocks [c, c + L) covering [0, n):
// the widest blocks first, then narrower ones for the remainder.
template <typename Fn>
inline void ForChannelBlocks(int64_t n, Fn&& fn) {
  int64_t c = 0;
  if constexpr (kMaxLanes >= 16) {
    for (; c + 16 <= n; c += 16) fn(Lanes<16>{}, c);
  }
  if constexpr (kMaxLanes >= 8) {
    for (; c + 8 <= n; c += 8) fn(Lanes<8>{}, c);
  }
  for (; c + 4 <= n; c += 4) fn(Lanes<4>{}, c);
  for (; c < n; ++c) fn(Lanes<1>{}, c);
}

// One output row's operands.
struct RowArgs {
  // in[kh] for kh in [kh_lo, kh_hi): the input row under filter row kh,
  // its pixels `ld` floats apart, each holding the ld channels that the
  // output channels read (the input itself when M == 1).
  const float* const* in = nullptr;
  int64_t kh_lo = 0;
  int64_t kh_hi = 0;
  int64_t ld = 0;  // C * M
  const float* filter = nullptr;
  int64_t window = 0;  // filter columns
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_left = 0;
  float* out = nullptr;  // the output row, pixels ld floats apart
  // The epilogue applied to each vector before it is stored (kElu is left
  // to ApplyEpilogueRows on the finished row: it needs exp).
  const float* bias = nullptr;
  GemmEpilogue::Activation activation = GemmEpilogue::Activation::kNone;
  float alpha = 0;
};

// What ApplyEpilogueRows computes for one vector of channels [c, c + L),
// with the same operations and selects, so the results are the same bits.
template <typename V>
inline V Finish(const RowArgs& r, V v, int64_t c) {
  using Act = GemmEpilogue::Activation;
  if (r.bias != nullptr) v = v + Load<V>(r.bias + c);
  const V zero = V{};
  switch (r.activation) {
    case Act::kRelu:
      return v < zero ? zero : v;
    case Act::kRelu6: {
      const V six = zero + 6.0f;
      return v < zero ? zero : (v > six ? six : v);
    }
    case Act::kLeakyRelu:
      return v > zero ? v : v * r.alpha;
    default:
      return v;
  }
}

// Output pixels [ow, ow + P), channels [c, c + L), summing filter columns
// [kw_lo, kw_hi), which must be in bounds for all P pixels.
template <int L, int P>
inline void StripAnyWindow(const RowArgs& r, int64_t ow, int64_t kw_lo,
                           int64_t kw_hi, int64_t c) {
  using V = Vec<L>;
  V acc[P];
  for (int p = 0; p < P; ++p) acc[p] = V{};
  const int64_t step = r.stride * r.ld;
  for (int64_t kh = r.kh_lo; kh < r.kh_hi; ++kh) {
    const float* line = r.in[kh] + (ow * r.stride - r.pad_left) * r.ld + c;
    const float* f = r.filter + kh * r.window * r.ld + c;
    for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
      const V fv = Load<V>(f + kw * r.ld);
      const float* x = line + kw * r.dilation * r.ld;
      for (int p = 0; p < P; ++p) acc[p] += Load<V>(x + p * step) * fv;
    }
  }
  for (int p = 0; p < P; ++p) {
    Store(r.out + (ow + p) * r.ld + c, Finish(r, acc[p], c));
  }
}

// As StripAnyWindow over all KW columns, undilated, with stride SW: each
// input vector of a filter row is loaded once for the whole strip.
template <int L, int P, int KW, int SW>
inline void StripFixedWindow(const RowArgs& r, int64_t ow, int64_t c) {
  using V = Vec<L>;
  constexpr int kInputs = (P - 1) * SW + KW;
  V acc[P];
  for (int p = 0; p < P; ++p) acc[p] = V{};
  for (int64_t kh = r.kh_lo; kh < r.kh_hi; ++kh) {
    const float* x = r.in[kh] + (ow * SW - r.pad_left) * r.ld + c;
    const float* f = r.filter + kh * KW * r.ld + c;
    V in[kInputs];
    for (int i = 0; i < kInputs; ++i) in[i] = Load<V>(x + i * r.ld);
    for (int kw = 0; kw < KW; ++kw) {
      const V fv = Load<V>(f + kw * r.ld);
      for (int p = 0; p < P; ++p) acc[p] += in[p * SW + kw] * fv;
    }
  }
  for (int p = 0; p < P; ++p) {
    Store(r.out + (ow + p) * r.ld + c, Finish(r, acc[p], c));
  }
}

// Interior pixels [begin, end) of channel block [c, c + L), in strips of P
// pixels. A last partial strip is shifted left to end at `end`, recomputing
// a few pixels of the previous strip to the same values, rather than taking
// slower narrow strips. Blocks are the outer loop so that a strip's filter
// taps and the row's input lines of the block stay hot across strips.
template <int L, int P, typename StripFn>
inline void Strips(int64_t begin, int64_t end, StripFn&& strip) {
  if (end - begin >= P) {
    for (int64_t ow = begin; ow < end; ow += P) {
      strip(std::integral_constant<int, P>{}, std::min(ow, end - P));
    }
  } else if constexpr (P > 4) {
    Strips<L, 4>(begin, end, strip);
  } else {
    for (int64_t ow = begin; ow < end; ++ow) {
      strip(std::integral_constant<int, 1>{}, ow);
    }
  }
}

template <int KW, int SW>
void InteriorFixedWindow(const RowArgs& r, int64_t begin, int64_t end) {
  ForChannelBlocks(r.ld, [&](auto lanes, int64_t c) {
    constexpr int L = decltype(lanes)::kLanes;
    Strips<L, kStrip>(begin, end, [&](auto p, int64_t ow) {
      StripFixedWindow<L, decltype(p)::value, KW, SW>(r, ow, c);
    });
  });
}

void InteriorAnyWindow(const RowArgs& r, int64_t begin, int64_t end) {
  ForChannelBlocks(r.ld, [&](auto lanes, int64_t c) {
    constexpr int L = decltype(lanes)::kLanes;
    Strips<L, kStrip>(begin, end, [&](auto p, int64_t ow) {
      StripAnyWindow<L, decltype(p)::value>(r, ow, 0, r.window, c);
    });
  });
}

// Output pixels [begin, end) of a row, all of whose filter columns are in
// bounds.
void Interior(const RowArgs& r, int64_t begin, int64_t end) {
  if (begin >= end) return;
  if (r.dilation == 1) {
    if (r.window == 3 && r.stride == 1) {
      return InteriorFixedWindow<3, 1>(r, begin, end);
    }
    if (r.window == 3 && r.stride == 2) {
      return InteriorFixedWindow<3, 2>(r, begin, end);
    }
    if (r.window == 5 && r.stride == 1) {
      return InteriorFixedWindow<5, 1>(r, begin, end);
    }
    if (r.window == 5 && r.stride == 2) {
      return InteriorFixedWindow<5, 2>(r, begin, end);
    }
  }
  InteriorAnyWindow(r, begin, end);
}

// One output pixel near the border, over its valid filter columns.
void EdgePixel(const RowArgs& r, const WindowDim& cols, int64_t ow) {
  int64_t kw_lo, kw_hi;
  ValidTaps(cols, ow, &kw_lo, &kw_hi);
  ForChannelBlocks(r.ld, [&](auto lanes, int64_t c) {
    StripAnyWindow<decltype(lanes)::kLanes, 1>(r, ow, kw_lo, kw_hi, c);
  });
}

}  // namespace

void DepthwiseConvRows(const DepthwiseGeometry& g, const float* in,
                       const float* filter, const GemmEpilogue* epilogue,
                       float* out, int64_t first, int64_t last) {
  const int64_t c = g.depth;
  const int64_t m = g.multiplier;
  const int64_t cm = g.out_depth();
  const int64_t in_row = g.cols.input * c;
  const WindowDim& cols = g.cols;
  // Output columns whose whole window is inside the input:
  // ow * stride - pad_left >= 0 and
  // ow * stride - pad_left + (window - 1) * dilation <= input - 1.
  const int64_t interior_begin =
      std::min(cols.output, (cols.pad_before + cols.stride - 1) / cols.stride);
  const int64_t last_start =
      cols.input - 1 - (cols.window - 1) * cols.dilation + cols.pad_before;
  const int64_t interior_end = std::max(
      interior_begin,
      last_start < 0 ? 0 : std::min(cols.output, last_start / cols.stride + 1));

  std::vector<const float*> rows(g.rows.window, nullptr);
  // M > 1: the valid input rows of the current output row, each input
  // value repeated M times.
  std::vector<float> expanded(m == 1 ? 0 : g.rows.window * cols.input * cm);
  RowArgs r;
  r.in = rows.data();
  r.ld = cm;
  r.filter = filter;
  r.window = cols.window;
  r.stride = cols.stride;
  r.dilation = cols.dilation;
  r.pad_left = cols.pad_before;
  // Bias and activation in registers, except Elu after each row.
  const bool elu = epilogue != nullptr &&
                   epilogue->activation == GemmEpilogue::Activation::kElu;
  if (epilogue != nullptr && !elu) {
    r.bias = epilogue->bias;
    r.activation = epilogue->activation;
    r.alpha = epilogue->alpha;
  }
  for (int64_t row = first; row < last; ++row) {
    const int64_t n = row / g.rows.output;
    const int64_t oh = row % g.rows.output;
    ValidTaps(g.rows, oh, &r.kh_lo, &r.kh_hi);
    const int64_t ih0 = oh * g.rows.stride - g.rows.pad_before;
    const float* image = in + n * g.rows.input * in_row;
    for (int64_t kh = r.kh_lo; kh < r.kh_hi; ++kh) {
      const float* line = image + (ih0 + kh * g.rows.dilation) * in_row;
      if (m == 1) {
        rows[kh] = line;
        continue;
      }
      float* dst = expanded.data() + kh * cols.input * cm;
      for (int64_t i = 0; i < cols.input * c; ++i) {
        std::fill_n(dst + i * m, m, line[i]);
      }
      rows[kh] = dst;
    }
    r.out = out + row * cols.output * cm;
    for (int64_t ow = 0; ow < interior_begin; ++ow) EdgePixel(r, cols, ow);
    Interior(r, interior_begin, interior_end);
    for (int64_t ow = interior_end; ow < cols.output; ++ow) {
      EdgePixel(r, cols, ow);
    }
    if (elu) {
      ApplyEpilogueRows(*epilogue, r.out, cols.output, cm, cm);
    }
  }
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
    DepthwiseConvRows(g, in, filter, epilogue, out, first, last);
  });
}

}  // namespace weft
