// Transpose on the CPU: y.shape[i] = x.shape[perm[i]], any rank, perm
// entries negative counting from the end (as TensorFlow's kernel reads
// them). A permutation that keeps the order of all dimensions larger than 1
// moves no data, so the output shares the input's buffer; otherwise the
// elements are moved by StridedGather, which turns the common layouts (a
// trailing block that stays in place, a batched 2-D transpose such as
// NHWC <-> NCHW) into memcpy runs or cache-blocked tiles. Dtype-agnostic:
// one compiled copy per element width, strings included.
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& perm_t = ctx->input(1);
    OP_REQUIRES(ctx, perm_t.dims() == 1,
                errors::InvalidArgument("perm (input 1) must be a vector but "
                                        "has shape ",
                                        perm_t.shape().DebugString()));
    std::vector<int64_t> perm;
    OP_REQUIRES_OK(ctx, ReadIndexTensor(perm_t, "perm (input 1)", &perm));
    const int rank = x.dims();
    OP_REQUIRES(
        ctx, static_cast<int64_t>(perm.size()) == rank,
        errors::InvalidArgument("perm (input 1) is ", IndexListString(perm),
                                " with ", perm.size(), " entries but input 0 ",
                                x.shape().DebugString(), " has rank ", rank));
    std::vector<bool> seen(rank, false);
    std::vector<int64_t> out_dims(rank);
    for (int i = 0; i < rank; ++i) {
      const int64_t d = perm[i] < 0 ? perm[i] + rank : perm[i];
      OP_REQUIRES(ctx, d >= 0 && d < rank && !seen[d],
                  errors::InvalidArgument(
                      "perm (input 1) is ", IndexListString(perm),
                      " but must be a permutation of the dimensions of input "
                      "0 (rank ",
                      rank, "); entry ", i, " is ",
                      d >= 0 && d < rank ? "repeated" : "out of range"));
      seen[d] = true;
      perm[i] = d;
      out_dims[i] = x.dim_size(static_cast<int>(d));
    }
    StatusOr<TensorShape> shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, shape.status());

    // Whether the dimensions larger than 1 keep their order.
    bool moves_data = false;
    int64_t last = -1;
    for (int i = 0; i < rank; ++i) {
      if (out_dims[i] == 1) continue;
      if (perm[i] < last) moves_data = true;
      last = perm[i];
    }
    if (!moves_data) {
      StatusOr<Tensor> y = x.Reshaped(*shape);
      OP_REQUIRES_OK(ctx, y.status());
      ctx->set_output(0, *std::move(y));
      return;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &y));
    const copy_util::Dims in_strides = copy_util::RowMajorStrides(x.shape());
    copy_util::Dims strides(rank);
    for (int i = 0; i < rank; ++i) strides[i] = in_strides[perm[i]];
    copy_util::StridedGather(*ctx, x.dtype(), x.raw_data(), 0, out_dims,
                             strides, y->raw_data());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Transpose")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING})),
    TransposeOp);

}  // namespace
}  // namespace weft
