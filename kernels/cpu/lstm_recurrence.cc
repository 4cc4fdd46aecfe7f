#include "kernels/cpu/lstm_recurrence.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "kernels/cpu/sigmoid_float.h"
#include "kernels/cpu/tanh_float.h"

namespace weft {
namespace {

// WEFT_LSTM_ROWS=0 keeps batches on the step-by-step split (A/B runs).
bool RowSplitAllowed() {
  const char* v = std::getenv("WEFT_LSTM_ROWS");
  return v == nullptr || std::string_view(v) != "0";
}

}  // namespace

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
          GemmOperand<float>{recurrent_.data<float>(), 4 * units_, false}),
      split_rows_(GemmRowBandsExact() &&
                  units_ * 4 * units_ * int64_t{sizeof(float)} <=
                      kRowSplitMaxBytes &&
                  RowSplitAllowed()) {}

void LstmRecurrence::Run(const ParallelForFn& parallel, int64_t steps,
                         int64_t batch, const float* const* x, const float* h0,
                         float* c, float* const* h_out, const bool* const* mask,
                         const float* y0, float* const* y_out,
                         bool y_carries) const {
  if (steps <= 0 || batch <= 0) return;
  if (!split_rows_ || batch < 2) {
    RunRows(parallel, steps, 0, batch, x, h0, c, h_out, mask, y0, y_out,
            y_carries);
    return;
  }
  // Rows of the batch are independent sequences: each thread runs all the
  // steps of its rows, its own products and cells, and the threads meet
  // once a call instead of twice a step (bench/RESULTS.md section 58).
  // Units of whole row groups, fewer a thread than the spin team's
  // smallest shared block (device/cpu_spin_team.h), so that each thread
  // gets its rows in one call: a call a row would read U once a row and
  // step.
  const int64_t units = std::min(batch, kEqualShareUnits);
  const int64_t u = units_;
  const int64_t rows_per_unit = (batch + units - 1) / units;
  // Cycles a unit: the two products' FMAs (16 a cycle) and the cell.
  parallel(
      units, steps * rows_per_unit * ((features_ + u) * 4 * u / 16 + 40 * u),
      [&](int64_t first, int64_t last) {
        RunRows(SerialFor(), steps, first * batch / units, last * batch / units,
                x, h0, c, h_out, mask, y0, y_out, y_carries);
      });
}

void LstmRecurrence::RunRows(const ParallelForFn& parallel, int64_t steps,
                             int64_t row_begin, int64_t row_end,
                             const float* const* x, const float* h0, float* c,
                             float* const* h_out, const bool* const* mask,
                             const float* y0, float* const* y_out,
                             bool y_carries) const {
  const int64_t u = units_;
  const int64_t width = 4 * u;
  const int64_t rows = row_end - row_begin;
  // These rows' inputs of all the steps as one matrix, times W. (Buffers
  // left uninitialized: each is written whole before it is read.)
  std::unique_ptr<float[]> xs(new float[steps * rows * features_]);
  for (int64_t s = 0; s < steps; ++s) {
    std::copy_n(x[s] + row_begin * features_, rows * features_,
                xs.get() + s * rows * features_);
  }
  std::unique_ptr<float[]> xw(new float[steps * rows * width]);
  Gemm(parallel, steps * rows, GemmOperand<float>{xs.get(), features_, false},
       packed_kernel_, xw.get(), width);
  const float* b = bias_.IsInitialized() ? bias_.data<float>() : nullptr;
  std::unique_ptr<float[]> z(new float[rows * width]);
  // Row r of the batch is row r - row_begin of xw's steps and of z; the
  // other arrays are indexed by r itself.
  const float* h = h0;
  for (int64_t s = 0; s < steps; ++s) {
    // z = h U + x_t W: the epilogue adds the residual to the finished sum,
    // one rounding, as the body's Add does (its operands in either order).
    GemmEpilogue sum;
    sum.residual = xw.get() + s * rows * width;
    sum.residual_ld = width;
    Gemm(parallel, rows, GemmOperand<float>{h + row_begin * u, u, false},
         packed_recurrent_, z.get(), width, sum);
    float* h_next = h_out[s];
    const bool* step_mask = mask != nullptr ? mask[s] : nullptr;
    const float* y_prev =
        s == 0 || step_mask == nullptr || !y_carries ? y0 : y_out[s - 1];
    // The cell, row by row; about 40 cycles an element (four exps).
    parallel(rows, u * 40, [&](int64_t begin, int64_t end) {
      for (int64_t r = row_begin + begin; r < row_begin + end; ++r) {
        float* hr = h_next + r * u;
        if (step_mask != nullptr && !step_mask[r]) {
          // A masked row keeps h and y (and c, left as it was).
          std::copy_n(h + r * u, u, hr);
          std::copy_n(y_prev + r * u, u, y_out[s] + r * u);
          continue;
        }
        float* zr = z.get() + (r - row_begin) * width;
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
