// Transpose on the CPU: y.shape[i] = x.shape[perm[i]], any rank, perm
// entries negative counting from the end (as TensorFlow's kernel reads
// them; the checks are kernels/common/transpose_shape.h, shared with the CUDA
// kernel). A permutation that keeps the order of all dimensions larger than 1
// moves no data, so the output shares the input's buffer; otherwise the
// elements are moved by StridedGather, which turns the common layouts (a
// trailing block that stays in place, a batched 2-D transpose such as
// NHWC <-> NCHW) into memcpy runs or cache-blocked tiles. Dtype-agnostic:
// one compiled copy per element width, strings included.
#include <cstdint>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/transpose_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    TransposeDims dims;
    OP_REQUIRES_OK(ctx, StartTranspose(ctx, &dims));
    if (!dims.moves_data) return;
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, dims.out_shape, &y));
    const int rank = x.dims();
    const copy_util::Dims in_strides = copy_util::RowMajorStrides(x.shape());
    copy_util::Dims strides(rank);
    for (int i = 0; i < rank; ++i) strides[i] = in_strides[dims.perm[i]];
    copy_util::StridedGather(*ctx, x.dtype(), x.raw_data(), 0,
                             dims.out_shape.dim_sizes(), strides,
                             y->raw_data());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Transpose")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING})),
    TransposeOp);

}  // namespace
}  // namespace weft
