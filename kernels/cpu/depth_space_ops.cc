// SpaceToDepth and DepthToSpace on the CPU. Both are transposes of a 6-D
// view of the input, so each is one copy_util::StridedGather (which works on
// bytes, for every dtype, and splits the copy over the arena):
//
//   SpaceToDepth NHWC: out[n, i, j, (bh * b + bw) * C + c] =
//                      in[n, i * b + bh, j * b + bw, c]
//   DepthToSpace NHWC: out[n, i * b + bh, j * b + bw, c] =
//                      in[n, i, j, (bh * b + bw) * C + c]
//
// NCHW, which TensorFlow's CPU kernels refuse, uses the layout its GPU
// kernels use: the same channel order (bh, bw, c), with the channel
// dimension second.
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class SpaceDepthOp : public OpKernel {
 public:
  SpaceDepthOp(OpKernelConstruction* ctx, bool to_depth)
      : OpKernel(ctx), to_depth_(to_depth) {
    std::string format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    OP_REQUIRES(ctx, format == "NHWC" || format == "NCHW",
                errors::InvalidArgument(
                    "data_format '", format,
                    "' is not supported (NCHW_VECT_C is for qint8, which "
                    "weft does not support); use NHWC or NCHW"));
    nchw_ = format == "NCHW";
    OP_REQUIRES_OK(ctx, ctx->GetAttr("block_size", &block_));
    // block_size^2 must fit in int64 (3037000499^2 < 2^63).
    OP_REQUIRES(ctx, block_ >= 2 && block_ <= 3037000499,
                errors::InvalidArgument("attr 'block_size' is ", block_,
                                        " but must be in [2, 3037000499]"));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() == 4,
                errors::InvalidArgument(
                    "input 0 must be 4-D (", nchw_ ? "NCHW" : "NHWC",
                    ") but has shape ", input.shape().DebugString()));
    const int64_t b = block_;
    const int64_t n = input.dim_size(0);
    const int64_t h = input.dim_size(nchw_ ? 2 : 1);
    const int64_t w = input.dim_size(nchw_ ? 3 : 2);
    const int64_t c = input.dim_size(nchw_ ? 1 : 3);
    int64_t oh, ow, oc;
    if (to_depth_) {
      OP_REQUIRES(
          ctx, h % b == 0 && w % b == 0,
          errors::InvalidArgument("height and width of input 0 ",
                                  input.shape().DebugString(),
                                  " must be divisible by block_size ", b));
      oh = h / b;
      ow = w / b;
      OP_REQUIRES(ctx, !__builtin_mul_overflow(c, b * b, &oc),
                  errors::InvalidArgument("the output depth ", c, " * ", b,
                                          "^2 overflows int64"));
    } else {
      OP_REQUIRES(
          ctx, c % (b * b) == 0,
          errors::InvalidArgument(
              "the depth of input 0 ", input.shape().DebugString(),
              " must be divisible by block_size * block_size = ", b * b));
      OP_REQUIRES(
          ctx,
          !__builtin_mul_overflow(h, b, &oh) &&
              !__builtin_mul_overflow(w, b, &ow),
          errors::InvalidArgument("the output height and width of ",
                                  input.shape().DebugString(),
                                  " times block_size ", b, " overflow int64"));
      oc = c / (b * b);
    }
    StatusOr<TensorShape> out_shape = nchw_
                                          ? TensorShape::Build({n, oc, oh, ow})
                                          : TensorShape::Build({n, oh, ow, oc});
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
    if (output->NumElements() == 0) return;
    // The output read in row-major order as a 6-D index space, with the
    // input's element stride for each of its dimensions.
    int64_t dims[6];
    int64_t strides[6];
    if (to_depth_) {
      // Input [n, oh, bh, ow, bw, c] (NHWC) or [n, c, oh, bh, ow, bw].
      if (!nchw_) {
        const int64_t d[6] = {n, oh, ow, b, b, c};
        const int64_t s[6] = {h * w * c, b * w * c, b * c, w * c, c, 1};
        std::copy(d, d + 6, dims);
        std::copy(s, s + 6, strides);
      } else {
        const int64_t d[6] = {n, b, b, c, oh, ow};
        const int64_t s[6] = {c * h * w, w, 1, h * w, b * w, b};
        std::copy(d, d + 6, dims);
        std::copy(s, s + 6, strides);
      }
    } else {
      // Input channel (bh * b + bw) * oc + c.
      if (!nchw_) {
        const int64_t d[6] = {n, h, b, w, b, oc};
        const int64_t s[6] = {h * w * c, w * c, b * oc, c, oc, 1};
        std::copy(d, d + 6, dims);
        std::copy(s, s + 6, strides);
      } else {
        const int64_t d[6] = {n, oc, h, b, w, b};
        const int64_t s[6] = {c * h * w,      h * w, w,
                              b * oc * h * w, 1,     oc * h * w};
        std::copy(d, d + 6, dims);
        std::copy(s, s + 6, strides);
      }
    }
    copy_util::StridedGather(*ctx, input.dtype(), input.raw_data(), 0, dims,
                             strides, output->raw_data());
  }

 private:
  bool to_depth_;
  bool nchw_ = false;
  int64_t block_ = 0;
};

class SpaceToDepthOp : public SpaceDepthOp {
 public:
  explicit SpaceToDepthOp(OpKernelConstruction* ctx)
      : SpaceDepthOp(ctx, true) {}
};

class DepthToSpaceOp : public SpaceDepthOp {
 public:
  explicit DepthToSpaceOp(OpKernelConstruction* ctx)
      : SpaceDepthOp(ctx, false) {}
};

// TensorFlow's CPU kernels take every type; weft's, every type it can hold
// in a tensor buffer (numbers, bool, complex, string).
REGISTER_KERNEL_BUILDER(
    Name("SpaceToDepth")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING})),
    SpaceToDepthOp);
REGISTER_KERNEL_BUILDER(
    Name("DepthToSpace")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING})),
    DepthToSpaceOp);

}  // namespace
}  // namespace weft
