// The input contract of Pad, PadV2 and MirrorPad, shared by their kernels
// on every device so that they accept the same paddings, produce the same
// shape and report the same errors.
#ifndef WEFT_KERNELS_COMMON_PAD_SHAPE_H_
#define WEFT_KERNELS_COMMON_PAD_SHAPE_H_

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "kernels/op_kernel.h"

namespace weft {

// Pad and PadV2 pad with a constant; MirrorPad reflects the input without
// (REFLECT) or with (SYMMETRIC) the edge element.
enum class PadMode { kConstant, kReflect, kSymmetric };

// Reads MirrorPad's attr 'mode': REFLECT or SYMMETRIC; InvalidArgument for
// anything else, and the error of a missing attr.
StatusOr<PadMode> ReadMirrorPadMode(OpKernelConstruction* ctx);

struct PadShape {
  // Per dimension of the input: the padding before and after it.
  std::vector<int64_t> before;
  std::vector<int64_t> after;
  // No padding anywhere: the output is the input, and `shape` is its shape.
  bool padded = false;
  TensorShape shape;
};

// Checks paddings (input 1) against `input` for `mode`: a [rank, 2] matrix
// of values >= 0, and for the mirror modes at most size - 1 (REFLECT) or
// size (SYMMETRIC) on each side. InvalidArgument otherwise, and the errors
// of ReadIndexTensor and (for the padded shape) TensorShape::Build.
StatusOr<PadShape> ResolvePad(const Tensor& input, const Tensor& paddings,
                              PadMode mode);

// PadV2's constant_values (input 2) must be a scalar (InvalidArgument).
Status CheckPadConstant(const Tensor& constant_values);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_PAD_SHAPE_H_
