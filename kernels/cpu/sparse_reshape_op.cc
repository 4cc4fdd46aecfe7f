// SparseReshape on the CPU: the indices of a sparse tensor re-expressed for
// a new dense shape of the same element count (one -1 in new_shape is
// inferred), each entry through its row-major linear position; the same
// shape passes indices and shape through. Errors are TensorFlow's
// messages, plus one TensorFlow does not make: an index outside
// input_shape (TensorFlow computes a meaningless position from it; weft
// says which entry is out of bounds, so that no index arithmetic can
// overflow).
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class SparseReshapeOp : public OpKernel {
 public:
  explicit SparseReshapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& indices = ctx->input(0);
    const Tensor& input_shape_t = ctx->input(1);
    const Tensor& new_shape_t = ctx->input(2);
    OP_REQUIRES(ctx, indices.dims() == 2,
                errors::InvalidArgument(
                    "Input indices should be a matrix but received shape ",
                    indices.shape().DebugString()));
    OP_REQUIRES(ctx, input_shape_t.dims() == 1,
                errors::InvalidArgument(
                    "Input shape should be a vector but received shape ",
                    input_shape_t.shape().DebugString()));
    OP_REQUIRES(ctx, new_shape_t.dims() == 1,
                errors::InvalidArgument(
                    "Target shape should be a vector but received shape ",
                    new_shape_t.shape().DebugString()));
    const int64_t nnz = indices.dim_size(0);
    const int64_t in_rank = input_shape_t.NumElements();
    const int64_t out_rank = new_shape_t.NumElements();
    OP_REQUIRES(ctx, indices.dim_size(1) == in_rank,
                errors::InvalidArgument(
                    "Input tensor rank must match input shape length: ",
                    indices.dim_size(1), " vs. ", in_rank));
    const int64_t* in_dims = input_shape_t.data<int64_t>();
    StatusOr<TensorShape> input_shape = TensorShape::Build(
        absl::Span<const int64_t>(in_dims, static_cast<size_t>(in_rank)));
    OP_REQUIRES_OK(ctx, input_shape.status());
    const int64_t dense_size = input_shape->num_elements();

    const int64_t* target = new_shape_t.data<int64_t>();
    std::vector<int64_t> out_dims(static_cast<size_t>(out_rank));
    int64_t unknown = -1;
    for (int64_t d = 0; d < out_rank; ++d) {
      const int64_t size = target[d];
      if (size == -1) {
        OP_REQUIRES(ctx, unknown == -1,
                    errors::InvalidArgument(
                        "only one output dimension may be -1, not both ",
                        unknown, " and ", d));
        unknown = d;
        out_dims[d] = 1;
      } else {
        OP_REQUIRES(ctx, size >= 0,
                    errors::InvalidArgument(
                        "size ", d, " must be non-negative, not ", size));
        out_dims[d] = size;
      }
    }
    // Also checks that the known sizes multiply without overflow.
    StatusOr<TensorShape> known = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, known.status());
    const int64_t product = known->num_elements();
    if (unknown != -1) {
      OP_REQUIRES(ctx, product > 0,
                  errors::InvalidArgument(
                      "reshape cannot infer the missing input size for an "
                      "empty tensor unless all specified input sizes are "
                      "non-zero"));
      const int64_t missing = dense_size / product;
      OP_REQUIRES(ctx, product * missing == dense_size,
                  errors::InvalidArgument(
                      "Input to reshape is a SparseTensor with ", dense_size,
                      " dense values, but the requested shape requires a "
                      "multiple of ",
                      product, ". input_shape=", input_shape->DebugString(),
                      " output_shape=", known->DebugString()));
      out_dims[unknown] = missing;
    }
    StatusOr<TensorShape> output_shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, output_shape.status());
    OP_REQUIRES(ctx, output_shape->num_elements() == dense_size,
                errors::InvalidArgument(
                    "Input to reshape is a tensor with ", dense_size,
                    " dense values, but the requested shape has ",
                    output_shape->num_elements(),
                    ". input_shape=", input_shape->DebugString(),
                    " output_shape=", output_shape->DebugString()));
    if (*input_shape == *output_shape) {
      ctx->set_output(0, indices);
      ctx->set_output(1, input_shape_t);
      return;
    }
    Tensor* shape_out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({out_rank}), &shape_out));
    for (int64_t d = 0; d < out_rank; ++d) {
      shape_out->data<int64_t>()[d] = out_dims[d];
    }
    StatusOr<TensorShape> indices_shape = TensorShape::Build({nnz, out_rank});
    OP_REQUIRES_OK(ctx, indices_shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *indices_shape, &out));
    if (nnz == 0) return;
    OP_REQUIRES(
        ctx, dense_size > 0 && product > 0,
        errors::InvalidArgument(
            "Input tensor has ", nnz, " non zero elements but input shape (",
            input_shape->DebugString(), ") or output shape (",
            output_shape->DebugString(), ") is empty"));
    const int64_t* in = indices.data<int64_t>();
    for (int64_t i = 0; i < nnz * in_rank; ++i) {
      const int64_t d = i % in_rank;
      OP_REQUIRES(ctx, in[i] >= 0 && in[i] < in_dims[d],
                  errors::InvalidArgument("input_indices[", i / in_rank, ", ",
                                          d, "] = ", in[i],
                                          " is out of bounds for input_shape ",
                                          input_shape->DebugString()));
    }
    const copy_util::Dims in_strides = copy_util::RowMajorStrides(*input_shape);
    const copy_util::Dims out_strides =
        copy_util::RowMajorStrides(*output_shape);
    int64_t* o = out->data<int64_t>();
    ctx->ParallelFor(nnz, 4 * (in_rank + out_rank),
                     [&](int64_t begin, int64_t end) {
                       for (int64_t i = begin; i < end; ++i) {
                         int64_t id = 0;
                         for (int64_t d = 0; d < in_rank; ++d) {
                           id += in[i * in_rank + d] * in_strides[d];
                         }
                         for (int64_t d = 0; d < out_rank; ++d) {
                           o[i * out_rank + d] = id / out_strides[d];
                           id %= out_strides[d];
                         }
                       }
                     });
  }
};

REGISTER_KERNEL_BUILDER(Name("SparseReshape").Device(DEVICE_CPU),
                        SparseReshapeOp);

}  // namespace
}  // namespace weft
