// SparseSegmentSum/Mean/SqrtN and their WithNumSegments forms on the CPU:
// output row s reduces the data rows indices[j] for every j with
// segment_ids[j] == s. Ids must be sorted and >= 0; rows no id names are 0;
// the output has last id + 1 rows, or num_segments rows (which must exceed
// every id). The sparse_gradient attr only matters to TensorFlow's gradient.
//
// Arithmetic follows TensorFlow's CPU kernel exactly, since float sums
// depend on their grouping: a segment of one row is copied; otherwise its
// first 2 to 9 rows (the count mod 8, 8 for 0 and 9 for 1) are summed left
// to right and scaled, then each following group of 8 rows is summed left
// to right and added. The scale is multiplication by 1 / n (Mean) or
// 1 / sqrt(n) (SqrtN) when n < 10; for n >= 10 the sum is divided by n or
// sqrt(n) at the end. half and bfloat16 are computed in float and rounded
// once; integers (Sum only) wrap.
//
// The ids and indices are checked first, segment by segment in TensorFlow's
// order, then the output rows are computed split over the arena.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/dtype_traits.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/cpu/segment_arith.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

using segment::Reduce;

// The type TensorFlow accumulates T in.
template <typename T>
using AccType =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
                       float, T>;

// out[c] = the reduction of rows idx[0..num) of data, as described above.
template <typename T>
void ReduceSegment(Reduce r, const T* data, const int64_t* idx, int64_t num,
                   int64_t inner, AccType<T>* acc, T* out) {
  using A = AccType<T>;
  auto row = [&](int64_t i) { return data + idx[i] * inner; };
  if (num == 1) {
    std::copy_n(row(0), inner, out);
    return;
  }
  A scale = A(1);
  if (r == Reduce::kMean && num < 10) scale = A(1) / A(num);
  if (r == Reduce::kSqrtN && num < 10) {
    scale = A(1) / static_cast<A>(std::sqrt(static_cast<double>(num)));
  }
  int64_t first = num & 7;
  if (first < 2) first += 8;
  for (int64_t c = 0; c < inner; ++c) {
    A sum = static_cast<A>(row(0)[c]);
    for (int64_t i = 1; i < first; ++i) {
      sum = segment::Add(sum, static_cast<A>(row(i)[c]));
    }
    acc[c] = segment::Mul(sum, scale);
  }
  for (int64_t g = first; g < num; g += 8) {
    for (int64_t c = 0; c < inner; ++c) {
      A sum = static_cast<A>(row(g)[c]);
      for (int64_t i = 1; i < 8; ++i) {
        sum = segment::Add(sum, static_cast<A>(row(g + i)[c]));
      }
      acc[c] = segment::Add(acc[c], sum);
    }
  }
  if (num >= 10 && r == Reduce::kMean) {
    for (int64_t c = 0; c < inner; ++c) acc[c] = acc[c] / A(num);
  }
  if (num >= 10 && r == Reduce::kSqrtN) {
    const A root = static_cast<A>(std::sqrt(static_cast<double>(num)));
    for (int64_t c = 0; c < inner; ++c) acc[c] = acc[c] / root;
  }
  for (int64_t c = 0; c < inner; ++c) out[c] = static_cast<T>(acc[c]);
}

class SparseSegmentReductionOp : public OpKernel {
 public:
  SparseSegmentReductionOp(OpKernelConstruction* ctx, Reduce reduce,
                           bool num_segments)
      : OpKernel(ctx), reduce_(reduce), num_segments_(num_segments) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& data = ctx->input(0);
    const Tensor& indices_tensor = ctx->input(1);
    const Tensor& ids_tensor = ctx->input(2);
    OP_REQUIRES(ctx, indices_tensor.dims() == 1,
                errors::InvalidArgument(
                    "indices should be a vector. indices (input 1) has shape ",
                    indices_tensor.shape().DebugString()));
    OP_REQUIRES(ctx, ids_tensor.dims() == 1,
                errors::InvalidArgument(
                    "segment_ids should be a vector. segment_ids (input 2) "
                    "has shape ",
                    ids_tensor.shape().DebugString()));
    const int64_t n = indices_tensor.NumElements();
    OP_REQUIRES(
        ctx, n == ids_tensor.NumElements(),
        errors::InvalidArgument(
            "segment_ids and indices should have same size. indices "
            "(input 1) has ",
            n, " elements, segment_ids (input 2) ", ids_tensor.NumElements()));
    std::vector<int64_t> ids;
    std::vector<int64_t> indices;
    OP_REQUIRES_OK(ctx,
                   ReadIndexTensor(ids_tensor, "segment_ids (input 2)", &ids));
    OP_REQUIRES_OK(
        ctx, ReadIndexTensor(indices_tensor, "indices (input 1)", &indices));
    const int64_t last = n > 0 ? ids[n - 1] : -1;
    OP_REQUIRES(ctx, last < std::numeric_limits<int64_t>::max(),
                errors::InvalidArgument("segment id ", last, " is too large"));
    int64_t rows = last + 1;
    if (num_segments_) {
      const Tensor& num = ctx->input(3);
      OP_REQUIRES(
          ctx, num.dims() == 0,
          errors::InvalidArgument("num_segments should be a scalar, not shape ",
                                  num.shape().DebugString()));
      OP_REQUIRES_OK(ctx,
                     ReadIndexScalar(num, "num_segments (input 3)",
                                     /*allow_vector_of_one=*/false, &rows));
      OP_REQUIRES(
          ctx, n == 0 || rows >= last + 1,
          errors::InvalidArgument("segment ids must be < num_segments"));
    }
    OP_REQUIRES(ctx, rows >= 0,
                errors::InvalidArgument("segment ids must be >= 0"));
    OP_REQUIRES(ctx, data.dims() >= 1,
                errors::InvalidArgument(
                    "Shape must be at least rank 1. data (input 0) has shape ",
                    data.shape().DebugString()));
    std::vector<int64_t> out_dims(data.shape().dim_sizes().begin(),
                                  data.shape().dim_sizes().end());
    out_dims[0] = rows;
    StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    OP_REQUIRES(ctx, n == 0 || rows > 0,
                errors::InvalidArgument("segment ids must be >= 0"));
    const int64_t data_rows = data.dim_size(0);
    // Output row s reduces indices[first[s] .. first[s + 1]) when has[s].
    std::vector<int64_t> first(rows + 1, n);
    std::vector<char> has(rows, 0);
    int64_t start = 0;
    while (start < n) {
      const int64_t id = ids[start];
      int64_t end = start + 1;
      while (end < n && ids[end] == id) ++end;
      OP_REQUIRES(ctx, end == n || id < ids[end],
                  errors::InvalidArgument("segment ids are not increasing"));
      OP_REQUIRES(ctx, id >= 0 && id < rows,
                  errors::InvalidArgument(
                      "Segment id ", id, " out of range [0, ", rows,
                      "), possibly because 'segment_ids' input is not "
                      "sorted."));
      for (int64_t j = start; j < end; ++j) {
        OP_REQUIRES(
            ctx, indices[j] >= 0 && indices[j] < data_rows,
            errors::InvalidArgument("Bad: indices[", j, "] == ", indices[j],
                                    " out of range [0, ", data_rows, ")"));
      }
      first[id] = start;
      has[id] = 1;
      start = end;
    }
    for (int64_t s = rows - 1; s >= 0; --s) {
      if (!has[s]) first[s] = first[s + 1];
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t inner = out->NumElements() / rows;
    const Reduce r = reduce_;
    VisitNumericType(data.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr ((std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) ||
                    std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
        const T* in = data.data<T>();
        T* o = out->data<T>();
        const int64_t cost = std::max<int64_t>(n / rows, 1) * inner;
        ctx->ParallelFor(rows, cost, [&](int64_t b, int64_t e) {
          std::vector<AccType<T>> acc(inner);
          for (int64_t s = b; s < e; ++s) {
            const int64_t num = has[s] ? first[s + 1] - first[s] : 0;
            if (num == 0) {
              std::fill_n(o + s * inner, inner, T(0));
            } else {
              ReduceSegment<T>(r, in, indices.data() + first[s], num, inner,
                               acc.data(), o + s * inner);
            }
          }
        });
      }
    });
  }

 private:
  const Reduce reduce_;
  const bool num_segments_;
};

template <Reduce R, bool kNumSegments>
class SparseSegmentOp : public SparseSegmentReductionOp {
 public:
  explicit SparseSegmentOp(OpKernelConstruction* ctx)
      : SparseSegmentReductionOp(ctx, R, kNumSegments) {}
};

std::vector<DataType> SumTypes() {
  return {DT_HALF,  DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT8,   DT_INT16,
          DT_INT32, DT_INT64,    DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64};
}

std::vector<DataType> FloatTypes() {
  return {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
}

#define WEFT_REGISTER_SPARSE(name, types, reduce)               \
  REGISTER_KERNEL_BUILDER(                                      \
      Name(name)                                                \
          .Device(DEVICE_CPU)                                   \
          .TypeConstraint("T", types())                         \
          .TypeConstraint("Tidx", {DT_INT32, DT_INT64})         \
          .TypeConstraint("Tsegmentids", {DT_INT32, DT_INT64}), \
      SparseSegmentOp<reduce, false>);                          \
  REGISTER_KERNEL_BUILDER(                                      \
      Name(name "WithNumSegments")                              \
          .Device(DEVICE_CPU)                                   \
          .TypeConstraint("T", types())                         \
          .TypeConstraint("Tidx", {DT_INT32, DT_INT64})         \
          .TypeConstraint("Tnumsegments", {DT_INT32, DT_INT64}) \
          .TypeConstraint("Tsegmentids", {DT_INT32, DT_INT64}), \
      SparseSegmentOp<reduce, true>)

WEFT_REGISTER_SPARSE("SparseSegmentSum", SumTypes, Reduce::kSum);
WEFT_REGISTER_SPARSE("SparseSegmentMean", FloatTypes, Reduce::kMean);
WEFT_REGISTER_SPARSE("SparseSegmentSqrtN", FloatTypes, Reduce::kSqrtN);

#undef WEFT_REGISTER_SPARSE

}  // namespace
}  // namespace weft
