// ExtractImagePatches on the CPU: for NHWC images, output pixel (b, r, c)
// holds the ksize_rows x ksize_cols patch whose top-left tap sits at
// (r * stride_rows - pad_top, c * stride_cols - pad_left), taps spaced by
// the rates, flattened as (tap row, tap column, channel); taps outside the
// image are zeros (SAME padding as for a convolution with the dilated
// window). The kernel only moves elements, so it works on bytes: each tap
// copies `depth` contiguous elements or zero-fills them, whatever the
// dtype. Output rows (b, r) are the units of ctx->ParallelFor.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/window_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class ExtractImagePatchesOp : public OpKernel {
 public:
  explicit ExtractImagePatchesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    WindowAttrs attrs;  // NHWC, no explicit paddings
    std::string padding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    StatusOr<Padding> parsed = ParsePadding(padding);
    OP_REQUIRES_OK(ctx, parsed.status());
    attrs.padding = *parsed;
    OP_REQUIRES_OK(ctx, ReadWindowList(ctx, "ksizes", &attrs.ksize));
    OP_REQUIRES_OK(ctx, ReadWindowList(ctx, "strides", &attrs.strides));
    OP_REQUIRES_OK(ctx, ReadWindowList(ctx, "rates", &attrs.dilations));
    for (const std::vector<int64_t>* v :
         {&attrs.ksize, &attrs.strides, &attrs.dilations}) {
      OP_REQUIRES(ctx, (*v)[0] == 1 && (*v)[3] == 1,
                  errors::Unimplemented(
                      "ksizes, strides and rates must be 1 over the batch "
                      "and depth dimensions, but one is ",
                      WindowListString(*v)));
    }
    attrs_ = attrs;
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() == 4,
                errors::InvalidArgument(
                    "images (input 0) must be 4-D [batch, rows, cols, depth] "
                    "but has shape ",
                    input.shape().DebugString()));
    const int64_t batch = input.dim_size(0);
    const int64_t depth = input.dim_size(3);
    StatusOr<WindowDim> rows =
        ComputeWindowDim(attrs_, 'H', input.dim_size(1), attrs_.ksize[1]);
    OP_REQUIRES_OK(ctx, rows.status());
    StatusOr<WindowDim> cols =
        ComputeWindowDim(attrs_, 'W', input.dim_size(2), attrs_.ksize[2]);
    OP_REQUIRES_OK(ctx, cols.status());
    const WindowDim& rd = *rows;
    const WindowDim& cd = *cols;
    int64_t taps = 0;
    int64_t patch = 0;
    OP_REQUIRES(ctx,
                !__builtin_mul_overflow(rd.window, cd.window, &taps) &&
                    !__builtin_mul_overflow(taps, depth, &patch),
                errors::InvalidArgument(
                    "patches of ksizes ", WindowListString(attrs_.ksize),
                    " over depth ", depth, " have too many elements"));
    Tensor* output = nullptr;
    StatusOr<TensorShape> out_shape =
        TensorShape::Build({batch, rd.output, cd.output, patch});
    OP_REQUIRES_OK(ctx, out_shape.status());
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
    if (output->NumElements() == 0) return;
    const DataType dtype = input.dtype();
    const size_t bytes = copy_util::ElementBytes(dtype);
    const size_t tap_bytes = static_cast<size_t>(depth) * bytes;
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(output->raw_data());
    const int64_t in_row = cd.input * depth;
    ctx->ParallelFor(
        batch * rd.output, cd.output * patch, [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            const int64_t b = r / rd.output;
            const int64_t orow = r % rd.output;
            char* out = dst + r * cd.output * taps * tap_bytes;
            for (int64_t oc = 0; oc < cd.output; ++oc) {
              for (int64_t kr = 0; kr < rd.window; ++kr) {
                const int64_t ir =
                    orow * rd.stride - rd.pad_before + kr * rd.dilation;
                for (int64_t kc = 0; kc < cd.window; ++kc, out += tap_bytes) {
                  const int64_t ic =
                      oc * cd.stride - cd.pad_before + kc * cd.dilation;
                  if (ir < 0 || ir >= rd.input || ic < 0 || ic >= cd.input) {
                    std::memset(out, 0, tap_bytes);
                    continue;
                  }
                  copy_util::CopyElements(
                      dtype,
                      src + ((b * rd.input + ir) * in_row + ic * depth) * bytes,
                      out, depth);
                }
              }
            }
          }
        });
  }

 private:
  WindowAttrs attrs_;
};

// TensorFlow's CPU kernel: the real number types and complex.
REGISTER_KERNEL_BUILDER(
    Name("ExtractImagePatches")
        .Device(DEVICE_CPU)
        .TypeConstraint("T",
                        {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT8,
                         DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_UINT16,
                         DT_UINT32, DT_UINT64, DT_COMPLEX64, DT_COMPLEX128}),
    ExtractImagePatchesOp);

}  // namespace
}  // namespace weft
