// ReverseV2 and Roll on the CPU; both move whole elements (any dtype, strings
// included) and never compute.
//  - ReverseV2: output = input read backwards along the dimensions in `axis`
//    (negative values count from the end; a repeated dimension is an error,
//    as in TensorFlow). One strided copy with negative strides
//    (copy_util::StridedGather).
//  - Roll: output[..., i_d, ...] = input[..., (i_d - shift_d) mod n_d, ...]
//    for each (shift, axis) pair; shifts on the same dimension add up, as in
//    TensorFlow, and negative axes count from the end. Rows of the innermost
//    dimension are copied as at most two runs each, split over the arena.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class ReverseV2Op : public OpKernel {
 public:
  explicit ReverseV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    OP_REQUIRES(ctx, axis_t.dims() == 1,
                errors::InvalidArgument("axis (input 1) must be a vector but "
                                        "has shape ",
                                        axis_t.shape().DebugString()));
    const int rank = input.dims();
    OP_REQUIRES(ctx, rank <= 8,
                errors::InvalidArgument(
                    "ReverseV2 handles tensors of rank up to 8, but input 0 "
                    "has shape ",
                    input.shape().DebugString()));
    std::vector<int64_t> axes;
    OP_REQUIRES_OK(ctx, ReadIndexTensor(axis_t, "axis (input 1)", &axes));
    std::vector<bool> flip(rank, false);
    for (int64_t a : axes) {
      const int64_t d = a < 0 ? a + rank : a;
      OP_REQUIRES(
          ctx, d >= 0 && d < rank,
          errors::InvalidArgument("axis (input 1) holds ", a, ", outside [",
                                  -rank, ", ", rank, ") for input 0 of shape ",
                                  input.shape().DebugString()));
      OP_REQUIRES(
          ctx, !flip[d],
          errors::InvalidArgument("axis (input 1) ", IndexListString(axes),
                                  " names dimension ", d, " more than once"));
      flip[d] = true;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const copy_util::Dims strides = copy_util::RowMajorStrides(input.shape());
    copy_util::Dims dims;
    copy_util::Dims signed_strides;
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) {
      dims.push_back(input.dim_size(d));
      if (flip[d]) {
        offset += (input.dim_size(d) - 1) * strides[d];
        signed_strides.push_back(-strides[d]);
      } else {
        signed_strides.push_back(strides[d]);
      }
    }
    copy_util::StridedGather(*ctx, input.dtype(), input.raw_data(), offset,
                             dims, signed_strides, out->raw_data());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("ReverseV2")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING}))
        .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
    ReverseV2Op);

class RollOp : public OpKernel {
 public:
  explicit RollOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& shift_t = ctx->input(1);
    const Tensor& axis_t = ctx->input(2);
    const int rank = input.dims();
    OP_REQUIRES(ctx, rank >= 1,
                errors::InvalidArgument("input 0 must have rank at least 1"));
    OP_REQUIRES(ctx, shift_t.dims() <= 1,
                errors::InvalidArgument("shift (input 1) must be a scalar or "
                                        "a vector but has shape ",
                                        shift_t.shape().DebugString()));
    OP_REQUIRES(ctx, axis_t.dims() <= 1,
                errors::InvalidArgument("axis (input 2) must be a scalar or "
                                        "a vector but has shape ",
                                        axis_t.shape().DebugString()));
    OP_REQUIRES(ctx, shift_t.shape() == axis_t.shape(),
                errors::InvalidArgument(
                    "shift (input 1) and axis (input 2) must have the same "
                    "size, but have shapes ",
                    shift_t.shape().DebugString(), " and ",
                    axis_t.shape().DebugString()));
    std::vector<int64_t> shifts;
    std::vector<int64_t> axes;
    OP_REQUIRES_OK(ctx, ReadIndexTensor(shift_t, "shift (input 1)", &shifts));
    OP_REQUIRES_OK(ctx, ReadIndexTensor(axis_t, "axis (input 2)", &axes));
    // Per dimension, the shift in [0, n).
    std::vector<int64_t> shift(rank, 0);
    for (size_t k = 0; k < axes.size(); ++k) {
      const int64_t d = axes[k] < 0 ? axes[k] + rank : axes[k];
      OP_REQUIRES(ctx, d >= 0 && d < rank,
                  errors::InvalidArgument("axis (input 2) holds ", axes[k],
                                          ", outside [", -rank, ", ", rank,
                                          ") for input 0 of shape ",
                                          input.shape().DebugString()));
      const int64_t n = input.dim_size(d);
      if (n == 0) continue;
      const int64_t s = shifts[k] % n;
      shift[d] = ((shift[d] + s) % n + n) % n;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const DataType dtype = input.dtype();
    const size_t bytes = copy_util::ElementBytes(dtype);
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    const copy_util::Dims strides = copy_util::RowMajorStrides(input.shape());
    const int64_t inner = input.dim_size(rank - 1);
    const int64_t rows = input.NumElements() / inner;
    const int64_t s_inner = shift[rank - 1];
    ctx->ParallelFor(rows, inner + 8, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        // The source row: each outer index moved back by its shift.
        int64_t rem = r;
        int64_t from = 0;
        for (int d = rank - 2; d >= 0; --d) {
          const int64_t n = input.dim_size(d);
          const int64_t i = rem % n;
          rem /= n;
          const int64_t j = i - shift[d] < 0 ? i - shift[d] + n : i - shift[d];
          from += j * strides[d];
        }
        const char* in_row = src + from * bytes;
        char* out_row = dst + r * inner * bytes;
        // out[s_inner..inner) = in[0..inner-s_inner), out[0..s_inner) =
        // in[inner-s_inner..inner).
        copy_util::CopyElements(dtype, in_row, out_row + s_inner * bytes,
                                inner - s_inner);
        copy_util::CopyElements(dtype, in_row + (inner - s_inner) * bytes,
                                out_row, s_inner);
      }
    });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Roll")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING}))
        .TypeConstraint("Tshift", {DT_INT32, DT_INT64})
        .TypeConstraint("Taxis", {DT_INT32, DT_INT64}),
    RollOp);

}  // namespace
}  // namespace weft
