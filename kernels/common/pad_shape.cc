#include "kernels/common/pad_shape.h"

#include <algorithm>
#include <string>

#include "kernels/common/copy_util.h"

namespace weft {

StatusOr<PadMode> ReadMirrorPadMode(OpKernelConstruction* ctx) {
  std::string mode;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("mode", &mode));
  if (mode == "REFLECT") return PadMode::kReflect;
  if (mode == "SYMMETRIC") return PadMode::kSymmetric;
  return errors::InvalidArgument("attr 'mode' is '", mode,
                                 "'; expected REFLECT or SYMMETRIC");
}

StatusOr<PadShape> ResolvePad(const Tensor& input, const Tensor& p,
                              PadMode mode) {
  const int rank = input.dims();
  if (p.dims() != 2 || p.dim_size(0) != rank || p.dim_size(1) != 2) {
    return errors::InvalidArgument(
        "paddings (input 1) must be a [", rank,
        ", 2] matrix, one row per dimension of input 0 ",
        input.shape().DebugString(), ", but has shape ",
        p.shape().DebugString());
  }
  std::vector<int64_t> values;
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(p, "paddings (input 1)", &values));
  const int64_t max_offset = mode == PadMode::kReflect     ? 1
                             : mode == PadMode::kSymmetric ? 0
                                                           : -1;
  PadShape pad;
  pad.before.resize(rank);
  pad.after.resize(rank);
  std::vector<int64_t> out_dims(rank);
  for (int d = 0; d < rank; ++d) {
    const int64_t b = values[2 * d];
    const int64_t a = values[2 * d + 1];
    const int64_t size = input.dim_size(d);
    if (b < 0 || a < 0) {
      return errors::InvalidArgument("paddings (input 1) are ",
                                     IndexListString(values),
                                     " but must be >= 0 (dimension ", d, ")");
    }
    if (max_offset >= 0 && (b > size - max_offset || a > size - max_offset)) {
      return errors::InvalidArgument(
          "paddings (input 1) are ", IndexListString(values), " but ",
          mode == PadMode::kReflect ? "REFLECT" : "SYMMETRIC",
          " padding of dimension ", d, " of input 0 ",
          input.shape().DebugString(), " allows at most ",
          std::max<int64_t>(size - max_offset, 0), " on each side");
    }
    pad.before[d] = b;
    pad.after[d] = a;
    out_dims[d] = size + b + a;
    pad.padded = pad.padded || b != 0 || a != 0;
  }
  if (!pad.padded) {
    pad.shape = input.shape();
    return pad;
  }
  WEFT_ASSIGN_OR_RETURN(pad.shape, TensorShape::Build(out_dims));
  return pad;
}

Status CheckPadConstant(const Tensor& constant_values) {
  if (constant_values.dims() != 0) {
    return errors::InvalidArgument(
        "constant_values (input 2) must be a scalar but has shape ",
        constant_values.shape().DebugString());
  }
  return Status();
}

}  // namespace weft
