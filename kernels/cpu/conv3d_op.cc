// Conv3D on the CPU, NDHWC with dilations of 1 as TensorFlow's CPU kernel
// takes it: output[n, d, h, w, o] = sum over the window's in-bounds taps
// (kd, kh, kw) and input channels c of
//   input[n, d*sd - pd + kd, h*sh - ph + kh, w*sw - pw + kw, c] *
//   filter[kd, kh, kw, c, o].
// Each output pixel accumulates a row of `out_channels` sums (float for half
// and bfloat16, which are rounded once at the end; the dtype itself
// otherwise), tap by tap and channel by channel, so the inner loop is a
// vectorizable axpy over the filter's contiguous output channels. Output
// rows (n, d, h) are split over the arena; each sum's order is fixed, so
// results do not depend on the thread count.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/cpu/window3d.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
class Conv3DOp : public OpKernel {
 public:
  explicit Conv3DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadWindow3DAttrs(ctx, /*pool=*/false, &attrs_));
  }

  void Compute(OpKernelContext* ctx) const override {
    using A = AccumulateType<T>;
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    OP_REQUIRES(ctx, filter.dims() == 5,
                errors::InvalidArgument(
                    "filter (input 1) must be 5-D [depth, rows, cols, "
                    "in_channels, out_channels] but has shape ",
                    filter.shape().DebugString()));
    const int64_t window[3] = {filter.dim_size(0), filter.dim_size(1),
                               filter.dim_size(2)};
    WindowDim dims[3];
    OP_REQUIRES_OK(ctx, ComputeWindows3D(attrs_, input.shape(), window, dims));
    const int64_t in_c = input.dim_size(4);
    OP_REQUIRES(ctx, filter.dim_size(3) == in_c,
                errors::InvalidArgument(
                    "the filter's input channels (dimension 3 of input 1 ",
                    filter.shape().DebugString(),
                    ") must match the input's channels (dimension 4 of "
                    "input 0 ",
                    input.shape().DebugString(),
                    "); grouped 3-D convolutions are not supported on the "
                    "CPU, as in TensorFlow"));
    const int64_t out_c = filter.dim_size(4);
    const int64_t batch = input.dim_size(0);
    Tensor* output = nullptr;
    StatusOr<TensorShape> out_shape = TensorShape::Build(
        {batch, dims[0].output, dims[1].output, dims[2].output, out_c});
    OP_REQUIRES_OK(ctx, out_shape.status());
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
    if (output->NumElements() == 0) return;
    if (in_c == 0 || filter.NumElements() == 0) {
      T* y = output->data<T>();
      std::fill(y, y + output->NumElements(), T(0));
      return;
    }
    // The filter in the accumulation type, [kd, kh, kw, in_c, out_c].
    std::vector<A> f(filter.NumElements());
    ConvertElements(filter.data<T>(), f.data(), filter.NumElements());
    const T* x = input.data<T>();
    T* y = output->data<T>();
    const int64_t in_w_stride = in_c;
    const int64_t in_h_stride = dims[2].input * in_w_stride;
    const int64_t in_d_stride = dims[1].input * in_h_stride;
    const int64_t in_n_stride = dims[0].input * in_d_stride;
    const int64_t rows = batch * dims[0].output * dims[1].output;
    const int64_t row_cost =
        dims[2].output * window[0] * window[1] * window[2] * in_c * out_c;
    ctx->ParallelFor(rows, row_cost, [&](int64_t first, int64_t last) {
      std::vector<A> acc(out_c);
      std::vector<A> xs(in_c);
      for (int64_t r = first; r < last; ++r) {
        const int64_t oh = r % dims[1].output;
        const int64_t od = (r / dims[1].output) % dims[0].output;
        const int64_t n = r / (dims[1].output * dims[0].output);
        int64_t d_lo, d_hi, h_lo, h_hi;
        ValidTaps(dims[0], od, &d_lo, &d_hi);
        ValidTaps(dims[1], oh, &h_lo, &h_hi);
        const int64_t id0 = od * dims[0].stride - dims[0].pad_before;
        const int64_t ih0 = oh * dims[1].stride - dims[1].pad_before;
        for (int64_t ow = 0; ow < dims[2].output; ++ow) {
          int64_t w_lo, w_hi;
          ValidTaps(dims[2], ow, &w_lo, &w_hi);
          const int64_t iw0 = ow * dims[2].stride - dims[2].pad_before;
          std::fill(acc.begin(), acc.end(), A(0));
          A* a = acc.data();
          for (int64_t kd = d_lo; kd < d_hi; ++kd) {
            for (int64_t kh = h_lo; kh < h_hi; ++kh) {
              for (int64_t kw = w_lo; kw < w_hi; ++kw) {
                const T* px = x + n * in_n_stride + (id0 + kd) * in_d_stride +
                              (ih0 + kh) * in_h_stride +
                              (iw0 + kw) * in_w_stride;
                ConvertElements(px, xs.data(), in_c);
                const A* fk =
                    f.data() +
                    ((kd * window[1] + kh) * window[2] + kw) * in_c * out_c;
                for (int64_t c = 0; c < in_c; ++c) {
                  const A xv = xs[c];
                  const A* fr = fk + c * out_c;
                  for (int64_t o = 0; o < out_c; ++o) a[o] += xv * fr[o];
                }
              }
            }
          }
          ConvertElements(a, y + (r * dims[2].output + ow) * out_c, out_c);
        }
      }
    });
  }

 private:
  Window3DAttrs attrs_;
};

#define WEFT_REGISTER_CONV3D(T) \
  REGISTER_KERNEL_BUILDER(      \
      Name("Conv3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Conv3DOp<T>)

WEFT_REGISTER_CONV3D(half);
WEFT_REGISTER_CONV3D(bfloat16);
WEFT_REGISTER_CONV3D(float);
WEFT_REGISTER_CONV3D(double);

#undef WEFT_REGISTER_CONV3D

}  // namespace
}  // namespace weft
