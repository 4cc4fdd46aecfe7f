// SegmentSum/Mean/Prod/Max/Min and UnsortedSegmentSum/Prod/Max/Min on the
// CPU, for the real dtypes TensorFlow registers them for.
//
// Data is viewed as [rows, inner]. The sorted ops reduce each run of equal
// ids (which must be non-decreasing and >= 0) into output row id; the output
// has last id + 1 rows and a row no id names holds 0 (1 for SegmentProd), as
// in TensorFlow. The unsorted ops take ids of any shape that prefixes data's
// shape, skip negative ids, reject ids >= num_segments, and start every
// output row from the reduction's identity (0, 1, lowest, highest), which
// empty segments keep.
//
// Arithmetic matches TensorFlow's Eigen reductions element for element:
// each output element accumulates its rows in order, in T (half and bfloat16
// round after every step), integers wrapping; the mean divides the sum by
// the count in T. Ids are checked in one pass first, in TensorFlow's order,
// so that an error leaves nothing half-done, then the rows are reduced split
// over the arena: by output segment for the sorted ops, by columns for the
// unsorted ones (whose rows may go anywhere).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
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

std::vector<DataType> RealTypes() {
  return {DT_HALF,  DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT8,   DT_INT16,
          DT_INT32, DT_INT64,    DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64};
}

// TensorFlow's Eigen max/min over a multi-row segment treats NaN two ways.
// Columns in whole AVX packets (8 floats, halfs or bfloat16s, 4 doubles) run
// vectorized from -inf (+inf), where a NaN never replaces the accumulator;
// the remaining columns run scalar, where each value replaces the
// accumulator unless it is smaller (larger), so a NaN is taken and is
// replaced by the next value. Integers have no NaN: one loop.
template <typename T>
int64_t PacketColumns(int64_t inner) {
  if constexpr (std::is_integral_v<T>) {
    return 0;
  } else {
    const int64_t width = std::is_same_v<T, double> ? 4 : 8;
    return inner / width * width;
  }
}

template <typename T>
void MaxMinRows(bool is_max, const T* data, int64_t begin, int64_t end,
                int64_t inner, T* out) {
  const T inf = std::numeric_limits<T>::has_infinity
                    ? std::numeric_limits<T>::infinity()
                    : std::numeric_limits<T>::max();
  const int64_t packet = PacketColumns<T>(inner);
  if (is_max) {
    std::fill_n(out, packet, static_cast<T>(-inf));
    std::fill(out + packet, out + inner, std::numeric_limits<T>::lowest());
  } else {
    std::fill_n(out, packet, inf);
    std::fill(out + packet, out + inner, std::numeric_limits<T>::max());
  }
  for (int64_t row = begin; row < end; ++row) {
    const T* in = data + row * inner;
    if (is_max) {
      for (int64_t c = 0; c < packet; ++c) {
        if (in[c] > out[c]) out[c] = in[c];
      }
      for (int64_t c = packet; c < inner; ++c) {
        out[c] = segment::Max(in[c], out[c]);
      }
    } else {
      for (int64_t c = 0; c < packet; ++c) {
        if (in[c] < out[c]) out[c] = in[c];
      }
      for (int64_t c = packet; c < inner; ++c) {
        out[c] = segment::Min(in[c], out[c]);
      }
    }
  }
}

// Reduces rows [begin, end) of data (row length `inner`) into out, column
// by column in row order; a single row is copied (as TensorFlow does), an
// empty range writes the empty-segment value.
template <typename T>
void ReduceRows(Reduce r, const T* data, int64_t begin, int64_t end,
                int64_t inner, T empty, T* out) {
  if (begin == end) {
    std::fill_n(out, inner, empty);
    return;
  }
  if (end - begin == 1) {
    std::copy_n(data + begin * inner, inner, out);
    return;
  }
  if (r == Reduce::kMax || r == Reduce::kMin) {
    MaxMinRows(r == Reduce::kMax, data, begin, end, inner, out);
    return;
  }
  std::copy_n(data + begin * inner, inner, out);
  for (int64_t row = begin + 1; row < end; ++row) {
    const T* in = data + row * inner;
    if (r == Reduce::kProd) {
      for (int64_t c = 0; c < inner; ++c) out[c] = segment::Mul(out[c], in[c]);
    } else {
      for (int64_t c = 0; c < inner; ++c) out[c] = segment::Add(out[c], in[c]);
    }
  }
  if (r == Reduce::kMean) {
    for (int64_t c = 0; c < inner; ++c) {
      out[c] = segment::DivideByCount(out[c], end - begin);
    }
  }
}

class SegmentReductionOp : public OpKernel {
 public:
  SegmentReductionOp(OpKernelConstruction* ctx, Reduce reduce)
      : OpKernel(ctx), reduce_(reduce) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_tensor = ctx->input(1);
    OP_REQUIRES(ctx, ids_tensor.dims() == 1,
                errors::InvalidArgument(
                    "segment_ids should be a vector. segment_ids (input 1) "
                    "has shape ",
                    ids_tensor.shape().DebugString()));
    OP_REQUIRES(ctx, data.dims() >= 1,
                errors::InvalidArgument("input must be at least rank 1"));
    const int64_t n = ids_tensor.NumElements();
    OP_REQUIRES(ctx, n == data.dim_size(0),
                errors::InvalidArgument(
                    "segment_ids should be the same size as dimension 0 of "
                    "input. segment_ids (input 1) has shape ",
                    ids_tensor.shape().DebugString(), ", data (input 0) ",
                    data.shape().DebugString()));
    std::vector<int64_t> ids;
    OP_REQUIRES_OK(ctx,
                   ReadIndexTensor(ids_tensor, "segment_ids (input 1)", &ids));
    const int64_t last = n > 0 ? ids[n - 1] : -1;
    OP_REQUIRES(ctx, last < std::numeric_limits<int64_t>::max(),
                errors::InvalidArgument("segment id ", last, " is too large"));
    const int64_t rows = last + 1;
    OP_REQUIRES(ctx, rows >= 0 && (n == 0 || rows > 0),
                errors::InvalidArgument("segment ids must be >= 0"));
    std::vector<int64_t> out_dims(data.shape().dim_sizes().begin(),
                                  data.shape().dim_sizes().end());
    out_dims[0] = rows;
    StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    // Output row r takes data rows [first[r], first[r + 1]) when
    // has[r], none otherwise; checked in TensorFlow's order.
    std::vector<int64_t> first;
    std::vector<char> has;
    first.assign(rows + 1, n);
    has.assign(rows, 0);
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
      first[id] = start;
      has[id] = 1;
      start = end;
    }
    // Rows without a segment start where the next segment does.
    for (int64_t r = rows - 1; r >= 0; --r) {
      if (!has[r]) first[r] = first[r + 1];
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t inner = data.NumElements() / n;
    const Reduce r = reduce_;
    VisitNumericType(data.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, half> ||
                    std::is_same_v<T, bfloat16>) {
        if constexpr (!std::is_same_v<T, bool>) {
          const T* in = data.data<T>();
          T* o = out->data<T>();
          const T empty = r == Reduce::kProd ? T(1) : T(0);
          const int64_t cost = std::max<int64_t>(n / rows, 1) * inner;
          ctx->ParallelFor(rows, cost, [&](int64_t b, int64_t e) {
            for (int64_t row = b; row < e; ++row) {
              ReduceRows<T>(r, in, first[row],
                            has[row] ? first[row + 1] : first[row], inner,
                            empty, o + row * inner);
            }
          });
        }
      }
    });
  }

 private:
  const Reduce reduce_;
};

template <Reduce R>
class SegmentOp : public SegmentReductionOp {
 public:
  explicit SegmentOp(OpKernelConstruction* ctx) : SegmentReductionOp(ctx, R) {}
};

// "[i]" for a flat index into ids of `shape`, "[i,j,...]" for higher ranks,
// as TensorFlow's SliceDebugString names the element.
std::string IndexString(const TensorShape& shape, int64_t flat) {
  std::vector<int64_t> index(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    const int64_t size = shape.dim_size(d);
    index[d] = size > 0 ? flat % size : 0;
    flat = size > 0 ? flat / size : 0;
  }
  return IndexListString(index);
}

class UnsortedSegmentReductionOp : public OpKernel {
 public:
  UnsortedSegmentReductionOp(OpKernelConstruction* ctx, Reduce reduce)
      : OpKernel(ctx), reduce_(reduce) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_tensor = ctx->input(1);
    const Tensor& num_tensor = ctx->input(2);
    OP_REQUIRES(
        ctx, num_tensor.dims() == 0,
        errors::InvalidArgument("num_segments should be a scalar, not shape ",
                                num_tensor.shape().DebugString()));
    bool prefix = ids_tensor.dims() <= data.dims();
    for (int d = 0; prefix && d < ids_tensor.dims(); ++d) {
      prefix = ids_tensor.dim_size(d) == data.dim_size(d);
    }
    OP_REQUIRES(
        ctx, prefix,
        errors::InvalidArgument("data.shape = ", data.shape().DebugString(),
                                " does not start with segment_ids.shape = ",
                                ids_tensor.shape().DebugString()));
    int64_t num = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(num_tensor, "num_segments (input 2)",
                                        /*allow_vector_of_one=*/false, &num));
    OP_REQUIRES(ctx, num >= 0,
                errors::InvalidArgument("Input num_segments == ", num,
                                        " must not be negative."));
    std::vector<int64_t> out_dims = {num};
    for (int d = ids_tensor.dims(); d < data.dims(); ++d) {
      out_dims.push_back(data.dim_size(d));
    }
    StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    std::vector<int64_t> ids;
    OP_REQUIRES_OK(ctx,
                   ReadIndexTensor(ids_tensor, "segment_ids (input 1)", &ids));
    const int64_t n = static_cast<int64_t>(ids.size());
    // TensorFlow checks nothing when data is empty.
    if (data.NumElements() > 0) {
      for (int64_t i = 0; i < n; ++i) {
        OP_REQUIRES(ctx, ids[i] < num,
                    errors::InvalidArgument(
                        "segment_ids", IndexString(ids_tensor.shape(), i),
                        " = ", ids[i], " is out of range [0, ", num, ")"));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t inner = out->NumElements() / num;
    const Reduce r = reduce_;
    VisitNumericType(data.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, half> ||
                    std::is_same_v<T, bfloat16>) {
        if constexpr (!std::is_same_v<T, bool>) {
          Accumulate<T>(*ctx, r, data.data<T>(), ids, data.NumElements() > 0,
                        inner, num, out->data<T>());
        }
      }
    });
  }

 private:
  // Columns [b, e) of every output row start from the identity, then take
  // the data rows in order; each thread owns a band of columns.
  template <typename T>
  static void Accumulate(const OpKernelContext& ctx, Reduce r, const T* data,
                         const std::vector<int64_t>& ids, bool has_data,
                         int64_t inner, int64_t num, T* out) {
    const T init = segment::Initial<T>(r);
    const int64_t n = static_cast<int64_t>(ids.size());
    const int64_t cost = std::max<int64_t>(n + num, 1);
    ctx.ParallelFor(inner, cost, [&](int64_t b, int64_t e) {
      for (int64_t s = 0; s < num; ++s) {
        std::fill(out + s * inner + b, out + s * inner + e, init);
      }
      if (!has_data) return;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = ids[i];
        if (j < 0) continue;
        const T* in = data + i * inner;
        T* o = out + j * inner;
        switch (r) {
          case Reduce::kSum:
            for (int64_t c = b; c < e; ++c) o[c] = segment::Add(o[c], in[c]);
            break;
          case Reduce::kProd:
            for (int64_t c = b; c < e; ++c) o[c] = segment::Mul(o[c], in[c]);
            break;
          case Reduce::kMax:
            for (int64_t c = b; c < e; ++c) o[c] = segment::Max(in[c], o[c]);
            break;
          case Reduce::kMin:
            for (int64_t c = b; c < e; ++c) o[c] = segment::Min(in[c], o[c]);
            break;
          default:
            break;
        }
      }
    });
  }

  const Reduce reduce_;
};

template <Reduce R>
class UnsortedSegmentOp : public UnsortedSegmentReductionOp {
 public:
  explicit UnsortedSegmentOp(OpKernelConstruction* ctx)
      : UnsortedSegmentReductionOp(ctx, R) {}
};

#define WEFT_REGISTER_SEGMENT(name, reduce)                  \
  REGISTER_KERNEL_BUILDER(                                   \
      Name(name)                                             \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint("T", RealTypes())                  \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}), \
      SegmentOp<reduce>)

WEFT_REGISTER_SEGMENT("SegmentSum", Reduce::kSum);
WEFT_REGISTER_SEGMENT("SegmentMean", Reduce::kMean);
WEFT_REGISTER_SEGMENT("SegmentProd", Reduce::kProd);
WEFT_REGISTER_SEGMENT("SegmentMax", Reduce::kMax);
WEFT_REGISTER_SEGMENT("SegmentMin", Reduce::kMin);

#define WEFT_REGISTER_UNSORTED(name, reduce, index_types)        \
  REGISTER_KERNEL_BUILDER(                                       \
      Name(name)                                                 \
          .Device(DEVICE_CPU)                                    \
          .TypeConstraint("T", RealTypes())                      \
          .TypeConstraint("Tindices", index_types)               \
          .TypeConstraint("Tnumsegments", {DT_INT32, DT_INT64}), \
      UnsortedSegmentOp<reduce>)

WEFT_REGISTER_UNSORTED("UnsortedSegmentSum", Reduce::kSum,
                       (std::vector<DataType>{DT_INT16, DT_INT32, DT_INT64}));
WEFT_REGISTER_UNSORTED("UnsortedSegmentProd", Reduce::kProd,
                       (std::vector<DataType>{DT_INT32, DT_INT64}));
WEFT_REGISTER_UNSORTED("UnsortedSegmentMax", Reduce::kMax,
                       (std::vector<DataType>{DT_INT32, DT_INT64}));
WEFT_REGISTER_UNSORTED("UnsortedSegmentMin", Reduce::kMin,
                       (std::vector<DataType>{DT_INT32, DT_INT64}));

#undef WEFT_REGISTER_UNSORTED
#undef WEFT_REGISTER_SEGMENT

}  // namespace
}  // namespace weft
