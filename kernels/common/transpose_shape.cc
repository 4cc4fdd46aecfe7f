#include "kernels/common/transpose_shape.h"

#include "kernels/common/alias_output.h"
#include "kernels/common/copy_util.h"

namespace weft {

StatusOr<TransposeDims> GetTransposeDims(const TensorShape& input,
                                         const Tensor& perm_t) {
  if (perm_t.dims() != 1) {
    return errors::InvalidArgument("perm (input 1) must be a vector but has ",
                                   "shape ", perm_t.shape().DebugString());
  }
  TransposeDims t;
  std::vector<int64_t>& perm = t.perm;
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(perm_t, "perm (input 1)", &perm));
  const int rank = input.dims();
  if (static_cast<int64_t>(perm.size()) != rank) {
    return errors::InvalidArgument(
        "perm (input 1) is ", IndexListString(perm), " with ", perm.size(),
        " entries but input 0 ", input.DebugString(), " has rank ", rank);
  }
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> out_dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int64_t d = perm[i] < 0 ? perm[i] + rank : perm[i];
    if (d < 0 || d >= rank || seen[d]) {
      return errors::InvalidArgument(
          "perm (input 1) is ", IndexListString(perm),
          " but must be a permutation of the dimensions of input 0 (rank ",
          rank, "); entry ", i, " is ",
          d >= 0 && d < rank ? "repeated" : "out of range");
    }
    seen[d] = true;
    perm[i] = d;
    out_dims[i] = input.dim_size(static_cast<int>(d));
  }
  WEFT_ASSIGN_OR_RETURN(t.out_shape, TensorShape::Build(out_dims));
  // Size-1 dimensions can go anywhere without moving an element.
  int64_t last = -1;
  for (int i = 0; i < rank; ++i) {
    if (out_dims[i] == 1) continue;
    if (perm[i] < last) t.moves_data = true;
    last = perm[i];
  }
  return t;
}

Status StartTranspose(OpKernelContext* ctx, TransposeDims* dims) {
  WEFT_ASSIGN_OR_RETURN(*dims,
                        GetTransposeDims(ctx->input(0).shape(), ctx->input(1)));
  if (!dims->moves_data) ForwardInputWithShape(ctx, 0, dims->out_shape);
  return Status();
}

}  // namespace weft
