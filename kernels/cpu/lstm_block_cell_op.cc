// LSTMBlockCell on the CPU, for half and float (TensorFlow's CPU dtypes):
// one step of TensorFlow's fused LSTM cell with gates in i, c, f, o order
// (TensorFlow's ICFO layout):
//
//   [i_, ci_, f_, o_] = [x, h_prev] * w + b
//   i  = sigmoid(i_ + cs_prev * wci)                  (peephole terms only
//   f  = sigmoid(f_ + forget_bias + cs_prev * wcf)     with use_peephole)
//   ci = tanh(ci_)
//   cs = clip(ci * i + cs_prev * f, cell_clip)         (when cell_clip > 0)
//   co = tanh(cs)
//   o  = sigmoid(o_ + cs * wco)
//   h  = co * o
//
// The product runs through weft's GEMM on the concatenation [x, h_prev]
// (float; half is widened to float first). TensorFlow evaluates the rest
// as Eigen expressions in T, each operation rounding to T, so for half
// every step here rounds to half where TensorFlow's does (the product once,
// then each addition, multiplication and activation), which keeps the two
// within an ulp or two of half. sigmoid is 1 / (1 + exp(-x)) and tanh the
// C library's; TensorFlow's float versions are Eigen's rational
// approximations, a few ulps away. The clip keeps NaN, as Eigen's does.
//
// Shape errors are TensorFlow's messages. TensorFlow reads the peephole
// weights without checking their length; weft requires [cell] when
// use_peephole is set instead of reading past them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/dtype_traits.h"
#include "core/tensor.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/gemm.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Rounds an intermediate result to T, as an Eigen expression in T does.
template <typename T>
inline float R(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return static_cast<float>(static_cast<T>(v));
  }
}

inline float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// `t` as floats (a copy for half, a view for float).
template <typename T>
const float* AsFloats(const Tensor& t, std::vector<float>* buf) {
  if constexpr (std::is_same_v<T, float>) {
    return t.data<float>();
  } else {
    const int64_t n = t.NumElements();
    buf->resize(static_cast<size_t>(n));
    const T* src = t.data<T>();
    for (int64_t i = 0; i < n; ++i) (*buf)[i] = static_cast<float>(src[i]);
    return buf->data();
  }
}

template <typename T>
class LstmBlockCellOp : public OpKernel {
 public:
  explicit LstmBlockCellOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("forget_bias", &forget_bias_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("cell_clip", &cell_clip_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_peephole", &use_peephole_));
  }

  void Compute(OpKernelContext* ctx) const override {
    static constexpr const char* kNames[] = {"x",   "cs_prev", "h_prev", "w",
                                             "wci", "wcf",     "wco",    "b"};
    static constexpr int kRanks[] = {2, 2, 2, 2, 1, 1, 1, 1};
    for (int k = 0; k < 8; ++k) {
      const Tensor& t = ctx->input(k);
      OP_REQUIRES(
          ctx, t.dims() == kRanks[k],
          errors::InvalidArgument(kNames[k], "_tensor must be rank ", kRanks[k],
                                  " but is rank ", t.dims(), "."));
    }
    const Tensor& x = ctx->input(0);
    const Tensor& cs_prev = ctx->input(1);
    const Tensor& h_prev = ctx->input(2);
    const Tensor& w = ctx->input(3);
    const Tensor& b = ctx->input(7);
    const int64_t batch = x.dim_size(0);
    const int64_t input_size = x.dim_size(1);
    const int64_t cell = cs_prev.dim_size(1);
    OP_REQUIRES(ctx, cs_prev.dim_size(0) == batch,
                errors::InvalidArgument("cs_prev.dims(0) != batch_size: ",
                                        cs_prev.dim_size(0), " vs. ", batch));
    OP_REQUIRES(ctx, h_prev.dim_size(0) == batch,
                errors::InvalidArgument("h_prev.dims(0) != batch_size: ",
                                        h_prev.dim_size(0), " vs. ", batch));
    OP_REQUIRES(ctx, h_prev.dim_size(1) == cell,
                errors::InvalidArgument("h_prev.dims(1) != cell_size: ",
                                        h_prev.dim_size(1), " vs. ", cell));
    OP_REQUIRES(ctx, w.dim_size(0) == input_size + cell,
                errors::InvalidArgument(
                    "w.dim_size(0) != input_size + cell_size: ", w.dim_size(0),
                    " vs. ", input_size + cell));
    OP_REQUIRES(ctx, w.dim_size(1) == cell * 4,
                errors::InvalidArgument("w.dim_size(1) != cell_size * 4: ",
                                        w.dim_size(1), " vs. ", cell * 4));
    OP_REQUIRES(ctx, b.dim_size(0) == cell * 4,
                errors::InvalidArgument("b.dim_size(0) != cell_size * 4: ",
                                        b.dim_size(0), " vs. ", cell * 4));
    OP_REQUIRES(ctx, batch > 0 && cell > 0,
                errors::InvalidArgument("cs_prev_tensor is empty, has shape: (",
                                        batch, ",", cell, ")."));
    if (use_peephole_) {
      for (int k = 4; k < 7; ++k) {
        OP_REQUIRES(
            ctx, ctx->input(k).dim_size(0) == cell,
            errors::InvalidArgument(kNames[k],
                                    ".dim_size(0) != "
                                    "cell_size: ",
                                    ctx->input(k).dim_size(0), " vs. ", cell));
      }
    }
    Tensor* out[7];
    for (int k = 0; k < 7; ++k) {
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(k, TensorShape({batch, cell}), &out[k]));
    }

    // xh = [x, h_prev], then gates = xh * w.
    const int64_t depth = input_size + cell;
    std::vector<float> bufs[8];
    const float* xf = AsFloats<T>(x, &bufs[0]);
    const float* hf = AsFloats<T>(h_prev, &bufs[2]);
    std::vector<float> xh(static_cast<size_t>(batch * depth));
    for (int64_t r = 0; r < batch; ++r) {
      std::copy_n(xf + r * input_size, input_size, xh.data() + r * depth);
      std::copy_n(hf + r * cell, cell, xh.data() + r * depth + input_size);
    }
    const float* wf = AsFloats<T>(w, &bufs[3]);
    std::vector<float> gates(static_cast<size_t>(batch * 4 * cell));
    Gemm<float>(ContextParallelFor(*ctx), batch, depth, 4 * cell,
                {xh.data(), depth, false}, {wf, 4 * cell, false}, gates.data(),
                4 * cell);

    const float* csp = AsFloats<T>(cs_prev, &bufs[1]);
    const float* wci = AsFloats<T>(ctx->input(4), &bufs[4]);
    const float* wcf = AsFloats<T>(ctx->input(5), &bufs[5]);
    const float* wco = AsFloats<T>(ctx->input(6), &bufs[6]);
    const float* bf = AsFloats<T>(b, &bufs[7]);
    T* i_out = out[0]->data<T>();
    T* cs_out = out[1]->data<T>();
    T* f_out = out[2]->data<T>();
    T* o_out = out[3]->data<T>();
    T* ci_out = out[4]->data<T>();
    T* co_out = out[5]->data<T>();
    T* h_out = out[6]->data<T>();
    const bool peephole = use_peephole_;
    const float fb = R<T>(forget_bias_);
    const float clip = R<T>(cell_clip_);
    const bool clipping = cell_clip_ > 0.0f;
    ctx->ParallelFor(batch, cell * 80, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float* g = gates.data() + r * 4 * cell;
        for (int64_t j = 0; j < cell; ++j) {
          const int64_t e = r * cell + j;
          const float c_prev = csp[e];
          // The product rounds to T, then the bias is added in T.
          const float gi = R<T>(R<T>(g[j]) + bf[j]);
          const float gc = R<T>(R<T>(g[cell + j]) + bf[cell + j]);
          const float gf = R<T>(R<T>(g[2 * cell + j]) + bf[2 * cell + j]);
          const float go = R<T>(R<T>(g[3 * cell + j]) + bf[3 * cell + j]);
          const float i =
              R<T>(Sigmoid(peephole ? R<T>(gi + R<T>(c_prev * wci[j])) : gi));
          const float ci = R<T>(std::tanh(gc));
          const float f_in = R<T>(gf + fb);
          const float f = R<T>(
              Sigmoid(peephole ? R<T>(f_in + R<T>(c_prev * wcf[j])) : f_in));
          float cs = R<T>(R<T>(i * ci) + R<T>(f * c_prev));
          if (clipping) cs = std::min(std::max(cs, -clip), clip);
          const float co = R<T>(std::tanh(cs));
          const float o =
              R<T>(Sigmoid(peephole ? R<T>(go + R<T>(cs * wco[j])) : go));
          i_out[e] = static_cast<T>(i);
          cs_out[e] = static_cast<T>(cs);
          f_out[e] = static_cast<T>(f);
          o_out[e] = static_cast<T>(o);
          ci_out[e] = static_cast<T>(ci);
          co_out[e] = static_cast<T>(co);
          h_out[e] = static_cast<T>(R<T>(o * co));
        }
      }
    });
  }

 private:
  float forget_bias_ = 1.0f;
  float cell_clip_ = 3.0f;
  bool use_peephole_ = false;
};

REGISTER_KERNEL_BUILDER(
    Name("LSTMBlockCell").Device(DEVICE_CPU).TypeConstraint("T", {DT_HALF}),
    LstmBlockCellOp<half>);
REGISTER_KERNEL_BUILDER(
    Name("LSTMBlockCell").Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT}),
    LstmBlockCellOp<float>);

}  // namespace
}  // namespace weft
