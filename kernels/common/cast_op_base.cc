#include "kernels/common/cast_op_base.h"

namespace weft {

CastOpBase::CastOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
  OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
  OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate_));
}

void CastOpBase::Compute(OpKernelContext* ctx) const {
  const Tensor& x = ctx->input(0);
  if (identity()) {
    ctx->set_output(0, x);
    return;
  }
  Tensor* y = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
  Convert(ctx, x, y);
}

}  // namespace weft
