// Greedy non-max suppression on the CPU: NonMaxSuppression (V1) to V5 and
// NonMaxSuppressionWithOverlaps, with TensorFlow's semantics.
//
// Boxes are [y1, x1, y2, x2] with the corners in either order; the
// similarity of two boxes is their intersection over union, computed in
// float, and 0 when either has no area (WithOverlaps reads it from the
// overlaps matrix instead). Only boxes whose score is above score_threshold
// (strictly; V1 and V2 take every score above the lowest finite T, so the
// lowest T, -inf and NaN scores never qualify) are candidates. Candidates are
// visited best score first, ties by the lower box index. A candidate is
// compared with the boxes selected since it was last looked at, newest first:
//
//   - hard NMS (soft_nms_sigma = 0, every version but V5's soft mode): a
//     similarity above iou_threshold (strictly) drops it;
//   - soft NMS (V5 with soft_nms_sigma > 0): each comparison multiplies its
//     score by exp(-0.5 / sigma * iou^2); once the score is at or below
//     score_threshold it is dropped. A candidate whose score changed goes
//     back into the queue with the new score; one that kept its score is
//     selected with it.
//
// Selection stops after min(max_output_size, num_boxes) boxes. The
// thresholds, sigma and the scores are compared and decayed in T (a half
// model rounds each step to half, as TensorFlow does), the thresholds of
// V2 to V4 converted from T_threshold to T first. V4 and V5 with
// pad_to_max_output_size pad the outputs with zeros to max_output_size
// elements; valid_outputs counts the real ones.
//
// Errors, worded as TensorFlow's: boxes not [n, 4] (overlaps not [n, n]),
// scores not [n], a threshold or max_output_size that is not a scalar, an
// iou_threshold outside [0, 1], a negative max_output_size or
// soft_nms_sigma.
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// The value of a scalar float or half input as T.
template <typename T>
Status ReadThreshold(const Tensor& t, const char* name, T* out) {
  if (t.dims() != 0) {
    return errors::InvalidArgument(name, " must be 0-D, got shape ",
                                   t.shape().DebugString());
  }
  switch (t.dtype()) {
    case DT_FLOAT:
      *out = static_cast<T>(t.data<float>()[0]);
      return Status();
    case DT_HALF:
      *out = static_cast<T>(static_cast<float>(t.data<half>()[0]));
      return Status();
    default:
      return errors::InvalidArgument(name, " must be float or half but is ",
                                     DataTypeName(t.dtype()));
  }
}

// max_output_size (input 2): a non-negative int32 scalar.
Status ReadMaxOutputSize(const Tensor& t, int* out) {
  if (t.dims() != 0) {
    return errors::InvalidArgument("max_output_size must be 0-D, got shape ",
                                   t.shape().DebugString());
  }
  *out = t.data<int32_t>()[0];
  if (*out < 0) {
    return errors::InvalidArgument(
        "max_output_size must be non-negative (output size must be "
        "non-negative), got ",
        *out);
  }
  return Status();
}

// Checks boxes [n, 4] (or overlaps [n, n]) against scores [n]; sets *n.
Status CheckBoxes(const Tensor& boxes, const Tensor& scores, bool overlaps,
                  int* n) {
  const char* what = overlaps ? "overlaps" : "boxes";
  if (boxes.dims() != 2) {
    return errors::InvalidArgument(what, " must be 2-D, got shape ",
                                   boxes.shape().DebugString());
  }
  if (boxes.dim_size(0) > std::numeric_limits<int>::max()) {
    return errors::InvalidArgument("too many boxes: ", boxes.dim_size(0));
  }
  *n = static_cast<int>(boxes.dim_size(0));
  if (overlaps && boxes.dim_size(1) != *n) {
    return errors::InvalidArgument("overlaps must be square, got shape ",
                                   boxes.shape().DebugString());
  }
  if (!overlaps && boxes.dim_size(1) != 4) {
    return errors::InvalidArgument("boxes must have 4 columns, got shape ",
                                   boxes.shape().DebugString());
  }
  if (scores.dims() != 1 || scores.dim_size(0) != *n) {
    return errors::InvalidArgument("scores has incompatible shape ",
                                   scores.shape().DebugString(), " for ", what,
                                   " of shape ", boxes.shape().DebugString());
  }
  return Status();
}

// Intersection over union of boxes i and j of the [n, 4] array `b`.
template <typename T>
float Iou(const T* b, int i, int j) {
  const T* p = b + 4 * static_cast<int64_t>(i);
  const T* q = b + 4 * static_cast<int64_t>(j);
  const float py1 = static_cast<float>(p[0]), px1 = static_cast<float>(p[1]);
  const float py2 = static_cast<float>(p[2]), px2 = static_cast<float>(p[3]);
  const float qy1 = static_cast<float>(q[0]), qx1 = static_cast<float>(q[1]);
  const float qy2 = static_cast<float>(q[2]), qx2 = static_cast<float>(q[3]);
  const float p_top = std::min(py1, py2), p_bottom = std::max(py1, py2);
  const float p_left = std::min(px1, px2), p_right = std::max(px1, px2);
  const float q_top = std::min(qy1, qy2), q_bottom = std::max(qy1, qy2);
  const float q_left = std::min(qx1, qx2), q_right = std::max(qx1, qx2);
  const float p_area = (p_bottom - p_top) * (p_right - p_left);
  const float q_area = (q_bottom - q_top) * (q_right - q_left);
  if (p_area <= 0 || q_area <= 0) return 0.0f;
  const float h =
      std::max(std::min(p_bottom, q_bottom) - std::max(p_top, q_top), 0.0f);
  const float w =
      std::max(std::min(p_right, q_right) - std::max(p_left, q_left), 0.0f);
  const float inter = h * w;
  return inter / (p_area + q_area - inter);
}

template <typename T>
struct Selection {
  std::vector<int32_t> indices;
  std::vector<T> scores;
};

// The greedy loop described at the top; `similarity(i, j)` is a float.
template <typename T, typename Similarity>
Selection<T> Suppress(const T* scores, int n, int max_output_size,
                      T iou_threshold, T score_threshold, T soft_nms_sigma,
                      const Similarity& similarity) {
  struct Candidate {
    int index;
    T score;
    int compared;  // selected boxes already compared with
  };
  auto worse = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.index > b.index);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(worse)> queue(
      worse);
  for (int i = 0; i < n; ++i) {
    if (scores[i] > score_threshold) queue.push({i, scores[i], 0});
  }
  const bool soft = soft_nms_sigma > static_cast<T>(0.0f);
  const T scale =
      soft ? static_cast<T>(-0.5f) / soft_nms_sigma : static_cast<T>(0.0f);
  const int limit = std::min(max_output_size, n);
  Selection<T> out;
  while (static_cast<int>(out.indices.size()) < limit && !queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    const T original = c.score;
    bool dropped = false;
    for (int j = static_cast<int>(out.indices.size()) - 1; j >= c.compared;
         --j) {
      const T s = static_cast<T>(similarity(c.index, out.indices[j]));
      if (!soft) {
        if (s > iou_threshold) {
          dropped = true;
          break;
        }
        continue;  // a weight of exp(0) = 1
      }
      const T weight =
          static_cast<T>(std::exp(static_cast<float>(scale * s * s)));
      c.score = c.score * weight;
      if (c.score <= score_threshold) break;
    }
    c.compared = static_cast<int>(out.indices.size());
    if (dropped) continue;
    if (c.score == original) {
      out.indices.push_back(c.index);
      out.scores.push_back(c.score);
    } else if (c.score > score_threshold) {
      queue.push(c);
    }
  }
  return out;
}

// Writes indices (and scores) to outputs 0 (and 1), padded with zeros to
// max_output_size when `pad`, and valid_outputs to the output after them
// when `valid_output` >= 0.
template <typename T>
void WriteOutputs(OpKernelContext* ctx, const Selection<T>& sel,
                  int max_output_size, bool pad, bool with_scores,
                  int valid_output) {
  const int64_t count = static_cast<int64_t>(sel.indices.size());
  const int64_t size = pad ? max_output_size : count;
  Tensor* indices = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &indices));
  int32_t* ix = indices->data<int32_t>();
  for (int64_t i = 0; i < size; ++i) ix[i] = i < count ? sel.indices[i] : 0;
  if (with_scores) {
    Tensor* scores = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({size}), &scores));
    T* sc = scores->data<T>();
    for (int64_t i = 0; i < size; ++i) {
      sc[i] = i < count ? sel.scores[i] : static_cast<T>(0.0f);
    }
  }
  if (valid_output >= 0) {
    Tensor* valid = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(valid_output, TensorShape({}), &valid));
    valid->data<int32_t>()[0] = static_cast<int32_t>(count);
  }
}

Status CheckIouThreshold(float iou_threshold) {
  if (!(iou_threshold >= 0.0f && iou_threshold <= 1.0f)) {
    return errors::InvalidArgument("iou_threshold must be in [0, 1], got ",
                                   iou_threshold);
  }
  return Status();
}

// V1 to V5. `version` picks the inputs: V1 takes iou_threshold from an
// attr, V2 from input 3 with no score threshold, V3 and V4 add
// score_threshold (input 4), V5 soft_nms_sigma (input 5) and the scores
// output.
template <typename T, int version>
class NonMaxSuppressionOp : public OpKernel {
 public:
  explicit NonMaxSuppressionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if constexpr (version == 1) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("iou_threshold", &attr_iou_threshold_));
    }
    if constexpr (version >= 4) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_to_max_output_size", &pad_));
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    int n = 0;
    OP_REQUIRES_OK(ctx, CheckBoxes(boxes, scores, /*overlaps=*/false, &n));
    int max_output_size = 0;
    OP_REQUIRES_OK(ctx, ReadMaxOutputSize(ctx->input(2), &max_output_size));
    T iou_threshold = static_cast<T>(attr_iou_threshold_);
    T score_threshold = std::numeric_limits<T>::lowest();
    T sigma = static_cast<T>(0.0f);
    if constexpr (version >= 2) {
      OP_REQUIRES_OK(
          ctx, ReadThreshold(ctx->input(3), "iou_threshold", &iou_threshold));
    }
    if constexpr (version >= 3) {
      OP_REQUIRES_OK(ctx, ReadThreshold(ctx->input(4), "score_threshold",
                                        &score_threshold));
    }
    if constexpr (version == 5) {
      OP_REQUIRES_OK(ctx,
                     ReadThreshold(ctx->input(5), "soft_nms_sigma", &sigma));
      OP_REQUIRES(ctx, static_cast<float>(sigma) >= 0.0f,
                  errors::InvalidArgument("soft_nms_sigma must be >= 0, got ",
                                          static_cast<float>(sigma)));
    }
    OP_REQUIRES_OK(ctx, CheckIouThreshold(static_cast<float>(iou_threshold)));
    const T* b = boxes.data<T>();
    const Selection<T> sel = Suppress<T>(
        scores.data<T>(), n, max_output_size, iou_threshold, score_threshold,
        sigma, [b](int i, int j) { return Iou(b, i, j); });
    WriteOutputs(ctx, sel, max_output_size, pad_, /*with_scores=*/version == 5,
                 version == 4   ? 1
                 : version == 5 ? 2
                                : -1);
  }

 private:
  float attr_iou_threshold_ = 0.5f;
  bool pad_ = false;
};

class NonMaxSuppressionWithOverlapsOp : public OpKernel {
 public:
  explicit NonMaxSuppressionWithOverlapsOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& overlaps = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    int n = 0;
    OP_REQUIRES_OK(ctx, CheckBoxes(overlaps, scores, /*overlaps=*/true, &n));
    int max_output_size = 0;
    OP_REQUIRES_OK(ctx, ReadMaxOutputSize(ctx->input(2), &max_output_size));
    float overlap_threshold = 0;
    float score_threshold = 0;
    OP_REQUIRES_OK(ctx, ReadThreshold(ctx->input(3), "overlap_threshold",
                                      &overlap_threshold));
    OP_REQUIRES_OK(
        ctx, ReadThreshold(ctx->input(4), "score_threshold", &score_threshold));
    const float* o = overlaps.data<float>();
    const Selection<float> sel = Suppress<float>(
        scores.data<float>(), n, max_output_size, overlap_threshold,
        score_threshold, 0.0f,
        [o, n](int i, int j) { return o[static_cast<int64_t>(i) * n + j]; });
    WriteOutputs(ctx, sel, max_output_size, /*pad=*/false,
                 /*with_scores=*/false, -1);
  }
};

REGISTER_KERNEL_BUILDER(Name("NonMaxSuppression").Device(DEVICE_CPU),
                        NonMaxSuppressionOp<float, 1>);
REGISTER_KERNEL_BUILDER(
    Name("NonMaxSuppressionWithOverlaps").Device(DEVICE_CPU),
    NonMaxSuppressionWithOverlapsOp);

#define WEFT_REGISTER_NMS(T)                                                 \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("NonMaxSuppressionV2")                                            \
          .Device(DEVICE_CPU)                                                \
          .TypeConstraint<T>("T")                                            \
          .TypeConstraint("T_threshold", {DT_HALF, DT_FLOAT}),               \
      NonMaxSuppressionOp<T, 2>);                                            \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("NonMaxSuppressionV3")                                            \
          .Device(DEVICE_CPU)                                                \
          .TypeConstraint<T>("T")                                            \
          .TypeConstraint("T_threshold", {DT_HALF, DT_FLOAT}),               \
      NonMaxSuppressionOp<T, 3>);                                            \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("NonMaxSuppressionV4")                                            \
          .Device(DEVICE_CPU)                                                \
          .TypeConstraint<T>("T")                                            \
          .TypeConstraint("T_threshold", {DT_HALF, DT_FLOAT}),               \
      NonMaxSuppressionOp<T, 4>);                                            \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("NonMaxSuppressionV5").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      NonMaxSuppressionOp<T, 5>)

WEFT_REGISTER_NMS(half);
WEFT_REGISTER_NMS(float);

#undef WEFT_REGISTER_NMS

}  // namespace
}  // namespace weft
