// Conv3DBackpropInputV2 on the CPU (the transposed 3-D convolution that
// Keras' Conv3DTranspose freezes into), NDHWC with dilations of 1 as
// TensorFlow's CPU kernel takes it: the gradient of Conv3D with respect to
// its input,
//   output[n, d, h, w, c] = sum over taps (kd, kh, kw) and output channels o
//     with d = od * sd - pd + kd (and likewise h, w) inside out_backprop of
//     out_backprop[n, od, oh, ow, o] * filter[kd, kh, kw, c, o],
// where the windows are Conv3D's over an input of input_sizes. Each output
// pixel gathers its taps (so rows of the output are independent units for
// ctx->ParallelFor, with a fixed summation order): per tap, a dot product of
// the out_backprop pixel with each input channel's filter row, accumulated
// in float for half and bfloat16 (rounded once), the dtype otherwise.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/cpu/window3d.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// The output position o along one dimension whose window covers input
// position i at tap k, or -1.
inline int64_t SourceOf(const WindowDim& d, int64_t i, int64_t k) {
  const int64_t t = i + d.pad_before - k;
  if (t < 0 || t % d.stride != 0) return -1;
  const int64_t o = t / d.stride;
  return o < d.output ? o : -1;
}

template <typename T>
class Conv3DBackpropInputV2Op : public OpKernel {
 public:
  explicit Conv3DBackpropInputV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadWindow3DAttrs(ctx, /*pool=*/false, &attrs_));
  }

  void Compute(OpKernelContext* ctx) const override {
    using A = AccumulateType<T>;
    const Tensor& sizes = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    OP_REQUIRES(ctx, sizes.dims() == 1 && sizes.NumElements() == 5,
                errors::InvalidArgument(
                    "input_sizes (input 0) must be a vector of 5 values but "
                    "has shape ",
                    sizes.shape().DebugString()));
    std::vector<int64_t> in_dims;
    OP_REQUIRES_OK(ctx,
                   ReadIndexTensor(sizes, "input_sizes (input 0)", &in_dims));
    StatusOr<TensorShape> in_shape = TensorShape::Build(in_dims);
    OP_REQUIRES_OK(ctx, in_shape.status());
    OP_REQUIRES(ctx, filter.dims() == 5,
                errors::InvalidArgument(
                    "filter (input 1) must be 5-D [depth, rows, cols, "
                    "in_channels, out_channels] but has shape ",
                    filter.shape().DebugString()));
    const int64_t window[3] = {filter.dim_size(0), filter.dim_size(1),
                               filter.dim_size(2)};
    WindowDim dims[3];
    OP_REQUIRES_OK(ctx, ComputeWindows3D(attrs_, *in_shape, window, dims));
    const int64_t batch = in_dims[0];
    const int64_t in_c = in_dims[4];
    const int64_t out_c = filter.dim_size(4);
    OP_REQUIRES(ctx, filter.dim_size(3) == in_c,
                errors::InvalidArgument(
                    "the filter's input channels (dimension 3 of input 1 ",
                    filter.shape().DebugString(),
                    ") must match input_sizes[4] = ", in_c));
    const TensorShape want(
        {batch, dims[0].output, dims[1].output, dims[2].output, out_c});
    OP_REQUIRES(
        ctx, dy.shape() == want,
        errors::InvalidArgument(
            "out_backprop (input 2) has shape ", dy.shape().DebugString(),
            " but Conv3D over input ", in_shape->DebugString(), " with filter ",
            filter.shape().DebugString(), " gives ", want.DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *in_shape, &output));
    if (output->NumElements() == 0) return;
    T* y = output->data<T>();
    if (out_c == 0 || dy.NumElements() == 0) {
      std::fill(y, y + output->NumElements(), T(0));
      return;
    }
    std::vector<A> f(filter.NumElements());
    ConvertElements(filter.data<T>(), f.data(), filter.NumElements());
    const T* g = dy.data<T>();
    const int64_t g_w = out_c;
    const int64_t g_h = dims[2].output * g_w;
    const int64_t g_d = dims[1].output * g_h;
    const int64_t g_n = dims[0].output * g_d;
    const int64_t rows = batch * dims[0].input * dims[1].input;
    // About filter / stride^3 products per output pixel; capped so the
    // estimate cannot overflow.
    const int64_t cap = int64_t{1} << 31;
    const int64_t per_pixel =
        filter.NumElements() / dims[0].stride / dims[1].stride / dims[2].stride;
    const int64_t row_cost =
        std::min(dims[2].input, cap) * std::min(per_pixel + 1, cap);
    ctx->ParallelFor(rows, row_cost, [&](int64_t first, int64_t last) {
      std::vector<A> acc(in_c);
      std::vector<A> gs(out_c);
      for (int64_t r = first; r < last; ++r) {
        const int64_t ih = r % dims[1].input;
        const int64_t id = (r / dims[1].input) % dims[0].input;
        const int64_t n = r / (dims[1].input * dims[0].input);
        for (int64_t iw = 0; iw < dims[2].input; ++iw) {
          std::fill(acc.begin(), acc.end(), A(0));
          for (int64_t kd = 0; kd < window[0]; ++kd) {
            const int64_t od = SourceOf(dims[0], id, kd);
            if (od < 0) continue;
            for (int64_t kh = 0; kh < window[1]; ++kh) {
              const int64_t oh = SourceOf(dims[1], ih, kh);
              if (oh < 0) continue;
              for (int64_t kw = 0; kw < window[2]; ++kw) {
                const int64_t ow = SourceOf(dims[2], iw, kw);
                if (ow < 0) continue;
                ConvertElements(g + n * g_n + od * g_d + oh * g_h + ow * g_w,
                                gs.data(), out_c);
                const A* fk =
                    f.data() +
                    ((kd * window[1] + kh) * window[2] + kw) * in_c * out_c;
                for (int64_t c = 0; c < in_c; ++c) {
                  const A* fr = fk + c * out_c;
                  A dot = 0;
                  for (int64_t o = 0; o < out_c; ++o) dot += gs[o] * fr[o];
                  acc[c] += dot;
                }
              }
            }
          }
          ConvertElements(acc.data(), y + (r * dims[2].input + iw) * in_c,
                          in_c);
        }
      }
    });
  }

 private:
  Window3DAttrs attrs_;
};

#define WEFT_REGISTER_CONV3D_BACKPROP_INPUT(T)                                 \
  REGISTER_KERNEL_BUILDER(Name("Conv3DBackpropInputV2")                        \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T")                          \
                              .TypeConstraint("Tshape", {DT_INT32, DT_INT64}), \
                          Conv3DBackpropInputV2Op<T>)

WEFT_REGISTER_CONV3D_BACKPROP_INPUT(half);
WEFT_REGISTER_CONV3D_BACKPROP_INPUT(bfloat16);
WEFT_REGISTER_CONV3D_BACKPROP_INPUT(float);
WEFT_REGISTER_CONV3D_BACKPROP_INPUT(double);

#undef WEFT_REGISTER_CONV3D_BACKPROP_INPUT

}  // namespace
}  // namespace weft
