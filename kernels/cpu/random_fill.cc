// See random_fill.h. One small template per (dtype, group size); the
// per-element conversions are the inline functions of philox_random.h.
#include "kernels/cpu/random_fill.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/dtype_traits.h"
#include "kernels/common/copy_util.h"

namespace weft {
namespace {

using philox::Philox4x32;

// Rough cycles per group for ParallelFor: the block (about 10 per word)
// plus the transform.
constexpr int64_t kUniformCost = 4 * 13;
constexpr int64_t kNormalCost = 4 * 80;
constexpr int64_t kTruncatedCost = 4 * 100;

// Fixed-cost distributions: group g is made from the one block at counter
// + g by `make(block, values)`.
template <typename T, int kGroup, typename Make>
void FillFixed(const OpKernelContext* ctx, const Philox4x32& gen, T* data,
               int64_t n, int64_t cost, const Make& make) {
  const int64_t groups = (n + kGroup - 1) / kGroup;
  ctx->ParallelFor(groups, cost, [&](int64_t begin, int64_t end) {
    Philox4x32 g = gen;
    g.Skip(static_cast<uint64_t>(begin));
    for (int64_t group = begin; group < end; ++group) {
      T values[kGroup];
      make(g.Next(), values);
      const int64_t offset = group * kGroup;
      const int64_t count = std::min<int64_t>(kGroup, n - offset);
      std::copy(values, values + count, data + offset);
    }
  });
}

// Words one at a time, as TensorFlow's SingleSampleAdapter hands them out.
class WordStream {
 public:
  explicit WordStream(const Philox4x32& gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == 4) {
      block_ = gen_.Next();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  Philox4x32 gen_;
  Philox4x32::Block block_{};
  int used_ = 4;
};

// Truncated normal: group g starts at counter + g * kGroup * 64 and takes
// Box-Muller pairs, keeping the values below 2 in magnitude, until the
// group is full.
template <typename T>
void FillTruncated(const OpKernelContext* ctx, const Philox4x32& gen, T* data,
                   int64_t n) {
  constexpr bool kDouble = std::is_same_v<T, double>;
  constexpr int kGroup = kDouble ? 2 : 4;
  constexpr uint64_t kSkipPerGroup = kGroup * 256 / 4;
  const int64_t groups = (n + kGroup - 1) / kGroup;
  ctx->ParallelFor(groups, kTruncatedCost, [&](int64_t begin, int64_t end) {
    for (int64_t group = begin; group < end; ++group) {
      Philox4x32 g = gen;
      g.Skip(static_cast<uint64_t>(group) * kSkipPerGroup);
      WordStream words(g);
      T values[kGroup];
      int filled = 0;
      while (filled < kGroup) {
        if constexpr (kDouble) {
          const uint32_t x0 = words(), x1 = words(), x2 = words(), x3 = words();
          double d[2];
          philox::BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
          for (int i = 0; i < 2 && filled < kGroup; ++i) {
            if (std::fabs(d[i]) < 2.0) values[filled++] = d[i];
          }
        } else {
          const uint32_t x0 = words(), x1 = words();
          float f[2];
          philox::BoxMullerFloat(x0, x1, &f[0], &f[1]);
          for (int i = 0; i < 2 && filled < kGroup; ++i) {
            if (std::fabs(f[i]) < 2.0f) values[filled++] = static_cast<T>(f[i]);
          }
        }
      }
      const int64_t offset = group * kGroup;
      const int64_t count = std::min<int64_t>(kGroup, n - offset);
      std::copy(values, values + count, data + offset);
    }
  });
}

template <typename T>
void FillUniform(const OpKernelContext* ctx, const Philox4x32& gen, T* data,
                 int64_t n) {
  if constexpr (std::is_same_v<T, double>) {
    FillFixed<double, 2>(ctx, gen, data, n, kUniformCost,
                         [](const Philox4x32::Block& b, double* v) {
                           v[0] = philox::Uint64ToDouble(b[0], b[1]);
                           v[1] = philox::Uint64ToDouble(b[2], b[3]);
                         });
  } else {
    FillFixed<T, 4>(
        ctx, gen, data, n, kUniformCost, [](const Philox4x32::Block& b, T* v) {
          for (int i = 0; i < 4; ++i) {
            if constexpr (std::is_same_v<T, half>) {
              v[i] = static_cast<half>(philox::Uint16ToHalfValue(b[i]));
            } else if constexpr (std::is_same_v<T, bfloat16>) {
              v[i] = static_cast<bfloat16>(philox::Uint16ToBfloat16Value(b[i]));
            } else {
              v[i] = philox::Uint32ToFloat(b[i]);
            }
          }
        });
  }
}

template <typename T>
void FillNormal(const OpKernelContext* ctx, const Philox4x32& gen, T* data,
                int64_t n) {
  if constexpr (std::is_same_v<T, double>) {
    FillFixed<double, 2>(ctx, gen, data, n, kNormalCost,
                         [](const Philox4x32::Block& b, double* v) {
                           philox::BoxMullerDouble(b[0], b[1], b[2], b[3],
                                                   &v[0], &v[1]);
                         });
  } else {
    FillFixed<T, 4>(ctx, gen, data, n, kNormalCost,
                    [](const Philox4x32::Block& b, T* v) {
                      float f[4];
                      philox::BoxMullerFloat(b[0], b[1], &f[0], &f[1]);
                      philox::BoxMullerFloat(b[2], b[3], &f[2], &f[3]);
                      for (int i = 0; i < 4; ++i) v[i] = static_cast<T>(f[i]);
                    });
  }
}

// Integers: 32-bit dtypes one word each, 64-bit ones two (low word first).
// `range` 0 means every value (kFullInt); otherwise lo + bits % range,
// added as unsigned so that lo < 0 < hi cannot overflow.
template <typename T>
void FillInt(const OpKernelContext* ctx, const Philox4x32& gen, T* data,
             int64_t n, uint64_t lo, uint64_t range) {
  using U = std::make_unsigned_t<T>;
  const U ulo = static_cast<U>(lo);
  const U urange = static_cast<U>(range);
  if constexpr (sizeof(T) == 8) {
    FillFixed<T, 2>(
        ctx, gen, data, n, kUniformCost, [=](const Philox4x32::Block& b, T* v) {
          for (int i = 0; i < 2; ++i) {
            const U bits = b[2 * i] | U{b[2 * i + 1]} << 32;
            v[i] = static_cast<T>(urange == 0 ? bits : U(ulo + bits % urange));
          }
        });
  } else {
    FillFixed<T, 4>(
        ctx, gen, data, n, kUniformCost, [=](const Philox4x32::Block& b, T* v) {
          for (int i = 0; i < 4; ++i) {
            const U bits = b[i];
            v[i] = static_cast<T>(urange == 0 ? bits : U(ulo + bits % urange));
          }
        });
  }
}

template <typename T>
void FillFloating(const OpKernelContext* ctx, const Philox4x32& gen,
                  RandomDistribution dist, T* data, int64_t n) {
  switch (dist) {
    case RandomDistribution::kUniform:
      FillUniform(ctx, gen, data, n);
      return;
    case RandomDistribution::kNormal:
      FillNormal(ctx, gen, data, n);
      return;
    default:
      FillTruncated(ctx, gen, data, n);
      return;
  }
}

}  // namespace

StatusOr<TensorShape> RandomOutputShape(const Tensor& shape_t) {
  if (shape_t.dims() != 1 ||
      (shape_t.dtype() != DT_INT32 && shape_t.dtype() != DT_INT64)) {
    return errors::InvalidArgument(
        "shape (input 0) must be a vector of int32 or int64 but is a ",
        DataTypeName(shape_t.dtype()), " tensor of shape ",
        shape_t.shape().DebugString());
  }
  std::vector<int64_t> dims;
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(shape_t, "shape (input 0)", &dims));
  StatusOr<TensorShape> shape = TensorShape::Build(dims);
  if (!shape.ok()) {
    return errors::InvalidArgument(
        "shape (input 0) is ", IndexListString(dims),
        ", which is not a valid shape: ", shape.status().message());
  }
  return shape;
}

namespace {

template <typename T>
Status BoundsOf(const Tensor& minval, const Tensor& maxval, int min_input,
                uint64_t* lo, uint64_t* range) {
  const T a = minval.data<T>()[0];
  const T b = maxval.data<T>()[0];
  if (!(a < b)) {
    return errors::InvalidArgument("Need minval < maxval, got ", a, " >= ", b,
                                   " (inputs ", min_input, " and ",
                                   min_input + 1, ")");
  }
  using U = std::make_unsigned_t<T>;
  *lo = static_cast<uint64_t>(static_cast<int64_t>(a));
  *range = static_cast<U>(static_cast<U>(b) - static_cast<U>(a));
  return Status();
}

}  // namespace

Status ReadIntBounds(const Tensor& minval, const Tensor& maxval, int min_input,
                     uint64_t* lo, uint64_t* range) {
  if (minval.dims() != 0) {
    return errors::InvalidArgument("minval (input ", min_input,
                                   ") must be a scalar but has shape ",
                                   minval.shape().DebugString());
  }
  if (maxval.dims() != 0) {
    return errors::InvalidArgument("maxval (input ", min_input + 1,
                                   ") must be a scalar but has shape ",
                                   maxval.shape().DebugString());
  }
  switch (minval.dtype()) {
    case DT_INT32:
      return BoundsOf<int32_t>(minval, maxval, min_input, lo, range);
    case DT_INT64:
      return BoundsOf<int64_t>(minval, maxval, min_input, lo, range);
    case DT_UINT32:
      return BoundsOf<uint32_t>(minval, maxval, min_input, lo, range);
    case DT_UINT64:
      return BoundsOf<uint64_t>(minval, maxval, min_input, lo, range);
    default:
      return errors::InvalidArgument("minval (input ", min_input,
                                     ") must be an integer, not ",
                                     DataTypeName(minval.dtype()));
  }
}

Status FillPhiloxRandom(const OpKernelContext* ctx, const Philox4x32& gen,
                        RandomDistribution dist, Tensor* out, uint64_t lo,
                        uint64_t range) {
  const int64_t n = out->NumElements();
  if (n == 0) return Status();
  const DataType dtype = out->dtype();
  const bool integer = dist == RandomDistribution::kUniformInt ||
                       dist == RandomDistribution::kFullInt;
  if (dist == RandomDistribution::kFullInt) range = 0;
  if (integer) {
    switch (dtype) {
      case DT_INT32:
        FillInt(ctx, gen, out->data<int32_t>(), n, lo, range);
        return Status();
      case DT_UINT32:
        FillInt(ctx, gen, out->data<uint32_t>(), n, lo, range);
        return Status();
      case DT_INT64:
        FillInt(ctx, gen, out->data<int64_t>(), n, lo, range);
        return Status();
      case DT_UINT64:
        FillInt(ctx, gen, out->data<uint64_t>(), n, lo, range);
        return Status();
      default:
        break;
    }
  } else {
    switch (dtype) {
      case DT_HALF:
        FillFloating(ctx, gen, dist, out->data<half>(), n);
        return Status();
      case DT_BFLOAT16:
        FillFloating(ctx, gen, dist, out->data<bfloat16>(), n);
        return Status();
      case DT_FLOAT:
        FillFloating(ctx, gen, dist, out->data<float>(), n);
        return Status();
      case DT_DOUBLE:
        FillFloating(ctx, gen, dist, out->data<double>(), n);
        return Status();
      default:
        break;
    }
  }
  return errors::Internal("no random fill for ", DataTypeName(dtype));
}

}  // namespace weft
