#include "kernels/gpu_movement_plan.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/dtype_traits.h"
#include "kernels/cpu/copy_util.h"

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

// What the CPU kernels' EmitSlice does with a view: forward the input when
// the view is all of it in order, otherwise describe the copy.
StatusOr<GpuSlicePlan> FinishSlice(const Tensor& input,
                                   const std::vector<int64_t>& begin,
                                   const std::vector<int64_t>& steps,
                                   const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& out_dims) {
  GpuSlicePlan plan;
  WEFT_ASSIGN_OR_RETURN(plan.shape, TensorShape::Build(out_dims));
  bool whole = true;
  for (int d = 0; d < input.dims(); ++d) {
    const int64_t size = input.dim_size(d);
    whole = whole && dims[d] == size &&
            (size <= 1 || (begin[d] == 0 && steps[d] == 1));
  }
  plan.forward_input = whole;
  if (whole || plan.shape.num_elements() == 0) return plan;
  WEFT_ASSIGN_OR_RETURN(plan.copy,
                        MakeStridedCopy(input.shape(), begin, steps, dims));
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

// The checks and messages below are those of kernels/cpu/slice_ops.cc
// (SliceOp::Compute), which keeps them private to that file.
StatusOr<GpuSlicePlan> PlanGpuSlice(const Tensor& input, const Tensor& begin_t,
                                    const Tensor& size_t_) {
  const int rank = input.dims();
  if (!(begin_t.dims() == 1 && size_t_.dims() == 1 &&
        begin_t.dim_size(0) == rank && size_t_.dim_size(0) == rank)) {
    return errors::InvalidArgument(
        "begin (input 1) and size (input 2) must be vectors of ", rank,
        " values, one per dimension of input 0 ", input.shape().DebugString(),
        ", but have shapes ", begin_t.shape().DebugString(), " and ",
        size_t_.shape().DebugString());
  }
  std::vector<int64_t> begin;
  std::vector<int64_t> size;
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(begin_t, "begin (input 1)", &begin));
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(size_t_, "size (input 2)", &size));
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = input.dim_size(d);
    if (begin[d] < 0 || begin[d] > dim) {
      return errors::InvalidArgument("begin (input 1) is ",
                                     IndexListString(begin), " but begin[", d,
                                     "] must be in [0, ", dim, "] for input 0 ",
                                     input.shape().DebugString());
    }
    if (size[d] == -1) size[d] = dim - begin[d];
    if (size[d] < 0 || size[d] > dim - begin[d]) {
      return errors::InvalidArgument(
          "size (input 2) is ", IndexListString(size), " but size[", d,
          "] must be in [0, ", dim - begin[d], "] (or -1) to slice dimension ",
          d, " of input 0 ", input.shape().DebugString(), " from ", begin[d]);
    }
  }
  return FinishSlice(input, begin, std::vector<int64_t>(rank, 1), size, size);
}

// As kernels/cpu/slice_ops.cc (StridedSliceOp::Compute) reads its inputs.
StatusOr<GpuSlicePlan> PlanGpuStridedSlice(const Tensor& input,
                                           const Tensor& begin,
                                           const Tensor& end,
                                           const Tensor& strides,
                                           const StridedSliceMasks& masks) {
  static constexpr const char* kNames[] = {"begin (input 1)", "end (input 2)",
                                           "strides (input 3)"};
  const Tensor* tensors[] = {&begin, &end, &strides};
  std::vector<int64_t> spec[3];
  for (int i = 0; i < 3; ++i) {
    const Tensor& t = *tensors[i];
    if (t.dims() != 1) {
      return errors::InvalidArgument(kNames[i],
                                     " must be a vector but has shape ",
                                     t.shape().DebugString());
    }
    WEFT_RETURN_IF_ERROR(ReadIndexTensor(t, kNames[i], &spec[i]));
  }
  const std::vector<int64_t> input_dims(input.shape().dim_sizes().begin(),
                                        input.shape().dim_sizes().end());
  WEFT_ASSIGN_OR_RETURN(
      StridedSlicePlan plan,
      PlanStridedSlice(input_dims, static_cast<int64_t>(spec[0].size()),
                       &spec[0], &spec[1], &spec[2], masks));
  return FinishSlice(input, plan.begin, plan.strides, plan.processing_shape,
                     plan.final_shape);
}

// The checks and messages are those of ReadPaddings in
// kernels/cpu/pad_ops.cc, which keeps it private to that file.
StatusOr<GpuPadPlan> PlanGpuPad(const Tensor& input, const Tensor& p,
                                gpu::PadMode mode) {
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
  const int64_t max_offset = mode == gpu::PadMode::kReflect     ? 1
                             : mode == gpu::PadMode::kSymmetric ? 0
                                                                : -1;
  std::vector<int64_t> out_dims(rank);
  bool padded = false;
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
          mode == gpu::PadMode::kReflect ? "REFLECT" : "SYMMETRIC",
          " padding of dimension ", d, " of input 0 ",
          input.shape().DebugString(), " allows at most ",
          std::max<int64_t>(size - max_offset, 0), " on each side");
    }
    out_dims[d] = size + b + a;
    padded = padded || b != 0 || a != 0;
  }
  GpuPadPlan plan;
  if (!padded) {
    plan.shape = input.shape();
    plan.forward_input = true;
    return plan;
  }
  WEFT_ASSIGN_OR_RETURN(plan.shape, TensorShape::Build(out_dims));
  if (plan.shape.num_elements() == 0) return plan;

  // Unpadded dimensions of size 1 index nothing; runs of unpadded
  // dimensions index as one.
  std::vector<int64_t> in_m;
  std::vector<int64_t> out_m;
  std::vector<int64_t> before_m;
  bool last_unpadded = false;
  for (int d = 0; d < rank; ++d) {
    const int64_t b = values[2 * d];
    const int64_t a = values[2 * d + 1];
    const int64_t size = input.dim_size(d);
    const bool unpadded = b == 0 && a == 0;
    if (unpadded && size == 1) continue;
    if (unpadded && last_unpadded) {
      in_m.back() *= size;
      out_m.back() *= size;
      continue;
    }
    in_m.push_back(size);
    out_m.push_back(out_dims[d]);
    before_m.push_back(b);
    last_unpadded = unpadded;
  }
  if (in_m.size() > static_cast<size_t>(gpu::kMaxMoveRank)) {
    return TooManyDims(input.shape(), in_m.size());
  }
  gpu::PadParams& pad = plan.pad;
  pad.mode = mode;
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
  if (value.dims() != 0) {
    return errors::InvalidArgument(
        "constant_values (input 2) must be a scalar but has shape ",
        value.shape().DebugString());
  }
  return ScalarBits(value, "constant_values (input 2)");
}

// The checks and messages are those of GatherV2Op in
// kernels/cpu/gather_op.cc (private to that file), less the check of the
// index values.
StatusOr<GpuGatherPlan> PlanGpuGather(const Tensor& params,
                                      const Tensor& indices,
                                      const Tensor& axis_t,
                                      int64_t batch_dims) {
  int64_t axis = 0;
  WEFT_RETURN_IF_ERROR(ReadIndexScalar(axis_t, "axis (input 2)",
                                       /*allow_vector_of_one=*/false, &axis));
  const int prank = params.dims();
  const int irank = indices.dims();
  if (prank < 1) {
    return errors::InvalidArgument(
        "params (input 0) must have rank >= 1 but is a scalar");
  }
  if (axis < -prank || axis >= prank) {
    return errors::InvalidArgument(
        "axis (input 2) is ", axis, " but must be in [", -prank, ", ", prank,
        ") for params (input 0) ", params.shape().DebugString());
  }
  if (axis < 0) axis += prank;
  if (batch_dims < -irank || batch_dims > irank) {
    return errors::InvalidArgument(
        "attr 'batch_dims' is ", batch_dims, " but must be in [", -irank, ", ",
        irank, "] for indices (input 1) ", indices.shape().DebugString());
  }
  if (batch_dims < 0) batch_dims += irank;
  if (!(batch_dims < prank && batch_dims <= axis)) {
    return errors::InvalidArgument(
        "attr 'batch_dims' is ", batch_dims,
        " but must be less than the rank of params (input 0) ",
        params.shape().DebugString(), " and at most axis ", axis);
  }
  for (int d = 0; d < batch_dims; ++d) {
    if (params.dim_size(d) != indices.dim_size(d)) {
      return errors::InvalidArgument(
          "batch dimension ", d, " of params (input 0) ",
          params.shape().DebugString(), " and indices (input 1) ",
          indices.shape().DebugString(), " must agree");
    }
  }
  std::vector<int64_t> out_dims;
  gpu::GatherParams g;
  for (int d = 0; d < axis; ++d) {
    out_dims.push_back(params.dim_size(d));
    (d < batch_dims ? g.batch : g.outer) *= params.dim_size(d);
  }
  g.n = 1;
  for (int d = static_cast<int>(batch_dims); d < irank; ++d) {
    out_dims.push_back(indices.dim_size(d));
    g.n *= indices.dim_size(d);
  }
  for (int d = static_cast<int>(axis) + 1; d < prank; ++d) {
    out_dims.push_back(params.dim_size(d));
    g.inner *= params.dim_size(d);
  }
  g.gather_dim = params.dim_size(static_cast<int>(axis));
  GpuGatherPlan plan;
  WEFT_ASSIGN_OR_RETURN(plan.shape, TensorShape::Build(out_dims));
  plan.gather = g;
  return plan;
}

// The checks and messages are those of FillOp in kernels/cpu/fill_ops.cc.
StatusOr<GpuFillPlan> PlanGpuFill(const Tensor& dims_t, const Tensor& value) {
  if (dims_t.dims() != 1) {
    return errors::InvalidArgument("dims (input 0) must be a vector but has ",
                                   "shape ", dims_t.shape().DebugString());
  }
  // A one-element vector is TensorFlow's legacy spelling of the scalar.
  if (!(value.dims() == 0 || (value.dims() == 1 && value.dim_size(0) == 1))) {
    return errors::InvalidArgument("value (input 1) must be a scalar but has ",
                                   "shape ", value.shape().DebugString());
  }
  std::vector<int64_t> dims;
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(dims_t, "dims (input 0)", &dims));
  StatusOr<TensorShape> shape = TensorShape::Build(dims);
  if (!shape.ok()) {
    return errors::InvalidArgument(
        "dims (input 0) are ", IndexListString(dims),
        ", which is not a valid shape: ", shape.status().message());
  }
  GpuFillPlan plan;
  plan.shape = *std::move(shape);
  WEFT_ASSIGN_OR_RETURN(plan.value_bits, ScalarBits(value, "value (input 1)"));
  return plan;
}

StatusOr<uint64_t> OneBits(DataType dtype) {
  uint64_t bits = 0;
  bool fits = false;
  const bool known = VisitNumericType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sizeof(T) <= sizeof(uint64_t)) {
      const T one = static_cast<T>(1);
      std::memcpy(&bits, &one, sizeof(T));
      fits = true;
    }
  });
  if (!known || !fits) {
    return errors::InvalidArgument("OnesLike has no one for ",
                                   DataTypeName(dtype), " on CUDA");
  }
  return bits;
}

}  // namespace weft
