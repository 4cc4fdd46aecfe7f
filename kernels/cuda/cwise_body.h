// The per-element math of the element-wise CUDA kernels (cwise_ops_gpu.cu),
// also compiled for the host so that tests/kernels/cuda_cwise_body_test.cc
// can compare it with the CPU kernels. Values are loaded as float and the
// result is rounded once to T, as the CPU kernels do for half; where the
// CPU kernel rounds an intermediate result to T (half arithmetic in
// SquaredDifference, FloorDiv, FloorMod), RoundTo<T> does the same here.
//
// T is float, or a 16-bit float type constructible from float with
// round-to-nearest-even and convertible to float: __half on the device,
// Eigen::half in the host tests.
#ifndef WEFT_KERNELS_CUDA_CWISE_BODY_H_
#define WEFT_KERNELS_CUDA_CWISE_BODY_H_

#include <cmath>

#include "kernels/cuda/host_device.h"

namespace weft::gpu {

enum class UnaryOp : int {
  kNeg,
  kAbs,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kTanh,
  kSigmoid,
  kRelu,
  kRelu6,
  kElu,
  kSquare,
  kReciprocal,
  kErf,
  kErfc,
  kSin,
  kCos,
  kFloor,
  kCeil,
  kRound,
  kSoftplus,
  kSelu,
  kLeakyRelu,
};

enum class BinaryOp : int {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin,
  kSquaredDifference,
  kPow,
  kFloorDiv,
  kFloorMod,
};

// Constants of the ops that have them, already rounded to T on the host as
// the CPU kernels round them (kernels/cuda/plan/cwise_plan.h makes them).
struct UnaryParams {
  float alpha = 0;  // LeakyRelu
  // Selu: x < 0 ? neg_scale * (exp(x) - 1) : scale * x.
  float scale = 1;
  float neg_scale = 1;
  // Softplus: x if x > -threshold, exp(x) if x < threshold, else
  // log1p(exp(x)) (threshold < 0).
  float threshold = 0;
};

// v rounded to T and back.
template <typename T>
WEFT_HOST_DEVICE float RoundTo(float v) {
  return static_cast<float>(static_cast<T>(v));
}
template <>
WEFT_HOST_DEVICE float RoundTo<float>(float v) {
  return v;
}

template <typename T>
WEFT_HOST_DEVICE float ApplyUnary(UnaryOp op, float x, const UnaryParams& p) {
  switch (op) {
    case UnaryOp::kNeg:
      return -x;
    case UnaryOp::kAbs:
      return fabsf(x);
    case UnaryOp::kExp:
      return expf(x);
    case UnaryOp::kLog:
      return logf(x);
    case UnaryOp::kSqrt:
      return sqrtf(x);
    case UnaryOp::kRsqrt:
      return 1.0f / sqrtf(x);
    case UnaryOp::kTanh:
      return tanhf(x);
    case UnaryOp::kSigmoid:
      return 1.0f / (1.0f + expf(-x));
    // fmaxf returns 0 for a NaN x, as the CPU's max(x, 0) does.
    case UnaryOp::kRelu:
      return fmaxf(x, 0.0f);
    case UnaryOp::kRelu6:
      return fminf(fmaxf(x, 0.0f), 6.0f);
    case UnaryOp::kElu:
      return x > 0.0f ? x : expm1f(x);
    case UnaryOp::kSquare:
      return x * x;
    case UnaryOp::kReciprocal:
      return 1.0f / x;
    case UnaryOp::kErf:
      return erff(x);
    case UnaryOp::kErfc:
      return erfcf(x);
    case UnaryOp::kSin:
      return sinf(x);
    case UnaryOp::kCos:
      return cosf(x);
    case UnaryOp::kFloor:
      return floorf(x);
    case UnaryOp::kCeil:
      return ceilf(x);
    // Half to even (TensorFlow's Round): rintf in the default rounding
    // mode, which CUDA always uses.
    case UnaryOp::kRound:
      return rintf(x);
    case UnaryOp::kSoftplus: {
      if (x > -p.threshold) return x;
      const float e = expf(x);
      return x < p.threshold ? e : log1pf(e);
    }
    // exp(x) - 1 rather than expm1, as the CPU kernel (TensorFlow's
    // values); a NaN x takes the x >= 0 side, as there.
    case UnaryOp::kSelu:
      return x < 0.0f ? p.neg_scale * (expf(x) - 1.0f) : p.scale * x;
    case UnaryOp::kLeakyRelu:
      return x > 0.0f ? x : x * p.alpha;
  }
  return x;
}

template <typename T>
WEFT_HOST_DEVICE float ApplyBinary(BinaryOp op, float x, float y) {
  switch (op) {
    case BinaryOp::kAdd:
      return x + y;
    case BinaryOp::kSub:
      return x - y;
    case BinaryOp::kMul:
      return x * y;
    case BinaryOp::kDiv:
      return x / y;
    case BinaryOp::kMax:
      return fmaxf(x, y);
    case BinaryOp::kMin:
      return fminf(x, y);
    case BinaryOp::kSquaredDifference: {
      const float d = RoundTo<T>(x - y);
      return d * d;
    }
    case BinaryOp::kPow:
      return powf(x, y);
    // floor of the quotient rounded to T, as the CPU kernel.
    case BinaryOp::kFloorDiv:
      return floorf(RoundTo<T>(x / y));
    // Python's modulo, with the sign of y. fmodf is exact; adding y rounds
    // once, in T on the CPU as here.
    case BinaryOp::kFloorMod: {
      const float r = fmodf(x, y);
      return r != 0.0f && ((y < 0.0f) != (r < 0.0f)) ? RoundTo<T>(r + y) : r;
    }
  }
  return x;
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_CWISE_BODY_H_
