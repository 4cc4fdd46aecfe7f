#include "kernels/cpu/fused_epilogue.h"

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/sigmoid_float.h"

namespace weft {
namespace {

using Act = GemmEpilogue::Activation;

// The bias, the residual, then the activation, over one row. Written as
// plain loops over selects so that the compiler vectorizes them (compare
// and blend) and NaN passes through the comparisons as the standalone
// kernels let it.
template <Act kAct>
void Row(const float* bias, const float* residual, float alpha, float beta,
         float* x, int64_t n) {
  if (bias != nullptr) {
    for (int64_t i = 0; i < n; ++i) x[i] += bias[i];
  }
  if (residual != nullptr) {
    for (int64_t i = 0; i < n; ++i) x[i] += residual[i];
  }
  if constexpr (kAct == Act::kRelu) {
    for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? 0.0f : x[i];
  } else if constexpr (kAct == Act::kRelu6) {
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i];
      x[i] = v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v);
    }
  } else if constexpr (kAct == Act::kLeakyRelu) {
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i];
      x[i] = v > 0.0f ? v : v * alpha;
    }
  } else if constexpr (kAct == Act::kElu) {
    // Eigen's vectorized exp, as the Elu kernel (cwise_unary_ops_activation)
    // computes it.
    Eigen::Map<Eigen::ArrayXf> v(x, n);
    v = (v < 0.0f).select(v.exp() - 1.0f, v);
  } else if constexpr (kAct == Act::kSwish) {
    SwishFloat(x, x, n, beta);
  } else if constexpr (kAct == Act::kHardSwish) {
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i];
      const float t = v + 3.0f;
      x[i] = v * ((t < 0.0f ? 0.0f : (t > 6.0f ? 6.0f : t)) / 6.0f);
    }
  }
}

template <Act kAct>
void Rows(const GemmEpilogue& e, float* data, int64_t rows, int64_t channels,
          int64_t ld) {
  for (int64_t r = 0; r < rows; ++r) {
    Row<kAct>(e.bias,
              e.residual != nullptr ? e.residual + r * e.residual_ld : nullptr,
              e.alpha, e.beta, data + r * ld, channels);
  }
}

}  // namespace

Status ReadFusedOps(OpKernelConstruction* ctx, GemmEpilogue* epilogue,
                    bool* has_bias, bool* has_residual,
                    absl::string_view prefix) {
  *epilogue = GemmEpilogue();
  Act* activation = &epilogue->activation;
  float* alpha = &epilogue->alpha;
  std::vector<std::string> ops;
  const std::string ops_attr = absl::StrCat(prefix, "fused_ops");
  const std::string num_attr = absl::StrCat("num_", prefix, "args");
  WEFT_RETURN_IF_ERROR(ctx->GetAttr(ops_attr, &ops));
  int64_t num_args = 0;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr(num_attr, &num_args));
  WEFT_RETURN_IF_ERROR(
      ctx->GetAttr(absl::StrCat(prefix, "leakyrelu_alpha"), alpha));
  *has_bias = false;
  *activation = Act::kNone;
  size_t i = 0;
  if (i < ops.size() && ops[i] == "BiasAdd") {
    *has_bias = true;
    ++i;
  }
  bool residual = false;
  if (i < ops.size() && ops[i] == "Add" && has_residual != nullptr) {
    residual = true;
    ++i;
  }
  if (has_residual != nullptr) *has_residual = residual;
  if (i < ops.size()) {
    const std::string& a = ops[i];
    if (a == "Relu") {
      *activation = Act::kRelu;
    } else if (a == "Relu6") {
      *activation = Act::kRelu6;
    } else if (a == "Elu") {
      *activation = Act::kElu;
    } else if (a == "LeakyRelu") {
      *activation = Act::kLeakyRelu;
    } else if (a == "HardSwish") {
      *activation = Act::kHardSwish;
    } else if (a == "Swish") {
      *activation = Act::kSwish;
      WEFT_RETURN_IF_ERROR(
          ctx->GetAttr(absl::StrCat(prefix, "swish_beta"), &epilogue->beta));
    } else {
      i = ops.size() + 1;  // unsupported: reported below
    }
    ++i;
  }
  if (i != ops.size()) {
    return errors::Unimplemented(
        ops_attr, " [", absl::StrJoin(ops, ", "),
        "] is not supported; expected an optional BiasAdd",
        has_residual != nullptr ? ", an optional Add" : "",
        " and an optional Relu, Relu6, Elu, LeakyRelu, Swish or HardSwish");
  }
  const int64_t args = (*has_bias ? 1 : 0) + (residual ? 1 : 0);
  if (num_args != args) {
    return errors::InvalidArgument(num_attr, " is ", num_args, " but ",
                                   ops_attr, " [", absl::StrJoin(ops, ", "),
                                   "] needs ", args);
  }
  return Status();
}

Status SetResidual(const OpKernelContext& ctx, bool has_bias,
                   const TensorShape& output, int64_t ld,
                   GemmEpilogue* epilogue, int first_arg) {
  const int index = first_arg + (has_bias ? 1 : 0);
  const Tensor& residual = ctx.input(index);
  if (residual.shape() != output) {
    return errors::InvalidArgument("residual (input ", index, ") has shape ",
                                   residual.shape().DebugString(),
                                   " but must be the output's shape ",
                                   output.DebugString());
  }
  epilogue->residual = residual.data<float>();
  epilogue->residual_ld = ld;
  return Status();
}

void ApplyEpilogueRows(const GemmEpilogue& e, float* data, int64_t rows,
                       int64_t channels, int64_t ld) {
  if ((e.bias == nullptr && e.residual == nullptr &&
       e.activation == Act::kNone) ||
      rows <= 0 || channels <= 0) {
    return;
  }
  switch (e.activation) {
    case Act::kNone:
      return Rows<Act::kNone>(e, data, rows, channels, ld);
    case Act::kRelu:
      return Rows<Act::kRelu>(e, data, rows, channels, ld);
    case Act::kRelu6:
      return Rows<Act::kRelu6>(e, data, rows, channels, ld);
    case Act::kElu:
      return Rows<Act::kElu>(e, data, rows, channels, ld);
    case Act::kLeakyRelu:
      return Rows<Act::kLeakyRelu>(e, data, rows, channels, ld);
    case Act::kSwish:
      return Rows<Act::kSwish>(e, data, rows, channels, ld);
    case Act::kHardSwish:
      return Rows<Act::kHardSwish>(e, data, rows, channels, ld);
  }
}

}  // namespace weft
