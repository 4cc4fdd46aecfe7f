// Small index kernels on the CPU: ShapeN (the shapes of N tensors),
// BroadcastArgs (the broadcast shape of two shape vectors, NumPy's rules) and
// InvertPermutation (y[x[i]] = i). Errors, as TensorFlow's: shapes that do
// not broadcast, and an x that is not a permutation of [0, n) (a value out of
// range or repeated), each naming the value.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class ShapeNOp : public OpKernel {
 public:
  explicit ShapeNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const TensorShape& shape = ctx->input(i).shape();
      const int rank = shape.dims();
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({rank}), &out));
      if (out->dtype() == DT_INT32) {
        for (int d = 0; d < rank; ++d) {
          const int64_t size = shape.dim_size(d);
          OP_REQUIRES(
              ctx, size <= std::numeric_limits<int32_t>::max(),
              errors::InvalidArgument("dimension ", d, " of input ", i, " is ",
                                      size, ", too large for out_type int32"));
          out->data<int32_t>()[d] = static_cast<int32_t>(size);
        }
      } else {
        for (int d = 0; d < rank; ++d) {
          out->data<int64_t>()[d] = shape.dim_size(d);
        }
      }
    }
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("ShapeN").Device(DEVICE_CPU), ShapeNOp);

template <typename T>
class BroadcastArgsOp : public OpKernel {
 public:
  explicit BroadcastArgsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& s0 = ctx->input(0);
    const Tensor& s1 = ctx->input(1);
    OP_REQUIRES(
        ctx, s0.dims() == 1 && s1.dims() == 1,
        errors::InvalidArgument(
            "s0 (input 0) and s1 (input 1) must be vectors but have "
            "shapes ",
            s0.shape().DebugString(), " and ", s1.shape().DebugString()));
    std::vector<int64_t> a(s0.data<T>(), s0.data<T>() + s0.NumElements());
    std::vector<int64_t> b(s1.data<T>(), s1.data<T>() + s1.NumElements());
    const size_t n = std::max(a.size(), b.size());
    std::vector<int64_t> r(n);
    for (size_t i = 0; i < n; ++i) {
      // Aligned at the last dimension; a missing dimension is 1.
      const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
      const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
      OP_REQUIRES(ctx, x >= 0 && y >= 0,
                  errors::InvalidArgument(
                      "Incompatible shapes: ", IndexListString(a), " vs. ",
                      IndexListString(b), " (a negative dimension)"));
      OP_REQUIRES(
          ctx, x == y || x == 1 || y == 1,
          errors::InvalidArgument("Incompatible shapes: ", IndexListString(a),
                                  " vs. ", IndexListString(b)));
      r[i] = x == 1 ? y : x;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({static_cast<int64_t>(n)}), &out));
    std::copy(r.begin(), r.end(), out->data<T>());
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(
    Name("BroadcastArgs").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    BroadcastArgsOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("BroadcastArgs").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
    BroadcastArgsOp<int64_t>);

template <typename T>
class InvertPermutationOp : public OpKernel {
 public:
  explicit InvertPermutationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                errors::InvalidArgument("x (input 0) must be a vector but has "
                                        "shape ",
                                        x.shape().DebugString()));
    const int64_t n = x.NumElements();
    OP_REQUIRES(ctx, n <= std::numeric_limits<T>::max(),
                errors::InvalidArgument("x (input 0) has ", n,
                                        " elements, more than its dtype can "
                                        "index"));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const T* in = x.data<T>();
    T* out = y->data<T>();
    std::fill(out, out + n, T{-1});
    for (int64_t i = 0; i < n; ++i) {
      const T d = in[i];
      OP_REQUIRES(
          ctx, d >= 0 && d < n,
          errors::InvalidArgument("x (input 0) is not a permutation: ", "x[", i,
                                  "] = ", d, " is not in [0, ", n, ")"));
      OP_REQUIRES(ctx, out[d] == -1,
                  errors::InvalidArgument("x (input 0) is not a permutation: ",
                                          d, " is duplicated in the input"));
      out[d] = static_cast<T>(i);
    }
  }
};

REGISTER_KERNEL_BUILDER(
    Name("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    InvertPermutationOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
    InvertPermutationOp<int64_t>);

}  // namespace
}  // namespace weft
