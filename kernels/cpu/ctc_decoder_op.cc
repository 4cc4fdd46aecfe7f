// CTCGreedyDecoder on the CPU: per batch entry b and step t < length[b],
// the best class of inputs[t, b, :] (the first of equal maxima; NaN never
// wins over an earlier class), its negated score summed into
// log_probability[b, 0], and the class appended to b's sequence unless it
// is the blank or (merge_repeated) repeats the previous step's class. The
// sequences come out as a sparse [batch, longest] matrix, row by row.
// Errors as TensorFlow's: inputs not 3-D or empty, sequence_length not a vector
// of batch lengths, a length beyond max_time (a negative one decodes nothing,
// as in TensorFlow), blank_index outside [-num_classes, num_classes).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class CtcGreedyDecoderOp : public OpKernel {
 public:
  explicit CtcGreedyDecoderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ctx->GetAttr("merge_repeated", &merge_repeated_);
    if (s.ok()) s = ctx->GetAttr("blank_index", &blank_index_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& lengths = ctx->input(1);
    OP_REQUIRES(
        ctx, inputs.dims() == 3,
        errors::InvalidArgument("inputs (input 0) is not a 3-Tensor: shape ",
                                inputs.shape().DebugString()));
    OP_REQUIRES(ctx, lengths.dims() == 1,
                errors::InvalidArgument(
                    "sequence_length (input 1) is not a vector: shape ",
                    lengths.shape().DebugString()));
    OP_REQUIRES(ctx, inputs.NumElements() > 0,
                errors::InvalidArgument("inputs (input 0) must not be empty: "
                                        "shape ",
                                        inputs.shape().DebugString()));
    const int64_t max_time = inputs.dim_size(0);
    const int64_t batch = inputs.dim_size(1);
    const int64_t classes = inputs.dim_size(2);
    OP_REQUIRES(
        ctx, lengths.dim_size(0) == batch,
        errors::InvalidArgument("len(sequence_length) != batch_size.  "
                                "len(sequence_length):  ",
                                lengths.dim_size(0), " batch_size: ", batch));
    const int32_t* len = lengths.data<int32_t>();
    for (int64_t b = 0; b < batch; ++b) {
      OP_REQUIRES(ctx, len[b] <= max_time,
                  errors::InvalidArgument("sequence_length(", b, ") = ", len[b],
                                          " exceeds max_time = ", max_time));
    }
    const int64_t blank =
        blank_index_ < 0 ? classes + blank_index_ : blank_index_;
    OP_REQUIRES(ctx, blank >= 0 && blank < classes,
                errors::InvalidArgument("blank_index expected to be between ",
                                        -classes, " and ", classes - 1,
                                        " but was ", blank_index_));
    Tensor* log_prob = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(3, TensorShape({batch, 1}), &log_prob));
    std::vector<std::vector<int64_t>> sequences(batch);
    if (inputs.dtype() == DT_FLOAT) {
      Decode<float>(ctx, inputs, len, blank, log_prob, &sequences);
    } else {
      Decode<double>(ctx, inputs, len, blank, log_prob, &sequences);
    }
    int64_t total = 0;
    int64_t longest = 0;
    for (const auto& s : sequences) {
      total += static_cast<int64_t>(s.size());
      longest = std::max<int64_t>(longest, static_cast<int64_t>(s.size()));
    }
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({total, 2}), &indices));
    Tensor* values = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &values));
    Tensor* shape = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({2}), &shape));
    int64_t k = 0;
    for (int64_t b = 0; b < batch; ++b) {
      for (size_t t = 0; t < sequences[b].size(); ++t, ++k) {
        indices->data<int64_t>()[2 * k] = b;
        indices->data<int64_t>()[2 * k + 1] = static_cast<int64_t>(t);
        values->data<int64_t>()[k] = sequences[b][t];
      }
    }
    shape->data<int64_t>()[0] = batch;
    shape->data<int64_t>()[1] = longest;
  }

 private:
  template <typename T>
  void Decode(const OpKernelContext* ctx, const Tensor& inputs,
              const int32_t* len, int64_t blank, Tensor* log_prob,
              std::vector<std::vector<int64_t>>* sequences) const {
    const int64_t batch = inputs.dim_size(1);
    const int64_t classes = inputs.dim_size(2);
    const T* x = inputs.data<T>();
    T* lp = log_prob->data<T>();
    ctx->ParallelFor(
        batch, 50 * inputs.dim_size(0) * classes, [&](int64_t b0, int64_t b1) {
          for (int64_t b = b0; b < b1; ++b) {
            T sum = 0;
            int64_t previous = -1;
            std::vector<int64_t>& seq = (*sequences)[b];
            for (int64_t t = 0; t < len[b]; ++t) {
              const T* row = x + (t * batch + b) * classes;
              int64_t best = 0;
              T max = row[0];
              for (int64_t c = 1; c < classes; ++c) {
                if (row[c] > max) max = row[c], best = c;
              }
              sum += -max;
              if (best != blank && !(merge_repeated_ && best == previous)) {
                seq.push_back(best);
              }
              previous = best;
            }
            lp[b] = sum;
          }
        });
  }

  bool merge_repeated_ = false;
  int64_t blank_index_ = -1;
};

REGISTER_KERNEL_BUILDER(Name("CTCGreedyDecoder")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
                        CtcGreedyDecoderOp);

}  // namespace
}  // namespace weft
