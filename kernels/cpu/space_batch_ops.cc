// SpaceToBatchND and BatchToSpaceND on the CPU. Both relate a "space"
// tensor [B, s_1..s_M, rest...] and a "batch" tensor [B * prod(block),
// q_1..q_M, rest...]: batch element (ob, p) holds space position
// (ob % B, p_i * block_i + o_i - start_i), where o is ob / B read as a
// row-major index over the block and start_i the padding (SpaceToBatchND)
// or crop (BatchToSpaceND) before dimension i. SpaceToBatchND writes zeros
// where that position falls into the padding; BatchToSpaceND drops what
// the crops cut.
//
// The kernels only move elements, so they work on bytes: each output
// position (its batch and spatial index) copies the contiguous `rest` block
// of elements with copy_util, whatever the dtype. Positions are split over
// the arena.
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

using Dims = absl::InlinedVector<int64_t, 8>;

// The checked geometry of one SpaceToBatchND or BatchToSpaceND.
struct SpaceBatchGeometry {
  int64_t batch = 0;   // B, the space tensor's batch
  Dims block;          // [M]
  Dims start;          // [M], padding or crop before each dimension
  Dims space;          // [M], the space tensor's spatial sizes
  Dims grid;           // [M], the batch tensor's spatial sizes
  int64_t blocks = 1;  // prod(block)
  int64_t inner = 1;   // elements of `rest`
  TensorShape out_shape;
};

Status ReadSpaceBatchGeometry(const Tensor& input, const Tensor& block_shape,
                              const Tensor& amounts, bool to_batch,
                              SpaceBatchGeometry* g) {
  const char* amounts_name =
      to_batch ? "paddings (input 2)" : "crops (input 2)";
  if (block_shape.dims() != 1) {
    return errors::InvalidArgument(
        "block_shape (input 1) must be a vector but has shape ",
        block_shape.shape().DebugString());
  }
  const int64_t m = block_shape.dim_size(0);
  if (amounts.dims() != 2 || amounts.dim_size(0) != m ||
      amounts.dim_size(1) != 2) {
    return errors::InvalidArgument(
        amounts_name, " must have shape [", m, ", 2] (block_shape has ", m,
        " values) but has shape ", amounts.shape().DebugString());
  }
  if (input.dims() < 1 + m) {
    return errors::InvalidArgument(
        "input 0 must have rank at least ", 1 + m,
        " (the batch and one dimension per block_shape value) but has shape ",
        input.shape().DebugString());
  }
  std::vector<int64_t> block, amount;
  WEFT_RETURN_IF_ERROR(
      ReadIndexTensor(block_shape, "block_shape (input 1)", &block));
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(amounts, amounts_name, &amount));
  g->blocks = 1;
  for (int64_t i = 0; i < m; ++i) {
    if (block[i] < 1) {
      return errors::InvalidArgument("block_shape (input 1) is ",
                                     IndexListString(block),
                                     " but its values must be >= 1");
    }
    if (amount[2 * i] < 0 || amount[2 * i + 1] < 0) {
      return errors::InvalidArgument(
          amounts_name, " are ", IndexListString(amount), " but must be >= 0");
    }
    if (__builtin_mul_overflow(g->blocks, block[i], &g->blocks)) {
      return errors::InvalidArgument("block_shape (input 1) ",
                                     IndexListString(block),
                                     " has too many blocks");
    }
  }
  g->block.assign(block.begin(), block.end());
  g->start.clear();
  g->space.clear();
  g->grid.clear();
  const int64_t in_batch = input.dim_size(0);
  if (to_batch) {
    g->batch = in_batch;
  } else {
    if (in_batch % g->blocks != 0) {
      return errors::InvalidArgument(
          "the batch dimension of input 0 ", input.shape().DebugString(),
          " must be divisible by the product of block_shape (input 1) ",
          IndexListString(block), ", ", g->blocks);
    }
    g->batch = in_batch / g->blocks;
  }
  TensorShape out;
  int64_t out_batch = g->batch;
  if (to_batch && __builtin_mul_overflow(in_batch, g->blocks, &out_batch)) {
    return errors::InvalidArgument("the output batch (", in_batch, " * ",
                                   g->blocks, ") overflows int64");
  }
  WEFT_RETURN_IF_ERROR(out.AddDim(out_batch));
  for (int64_t i = 0; i < m; ++i) {
    const int64_t size = input.dim_size(i + 1);
    const int64_t before = amount[2 * i];
    const int64_t after = amount[2 * i + 1];
    g->start.push_back(before);
    if (to_batch) {
      int64_t padded = 0;
      if (__builtin_add_overflow(size, before, &padded) ||
          __builtin_add_overflow(padded, after, &padded)) {
        return errors::InvalidArgument(
            "paddings (input 2) ", IndexListString(amount), " overflow int64");
      }
      if (padded % block[i] != 0) {
        return errors::InvalidArgument(
            "padded spatial dimension ", i, " of input 0 ",
            input.shape().DebugString(), " (", size, " + ", before, " + ",
            after, ") is not divisible by block_shape[", i, "] = ", block[i]);
      }
      g->space.push_back(size);
      g->grid.push_back(padded / block[i]);
      WEFT_RETURN_IF_ERROR(out.AddDim(padded / block[i]));
    } else {
      int64_t full = 0;
      if (__builtin_mul_overflow(size, block[i], &full) || before > full ||
          after > full - before) {
        return errors::InvalidArgument(
            "crops (input 2) [", before, ", ", after, "] of spatial dimension ",
            i, " are larger than its size after BatchToSpace, ", size, " * ",
            block[i]);
      }
      g->grid.push_back(size);
      g->space.push_back(full - before - after);
      WEFT_RETURN_IF_ERROR(out.AddDim(full - before - after));
    }
  }
  g->inner = 1;
  for (int d = 1 + static_cast<int>(m); d < input.dims(); ++d) {
    WEFT_RETURN_IF_ERROR(out.AddDim(input.dim_size(d)));
    g->inner *= input.dim_size(d);
  }
  g->out_shape = out;
  return Status();
}

class SpaceBatchOp : public OpKernel {
 public:
  SpaceBatchOp(OpKernelConstruction* ctx, bool to_batch)
      : OpKernel(ctx), to_batch_(to_batch) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    SpaceBatchGeometry g;
    OP_REQUIRES_OK(ctx, ReadSpaceBatchGeometry(input, ctx->input(1),
                                               ctx->input(2), to_batch_, &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.out_shape, &output));
    if (output->NumElements() == 0) return;
    const DataType dtype = input.dtype();
    const size_t bytes = copy_util::ElementBytes(dtype);
    const size_t row = static_cast<size_t>(g.inner) * bytes;
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(output->raw_data());
    const int m = static_cast<int>(g.block.size());
    // Row-major strides (in rows) of the space and batch tensors' outer
    // dimensions [batch, spatial...].
    Dims space_stride(m + 1), grid_stride(m + 1);
    space_stride[m] = grid_stride[m] = 1;
    for (int i = m - 1; i >= 0; --i) {
      space_stride[i] = space_stride[i + 1] * g.space[i];
      grid_stride[i] = grid_stride[i + 1] * g.grid[i];
    }
    const int64_t rows = output->NumElements() / g.inner;
    const bool to_batch = to_batch_;
    ctx->ParallelFor(rows, g.inner + 8 * m, [&](int64_t first, int64_t last) {
      Dims pos(m);
      for (int64_t r = first; r < last; ++r) {
        if (to_batch) {
          // r indexes the batch tensor: (ob, p_1..p_M).
          const int64_t ob = r / grid_stride[0];
          int64_t rest = r % grid_stride[0];
          int64_t o = ob / g.batch;
          int64_t space_row = (ob % g.batch) * space_stride[0];
          bool inside = true;
          // Block offsets: o read row-major over block (last fastest).
          for (int i = m - 1; i >= 0; --i) {
            pos[i] = o % g.block[i];
            o /= g.block[i];
          }
          for (int i = 0; i < m && inside; ++i) {
            const int64_t p = rest / grid_stride[i + 1];
            rest %= grid_stride[i + 1];
            const int64_t x = p * g.block[i] + pos[i] - g.start[i];
            inside = x >= 0 && x < g.space[i];
            space_row += x * space_stride[i + 1];
          }
          if (inside) {
            copy_util::CopyElements(dtype, src + space_row * row, dst + r * row,
                                    g.inner);
          } else {
            std::memset(dst + r * row, 0, row);
          }
        } else {
          // r indexes the space tensor: (b, y_1..y_M).
          const int64_t b = r / space_stride[0];
          int64_t rest = r % space_stride[0];
          int64_t o = 0;
          int64_t grid_row = 0;
          for (int i = 0; i < m; ++i) {
            const int64_t y = rest / space_stride[i + 1] + g.start[i];
            rest %= space_stride[i + 1];
            o = o * g.block[i] + y % g.block[i];
            grid_row += (y / g.block[i]) * grid_stride[i + 1];
          }
          grid_row += (o * g.batch + b) * grid_stride[0];
          copy_util::CopyElements(dtype, src + grid_row * row, dst + r * row,
                                  g.inner);
        }
      }
    });
  }

 private:
  bool to_batch_;
};

class SpaceToBatchNDOp : public SpaceBatchOp {
 public:
  explicit SpaceToBatchNDOp(OpKernelConstruction* ctx)
      : SpaceBatchOp(ctx, true) {}
};

class BatchToSpaceNDOp : public SpaceBatchOp {
 public:
  explicit BatchToSpaceNDOp(OpKernelConstruction* ctx)
      : SpaceBatchOp(ctx, false) {}
};

// TensorFlow's CPU kernels: the real number types.
std::vector<DataType> RealNumberTypes() {
  return {DT_HALF,  DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT8,   DT_INT16,
          DT_INT32, DT_INT64,    DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64};
}

REGISTER_KERNEL_BUILDER(Name("SpaceToBatchND")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", RealNumberTypes())
                            .TypeConstraint("Tblock_shape",
                                            {DT_INT32, DT_INT64})
                            .TypeConstraint("Tpaddings", {DT_INT32, DT_INT64}),
                        SpaceToBatchNDOp);

REGISTER_KERNEL_BUILDER(Name("BatchToSpaceND")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", RealNumberTypes())
                            .TypeConstraint("Tblock_shape",
                                            {DT_INT32, DT_INT64})
                            .TypeConstraint("Tcrops", {DT_INT32, DT_INT64}),
                        BatchToSpaceNDOp);

}  // namespace
}  // namespace weft
