#include "kernels/common/copy_util.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace weft {
namespace copy_util {
namespace {

// ParallelFor's unit is a CPU cycle; memcpy moves about 8 bytes a cycle,
// an element-by-element strided copy about one element a cycle, and a string
// copy costs an allocation-sized amount.
template <typename E>
constexpr int64_t kRunCost = std::is_same_v<E, std::string> ? 40 : 1;
template <typename E>
constexpr int64_t kStridedCost = std::is_same_v<E, std::string> ? 40 : 2;

template <typename E>
void CopyRun(const E* src, E* dst, int64_t n) {
  if constexpr (std::is_same_v<E, std::string>) {
    std::copy(src, src + n, dst);
  } else {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(E));
  }
}

template <typename E>
void FillRun(const E* value, E* dst, int64_t n) {
  if constexpr (std::is_same_v<E, std::string>) {
    std::fill(dst, dst + n, *value);
  } else if constexpr (sizeof(E) == 1) {
    std::memset(dst, *reinterpret_cast<const unsigned char*>(value),
                static_cast<size_t>(n));
  } else {
    E v;
    std::memcpy(&v, value, sizeof(E));
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i, &v, sizeof(E));
  }
}

// dst[i] = src[i * stride] for i < n; stride may be 0 or negative.
template <typename E>
void StridedRun(const E* src, int64_t stride, E* dst, int64_t n) {
  if (stride == 1) {
    CopyRun(src, dst, n);
  } else if (stride == 0) {
    FillRun(src, dst, n);
  } else {
    for (int64_t i = 0; i < n; ++i) MoveOne<E>(dst + i, src + i * stride);
  }
}

// The index space with size-1 dimensions dropped and adjacent dimensions
// merged where the outer one steps exactly over the inner one (including
// runs of zero strides). Returns false when the space is empty.
bool Simplify(absl::Span<const int64_t> dims, absl::Span<const int64_t> strides,
              Dims* out_dims, Dims* out_strides) {
  out_dims->clear();
  out_strides->clear();
  for (size_t j = 0; j < dims.size(); ++j) {
    if (dims[j] == 0) return false;
    if (dims[j] == 1) continue;
    if (!out_dims->empty() && out_strides->back() == strides[j] * dims[j]) {
      out_dims->back() *= dims[j];
      out_strides->back() = strides[j];
    } else {
      out_dims->push_back(dims[j]);
      out_strides->push_back(strides[j]);
    }
  }
  return true;
}

// Row-major copy of the strided space, split over flat output ranges so a
// few long rows parallelize as well as many short ones.
template <typename E>
void GatherRows(const OpKernelContext& ctx, const E* src, const Dims& dims,
                const Dims& strides, E* dst) {
  const int k = static_cast<int>(dims.size());
  const int outer = k - 1;
  const int64_t n = dims[outer];
  const int64_t s = strides[outer];
  int64_t total = n;
  for (int j = 0; j < outer; ++j) total *= dims[j];
  const int64_t cost = s == 1 ? kRunCost<E> : kStridedCost<E>;
  ctx.ParallelFor(total, cost, [&](int64_t begin, int64_t end) {
    int64_t row = begin / n;
    int64_t col = begin % n;
    Dims index(outer, 0);
    int64_t off = 0;
    for (int j = outer - 1; j >= 0; --j) {
      index[j] = row % dims[j];
      row /= dims[j];
      off += index[j] * strides[j];
    }
    int64_t pos = begin;
    while (pos < end) {
      const int64_t len = std::min(n - col, end - pos);
      StridedRun(src + off + col * s, s, dst + pos, len);
      pos += len;
      col = 0;
      // Odometer step to the next row.
      for (int j = outer - 1; j >= 0; --j) {
        off += strides[j];
        if (++index[j] < dims[j]) break;
        off -= strides[j] * dims[j];
        index[j] = 0;
      }
    }
  });
}

// A copy whose innermost output dimension reads the source with stride s
// while output dimension p reads it contiguously: a (batched) 2-D transpose,
// done in B x B tiles so both sides stay in cache.
template <typename E>
void GatherBlocked(const OpKernelContext& ctx, const E* src, const Dims& dims,
                   const Dims& strides, int p, E* dst) {
  const int k = static_cast<int>(dims.size());
  Dims dst_strides(k, 1);
  for (int j = k - 2; j >= 0; --j)
    dst_strides[j] = dst_strides[j + 1] * dims[j + 1];
  Dims odims, osrc, odst;
  for (int j = 0; j < k - 1; ++j) {
    if (j == p) continue;
    odims.push_back(dims[j]);
    osrc.push_back(strides[j]);
    odst.push_back(dst_strides[j]);
  }
  const int64_t m = dims[p];
  const int64_t n = dims[k - 1];
  const int64_t s = strides[k - 1];
  const int64_t dp = dst_strides[p];
  constexpr int64_t kBlock =
      std::is_same_v<E, std::string>
          ? 8
          : std::clamp<int64_t>(128 / static_cast<int64_t>(sizeof(E)), 8, 64);
  // One unit of work is one tile, so a single large matrix (or a few
  // images with few channels) still splits across threads.
  const int64_t blocks_m = (m + kBlock - 1) / kBlock;
  const int64_t blocks_n = (n + kBlock - 1) / kBlock;
  int64_t outer_count = 1;
  for (int64_t d : odims) outer_count *= d;
  const int no = static_cast<int>(odims.size());
  ctx.ParallelFor(
      outer_count * blocks_m * blocks_n, kBlock * kBlock * kStridedCost<E>,
      [&](int64_t begin, int64_t end) {
        for (int64_t u = begin; u < end; ++u) {
          const int64_t j0 = (u % blocks_n) * kBlock;
          const int64_t i0 = (u / blocks_n % blocks_m) * kBlock;
          int64_t o = u / blocks_n / blocks_m;
          const int64_t i1 = std::min(m, i0 + kBlock);
          const int64_t j1 = std::min(n, j0 + kBlock);
          int64_t soff = 0;
          int64_t doff = 0;
          for (int j = no - 1; j >= 0; --j) {
            const int64_t idx = o % odims[j];
            o /= odims[j];
            soff += idx * osrc[j];
            doff += idx * odst[j];
          }
          if constexpr (std::is_same_v<E, std::string>) {
            for (int64_t i = i0; i < i1; ++i) {
              E* drow = dst + doff + i * dp;
              const E* scol = src + soff + i;
              for (int64_t j = j0; j < j1; ++j) drow[j] = scol[j * s];
            }
          } else {
            // The tile's source rows are read whole into a buffer first:
            // with a power-of-two stride the rows would otherwise all map
            // to one cache set and evict each other while being read
            // column by column.
            E tile[kBlock * kBlock];
            for (int64_t j = j0; j < j1; ++j) {
              std::memcpy(tile + (j - j0) * kBlock, src + soff + i0 + j * s,
                          static_cast<size_t>(i1 - i0) * sizeof(E));
            }
            for (int64_t i = i0; i < i1; ++i) {
              E* drow = dst + doff + i * dp;
              const E* trow = tile + (i - i0);
              for (int64_t j = j0; j < j1; ++j) {
                MoveOne<E>(drow + j, trow + (j - j0) * kBlock);
              }
            }
          }
        }
      });
}

}  // namespace

size_t ElementBytes(DataType dtype) {
  return dtype == DT_STRING ? sizeof(std::string) : DataTypeSize(dtype);
}

void CopyElements(DataType dtype, const void* src, void* dst, int64_t n) {
  if (n <= 0) return;
  if (dtype == DT_STRING) {
    CopyRun(static_cast<const std::string*>(src),
            static_cast<std::string*>(dst), n);
  } else {
    std::memcpy(dst, src, static_cast<size_t>(n) * DataTypeSize(dtype));
  }
}

void FillElements(DataType dtype, const void* value, void* dst, int64_t n) {
  if (n <= 0) return;
  VisitElementType(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    FillRun(static_cast<const E*>(value), static_cast<E*>(dst), n);
  });
}

void ParallelFillElements(const OpKernelContext& ctx, DataType dtype,
                          const void* value, void* dst, int64_t n) {
  if (n <= 0) return;
  const size_t bytes = ElementBytes(dtype);
  const int64_t cost =
      dtype == DT_STRING ? 40 : std::max<int64_t>(1, bytes / 8);
  ctx.ParallelFor(n, cost, [&](int64_t begin, int64_t end) {
    FillElements(dtype, value, static_cast<char*>(dst) + begin * bytes,
                 end - begin);
  });
}

Dims RowMajorStrides(const TensorShape& shape) {
  Dims strides(shape.dims(), 1);
  for (int j = shape.dims() - 2; j >= 0; --j) {
    strides[j] = strides[j + 1] * shape.dim_size(j + 1);
  }
  return strides;
}

void StridedGather(const OpKernelContext& ctx, DataType dtype, const void* src,
                   int64_t offset, absl::Span<const int64_t> dims,
                   absl::Span<const int64_t> strides, void* dst) {
  Dims sdims;
  Dims sstrides;
  if (!Simplify(dims, strides, &sdims, &sstrides)) return;
  VisitElementType(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* from = static_cast<const E*>(src) + offset;
    E* to = static_cast<E*>(dst);
    if (sdims.empty()) {  // a single element
      MoveOne<E>(to, from);
      return;
    }
    const int k = static_cast<int>(sdims.size());
    const int64_t inner_stride = sstrides[k - 1];
    if (inner_stride != 1 && inner_stride != 0) {
      for (int p = k - 2; p >= 0; --p) {
        if (sstrides[p] == 1) {
          GatherBlocked<E>(ctx, from, sdims, sstrides, p, to);
          return;
        }
      }
    }
    GatherRows<E>(ctx, from, sdims, sstrides, to);
  });
}

}  // namespace copy_util

namespace {

// The NumElements() values of index tensor `t` into `out`, which has room
// for them; ReadIndexTensor's dtype rule and message.
Status ReadIndexValues(const Tensor& t, absl::string_view what, int64_t* out) {
  const int64_t n = t.NumElements();
  switch (t.dtype()) {
    case DT_INT8:
      std::copy(t.data<int8_t>(), t.data<int8_t>() + n, out);
      return Status();
    case DT_INT16:
      std::copy(t.data<int16_t>(), t.data<int16_t>() + n, out);
      return Status();
    case DT_INT32:
      std::copy(t.data<int32_t>(), t.data<int32_t>() + n, out);
      return Status();
    case DT_INT64:
      std::copy(t.data<int64_t>(), t.data<int64_t>() + n, out);
      return Status();
    default:
      return errors::InvalidArgument(what,
                                     " must hold int8, int16, int32 or int64 "
                                     "values but is ",
                                     DataTypeName(t.dtype()));
  }
}

}  // namespace

Status ReadIndexTensor(const Tensor& t, absl::string_view what,
                       std::vector<int64_t>* out) {
  out->resize(t.NumElements());
  Status s = ReadIndexValues(t, what, out->data());
  if (!s.ok()) out->clear();
  return s;
}

// A scalar read without a vector: loops read their counters and list
// indices this way on every iteration.
Status ReadIndexScalar(const Tensor& t, absl::string_view what,
                       bool allow_vector_of_one, int64_t* out) {
  const bool ok = t.dims() == 0 ||
                  (allow_vector_of_one && t.dims() == 1 && t.dim_size(0) == 1);
  if (!ok) {
    return errors::InvalidArgument(what, " must be a scalar but has shape ",
                                   t.shape().DebugString());
  }
  return ReadIndexValues(t, what, out);
}

std::string IndexListString(absl::Span<const int64_t> values) {
  return absl::StrCat("[", absl::StrJoin(values, ","), "]");
}

std::vector<DataType> NumericAndBoolTypes() {
  return {DT_HALF,   DT_BFLOAT16, DT_FLOAT, DT_DOUBLE,    DT_INT8,
          DT_INT16,  DT_INT32,    DT_INT64, DT_UINT8,     DT_UINT16,
          DT_UINT32, DT_UINT64,   DT_BOOL,  DT_COMPLEX64, DT_COMPLEX128};
}

std::vector<DataType> NumericAndBoolTypesPlus(std::vector<DataType> extra) {
  std::vector<DataType> all = NumericAndBoolTypes();
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

}  // namespace weft
