// The type-erased drivers of cwise_binary_op.h: ParallelFor splits, the
// broadcast's row walk and BinaryCwiseOp's shape cases, compiled once for
// every binary kernel.
#include "kernels/cpu/cwise_binary_op.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "absl/container/inlined_vector.h"
#include "core/status.h"
#include "core/tensor.h"
#include "kernels/common/broadcast.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace cwise_internal {
namespace {

const char* Advance(const void* p, int64_t elements, int64_t bytes) {
  return static_cast<const char*>(p) + elements * bytes;
}

char* Advance(void* p, int64_t elements, int64_t bytes) {
  return static_cast<char*>(p) + elements * bytes;
}

// Rows shorter than this take ShortRowsAgainstOneRow's path.
constexpr int64_t kShortRow = 64;
// About how many elements that path hands the loop per call.
constexpr int64_t kTileElements = 256;

// Rows of `inner` < kShortRow elements of the complete operand (x when
// `x_complete`, else y) against the other operand's one row, repeated: the
// input normalization of image models ([N, H, W, 3] - [3]), where a loop
// call per row of 3 elements cost 2 ns per element. The repeated row is
// tiled into a buffer of whole rows, about kTileElements long, and the
// rows go through the loop in chunks of that length, both operands read
// with stride 1: the same operations on the same values, in far fewer
// calls.
void ShortRowsAgainstOneRow(const OpKernelContext& ctx, int64_t rows,
                            int64_t inner, bool x_complete, const void* x,
                            const void* y, void* out, int64_t cost_per_element,
                            const ErasedBinaryRun& run) {
  const int64_t rows_per_tile = std::max<int64_t>(1, kTileElements / inner);
  const int64_t tile = rows_per_tile * inner;
  // The largest element is 16 bytes (complex128).
  alignas(64) char buffer[(kTileElements + kShortRow) * 16];
  const void* row = x_complete ? y : x;
  const void* full = x_complete ? x : y;
  const int64_t row_bytes = inner * run.in_bytes;
  for (int64_t r = 0; r < rows_per_tile; ++r) {
    std::memcpy(buffer + r * row_bytes, row, row_bytes);
  }
  const int64_t tiles = (rows + rows_per_tile - 1) / rows_per_tile;
  ctx.ParallelFor(
      tiles, cost_per_element * tile, [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
          const int64_t first = t * rows_per_tile;
          const int64_t n = std::min(rows_per_tile, rows - first) * inner;
          const char* f = Advance(full, first * inner, run.in_bytes);
          run.run(run.functor, x_complete ? f : buffer, 1,
                  x_complete ? buffer : f, 1,
                  Advance(out, first * inner, run.out_bytes), n);
        }
      });
}

}  // namespace

void BinaryFlatCompute(const OpKernelContext& ctx, const void* x, int64_t xs,
                       const void* y, int64_t ys, void* out, int64_t n,
                       int64_t cost_per_element, const ErasedBinaryRun& run) {
  if (n * cost_per_element <= kInlineCycles) {
    run.run(run.functor, x, xs, y, ys, out, n);
    return;
  }
  ctx.ParallelFor(n, cost_per_element, [&](int64_t begin, int64_t end) {
    run.run(run.functor, Advance(x, begin * xs, run.in_bytes), xs,
            Advance(y, begin * ys, run.in_bytes), ys,
            Advance(out, begin, run.out_bytes), end - begin);
  });
}

void BinaryBroadcastCompute(const OpKernelContext& ctx,
                            const BinaryBroadcast& bcast, const void* x,
                            const void* y, void* out, int64_t cost_per_element,
                            const ErasedBinaryRun& run) {
  const int64_t total = bcast.output_size();
  if (total == 0) return;
  // One flat range: same shapes, or a scalar against anything. A scalar is
  // read with stride 0 (it may also be complete, when both are scalars).
  if ((bcast.x_complete() || bcast.x_is_scalar()) &&
      (bcast.y_complete() || bcast.y_is_scalar())) {
    const int64_t xs = bcast.x_complete() ? 1 : 0;
    const int64_t ys = bcast.y_complete() ? 1 : 0;
    BinaryFlatCompute(ctx, x, xs, y, ys, out, total, cost_per_element, run);
    return;
  }
  // A real broadcast: rows of the innermost merged dimension, each row one
  // flat run. The reduced rank is at least 2 here, since a single merged
  // dimension means each input is complete or a scalar.
  const absl::Span<const int64_t> dims = bcast.reduced_dims();
  const absl::Span<const int64_t> xst = bcast.x_strides();
  const absl::Span<const int64_t> yst = bcast.y_strides();
  const int outer_rank = static_cast<int>(dims.size()) - 1;
  const int64_t inner = dims[outer_rank];
  const int64_t rows = total / inner;
  const int64_t x_inner = xst[outer_rank];
  const int64_t y_inner = yst[outer_rank];
  if (outer_rank == 1 && inner < kShortRow && x_inner == 1 && y_inner == 1 &&
      ((xst[0] == inner && yst[0] == 0) || (xst[0] == 0 && yst[0] == inner))) {
    ShortRowsAgainstOneRow(ctx, rows, inner, xst[0] == inner, x, y, out,
                           cost_per_element, run);
    return;
  }
  ctx.ParallelFor(rows, cost_per_element * inner,
                  [&](int64_t begin, int64_t end) {
                    // The row's index in the outer dimensions, and the inputs'
                    // offsets.
                    absl::InlinedVector<int64_t, 6> index(outer_rank, 0);
                    int64_t x_off = 0;
                    int64_t y_off = 0;
                    int64_t r = begin;
                    for (int d = outer_rank - 1; d >= 0; --d) {
                      index[d] = r % dims[d];
                      r /= dims[d];
                      x_off += index[d] * xst[d];
                      y_off += index[d] * yst[d];
                    }
                    for (int64_t row = begin; row < end; ++row) {
                      run.run(run.functor, Advance(x, x_off, run.in_bytes),
                              x_inner, Advance(y, y_off, run.in_bytes), y_inner,
                              Advance(out, row * inner, run.out_bytes), inner);
                      // Odometer step to the next row.
                      for (int d = outer_rank - 1; d >= 0; --d) {
                        x_off += xst[d];
                        y_off += yst[d];
                        if (++index[d] < dims[d]) break;
                        x_off -= xst[d] * dims[d];
                        y_off -= yst[d] * dims[d];
                        index[d] = 0;
                      }
                    }
                  });
}

namespace {

// The output has `shape` (x's or y's); each input is read with stride
// `xs`/`ys` (1: complete, 0: one element repeated).
void ComputeFlat(OpKernelContext* ctx, const BinaryKernelSpec& spec,
                 const Tensor& x, int64_t xs, const Tensor& y, int64_t ys,
                 const TensorShape& shape) {
  const int64_t n = shape.num_elements();
  if (spec.check_inputs != nullptr && n > 0) {
    OP_REQUIRES_OK(ctx, spec.check_inputs(x, y));
  }
  Tensor* z = nullptr;
  if (spec.forwardable) {
    OP_REQUIRES_OK(ctx,
                   ctx->forward_input_or_allocate_output({0, 1}, 0, shape, &z));
  } else {
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &z));
  }
  if (n == 0) return;
  if (n * spec.cost <= kInlineCycles) {
    // Small tensors (the per-node cost of scalar chains): straight to the
    // loop.
    spec.run.run(spec.run.functor, x.raw_data(), xs, y.raw_data(), ys,
                 z->raw_data(), n);
    return;
  }
  BinaryFlatCompute(*ctx, x.raw_data(), xs, y.raw_data(), ys, z->raw_data(), n,
                    spec.cost, spec.run);
}

}  // namespace

void BinaryCwiseCompute(OpKernelContext* ctx, const BinaryKernelSpec& spec) {
  const Tensor& x = ctx->input(0);
  const Tensor& y = ctx->input(1);
  // The common cases need no broadcast analysis: equal shapes, or one
  // operand a single element of rank at most the other's (all its sizes
  // are 1), so that the output has the other's shape. One flat loop, the
  // same one BinaryBroadcastCompute runs for them.
  if (x.shape() == y.shape()) {
    ComputeFlat(ctx, spec, x, 1, y, 1, x.shape());
    return;
  }
  if (y.NumElements() == 1 && y.dims() <= x.dims()) {
    ComputeFlat(ctx, spec, x, 1, y, 0, x.shape());
    return;
  }
  if (x.NumElements() == 1 && x.dims() <= y.dims()) {
    ComputeFlat(ctx, spec, x, 0, y, 1, y.shape());
    return;
  }
  BinaryBroadcast bcast;
  OP_REQUIRES_OK(ctx, bcast.Init(x.shape(), y.shape()));
  if (spec.check_inputs != nullptr && bcast.output_size() > 0) {
    OP_REQUIRES_OK(ctx, spec.check_inputs(x, y));
  }
  Tensor* z = nullptr;
  if (spec.forwardable) {
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0, 1}, 0, bcast.output_shape(), &z));
  } else {
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, bcast.output_shape(), &z));
  }
  BinaryBroadcastCompute(*ctx, bcast, x.raw_data(), y.raw_data(), z->raw_data(),
                         spec.cost, spec.run);
}

}  // namespace cwise_internal
}  // namespace weft
