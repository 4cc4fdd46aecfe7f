// Bincount and DenseBincount on the CPU: bins[v] counts (or sums the
// weights of) the values v of the input below `size`; values >= size are
// dropped, negative ones are an error (as TensorFlow's). DenseBincount
// takes a vector or a batch of rows (one bin vector per row) and
// binary_output (1 where a value occurs at all). Weights are summed in
// input order, as TensorFlow's CPU kernel does, so float sums match it.
// One template per output dtype (int32, int64, float, double) and index
// dtype, all small loops.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// a + b, wrapping for the integer types as TensorFlow's does (without the
// signed overflow that would be undefined in C++).
template <typename T>
T Add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// bins[v] += weight (1 when there are no weights) for each value v of one
// row; bins[v] = 1 when binary.
template <typename T, typename Index>
void CountRow(const Index* values, const T* weights, int64_t n, int64_t size,
              bool binary, T* bins) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>(values[i]);
    if (v >= size) continue;
    if (binary) {
      bins[v] = T(1);
    } else if (weights == nullptr) {
      bins[v] = Add(bins[v], T(1));
    } else {
      bins[v] = Add(bins[v], weights[i]);
    }
  }
}

template <typename Index>
Status CheckNonNegative(const Index* values, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (values[i] < 0) {
      return errors::InvalidArgument("Input arr must be non-negative!");
    }
  }
  return Status();
}

// The output [rows, size] for input viewed as [rows, n].
template <typename Index>
void Count(OpKernelContext* ctx, const Tensor& input, const Tensor& weights,
           int64_t rows, int64_t size, bool binary, Tensor* out) {
  const Index* values = input.data<Index>();
  const int64_t n = rows == 0 ? 0 : input.NumElements() / rows;
  if (out->NumElements() == 0) return;  // (its buffer may be null)
  std::memset(out->raw_data(), 0,
              out->NumElements() * copy_util::ElementBytes(out->dtype()));
  VisitNumericType(out->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* w = weights.NumElements() > 0 ? weights.data<T>() : nullptr;
      T* bins = out->data<T>();
      ctx->ParallelFor(rows, n + size, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          CountRow<T, Index>(values + r * n, w == nullptr ? nullptr : w + r * n,
                             n, size, binary, bins + r * size);
        }
      });
    }
  });
}

Status ReadSize(const Tensor& t, int64_t* size) {
  WEFT_RETURN_IF_ERROR(ReadIndexScalar(t, "size (input 1)",
                                       /*allow_vector_of_one=*/false, size));
  if (*size < 0) {
    return errors::InvalidArgument("size (", *size, ") must be non-negative");
  }
  return Status();
}

class BincountOp : public OpKernel {
 public:
  explicit BincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& arr = ctx->input(0);
    const Tensor& weights = ctx->input(2);
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ReadSize(ctx->input(1), &size));
    OP_REQUIRES(ctx,
                weights.NumElements() == 0 ||
                    weights.NumElements() == arr.NumElements(),
                errors::InvalidArgument(
                    "Input indices and weights must have the same size."));
    OP_REQUIRES_OK(ctx,
                   CheckNonNegative(arr.data<int32_t>(), arr.NumElements()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
    Count<int32_t>(ctx, arr, weights, 1, size, false, out);
  }
};

class DenseBincountOp : public OpKernel {
 public:
  explicit DenseBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("binary_output", &binary_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& weights = ctx->input(2);
    OP_REQUIRES(
        ctx, input.dims() <= 2,
        errors::InvalidArgument("Shape must be at most rank 2 but is rank ",
                                input.dims(), " for input (input 0)"));
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ReadSize(ctx->input(1), &size));
    OP_REQUIRES(
        ctx, weights.NumElements() == 0 || weights.shape() == input.shape(),
        errors::InvalidArgument(
            "`weights` must be the same shape as `arr` or a length-0 "
            "`Tensor`, in which case it acts as all weights equal to 1. "
            "Received ",
            weights.shape().DebugString()));
    const int64_t rows = input.dims() == 2 ? input.dim_size(0) : 1;
    StatusOr<TensorShape> shape = input.dims() == 2
                                      ? TensorShape::Build({rows, size})
                                      : TensorShape::Build({size});
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    if (input.dtype() == DT_INT32) {
      OP_REQUIRES_OK(
          ctx, CheckNonNegative(input.data<int32_t>(), input.NumElements()));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
      Count<int32_t>(ctx, input, weights, rows, size, binary_, out);
    } else {
      OP_REQUIRES_OK(
          ctx, CheckNonNegative(input.data<int64_t>(), input.NumElements()));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
      Count<int64_t>(ctx, input, weights, rows, size, binary_, out);
    }
  }

 private:
  bool binary_ = false;
};

const std::vector<DataType>& CountTypes() {
  static const auto* types =
      new std::vector<DataType>{DT_INT32, DT_INT64, DT_FLOAT, DT_DOUBLE};
  return *types;
}

REGISTER_KERNEL_BUILDER(
    Name("Bincount").Device(DEVICE_CPU).TypeConstraint("T", CountTypes()),
    BincountOp);
REGISTER_KERNEL_BUILDER(Name("DenseBincount")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", CountTypes())
                            .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                        DenseBincountOp);

}  // namespace
}  // namespace weft
