// Tile and BroadcastTo on the CPU. Both read every input element several
// times, which is a strided view with zero strides: Tile views the output
// [m_0 * d_0, ...] as [m_0, d_0, m_1, d_1, ...] with strides
// [0, s_0, 0, s_1, ...], BroadcastTo gives each stretched dimension stride
// 0, and StridedGather copies the view (contiguous input rows as memcpy
// runs, a stretched innermost dimension as a fill). An output that equals
// the input returns the input itself. Tile's checks are
// kernels/common/tile_shape.h, shared with the CUDA kernel. Dtype-agnostic
// (element width only), strings included.
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/tile_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    TileDims tile;
    OP_REQUIRES_OK(ctx, StartTile(ctx, &tile));
    if (tile.same) return;
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, tile.out_shape, &out));
    if (tile.out_shape.num_elements() == 0) return;
    const int rank = input.dims();
    const copy_util::Dims in_strides =
        copy_util::RowMajorStrides(input.shape());
    copy_util::Dims dims;
    copy_util::Dims strides;
    for (int d = 0; d < rank; ++d) {
      dims.push_back(tile.multiples[d]);
      strides.push_back(0);
      dims.push_back(input.dim_size(d));
      strides.push_back(in_strides[d]);
    }
    copy_util::StridedGather(*ctx, input.dtype(), input.raw_data(), 0, dims,
                             strides, out->raw_data());
  }
};

class BroadcastToOp : public OpKernel {
 public:
  explicit BroadcastToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                errors::InvalidArgument(
                    "shape (input 1) must be a vector but has shape ",
                    shape_t.shape().DebugString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexTensor(shape_t, "shape (input 1)", &dims));
    StatusOr<TensorShape> shape = TensorShape::Build(dims);
    OP_REQUIRES(
        ctx, shape.ok(),
        errors::InvalidArgument(
            "shape (input 1) is ", IndexListString(dims),
            ", which is not a valid shape: ", shape.status().message()));
    const int rank = shape->dims();
    const int in_rank = input.dims();
    const int pad = rank - in_rank;
    bool valid = pad >= 0;
    for (int d = 0; valid && d < in_rank; ++d) {
      const int64_t in = input.dim_size(d);
      valid = in == 1 || in == dims[pad + d];
    }
    OP_REQUIRES(ctx, valid,
                errors::InvalidArgument(
                    "input 0 ", input.shape().DebugString(),
                    " cannot be broadcast to ", shape->DebugString(),
                    ": aligned at the end, each of its dimensions must be 1 "
                    "or the target's size, and its rank at most the "
                    "target's"));
    if (*shape == input.shape()) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (shape->num_elements() == 0) return;
    const copy_util::Dims in_strides =
        copy_util::RowMajorStrides(input.shape());
    copy_util::Dims strides(rank, 0);
    for (int d = 0; d < in_rank; ++d) {
      if (input.dim_size(d) != 1) strides[pad + d] = in_strides[d];
    }
    copy_util::StridedGather(*ctx, input.dtype(), input.raw_data(), 0, dims,
                             strides, out->raw_data());
  }
};

// TensorFlow's Tile kernel handles every numeric type but uint16.
std::vector<DataType> TileTypes() {
  std::vector<DataType> types;
  for (DataType dt : NumericAndBoolTypesPlus({DT_STRING})) {
    if (dt != DT_UINT16) types.push_back(dt);
  }
  return types;
}

REGISTER_KERNEL_BUILDER(
    Name("Tile").Device(DEVICE_CPU).TypeConstraint("T", TileTypes()), TileOp);
REGISTER_KERNEL_BUILDER(
    Name("BroadcastTo")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING})),
    BroadcastToOp);

}  // namespace
}  // namespace weft
