#include "kernels/common/tile_shape.h"

#include "kernels/common/copy_util.h"

namespace weft {

StatusOr<TileDims> GetTileDims(const TensorShape& input,
                               const Tensor& multiples_t) {
  const int rank = input.dims();
  if (multiples_t.dims() != 1 || multiples_t.dim_size(0) != rank) {
    return errors::InvalidArgument(
        "multiples (input 1) must be a vector of ", rank,
        " values, one per dimension of input 0 ", input.DebugString(),
        ", but has shape ", multiples_t.shape().DebugString());
  }
  TileDims t;
  const std::vector<int64_t>& multiples = t.multiples;
  WEFT_RETURN_IF_ERROR(
      ReadIndexTensor(multiples_t, "multiples (input 1)", &t.multiples));
  std::vector<int64_t> out_dims(rank);
  t.same = true;
  for (int d = 0; d < rank; ++d) {
    if (multiples[d] < 0) {
      return errors::InvalidArgument("multiples (input 1) are ",
                                     IndexListString(multiples),
                                     " but must be >= 0");
    }
    if (__builtin_mul_overflow(input.dim_size(d), multiples[d], &out_dims[d])) {
      return errors::InvalidArgument("tiling input 0 ", input.DebugString(),
                                     " by ", IndexListString(multiples),
                                     " overflows");
    }
    t.same = t.same && multiples[d] == 1;
  }
  if (t.same) {
    t.out_shape = input;
  } else {
    WEFT_ASSIGN_OR_RETURN(t.out_shape, TensorShape::Build(out_dims));
  }
  return t;
}

Status StartTile(OpKernelContext* ctx, TileDims* dims) {
  WEFT_ASSIGN_OR_RETURN(*dims,
                        GetTileDims(ctx->input(0).shape(), ctx->input(1)));
  if (dims->same) ctx->set_output(0, ctx->input(0));
  return Status();
}

}  // namespace weft
