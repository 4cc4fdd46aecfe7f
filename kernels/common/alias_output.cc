#include "kernels/common/alias_output.h"

#include <utility>

namespace weft {

void ForwardInputWithShape(OpKernelContext* ctx, int index,
                           const StatusOr<TensorShape>& shape) {
  OP_REQUIRES_OK(ctx, shape.status());
  StatusOr<Tensor> out = ctx->input(index).Reshaped(*shape);
  OP_REQUIRES_OK(ctx, out.status());
  ctx->set_output(0, *std::move(out));
}

Tensor* SnapshotOutputToFill(OpKernelContext* ctx) {
  const Tensor& input = ctx->input(0);
  Tensor* out = nullptr;
  const Status s =
      ctx->forward_input_or_allocate_output({0}, 0, input.shape(), &out);
  if (!s.ok()) {
    ctx->SetStatus(s);
    return nullptr;
  }
  if (out->SharesBufferWith(input) || input.NumElements() == 0) return nullptr;
  return out;
}

}  // namespace weft
