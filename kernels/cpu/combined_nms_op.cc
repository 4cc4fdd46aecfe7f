// CombinedNonMaxSuppression on the CPU: greedy non-max suppression per
// (batch, class), then the classes' selections merged per batch by score.
//
// Per class c of batch b: the boxes whose score is > score_threshold, taken
// by descending score (ties by box index), each kept unless its IoU with a
// box kept before is > iou_threshold, until min(max_output_size_per_class,
// num_boxes) are kept. Boxes are boxes[b, i, c] (or boxes[b, i, 0] when
// q = 1); IoU as TensorFlow computes it (corners in either order; 0 when
// either box is empty).
//
// Per batch: the min(per_class, num_boxes) * num_classes slots (unused
// slots score -1, class -1, box 0, as in TensorFlow, which sorts them with
// the rest) are ordered by descending score, ties in slot order, and the
// first d written out: d = min(kept, max_total_size), or with
// pad_per_class min(kept, per_batch) where the output has per_batch =
// min(max_total_size, max_output_size_per_class * num_classes) rows
// instead of max_total_size. Boxes are clipped to [0, 1] with clip_boxes;
// rows past d are zeros. (Classes are floats, valid_detections = d.)
// The (batch, class) suppressions are the units of ctx->ParallelFor.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

struct Kept {
  int64_t box = -1;
  float score = -1.0f;
  int64_t cls = -1;
  float coords[4] = {0, 0, 0, 0};
};

float Iou(const float* a, const float* b) {
  const float ymin_a = std::min(a[0], a[2]), xmin_a = std::min(a[1], a[3]);
  const float ymax_a = std::max(a[0], a[2]), xmax_a = std::max(a[1], a[3]);
  const float ymin_b = std::min(b[0], b[2]), xmin_b = std::min(b[1], b[3]);
  const float ymax_b = std::max(b[0], b[2]), xmax_b = std::max(b[1], b[3]);
  const float area_a = (ymax_a - ymin_a) * (xmax_a - xmin_a);
  const float area_b = (ymax_b - ymin_b) * (xmax_b - xmin_b);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float ih =
      std::max(std::min(ymax_a, ymax_b) - std::max(ymin_a, ymin_b), 0.0f);
  const float iw =
      std::max(std::min(xmax_a, xmax_b) - std::max(xmin_a, xmin_b), 0.0f);
  const float inter = ih * iw;
  return inter / (area_a + area_b - inter);
}

Status ReadScalar(const Tensor& t, const char* name, float* v) {
  if (t.dims() != 0) {
    return errors::InvalidArgument(name, " must be a scalar but has shape ",
                                   t.shape().DebugString());
  }
  *v = t.data<float>()[0];
  return Status();
}

Status ReadScalar(const Tensor& t, const char* name, int64_t* v) {
  if (t.dims() != 0) {
    return errors::InvalidArgument(name, " must be a scalar but has shape ",
                                   t.shape().DebugString());
  }
  *v = t.data<int32_t>()[0];
  return Status();
}

class CombinedNonMaxSuppressionOp : public OpKernel {
 public:
  explicit CombinedNonMaxSuppressionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_per_class", &pad_per_class_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("clip_boxes", &clip_boxes_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    OP_REQUIRES(ctx, boxes.dims() == 4 && boxes.dim_size(3) == 4,
                errors::InvalidArgument(
                    "boxes (input 0) must be [batch, num_boxes, q, 4] but has "
                    "shape ",
                    boxes.shape().DebugString()));
    OP_REQUIRES(ctx, scores.dims() == 3,
                errors::InvalidArgument(
                    "scores (input 1) must be [batch, num_boxes, num_classes] "
                    "but has shape ",
                    scores.shape().DebugString()));
    const int64_t batch = boxes.dim_size(0);
    const int64_t num_boxes = boxes.dim_size(1);
    const int64_t q = boxes.dim_size(2);
    const int64_t classes = scores.dim_size(2);
    OP_REQUIRES(ctx,
                scores.dim_size(0) == batch && scores.dim_size(1) == num_boxes,
                errors::InvalidArgument(
                    "scores (input 1) ", scores.shape().DebugString(),
                    " must have the batch and boxes of boxes (input 0) ",
                    boxes.shape().DebugString()));
    OP_REQUIRES(ctx, q == 1 || q == classes,
                errors::InvalidArgument("dimension 2 of boxes (input 0) ",
                                        boxes.shape().DebugString(),
                                        " must be 1 or the number of classes, ",
                                        classes));
    int64_t per_class = 0, total = 0;
    float iou_threshold = 0, score_threshold = 0;
    OP_REQUIRES_OK(
        ctx, ReadScalar(ctx->input(2), "max_output_size_per_class (input 2)",
                        &per_class));
    OP_REQUIRES_OK(
        ctx, ReadScalar(ctx->input(3), "max_total_size (input 3)", &total));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx->input(4), "iou_threshold (input 4)",
                                   &iou_threshold));
    OP_REQUIRES_OK(ctx, ReadScalar(ctx->input(5), "score_threshold (input 5)",
                                   &score_threshold));
    OP_REQUIRES(ctx, per_class > 0,
                errors::InvalidArgument(
                    "max_output_size_per_class (input 2) must be > 0 but is ",
                    per_class));
    OP_REQUIRES(ctx, total > 0,
                errors::InvalidArgument(
                    "max_total_size (input 3) must be > 0 but is ", total));
    OP_REQUIRES(ctx, iou_threshold >= 0 && iou_threshold <= 1,
                errors::InvalidArgument(
                    "iou_threshold (input 4) must be in [0, 1] but is ",
                    iou_threshold));
    const int64_t per_batch =
        pad_per_class_ ? std::min(total, per_class * classes) : total;
    const int64_t slots_per_class = std::min(per_class, num_boxes);
    const int64_t slots = slots_per_class * classes;

    Tensor* out[4];
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({batch, per_batch, 4}), &out[0]));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({batch, per_batch}), &out[1]));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(2, TensorShape({batch, per_batch}), &out[2]));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({batch}), &out[3]));
    float* nmsed_boxes = out[0]->data<float>();
    float* nmsed_scores = out[1]->data<float>();
    float* nmsed_classes = out[2]->data<float>();
    int32_t* valid = out[3]->data<int32_t>();
    std::fill_n(nmsed_boxes, out[0]->NumElements(), 0.0f);
    std::fill_n(nmsed_scores, out[1]->NumElements(), 0.0f);
    std::fill_n(nmsed_classes, out[2]->NumElements(), 0.0f);
    if (batch == 0) return;

    const float* box_data = boxes.data<float>();
    const float* score_data = scores.data<float>();
    std::vector<Kept> kept(batch * slots);
    ctx->ParallelFor(
        batch * classes, num_boxes * 16, [&](int64_t first, int64_t last) {
          std::vector<std::pair<float, int64_t>> candidates;
          std::vector<const float*> selected;
          for (int64_t u = first; u < last; ++u) {
            const int64_t b = u / classes;
            const int64_t c = u % classes;
            const float* s = score_data + b * num_boxes * classes;
            const float* bx = box_data + b * num_boxes * q * 4;
            const int64_t qc = q > 1 ? c : 0;
            candidates.clear();
            for (int64_t i = 0; i < num_boxes; ++i) {
              const float v = s[i * classes + c];
              if (v > score_threshold) candidates.push_back({v, i});
            }
            std::stable_sort(
                candidates.begin(), candidates.end(),
                [](const auto& x, const auto& y) { return x.first > y.first; });
            selected.clear();
            Kept* slot = kept.data() + b * slots + c * slots_per_class;
            for (const auto& [score, i] : candidates) {
              if (static_cast<int64_t>(selected.size()) >= slots_per_class) {
                break;
              }
              const float* box = bx + (i * q + qc) * 4;
              bool keep = true;
              for (auto it = selected.rbegin(); it != selected.rend(); ++it) {
                if (Iou(box, *it) > iou_threshold) {
                  keep = false;
                  break;
                }
              }
              if (!keep) continue;
              Kept& k = slot[selected.size()];
              k.box = i;
              k.score = score;
              k.cls = c;
              std::copy(box, box + 4, k.coords);
              selected.push_back(box);
            }
          }
        });
    for (int64_t b = 0; b < batch; ++b) {
      Kept* first = kept.data() + b * slots;
      std::stable_sort(first, first + slots, [](const Kept& x, const Kept& y) {
        return x.score > y.score;
      });
      const int64_t found = std::count_if(
          first, first + slots, [](const Kept& k) { return k.box > -1; });
      const int64_t d = std::min(found, per_batch);
      valid[b] = static_cast<int32_t>(d);
      for (int64_t j = 0; j < d; ++j) {
        const Kept& k = first[j];
        float* o = nmsed_boxes + (b * per_batch + j) * 4;
        for (int t = 0; t < 4; ++t) {
          o[t] = clip_boxes_ ? std::max(std::min(k.coords[t], 1.0f), 0.0f)
                             : k.coords[t];
        }
        nmsed_scores[b * per_batch + j] = k.score;
        nmsed_classes[b * per_batch + j] = static_cast<float>(k.cls);
      }
    }
  }

 private:
  bool pad_per_class_ = false;
  bool clip_boxes_ = true;
};

REGISTER_KERNEL_BUILDER(Name("CombinedNonMaxSuppression").Device(DEVICE_CPU),
                        CombinedNonMaxSuppressionOp);

}  // namespace
}  // namespace weft
