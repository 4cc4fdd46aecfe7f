#include "kernels/cuda/plan/movement_plan.h"

#include <cstring>
#include <utility>
#include <vector>

#include "kernels/common/copy_util.h"
#include "kernels/common/fill_shape.h"

namespace weft {
namespace {

Status TooManyDims(const TensorShape& shape, size_t merged) {
  return errors::Unimplemented(
      "input 0 has shape ", shape.DebugString(), ", whose copy needs ", merged,
      " dimensions after merging; the CUDA kernel takes at most ",
      gpu::kMaxMoveRank);
}

// The strided view of `input` over `dims` from `begin` by `steps` (the same
// description the CPU kernels hand to StridedGather), with size-1
// dimensions dropped and dimensions that continue each other in memory
// merged, so that the kernel divides as little as it can.
StatusOr<gpu::StridedCopyParams> MakeStridedCopy(
    const TensorShape& shape, const std::vector<int64_t>& begin,
    const std::vector<int64_t>& steps, const std::vector<int64_t>& dims) {
  const copy_util::Dims in_strides = copy_util::RowMajorStrides(shape);
  std::vector<int64_t> md;
  std::vector<int64_t> ms;
  int64_t offset = 0;
  for (int d = 0; d < shape.dims(); ++d) {
    offset += begin[d] * in_strides[d];
    if (dims[d] == 1) continue;
    const int64_t stride = in_strides[d] * steps[d];
    if (!md.empty() && ms.back() == stride * dims[d]) {
      md.back() *= dims[d];
      ms.back() = stride;
    } else {
      md.push_back(dims[d]);
      ms.push_back(stride);
    }
  }
  if (md.size() > static_cast<size_t>(gpu::kMaxMoveRank)) {
    return TooManyDims(shape, md.size());
  }
  gpu::StridedCopyParams p;
  p.rank = static_cast<int>(md.size());
  p.offset = offset;
  for (int d = 0; d < p.rank; ++d) {
    p.dims[d] = md[d];
    p.strides[d] = ms[d];
  }
  return p;
}

// The launch plan of a resolved view: what the CPU kernels' EmitSlice does
// with it, forwarding the input or describing the copy.
StatusOr<GpuSlicePlan> PlanView(const Tensor& input, SliceView view) {
  GpuSlicePlan plan;
  plan.shape = std::move(view.shape);
  plan.forward_input = view.whole;
  if (view.whole || plan.shape.num_elements() == 0) return plan;
  WEFT_ASSIGN_OR_RETURN(plan.copy, MakeStridedCopy(input.shape(), view.begin,
                                                   view.steps, view.dims));
  return plan;
}

// Bits of the scalar element of `t` in the low bytes of a uint64_t.
StatusOr<uint64_t> ScalarBits(const Tensor& t, absl::string_view what) {
  const size_t bytes = DataTypeIsPod(t.dtype()) ? DataTypeSize(t.dtype()) : 0;
  if (bytes == 0 || bytes > sizeof(uint64_t)) {
    return errors::InvalidArgument(what, " has dtype ", DataTypeName(t.dtype()),
                                   ", which the CUDA kernel cannot move");
  }
  uint64_t bits = 0;
  std::memcpy(&bits, t.raw_data(), bytes);
  return bits;
}

}  // namespace

StatusOr<GpuSlicePlan> PlanGpuSlice(const Tensor& input, const Tensor& begin,
                                    const Tensor& size) {
  WEFT_ASSIGN_OR_RETURN(SliceView view, ResolveSlice(input, begin, size));
  return PlanView(input, std::move(view));
}

StatusOr<GpuSlicePlan> PlanGpuStridedSlice(const Tensor& input,
                                           const Tensor& begin,
                                           const Tensor& end,
                                           const Tensor& strides,
                                           const StridedSliceMasks& masks) {
  WEFT_ASSIGN_OR_RETURN(SliceView view,
                        ResolveStridedSlice(input, begin, end, strides, masks));
  return PlanView(input, std::move(view));
}

StatusOr<GpuPadPlan> PlanGpuPad(const Tensor& input, const Tensor& paddings,
                                PadMode mode) {
  WEFT_ASSIGN_OR_RETURN(PadShape padded, ResolvePad(input, paddings, mode));
  GpuPadPlan plan;
  plan.shape = padded.shape;
  plan.forward_input = !padded.padded;
  if (plan.forward_input || plan.shape.num_elements() == 0) return plan;

  // Unpadded dimensions of size 1 index nothing; runs of unpadded
  // dimensions index as one.
  std::vector<int64_t> in_m;
  std::vector<int64_t> out_m;
  std::vector<int64_t> before_m;
  bool last_unpadded = false;
  for (int d = 0; d < input.dims(); ++d) {
    const int64_t b = padded.before[d];
    const int64_t size = input.dim_size(d);
    const bool unpadded = b == 0 && padded.after[d] == 0;
    if (unpadded && size == 1) continue;
    if (unpadded && last_unpadded) {
      in_m.back() *= size;
      out_m.back() *= size;
      continue;
    }
    in_m.push_back(size);
    out_m.push_back(plan.shape.dim_size(d));
    before_m.push_back(b);
    last_unpadded = unpadded;
  }
  if (in_m.size() > static_cast<size_t>(gpu::kMaxMoveRank)) {
    return TooManyDims(input.shape(), in_m.size());
  }
  gpu::PadParams& pad = plan.pad;
  pad.mode = mode == PadMode::kReflect     ? gpu::PadMode::kReflect
             : mode == PadMode::kSymmetric ? gpu::PadMode::kSymmetric
                                           : gpu::PadMode::kConstant;
  pad.rank = static_cast<int>(in_m.size());
  int64_t stride = 1;
  for (int d = pad.rank - 1; d >= 0; --d) {
    pad.in_dims[d] = in_m[d];
    pad.out_dims[d] = out_m[d];
    pad.before[d] = before_m[d];
    pad.in_strides[d] = stride;
    stride *= in_m[d];
  }
  return plan;
}

StatusOr<uint64_t> PadConstantBits(const Tensor& value) {
  WEFT_RETURN_IF_ERROR(CheckPadConstant(value));
  return ScalarBits(value, "constant_values (input 2)");
}

StatusOr<GpuGatherPlan> PlanGpuGather(const Tensor& params,
                                      const Tensor& indices, const Tensor& axis,
                                      int64_t batch_dims) {
  WEFT_ASSIGN_OR_RETURN(GatherDims dims,
                        ResolveGather(params, indices, axis, batch_dims));
  GpuGatherPlan plan;
  plan.shape = std::move(dims.shape);
  plan.gather.batch = dims.batch;
  plan.gather.outer = dims.outer;
  plan.gather.gather_dim = dims.gather_dim;
  plan.gather.n = dims.n;
  plan.gather.inner = dims.inner;
  return plan;
}

StatusOr<GpuFillPlan> PlanGpuFill(const Tensor& dims, const Tensor& value) {
  GpuFillPlan plan;
  WEFT_ASSIGN_OR_RETURN(plan.shape, ResolveFillShape(dims, value));
  WEFT_ASSIGN_OR_RETURN(plan.value_bits, ScalarBits(value, "value (input 1)"));
  return plan;
}

StatusOr<uint64_t> OneBits(DataType dtype) {
  alignas(16) unsigned char one[16] = {};
  if (!OneElement(dtype, one).ok() || DataTypeSize(dtype) > sizeof(uint64_t)) {
    return errors::InvalidArgument("OnesLike has no one for ",
                                   DataTypeName(dtype), " on CUDA");
  }
  uint64_t bits = 0;
  std::memcpy(&bits, one, sizeof(bits));
  return bits;
}

}  // namespace weft
