// A Keras LSTM layer's recurrence over a whole sequence in one call: what
// executor/lstm_loop.h runs in place of the layer's While loop, whose
// iterations each run a graph of a dozen nodes. For step t of a sequence,
// with W [features, 4 units], U [units, 4 units] and b [4 units]:
//
//   z = (x_t W + h_{t-1} U) + b,  split into [zi, zf, zg, zo] (Keras' order)
//   c_t = sigmoid(zf) * c_{t-1} + sigmoid(zi) * tanh(zg)
//   h_t = sigmoid(zo) * tanh(c_t)
//
// as the layer's body writes it: each addition and multiplication in that
// order, each rounded to float as its node rounds it, sigmoid and tanh the
// Sigmoid and Tanh kernels' float loops (sigmoid_float.h, tanh_float.h).
// The products are weft's GEMM over W and U packed once at construction;
// x_t W for all the steps of a call is one product made before the first
// step (ONNX Runtime's LSTM does the same), whose rows have the bits of the
// step-by-step products on the vector paths (gemm.h: an element depends on
// its row and column alone). So on those paths a step gives the bits of the
// body's nodes run one by one; on the baseline path, where Eigen's blocking
// follows the product's shape, within a few float ulps of them.
#ifndef WEFT_KERNELS_CPU_LSTM_RECURRENCE_H_
#define WEFT_KERNELS_CPU_LSTM_RECURRENCE_H_

#include <cstdint>

#include "core/tensor.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel_for.h"

namespace weft {

class LstmRecurrence {
 public:
  // `kernel` W, `recurrent` U and `bias` b: float tensors of the shapes
  // above (the caller checks them); kept referenced (the baseline path
  // multiplies from them where they are). A null `bias`: none (Keras'
  // use_bias=False), z = x_t W + h_{t-1} U.
  LstmRecurrence(const Tensor& kernel, const Tensor& recurrent,
                 const Tensor* bias);

  int64_t features() const { return features_; }
  int64_t units() const { return units_; }

  // Runs `steps` steps of `batch` rows (batch > 0). x[s] points at step s's
  // inputs, [batch, features] row-major; h0 at h before the first step
  // ([batch, units]); `c` at c before the first step, which the call
  // updates in place to c after the last. h_out[s] ([batch, units]) gets h
  // after step s, which step s + 1 reads from there; it must not overlap
  // the other arguments. The work splits through `parallel`, by rows of the
  // batch (each part all the steps of its rows) or, for one row, a large U
  // or the baseline path, step by step by columns; every split gives the
  // same bits.
  //
  // With a mask (Keras' masked LSTM, which selects by it after each step):
  // mask[s] points at step s's `batch` bools; a row whose bool is false
  // keeps h and c from before the step. y_out[s] ([batch, units], not
  // overlapping anything else) gets, per row, h after the step where the
  // mask is true, else the held output: with `y_carries`, y before the step
  // (y0's row at step 0, y_out[s - 1]'s after: the last output carried
  // on), without, y0's row at every step (a Bidirectional layer's zeros).
  // Without a mask, y0 and y_out are not read.
  void Run(const ParallelForFn& parallel, int64_t steps, int64_t batch,
           const float* const* x, const float* h0, float* c,
           float* const* h_out, const bool* const* mask = nullptr,
           const float* y0 = nullptr, float* const* y_out = nullptr,
           bool y_carries = true) const;

 private:
  // U's size up to which a batch of two or more rows splits by rows: then
  // every thread reads all of U each step, which should stay in its core's
  // L2 (1 MiB on Zen 4, 2 MiB on recent Xeons; U of 256 units is 1 MiB).
  static constexpr int64_t kRowSplitMaxBytes = int64_t{1} << 20;

  // Run for rows [row_begin, row_end) of the batch, the products and
  // cells split through `parallel`.
  void RunRows(const ParallelForFn& parallel, int64_t steps, int64_t row_begin,
               int64_t row_end, const float* const* x, const float* h0,
               float* c, float* const* h_out, const bool* const* mask,
               const float* y0, float* const* y_out, bool y_carries) const;

  const Tensor kernel_;
  const Tensor recurrent_;
  const Tensor bias_;  // not initialized: no bias
  const int64_t features_;
  const int64_t units_;
  const GemmPackedRhs packed_kernel_;
  const GemmPackedRhs packed_recurrent_;
  // Whether batches of two or more rows split by rows (Run): on a CPU path
  // whose products' row bands are exact (GemmRowBandsExact; on the baseline
  // path a band's bits may differ from the whole batch's), U within
  // kRowSplitMaxBytes, and unless WEFT_LSTM_ROWS=0 at construction (for
  // A/B measurements).
  const bool split_rows_;
};

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_LSTM_RECURRENCE_H_
