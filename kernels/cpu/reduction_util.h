// Shared machinery of the CPU reductions (Sum, Mean, Prod, Max, Min, All,
// Any) and of the contractions built on them (BatchMatMulV2, Einsum).
//
// A reduction is planned once per call from the input shape and the axes
// (kernels/common/reduction_shape.h, shared with the CUDA kernels): size-1
// dimensions dropped, neighbours of the same kind merged into alternating
// runs, each reduced run one pass over an [outer, len, inner] view. Here a
// pass is rows (inner == 1, contiguous runs reduced with Eigen's vectorized
// redux) or columns (inner > 1, whole rows of `inner` values combined
// element-wise, also vectorized). Several reduced runs ([r, k, r] after
// merging) take one pass each, innermost first, through a temporary of the
// accumulation type.
//
// The per-dtype code is a small table of element loops (ReduceFns) built
// from a reducer and a dtype by ReduceFnsFor; everything else (the passes,
// the parallel split, the temporaries) is compiled once in
// reduction_util.cc. Each reduction_ops_*.cc instantiates only the tables it
// registers, which keeps the Eigen templates out of the shared code.
//
// Accumulation follows TensorFlow where TensorFlow is exact, and is at
// least as accurate where it is not:
//  - integers wrap modulo 2^bits as in TensorFlow: Sum and Prod accumulate in
//    the unsigned type of the same width (the same bits as TensorFlow's
//    two's-complement wrapping, without signed overflow); Mean sums in 64
//    bits (TensorFlow casts int32 to int64 first) and divides, truncating
//    toward zero;
//  - half and bfloat16 accumulate in float and round once. TensorFlow sums
//    bfloat16 in float too, but half in half, which stagnates on long
//    reductions (5000 halves of 0.1 summed over a non-innermost axis give
//    256 there, 500 here) and divides a half Mean by half(count), which is
//    inf beyond 65504 elements (a Mean of 100000 halves is 0 there); it
//    multiplies both in their own precision (a half Prod of [300, 300,
//    0.001] overflows to inf there and is 90 here);
//  - Max and Min propagate NaN (Eigen's PropagateNaN reducers, as
//    TensorFlow's); the identities of an empty reduction are TensorFlow's:
//    0 (Sum), 1 (Prod), -inf / the lowest integer (Max), +inf / the highest
//    integer (Min), NaN for a floating Mean and 0 for an integer Mean, true
//    (All), false (Any).
//
// Results do not depend on the thread count: how the work is split into
// pieces (including splitting a long reduced run into blocks whose partial
// results are combined in a fixed order) is decided from the shape alone.
#ifndef WEFT_KERNELS_CPU_REDUCTION_UTIL_H_
#define WEFT_KERNELS_CPU_REDUCTION_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <Eigen/Core>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/dtype_traits.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "kernels/common/reduction_shape.h"
#include "kernels/op_kernel.h"

namespace weft {

// ---- per-dtype loops ------------------------------------------------------

// The element loops of one reducer for one dtype T, with partial results in
// an accumulation dtype Acc. `In` below is T for functions reading the
// input and Acc for functions reading partial results.
struct ReduceFns {
  DataType acc_dtype = DT_INVALID;
  // Whether a partial result of Acc is already the output's value (same
  // bits, no division): the last pass may then write the output directly.
  bool acc_is_output = false;
  // out[i] = R(in[i * len + r] for r < len), for i < rows; len >= 1.
  void (*rows_from_input)(const void* in, void* out, int64_t rows,
                          int64_t len) = nullptr;
  void (*rows_from_acc)(const void* in, void* out, int64_t rows,
                        int64_t len) = nullptr;
  // out[j] = R(in[r * stride + j] for r < len), for j < width; len >= 1.
  void (*cols_from_input)(const void* in, int64_t stride, void* out,
                          int64_t len, int64_t width) = nullptr;
  void (*cols_from_acc)(const void* in, int64_t stride, void* out, int64_t len,
                        int64_t width) = nullptr;
  // out[i] (T) = the final value of partial result acc[i] over `count`
  // input elements (Mean divides; others convert).
  void (*finish)(const void* acc, void* out, int64_t n,
                 int64_t count) = nullptr;
  // out[i] (T) = the value of reducing nothing, for i < n.
  void (*fill_identity)(void* out, int64_t n) = nullptr;
};

// Reduces `in` by `plan` into `out`, allocated by the caller with
// plan.output_shape and in's dtype. Temporaries come from ctx.
Status RunReduction(OpKernelContext* ctx, const ReduceFns& fns,
                    const Tensor& in, const ReductionPlan& plan, Tensor* out);

// The Sum loops for `dtype` (half, bfloat16, float, double, int32, int64),
// for kernels that sum out dimensions (Einsum); null for other dtypes.
// Defined with the Sum kernels.
const ReduceFns* SumReduceFns(DataType dtype);

// The kernel of every reduction op: input 0 reduced over the axes in input
// 1 (int32 or int64, any shape; its elements are the axes), honouring the
// keep_dims attr. An empty axes list or reducing only size-1 dimensions
// returns the input reshaped, sharing its buffer.
class ReductionOp : public OpKernel {
 public:
  ReductionOp(OpKernelConstruction* ctx, const ReduceFns& fns);
  void Compute(OpKernelContext* ctx) const override;

 private:
  const ReduceFns& fns_;
  bool keep_dims_ = false;
};

// ---- reducers -------------------------------------------------------------

namespace reduction_internal {

// Wrapping integer arithmetic: the unsigned type of the same width.
template <typename T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct Wrap {
  using type = T;
};
template <typename T>
struct Wrap<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using WrapOf = typename Wrap<T>::type;

// Eigen's boolean functors have no packet reduction (predux), so Eigen
// could not reduce with them; these are the same operations without
// packet access.
struct AndFunctor {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct OrFunctor {
  bool operator()(bool a, bool b) const { return a || b; }
};
// Narrow floats accumulate in float.
template <typename T>
using WidenOf =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
                       float, T>;

template <typename T>
constexpr bool kIsFloating = !std::is_integral_v<WidenOf<T>>;

}  // namespace reduction_internal

}  // namespace weft

namespace Eigen::internal {
template <>
struct functor_traits<weft::reduction_internal::AndFunctor> {
  enum { Cost = 1, PacketAccess = false };
};
template <>
struct functor_traits<weft::reduction_internal::OrFunctor> {
  enum { Cost = 1, PacketAccess = false };
};
}  // namespace Eigen::internal

namespace weft {

// A reducer names its accumulation type, the Eigen functor combining two
// partial results, the identity, and how a partial result becomes T.
struct SumReducer {
  template <typename T>
  using Acc = reduction_internal::WrapOf<reduction_internal::WidenOf<T>>;
  template <typename A>
  using Functor = Eigen::internal::scalar_sum_op<A, A>;
  template <typename A>
  static A Identity() {
    return A(0);
  }
  static constexpr bool kDivides = false;
};

struct MeanReducer {
  // Integers sum in 64 bits (wrapping), as TensorFlow's int64 cast.
  template <typename T>
  using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t,
                                 reduction_internal::WidenOf<T>>;
  template <typename A>
  using Functor = Eigen::internal::scalar_sum_op<A, A>;
  template <typename A>
  static A Identity() {
    return A(0);
  }
  static constexpr bool kDivides = true;
};

struct ProdReducer {
  template <typename T>
  using Acc = reduction_internal::WrapOf<reduction_internal::WidenOf<T>>;
  template <typename A>
  using Functor = Eigen::internal::scalar_product_op<A, A>;
  template <typename A>
  static A Identity() {
    return A(1);
  }
  static constexpr bool kDivides = false;
};

struct MaxReducer {
  template <typename T>
  using Acc = reduction_internal::WidenOf<T>;
  template <typename A>
  using Functor = Eigen::internal::scalar_max_op<A, A, Eigen::PropagateNaN>;
  template <typename A>
  static A Identity() {
    if constexpr (std::numeric_limits<A>::has_infinity) {
      return -std::numeric_limits<A>::infinity();
    } else {
      return std::numeric_limits<A>::lowest();
    }
  }
  static constexpr bool kDivides = false;
};

struct MinReducer {
  template <typename T>
  using Acc = reduction_internal::WidenOf<T>;
  template <typename A>
  using Functor = Eigen::internal::scalar_min_op<A, A, Eigen::PropagateNaN>;
  template <typename A>
  static A Identity() {
    if constexpr (std::numeric_limits<A>::has_infinity) {
      return std::numeric_limits<A>::infinity();
    } else {
      return std::numeric_limits<A>::max();
    }
  }
  static constexpr bool kDivides = false;
};

struct AllReducer {
  template <typename T>
  using Acc = bool;
  template <typename A>
  using Functor = reduction_internal::AndFunctor;
  template <typename A>
  static A Identity() {
    return true;
  }
  static constexpr bool kDivides = false;
};

struct AnyReducer {
  template <typename T>
  using Acc = bool;
  template <typename A>
  using Functor = reduction_internal::OrFunctor;
  template <typename A>
  static A Identity() {
    return false;
  }
  static constexpr bool kDivides = false;
};

namespace reduction_internal {

// Column passes at most this wide use scalar accumulators.
constexpr int64_t kNarrowWidth = 8;

template <typename T>
using ConstVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using Vec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

template <typename Reducer, typename In, typename Acc>
void Rows(const void* in, void* out, int64_t rows, int64_t len) {
  using F = typename Reducer::template Functor<Acc>;
  const In* x = static_cast<const In*>(in);
  Acc* y = static_cast<Acc*>(out);
  for (int64_t i = 0; i < rows; ++i) {
    y[i] = ConstVec<In>(x + i * len, len).template cast<Acc>().redux(F());
  }
}

template <typename Reducer, typename In, typename Acc>
void Cols(const void* in, int64_t stride, void* out, int64_t len,
          int64_t width) {
  using F = typename Reducer::template Functor<Acc>;
  const In* x = static_cast<const In*>(in);
  if (width <= kNarrowWidth) {
    // Rows too short for a vector expression to pay for itself: scalar
    // accumulators, one per column. Each column is combined in row order,
    // as in the vector loop, so both give the same result.
    Acc acc[kNarrowWidth];
    for (int64_t j = 0; j < width; ++j) acc[j] = static_cast<Acc>(x[j]);
    for (int64_t r = 1; r < len; ++r) {
      const In* row = x + r * stride;
      for (int64_t j = 0; j < width; ++j) {
        acc[j] = F()(acc[j], static_cast<Acc>(row[j]));
      }
    }
    std::copy_n(acc, width, static_cast<Acc*>(out));
    return;
  }
  Vec<Acc> acc(static_cast<Acc*>(out), width);
  acc = ConstVec<In>(x, width).template cast<Acc>();
  for (int64_t r = 1; r < len; ++r) {
    acc = acc.binaryExpr(
        ConstVec<In>(x + r * stride, width).template cast<Acc>(), F());
  }
}

template <typename Reducer, typename T, typename Acc>
void Finish(const void* acc, void* out, int64_t n, int64_t count) {
  const Acc* a = static_cast<const Acc*>(acc);
  T* y = static_cast<T*>(out);
  if constexpr (Reducer::kDivides && std::is_integral_v<T>) {
    // The wrapped 64-bit sum, read as signed, divided truncating toward
    // zero (count >= 1 here: an empty reduction fills the identity).
    for (int64_t i = 0; i < n; ++i) {
      y[i] = static_cast<T>(static_cast<int64_t>(a[i]) / count);
    }
  } else if constexpr (Reducer::kDivides) {
    Vec<T>(y, n) =
        (ConstVec<Acc>(a, n) / static_cast<Acc>(count)).template cast<T>();
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Unsigned to signed of the same width: the two's-complement value.
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(a[i]);
  } else {
    Vec<T>(y, n) = ConstVec<Acc>(a, n).template cast<T>();
  }
}

template <typename Reducer, typename T>
void FillIdentity(void* out, int64_t n) {
  using Acc = typename Reducer::template Acc<T>;
  // A floating Mean of nothing is 0/0; Identity<Acc> of a wrapped integer
  // type converts to the same value of T (0, 1).
  const T value = (Reducer::kDivides && kIsFloating<T>)
                      ? static_cast<T>(std::numeric_limits<float>::quiet_NaN())
                      : static_cast<T>(Reducer::template Identity<Acc>());
  std::fill_n(static_cast<T*>(out), n, value);
}

}  // namespace reduction_internal

// The loops of `Reducer` on T, instantiated where a kernel registers them.
template <typename Reducer, typename T>
const ReduceFns& ReduceFnsFor() {
  using Acc = typename Reducer::template Acc<T>;
  using reduction_internal::Cols;
  using reduction_internal::Rows;
  static const ReduceFns fns = [] {
    ReduceFns f;
    f.acc_dtype = DataTypeToEnum<Acc>::value;
    f.acc_is_output = !Reducer::kDivides && sizeof(Acc) == sizeof(T) &&
                      (std::is_same_v<Acc, T> ||
                       (std::is_integral_v<Acc> && std::is_integral_v<T>));
    f.rows_from_input = &Rows<Reducer, T, Acc>;
    f.rows_from_acc = &Rows<Reducer, Acc, Acc>;
    f.cols_from_input = &Cols<Reducer, T, Acc>;
    f.cols_from_acc = &Cols<Reducer, Acc, Acc>;
    f.finish = &reduction_internal::Finish<Reducer, T, Acc>;
    f.fill_identity = &reduction_internal::FillIdentity<Reducer, T>;
    return f;
  }();
  return fns;
}

// ReductionOp bound to one reducer and dtype, for REGISTER_KERNEL_BUILDER.
template <typename Reducer, typename T>
class ReductionOpFor : public ReductionOp {
 public:
  explicit ReductionOpFor(OpKernelConstruction* ctx)
      : ReductionOp(ctx, ReduceFnsFor<Reducer, T>()) {}
};

// ---- contractions -----------------------------------------------------------

// out = op(x) * op(y) over broadcast batch dimensions: x is [..., m, k]
// ([..., k, m] when adj_x), y is [..., k, n] ([..., n, k] when adj_y), the
// leading dimensions broadcast as in NumPy, and `out` is allocated by the
// caller with the broadcast batch shape followed by [m, n]. Dtypes: float,
// double, half and bfloat16 (computed in float, rounded once), int32 and
// int64 (wrapping). The shapes must already be checked; InvalidArgument for
// another dtype. Defined with the BatchMatMulV2 kernel.
Status BatchMatMulCompute(OpKernelContext* ctx, const Tensor& x, bool adj_x,
                          const Tensor& y, bool adj_y, Tensor* out);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_REDUCTION_UTIL_H_
