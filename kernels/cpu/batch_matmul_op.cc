// BatchMatMulV2 (and BatchMatMul, BatchMatMulV3 around it) on the CPU:
// out[..., :, :] = op(x[..., :, :]) * op(y[..., :, :]), op taking the
// adjoint (for real types, the transpose) when adj_x / adj_y is set, with
// the leading (batch) dimensions broadcast as in NumPy. Also the batched
// product behind Einsum (BatchMatMulCompute, declared in reduction_util.h).
//
// Each matrix product is the shared GEMM of gemm.h. The work is a list of
// units, (batch entry, band of output rows or columns), chosen from the
// shapes alone: many small products run one unit per matrix, a few large
// ones are cut into bands, and every output element is computed by the
// same instruction sequence at any thread count. When y is one matrix shared
// by the whole batch and x is not adjoint, the batch is folded into the
// rows of one product ([batch * m, k] x [k, n]), which is what a Dense
// layer applied to a sequence produces.
//
// Dtypes as TensorFlow registers them among weft's: float and double
// natively; half and bfloat16 widened to float, multiplied with float
// accumulation and rounded once (as MatMul); int32 and int64 with wrapping
// arithmetic (computed as uint32 / uint64, the same bits as
// two's-complement wrapping).
//
// The shape checks, their errors and the walk over the broadcast batch are
// shared with the CUDA kernel (kernels/common/batch_matmul_shape.h).
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/common/batch_matmul_shape.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/reduction_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Products below kMinSplitFlops multiply-adds stay one unit; bands are at
// least kMinBand rows (columns); the split aims at kWantUnits units.
constexpr int64_t kMinSplitFlops = int64_t{1} << 17;
constexpr int64_t kMinBand = 32;
constexpr int64_t kMinFloatBand = 128;
constexpr int64_t kWantUnits = 64;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// int64 has no shared GEMM: a row of c as a sum of scaled rows of op(b), in
// unsigned (wrapping) arithmetic. Integer matrix products are rare in
// models, so simplicity wins over blocking here.
void WrappingGemm64(int64_t m, int64_t k, int64_t n,
                    const GemmOperand<uint64_t>& a,
                    const GemmOperand<uint64_t>& b, uint64_t* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    uint64_t* row = c + i * ldc;
    std::fill_n(row, n, uint64_t{0});
    for (int64_t l = 0; l < k; ++l) {
      const uint64_t s =
          a.transposed ? a.data[l * a.ld + i] : a.data[i * a.ld + l];
      if (!b.transposed) {
        const uint64_t* brow = b.data + l * b.ld;
        for (int64_t j = 0; j < n; ++j) row[j] += s * brow[j];
      } else {
        for (int64_t j = 0; j < n; ++j) row[j] += s * b.data[j * b.ld + l];
      }
    }
  }
}

template <typename T>
void SerialProduct(int64_t m, int64_t k, int64_t n, const GemmOperand<T>& a,
                   const GemmOperand<T>& b, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, uint64_t>) {
    WrappingGemm64(m, k, n, a, b, c, ldc);
  } else {
    GemmSerial<T>(m, k, n, a, b, c, ldc);
  }
}

// The batch layout: per output matrix, the index of the x and y matrices
// it multiplies.
struct BatchMap {
  std::vector<int64_t> x;
  std::vector<int64_t> y;
};

BatchMap MapBatch(const BinaryBroadcast& bcast) {
  BatchMap map;
  const int64_t batch = bcast.output_size();
  map.x.resize(batch);
  map.y.resize(batch);
  BroadcastOdometer at(bcast, static_cast<int>(bcast.reduced_dims().size()));
  for (int64_t i = 0; i < batch; ++i) {
    map.x[i] = at.x();
    map.y[i] = at.y();
    at.Next();
  }
  return map;
}

// out[i] = op(x[map.x[i]]) * op(y[map.y[i]]) for every output matrix i.
template <typename T>
void BatchProduct(const OpKernelContext& ctx, const T* x, bool adj_x,
                  const T* y, bool adj_y, int64_t m, int64_t k, int64_t n,
                  const BatchMap& map, T* out) {
  const int64_t batch = static_cast<int64_t>(map.x.size());
  if constexpr (!std::is_same_v<T, uint64_t>) {
    if (batch == 1) {
      // One product: Gemm splits it itself, packing the shared operand once
      // for all its threads.
      Gemm<T>(ContextParallelFor(ctx), m, k, n,
              GemmOperand<T>{x + map.x[0] * m * k, adj_x ? m : k, adj_x},
              GemmOperand<T>{y + map.y[0] * k * n, adj_y ? k : n, adj_y}, out,
              n);
      return;
    }
  }
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  // Each band packs its operands anew; float's packed GEMM wants bands of
  // more rows to pay for that.
  const int64_t min_band = std::is_same_v<T, float> ? kMinFloatBand : kMinBand;
  int64_t bands = 1;
  if (m * k * n >= kMinSplitFlops && batch < kWantUnits) {
    bands = std::max<int64_t>(
        1, std::min(CeilDiv(kWantUnits, batch), extent / min_band));
  }
  const int64_t band = CeilDiv(extent, bands);
  bands = CeilDiv(extent, band);
  const int64_t unit_cost =
      band * std::max<int64_t>(k, 1) * (split_rows ? n : m);
  ctx.ParallelFor(batch * bands, unit_cost, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t i = u / bands;
      const int64_t start = (u % bands) * band;
      const int64_t len = std::min(band, extent - start);
      GemmOperand<T> a{x + map.x[i] * m * k, adj_x ? m : k, adj_x};
      GemmOperand<T> b{y + map.y[i] * k * n, adj_y ? k : n, adj_y};
      T* c = out + i * m * n;
      if (split_rows) {
        // Rows [start, start + len) of op(a).
        a.data += adj_x ? start : start * a.ld;
        SerialProduct<T>(len, k, n, a, b, c + start * n, n);
      } else {
        // Columns [start, start + len) of op(b).
        b.data += adj_y ? start * b.ld : start;
        SerialProduct<T>(m, k, len, a, b, c + start, n);
      }
    }
  });
}

template <typename To, typename From>
void Convert(const From* from, To* to, int64_t n) {
  Eigen::Map<Eigen::Array<To, Eigen::Dynamic, 1>>(to, n) =
      Eigen::Map<const Eigen::Array<From, Eigen::Dynamic, 1>>(from, n)
          .template cast<To>();
}

// The products of BatchMatMulCompute, `s` describing x and y.
Status ComputeProducts(OpKernelContext* ctx, const BatchMatMulShape& s,
                       const Tensor& x, bool adj_x, const Tensor& y, bool adj_y,
                       Tensor* out) {
  const auto [m, k, n] = s.dims;
  BatchMap map;
  int64_t rows = m;
  if (s.batch_in_rows) {
    rows = m * s.batch.output_size();
    map.x = {0};
    map.y = {0};
  } else {
    map = MapBatch(s.batch);
  }
  switch (x.dtype()) {
    case DT_FLOAT:
      BatchProduct<float>(*ctx, x.data<float>(), adj_x, y.data<float>(), adj_y,
                          rows, k, n, map, out->data<float>());
      return Status();
    case DT_DOUBLE:
      BatchProduct<double>(*ctx, x.data<double>(), adj_x, y.data<double>(),
                           adj_y, rows, k, n, map, out->data<double>());
      return Status();
    case DT_INT32:
      // int32 buffers viewed as uint32 (same representation; aliasing
      // between a signed type and its unsigned counterpart is allowed).
      BatchProduct<uint32_t>(
          *ctx, reinterpret_cast<const uint32_t*>(x.data<int32_t>()), adj_x,
          reinterpret_cast<const uint32_t*>(y.data<int32_t>()), adj_y, rows, k,
          n, map, reinterpret_cast<uint32_t*>(out->data<int32_t>()));
      return Status();
    case DT_INT64:
      BatchProduct<uint64_t>(
          *ctx, reinterpret_cast<const uint64_t*>(x.data<int64_t>()), adj_x,
          reinterpret_cast<const uint64_t*>(y.data<int64_t>()), adj_y, rows, k,
          n, map, reinterpret_cast<uint64_t*>(out->data<int64_t>()));
      return Status();
    case DT_HALF:
    case DT_BFLOAT16: {
      // Widen, multiply in float, round once.
      Tensor xf, yf, of;
      WEFT_RETURN_IF_ERROR(ctx->allocate_temp(DT_FLOAT, x.shape(), &xf));
      WEFT_RETURN_IF_ERROR(ctx->allocate_temp(DT_FLOAT, y.shape(), &yf));
      WEFT_RETURN_IF_ERROR(ctx->allocate_temp(DT_FLOAT, out->shape(), &of));
      if (x.dtype() == DT_HALF) {
        Convert(x.data<half>(), xf.data<float>(), x.NumElements());
        Convert(y.data<half>(), yf.data<float>(), y.NumElements());
      } else {
        Convert(x.data<bfloat16>(), xf.data<float>(), x.NumElements());
        Convert(y.data<bfloat16>(), yf.data<float>(), y.NumElements());
      }
      BatchProduct<float>(*ctx, xf.data<float>(), adj_x, yf.data<float>(),
                          adj_y, rows, k, n, map, of.data<float>());
      if (x.dtype() == DT_HALF) {
        Convert(of.data<float>(), out->data<half>(), out->NumElements());
      } else {
        Convert(of.data<float>(), out->data<bfloat16>(), out->NumElements());
      }
      return Status();
    }
    default:
      return errors::InvalidArgument("batched matrix product of ",
                                     DataTypeName(x.dtype()),
                                     " is not supported; expected half, "
                                     "bfloat16, float, double, int32 or int64");
  }
}

}  // namespace

Status BatchMatMulCompute(OpKernelContext* ctx, const Tensor& x, bool adj_x,
                          const Tensor& y, bool adj_y, Tensor* out) {
  if (out->NumElements() == 0) return Status();
  BatchMatMulShape s;
  WEFT_RETURN_IF_ERROR(
      GetBatchMatMulShape(x.shape(), y.shape(), adj_x, adj_y, &s));
  return ComputeProducts(ctx, s, x, adj_x, y, adj_y, out);
}

namespace {

class BatchMatMulV2Op : public OpKernel {
 public:
  explicit BatchMatMulV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BatchMatMulShape s;
    OP_REQUIRES_OK(
        ctx, GetBatchMatMulShape(x.shape(), y.shape(), adj_x_, adj_y_, &s));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s.out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, ComputeProducts(ctx, s, x, adj_x_, y, adj_y_, out));
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

// BatchMatMul (V1): BatchMatMulV2 without broadcasting; x and y have the
// same rank and batch dimensions, errors in TensorFlow's words.
class BatchMatMulV1Op : public BatchMatMulV2Op {
 public:
  explicit BatchMatMulV1Op(OpKernelConstruction* ctx) : BatchMatMulV2Op(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const TensorShape& x = ctx->input(0).shape();
    const TensorShape& y = ctx->input(1).shape();
    OP_REQUIRES(ctx, x.dims() == y.dims(),
                errors::InvalidArgument(
                    "In[0] and In[1] has different ndims: ", x.DebugString(),
                    " vs. ", y.DebugString()));
    OP_REQUIRES(
        ctx, x.dims() >= 2,
        errors::InvalidArgument("In[0] ndims must be >= 2: ", x.dims()));
    for (int d = 0; d + 2 < x.dims(); ++d) {
      OP_REQUIRES(
          ctx, x.dim_size(d) == y.dim_size(d),
          errors::InvalidArgument("In[0].dim(", d, ") and In[1].dim(", d,
                                  ") must be the same: ", x.DebugString(),
                                  " vs ", y.DebugString()));
    }
    BatchMatMulV2Op::Compute(ctx);
  }
};

// BatchMatMulV3: operand dtypes Ta and Tb, output Tout. Same-type products
// run as BatchMatMulV2; int8 and uint8 operands (in any pairing) are widened
// to int32 for an int32 product, and int16 ones to int32 with the product
// narrowed back, which wraps exactly as a 16-bit product would.
class BatchMatMulV3Op : public OpKernel {
 public:
  explicit BatchMatMulV3Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BatchMatMulShape s;
    OP_REQUIRES_OK(
        ctx, GetBatchMatMulShape(x.shape(), y.shape(), adj_x_, adj_y_, &s));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s.out_shape, &out));
    if (out->NumElements() == 0) return;
    const DataType tout = out->dtype();
    if (x.dtype() == tout && y.dtype() == tout && tout != DT_INT16) {
      OP_REQUIRES_OK(ctx, ComputeProducts(ctx, s, x, adj_x_, y, adj_y_, out));
      return;
    }
    Tensor xi, yi;
    OP_REQUIRES_OK(ctx, Widen(ctx, x, &xi));
    OP_REQUIRES_OK(ctx, Widen(ctx, y, &yi));
    if (tout == DT_INT32) {
      OP_REQUIRES_OK(ctx, ComputeProducts(ctx, s, xi, adj_x_, yi, adj_y_, out));
      return;
    }
    Tensor wide;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_INT32, s.out_shape, &wide));
    OP_REQUIRES_OK(ctx, ComputeProducts(ctx, s, xi, adj_x_, yi, adj_y_, &wide));
    const int32_t* w = wide.data<int32_t>();
    int16_t* o = out->data<int16_t>();
    for (int64_t i = 0; i < out->NumElements(); ++i) {
      o[i] = static_cast<int16_t>(w[i]);
    }
  }

 private:
  // An int32 copy of an int8, uint8 or int16 operand.
  static Status Widen(OpKernelContext* ctx, const Tensor& t, Tensor* out) {
    WEFT_RETURN_IF_ERROR(ctx->allocate_temp(DT_INT32, t.shape(), out));
    int32_t* o = out->data<int32_t>();
    const int64_t n = t.NumElements();
    switch (t.dtype()) {
      case DT_INT8:
        std::copy_n(t.data<int8_t>(), n, o);
        return Status();
      case DT_UINT8:
        std::copy_n(t.data<uint8_t>(), n, o);
        return Status();
      case DT_INT16:
        std::copy_n(t.data<int16_t>(), n, o);
        return Status();
      default:
        return errors::InvalidArgument("BatchMatMulV3 of ",
                                       DataTypeName(t.dtype()),
                                       " operands is not supported");
    }
  }

  bool adj_x_ = false;
  bool adj_y_ = false;
};

#define WEFT_REGISTER_BATCH_MATMUL(T)                                  \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BatchMatMulV2Op);                                                \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("BatchMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      BatchMatMulV1Op)

WEFT_REGISTER_BATCH_MATMUL(half);
WEFT_REGISTER_BATCH_MATMUL(bfloat16);
WEFT_REGISTER_BATCH_MATMUL(float);
WEFT_REGISTER_BATCH_MATMUL(double);
WEFT_REGISTER_BATCH_MATMUL(int32_t);
WEFT_REGISTER_BATCH_MATMUL(int64_t);

#undef WEFT_REGISTER_BATCH_MATMUL

// The (Ta, Tb, Tout) triples TensorFlow's CPU kernels take.
#define WEFT_REGISTER_BATCH_MATMUL_V3(A, B, OUT)            \
  REGISTER_KERNEL_BUILDER(Name("BatchMatMulV3")             \
                              .Device(DEVICE_CPU)           \
                              .TypeConstraint<A>("Ta")      \
                              .TypeConstraint<B>("Tb")      \
                              .TypeConstraint<OUT>("Tout"), \
                          BatchMatMulV3Op)

WEFT_REGISTER_BATCH_MATMUL_V3(bfloat16, bfloat16, bfloat16);
WEFT_REGISTER_BATCH_MATMUL_V3(float, float, float);
WEFT_REGISTER_BATCH_MATMUL_V3(double, double, double);
WEFT_REGISTER_BATCH_MATMUL_V3(int16_t, int16_t, int16_t);
WEFT_REGISTER_BATCH_MATMUL_V3(int32_t, int32_t, int32_t);
WEFT_REGISTER_BATCH_MATMUL_V3(int64_t, int64_t, int64_t);
WEFT_REGISTER_BATCH_MATMUL_V3(int8_t, int8_t, int32_t);
WEFT_REGISTER_BATCH_MATMUL_V3(uint8_t, uint8_t, int32_t);
WEFT_REGISTER_BATCH_MATMUL_V3(uint8_t, int8_t, int32_t);
WEFT_REGISTER_BATCH_MATMUL_V3(int8_t, uint8_t, int32_t);

#undef WEFT_REGISTER_BATCH_MATMUL_V3

}  // namespace
}  // namespace weft
