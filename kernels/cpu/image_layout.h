// What the CPU kernels over images share beyond the window geometry
// (kernels/common/window_shape.h): the convolutions (conv_ops.cc,
// depthwise_conv_op.cc, conv_backprop_input_op.cc), pooling, batch norm and
// resizing.
//
//  - NCHW <-> NHWC layout changes that move elements by their byte size,
//    one instantiation per element width rather than per dtype: the kernels
//    compute in NHWC and convert NCHW tensors on the way in and out.
//  - The precision a kernel accumulates in: float for half and bfloat16.
#ifndef WEFT_KERNELS_CPU_IMAGE_LAYOUT_H_
#define WEFT_KERNELS_CPU_IMAGE_LAYOUT_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/common/window_shape.h"
#include "kernels/op_kernel.h"

namespace weft {

// float for half and bfloat16 (their products and sums are computed in
// float and rounded once), the type itself otherwise.
template <typename T>
using AccumulateType =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
                       float, T>;

// out[i] = static_cast<To>(in[i]) for i < n; a plain copy for equal types.
template <typename To, typename From>
inline void ConvertElements(const From* in, To* out, int64_t n) {
  if constexpr (std::is_same_v<To, From>) {
    if (n > 0) std::memcpy(out, in, n * sizeof(To));
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<To>(in[i]);
  }
}

namespace image_internal {

// out[b][j][i] = in[b][i][j] for i < rows, j < cols: a batch of row-major
// rows x cols matrices transposed, in 32 x 32 tiles so both sides stream
// through the cache. Units of work are (matrix, tile row) pairs.
template <typename E>
void TransposeBatch(const OpKernelContext& ctx, const E* in, E* out,
                    int64_t batch, int64_t rows, int64_t cols) {
  constexpr int64_t kTile = 32;
  const int64_t tile_rows = (rows + kTile - 1) / kTile;
  ctx.ParallelFor(batch * tile_rows, kTile * cols,
                  [&](int64_t first, int64_t last) {
                    for (int64_t u = first; u < last; ++u) {
                      const int64_t b = u / tile_rows;
                      const int64_t r0 = (u % tile_rows) * kTile;
                      const int64_t r1 = std::min(rows, r0 + kTile);
                      const E* src = in + b * rows * cols;
                      E* dst = out + b * rows * cols;
                      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
                        const int64_t c1 = std::min(cols, c0 + kTile);
                        for (int64_t r = r0; r < r1; ++r) {
                          for (int64_t c = c0; c < c1; ++c) {
                            dst[c * rows + r] = src[r * cols + c];
                          }
                        }
                      }
                    }
                  });
}

inline void TransposeBatchBytes(const OpKernelContext& ctx, const void* in,
                                void* out, size_t elem_size, int64_t batch,
                                int64_t rows, int64_t cols) {
  if (batch * rows * cols == 0) return;
  switch (elem_size) {
    case 1:
      TransposeBatch(ctx, static_cast<const uint8_t*>(in),
                     static_cast<uint8_t*>(out), batch, rows, cols);
      break;
    case 2:
      TransposeBatch(ctx, static_cast<const uint16_t*>(in),
                     static_cast<uint16_t*>(out), batch, rows, cols);
      break;
    case 4:
      TransposeBatch(ctx, static_cast<const uint32_t*>(in),
                     static_cast<uint32_t*>(out), batch, rows, cols);
      break;
    default:
      TransposeBatch(ctx, static_cast<const uint64_t*>(in),
                     static_cast<uint64_t*>(out), batch, rows, cols);
      break;
  }
}

}  // namespace image_internal

// [N, C, H, W] -> [N, H, W, C]: a new temporary of the same dtype.
inline Status NchwToNhwc(OpKernelContext* ctx, const Tensor& nchw,
                         Tensor* nhwc) {
  const int64_t n = nchw.dim_size(0), c = nchw.dim_size(1),
                h = nchw.dim_size(2), w = nchw.dim_size(3);
  WEFT_RETURN_IF_ERROR(
      ctx->allocate_temp(nchw.dtype(), TensorShape({n, h, w, c}), nhwc));
  image_internal::TransposeBatchBytes(*ctx, nchw.raw_data(), nhwc->raw_data(),
                                      DataTypeSize(nchw.dtype()), n, c, h * w);
  return Status();
}

// [N, H, W, C] `nhwc` into the already allocated [N, C, H, W] `nchw`.
inline void NhwcToNchw(const OpKernelContext& ctx, const Tensor& nhwc,
                       Tensor* nchw) {
  const int64_t n = nhwc.dim_size(0), h = nhwc.dim_size(1),
                w = nhwc.dim_size(2), c = nhwc.dim_size(3);
  image_internal::TransposeBatchBytes(ctx, nhwc.raw_data(), nchw->raw_data(),
                                      DataTypeSize(nhwc.dtype()), n, h * w, c);
}

// Runs `compute(in_nhwc, out_nhwc)` for a kernel whose input 0 and output
// 0 are images in `format`: NHWC tensors are passed through; an NCHW input
// is transposed into a temporary, the NHWC result is computed into another
// and transposed into the output. `out` is the allocated output (in
// `format`).
template <typename Fn>
void WithNhwc(OpKernelContext* ctx, TensorFormat format, const Tensor& in,
              Tensor* out, Fn&& compute) {
  if (format == TensorFormat::kNHWC) {
    compute(in, out);
    return;
  }
  Tensor in_nhwc;
  OP_REQUIRES_OK(ctx, NchwToNhwc(ctx, in, &in_nhwc));
  Tensor out_nhwc;
  OP_REQUIRES_OK(
      ctx, ctx->allocate_temp(out->dtype(), NhwcShape(format, out->shape()),
                              &out_nhwc));
  compute(static_cast<const Tensor&>(in_nhwc), &out_nhwc);
  if (!ctx->status().ok()) return;
  NhwcToNchw(*ctx, out_nhwc, out);
}

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_IMAGE_LAYOUT_H_
