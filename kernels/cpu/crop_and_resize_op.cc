// CropAndResize on the CPU: for each box b = (y1, x1, y2, x2) in normalized
// coordinates of image box_ind[b], a crop_height x crop_width grid of
// samples, with TensorFlow's float arithmetic (so the same source pixels
// and weights are chosen):
//
//   height_scale = crop_height > 1 ? (y2 - y1) * (H - 1) / (crop_height - 1)
//                                  : 0
//   in_y = crop_height > 1 ? y1 * (H - 1) + y * height_scale
//                          : 0.5 * (y1 + y2) * (H - 1)   (in double)
//
// and likewise along x. A sample outside [0, H - 1] x [0, W - 1] is
// extrapolation_value; inside, method bilinear lerps the 4 neighbours
// (top and bottom rows along x, then between them along y), method nearest
// takes the pixel at (roundf(in_y), roundf(in_x)). The output is float.
// Errors, as TensorFlow's: non-4-D image, empty image, boxes not
// [num_boxes, 4], box_ind not [num_boxes] or outside [0, batch), crop_size
// not two positive sizes, boxes that are not finite. Boxes are the units
// of ctx->ParallelFor.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

struct CropGeometry {
  int64_t batch, height, width, depth;
  int64_t crop_height, crop_width;
  float extrapolation;
  bool bilinear;
};

// The sample position along one dimension of `size` pixels.
inline float SamplePosition(int64_t i, int64_t crops, float lo, float hi,
                            float scale, int64_t size) {
  return crops > 1
             ? lo * static_cast<float>(size - 1) + static_cast<float>(i) * scale
             : static_cast<float>(0.5 * (lo + hi) *
                                  static_cast<double>(size - 1));
}

template <typename T>
void CropBoxes(const CropGeometry& g, const T* image, const float* boxes,
               const int32_t* box_ind, float* out, int64_t first,
               int64_t last) {
  const int64_t d = g.depth;
  const int64_t row = g.width * d;
  for (int64_t b = first; b < last; ++b) {
    const float y1 = boxes[b * 4], x1 = boxes[b * 4 + 1];
    const float y2 = boxes[b * 4 + 2], x2 = boxes[b * 4 + 3];
    const T* img = image + box_ind[b] * g.height * row;
    const float height_scale =
        g.crop_height > 1 ? (y2 - y1) * static_cast<float>(g.height - 1) /
                                static_cast<float>(g.crop_height - 1)
                          : 0.0f;
    const float width_scale =
        g.crop_width > 1 ? (x2 - x1) * static_cast<float>(g.width - 1) /
                               static_cast<float>(g.crop_width - 1)
                         : 0.0f;
    float* crop = out + b * g.crop_height * g.crop_width * d;
    for (int64_t y = 0; y < g.crop_height; ++y) {
      float* o_row = crop + y * g.crop_width * d;
      const float in_y =
          SamplePosition(y, g.crop_height, y1, y2, height_scale, g.height);
      if (!(in_y >= 0 && in_y <= static_cast<float>(g.height - 1))) {
        std::fill(o_row, o_row + g.crop_width * d, g.extrapolation);
        continue;
      }
      const int64_t top = static_cast<int64_t>(std::floor(in_y));
      const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
      const float y_lerp = in_y - static_cast<float>(top);
      for (int64_t x = 0; x < g.crop_width; ++x) {
        float* o = o_row + x * d;
        const float in_x =
            SamplePosition(x, g.crop_width, x1, x2, width_scale, g.width);
        if (!(in_x >= 0 && in_x <= static_cast<float>(g.width - 1))) {
          std::fill(o, o + d, g.extrapolation);
          continue;
        }
        if (!g.bilinear) {
          const T* p = img + static_cast<int64_t>(std::round(in_y)) * row +
                       static_cast<int64_t>(std::round(in_x)) * d;
          for (int64_t c = 0; c < d; ++c) o[c] = static_cast<float>(p[c]);
          continue;
        }
        const int64_t left = static_cast<int64_t>(std::floor(in_x));
        const int64_t right = static_cast<int64_t>(std::ceil(in_x));
        const float x_lerp = in_x - static_cast<float>(left);
        const T* tl = img + top * row + left * d;
        const T* tr = img + top * row + right * d;
        const T* bl = img + bottom * row + left * d;
        const T* br = img + bottom * row + right * d;
        for (int64_t c = 0; c < d; ++c) {
          const float top_left = static_cast<float>(tl[c]);
          const float top_right = static_cast<float>(tr[c]);
          const float bottom_left = static_cast<float>(bl[c]);
          const float bottom_right = static_cast<float>(br[c]);
          const float t = top_left + (top_right - top_left) * x_lerp;
          const float bt = bottom_left + (bottom_right - bottom_left) * x_lerp;
          o[c] = t + (bt - t) * y_lerp;
        }
      }
    }
  }
}

template <typename T>
class CropAndResizeOp : public OpKernel {
 public:
  explicit CropAndResizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string method;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("method", &method));
    OP_REQUIRES(
        ctx, method == "bilinear" || method == "nearest",
        errors::InvalidArgument("method must be 'bilinear' or 'nearest', got '",
                                method, "'"));
    bilinear_ = method == "bilinear";
    OP_REQUIRES_OK(ctx, ctx->GetAttr("extrapolation_value", &extrapolation_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& image = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_ind = ctx->input(2);
    const Tensor& crop_size = ctx->input(3);
    OP_REQUIRES(ctx, image.dims() == 4,
                errors::InvalidArgument(
                    "input image must be 4-D [batch, height, width, depth] "
                    "but has shape ",
                    image.shape().DebugString()));
    CropGeometry g;
    g.batch = image.dim_size(0);
    g.height = image.dim_size(1);
    g.width = image.dim_size(2);
    g.depth = image.dim_size(3);
    OP_REQUIRES(ctx, g.height > 0 && g.width > 0,
                errors::InvalidArgument("image dimensions must be positive, "
                                        "but image has shape ",
                                        image.shape().DebugString()));
    OP_REQUIRES(ctx, boxes.dims() == 2 && boxes.dim_size(1) == 4,
                errors::InvalidArgument(
                    "boxes (input 1) must be [num_boxes, 4] but has shape ",
                    boxes.shape().DebugString()));
    const int64_t num_boxes = boxes.dim_size(0);
    OP_REQUIRES(ctx, box_ind.dims() == 1 && box_ind.dim_size(0) == num_boxes,
                errors::InvalidArgument(
                    "box_ind (input 2) must be a vector of ", num_boxes,
                    " values, one per box, but has shape ",
                    box_ind.shape().DebugString()));
    OP_REQUIRES(ctx, crop_size.dims() == 1 && crop_size.NumElements() == 2,
                errors::InvalidArgument(
                    "crop_size (input 3) must be [crop_height, crop_width] "
                    "but has shape ",
                    crop_size.shape().DebugString()));
    g.crop_height = crop_size.data<int32_t>()[0];
    g.crop_width = crop_size.data<int32_t>()[1];
    OP_REQUIRES(
        ctx, g.crop_height > 0 && g.crop_width > 0,
        errors::InvalidArgument("crop dimensions must be positive, "
                                "got crop_size [",
                                g.crop_height, ", ", g.crop_width, "]"));
    const int32_t* ind = box_ind.data<int32_t>();
    for (int64_t b = 0; b < num_boxes; ++b) {
      OP_REQUIRES(
          ctx, ind[b] >= 0 && ind[b] < g.batch,
          errors::InvalidArgument(
              "box_ind (input 2) has values outside [0, batch_size): "
              "box ",
              b, " has ", ind[b], " but the batch has ", g.batch, " images"));
    }
    const float* box = boxes.data<float>();
    for (int64_t i = 0; i < num_boxes * 4; ++i) {
      OP_REQUIRES(ctx, std::isfinite(box[i]),
                  errors::InvalidArgument(
                      "Boxes contains at least one element that is not "
                      "finite: box ",
                      i / 4, " has ", box[i]));
    }
    g.extrapolation = extrapolation_;
    g.bilinear = bilinear_;
    Tensor* output = nullptr;
    StatusOr<TensorShape> out_shape =
        TensorShape::Build({num_boxes, g.crop_height, g.crop_width, g.depth});
    OP_REQUIRES_OK(ctx, out_shape.status());
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
    if (output->NumElements() == 0) return;
    const T* img = image.data<T>();
    float* out = output->data<float>();
    ctx->ParallelFor(num_boxes, g.crop_height * g.crop_width * g.depth * 8,
                     [&](int64_t first, int64_t last) {
                       CropBoxes<T>(g, img, box, ind, out, first, last);
                     });
  }

 private:
  bool bilinear_ = true;
  float extrapolation_ = 0;
};

#define WEFT_REGISTER_CROP_AND_RESIZE(T)                               \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("CropAndResize").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      CropAndResizeOp<T>)

WEFT_REGISTER_CROP_AND_RESIZE(uint8_t);
WEFT_REGISTER_CROP_AND_RESIZE(uint16_t);
WEFT_REGISTER_CROP_AND_RESIZE(int8_t);
WEFT_REGISTER_CROP_AND_RESIZE(int16_t);
WEFT_REGISTER_CROP_AND_RESIZE(int32_t);
WEFT_REGISTER_CROP_AND_RESIZE(int64_t);
WEFT_REGISTER_CROP_AND_RESIZE(half);
WEFT_REGISTER_CROP_AND_RESIZE(float);
WEFT_REGISTER_CROP_AND_RESIZE(double);

#undef WEFT_REGISTER_CROP_AND_RESIZE

}  // namespace
}  // namespace weft
