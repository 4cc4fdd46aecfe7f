// Reshape, ExpandDims and Squeeze on the CPU: the output is the input's
// buffer under a new shape, never a copy, for every dtype (TensorFlow
// registers these without a type constraint). They only compute a shape, so
// they run inline.
#include <cstdint>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/cpu/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Output 0 is input 0 viewed with `shape` (whose element count the caller
// has checked).
void ShareWithShape(OpKernelContext* ctx, const TensorShape& shape) {
  StatusOr<Tensor> out = ctx->input(0).Reshaped(shape);
  OP_REQUIRES_OK(ctx, out.status());
  ctx->set_output(0, *std::move(out));
}

// The target shape of Reshape, TensorFlow's rules: one -1 may be inferred;
// sizes of 0 are left out of the product the -1 is inferred from, so
// [0, 3] can become [0, -1] = [0, 3].
class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    // A scalar is TensorFlow's legacy spelling of a one-element shape.
    OP_REQUIRES(ctx, sizes.dims() <= 1,
                errors::InvalidArgument(
                    "shape (input 1) must be a vector but has shape ",
                    sizes.shape().DebugString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexTensor(sizes, "shape (input 1)", &dims));
    int unknown = -1;
    int64_t product = 1;  // of the known non-zero sizes
    bool sizes_have_zero = false;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] == -1) {
        OP_REQUIRES(ctx, unknown < 0,
                    errors::InvalidArgument("shape (input 1) is ",
                                            IndexListString(dims),
                                            "; only one size may be -1, but ",
                                            unknown, " and ", d, " are"));
        unknown = static_cast<int>(d);
      } else if (dims[d] < 0) {
        OP_REQUIRES(ctx, false,
                    errors::InvalidArgument(
                        "shape (input 1) is ", IndexListString(dims), "; size ",
                        d, " is ", dims[d],
                        " but sizes must be >= 0, or -1 to infer one"));
      } else if (dims[d] == 0) {
        sizes_have_zero = true;
      } else {
        OP_REQUIRES(
            ctx, !__builtin_mul_overflow(product, dims[d], &product),
            errors::InvalidArgument("shape (input 1) ", IndexListString(dims),
                                    " has too many elements"));
      }
    }
    if (unknown >= 0) {
      // Zero-size input dimensions are left out too when the target has a
      // zero (TensorFlow's rule), so the other sizes can still be inferred.
      int64_t input_count = 1;
      bool input_has_zero = false;
      for (int d = 0; d < input.dims(); ++d) {
        if (input.dim_size(d) == 0 && sizes_have_zero) {
          input_has_zero = true;
        } else if (__builtin_mul_overflow(input_count, input.dim_size(d),
                                          &input_count)) {
          OP_REQUIRES(ctx, false,
                      errors::InvalidArgument(
                          "cannot infer the -1 in ", IndexListString(dims),
                          " for input 0 ", input.shape().DebugString(),
                          ": its non-zero sizes overflow int64"));
        }
      }
      const int64_t missing = input_count / product;
      OP_REQUIRES(ctx, input_has_zero || missing * product == input_count,
                  errors::InvalidArgument(
                      "cannot reshape input 0 ", input.shape().DebugString(),
                      " (", input.NumElements(), " elements) to ",
                      IndexListString(dims), ": the known sizes multiply to ",
                      product, ", which does not divide ", input_count));
      dims[unknown] = missing;
    }
    StatusOr<TensorShape> shape = TensorShape::Build(dims);
    OP_REQUIRES(ctx, shape.ok() && shape->num_elements() == input.NumElements(),
                errors::InvalidArgument(
                    "cannot reshape input 0 ", input.shape().DebugString(),
                    " (", input.NumElements(), " elements) to ",
                    IndexListString(dims), shape.ok() ? " (" : "",
                    shape.ok() ? absl::StrCat(shape->num_elements()) : "",
                    shape.ok() ? " elements)" : ""));
    ShareWithShape(ctx, *shape);
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Reshape").Device(DEVICE_CPU), ReshapeOp);

// A size-1 dimension inserted at `dim` (negative counts from the end of the
// output, so -1 appends).
class ExpandDimsOp : public OpKernel {
 public:
  explicit ExpandDimsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& dim_t = ctx->input(1);
    OP_REQUIRES(ctx, dim_t.NumElements() == 1,
                errors::InvalidArgument(
                    "dim (input 1) must hold exactly one value but has shape ",
                    dim_t.shape().DebugString()));
    std::vector<int64_t> values;
    OP_REQUIRES_OK(ctx, ReadIndexTensor(dim_t, "dim (input 1)", &values));
    const int64_t rank = input.dims();
    int64_t dim = values[0];
    OP_REQUIRES(ctx, dim >= -rank - 1 && dim <= rank,
                errors::InvalidArgument(
                    "dim (input 1) is ", dim, " but must be in [", -rank - 1,
                    ", ", rank, "] for input 0 ", input.shape().DebugString()));
    OP_REQUIRES(ctx, rank < kMaxRank,
                errors::InvalidArgument("input 0 already has the maximum rank ",
                                        kMaxRank));
    if (dim < 0) dim += rank + 1;
    std::vector<int64_t> dims(input.shape().dim_sizes().begin(),
                              input.shape().dim_sizes().end());
    dims.insert(dims.begin() + dim, 1);
    StatusOr<TensorShape> shape = TensorShape::Build(dims);
    OP_REQUIRES_OK(ctx, shape.status());
    ShareWithShape(ctx, *shape);
  }

  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("ExpandDims").Device(DEVICE_CPU), ExpandDimsOp);

// Size-1 dimensions removed: the listed ones (each must be 1), or all of
// them when squeeze_dims is empty.
class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("squeeze_dims", &dims));
    squeeze_dims_ = std::move(dims);
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const int64_t rank = input.dims();
    std::set<int64_t> wanted;
    for (int64_t d : squeeze_dims_) {
      OP_REQUIRES(
          ctx, d >= -rank && d < rank,
          errors::InvalidArgument(
              "attr 'squeeze_dims' names dimension ", d, " but input 0 ",
              input.shape().DebugString(), " has rank ", rank,
              "; dimensions must be in [", -rank, ", ", rank, ")"));
      wanted.insert(d < 0 ? d + rank : d);
    }
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t size = input.dim_size(static_cast<int>(d));
      if (wanted.count(d) > 0) {
        OP_REQUIRES(
            ctx, size == 1,
            errors::InvalidArgument("cannot squeeze dimension ", d,
                                    " of input 0 ", input.shape().DebugString(),
                                    ": its size is ", size, ", not 1"));
        continue;
      }
      if (wanted.empty() && size == 1) continue;
      dims.push_back(size);
    }
    StatusOr<TensorShape> shape = TensorShape::Build(dims);
    OP_REQUIRES_OK(ctx, shape.status());
    ShareWithShape(ctx, *shape);
  }

  bool IsExpensive() const override { return false; }

 private:
  std::vector<int64_t> squeeze_dims_;
};

REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_CPU), SqueezeOp);

}  // namespace
}  // namespace weft
