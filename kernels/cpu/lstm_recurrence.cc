#include "kernels/cpu/lstm_recurrence.h"

#include <algorithm>
#include <memory>

#include "kernels/cpu/sigmoid_float.h"
#include "kernels/cpu/tanh_float.h"

namespace weft {

LstmRecurrence::LstmRecurrence(const Tensor& kernel, const Tensor& recurrent,
                               const Tensor* bias)
    : kernel_(kernel),
      recurrent_(recurrent),
      bias_(bias != nullptr ? *bias : Tensor()),
      features_(kernel.dim_size(0)),
      units_(recurrent.dim_size(0)),
      packed_kernel_(
          features_, 4 * units_,
          GemmOperand<float>{kernel_.data<float>(), 4 * units_, false}),
      packed_recurrent_(
          units_, 4 * units_,
          GemmOperand<float>{recurrent_.data<float>(), 4 * units_, false}) {}

void LstmRecurrence::Run(const ParallelForFn& parallel, int64_t steps,
                         int64_t batch, const float* const* x, const float* h0,
                         float* c, float* const* h_out, const bool* const* mask,
                         const float* y0, float* const* y_out,
                         bool y_carries) const {
  if (steps <= 0 || batch <= 0) return;
  const int64_t u = units_;
  const int64_t width = 4 * u;
  const int64_t rows = steps * batch;
  // The inputs of all the steps as one matrix, times W. (Buffers left
  // uninitialized: each is written whole before it is read.)
  std::unique_ptr<float[]> xs(new float[rows * features_]);
  for (int64_t s = 0; s < steps; ++s) {
    std::copy_n(x[s], batch * features_, xs.get() + s * batch * features_);
  }
  std::unique_ptr<float[]> xw(new float[rows * width]);
  Gemm(parallel, rows, GemmOperand<float>{xs.get(), features_, false},
       packed_kernel_, xw.get(), width);

  const float* b = bias_.IsInitialized() ? bias_.data<float>() : nullptr;
  std::unique_ptr<float[]> z(new float[batch * width]);
  const float* h = h0;
  for (int64_t s = 0; s < steps; ++s) {
    // z = h U + x_t W: the epilogue adds the residual to the finished sum,
    // one rounding, as the body's Add does (its operands in either order).
    GemmEpilogue sum;
    sum.residual = xw.get() + s * batch * width;
    sum.residual_ld = width;
    Gemm(parallel, batch, GemmOperand<float>{h, u, false}, packed_recurrent_,
         z.get(), width, sum);
    float* h_next = h_out[s];
    const bool* step_mask = mask != nullptr ? mask[s] : nullptr;
    const float* y_prev =
        s == 0 || step_mask == nullptr || !y_carries ? y0 : y_out[s - 1];
    // The cell, row by row; about 40 cycles an element (four exps).
    parallel(batch, u * 40, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float* hr = h_next + r * u;
        if (step_mask != nullptr && !step_mask[r]) {
          // A masked row keeps h and y (and c, left as it was).
          std::copy_n(h + r * u, u, hr);
          std::copy_n(y_prev + r * u, u, y_out[s] + r * u);
          continue;
        }
        float* zr = z.get() + r * width;
        if (b != nullptr) {
          for (int64_t j = 0; j < width; ++j) zr[j] += b[j];
        }
        float* gate_i = zr;
        float* gate_f = zr + u;
        float* gate_g = zr + 2 * u;
        float* gate_o = zr + 3 * u;
        SigmoidFloat(gate_i, gate_i, 2 * u);  // i and f, side by side
        TanhFloat(gate_g, gate_g, u);
        SigmoidFloat(gate_o, gate_o, u);
        float* cr = c + r * u;
        for (int64_t j = 0; j < u; ++j) {
          const float kept = gate_f[j] * cr[j];
          const float added = gate_i[j] * gate_g[j];
          cr[j] = kept + added;
        }
        TanhFloat(cr, hr, u);
        for (int64_t j = 0; j < u; ++j) hr[j] = gate_o[j] * hr[j];
        if (step_mask != nullptr) std::copy_n(hr, u, y_out[s] + r * u);
      }
    });
    h = h_next;
  }
}

}  // namespace weft
