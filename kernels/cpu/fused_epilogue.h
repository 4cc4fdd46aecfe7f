// What the fused CPU kernels (_FusedConv2D, _FusedMatMul,
// _FusedDepthwiseConv2dNative) share: reading the epilogue (a per-channel
// bias and an activation, gemm.h's GemmEpilogue) from a fused node's attrs,
// and applying it to channels-last rows that a kernel computed itself (the
// depthwise convolution; products apply it inside Gemm).
#ifndef WEFT_KERNELS_CPU_FUSED_EPILOGUE_H_
#define WEFT_KERNELS_CPU_FUSED_EPILOGUE_H_

#include <cstdint>

#include "absl/strings/string_view.h"

#include "core/status.h"
#include "kernels/cpu/gemm.h"
#include "kernels/op_kernel.h"

namespace weft {

// Reads `fused_ops` (an optional "BiasAdd", then an optional "Add" when
// has_residual is not null, then an optional "Relu", "Relu6", "Elu",
// "LeakyRelu", "Swish" or "HardSwish"), `num_args` (one per BiasAdd and Add:
// the bias, then the residual), `leakyrelu_alpha` and, for "Swish",
// `swish_beta` into `epilogue` (its bias and residual stay null: the kernel
// points them at its inputs per run), *has_bias and *has_residual. Errors say
// what is unsupported. With a `prefix`, the attrs are prefix + "fused_ops",
// "num_" + prefix + "args", prefix + "leakyrelu_alpha" and prefix +
// "swish_beta" (_FusedSeparableConv2D's "depthwise_" epilogue).
Status ReadFusedOps(OpKernelConstruction* ctx, GemmEpilogue* epilogue,
                    bool* has_bias, bool* has_residual = nullptr,
                    absl::string_view prefix = "");

// Points epilogue->residual at a fused kernel's residual input (the last of
// the args that start at input `first_arg`: first_arg + 1 after a bias,
// else first_arg), rows `ld` floats apart, once it
// is checked to have the output's shape: the optimizer fuses an AddV2 only
// between tensors of one inferred shape, so another shape here is a graph
// whose shapes changed under it (or, for _FusedMatMul, whose unknown batch
// dimensions differ, which it broadcasts instead of calling this). The error
// names both shapes.
Status SetResidual(const OpKernelContext& ctx, bool has_bias,
                   const TensorShape& output, int64_t ld,
                   GemmEpilogue* epilogue, int first_arg = 2);

// rows x channels values at `data` (row r at data + r * ld) get
// epilogue.bias added, then row r of epilogue.residual (at residual + r *
// residual_ld), and the activation applied, in place, computed as the
// standalone BiasAdd, AddV2 and activation kernels compute them:
//   Relu       x < 0 ? 0 : x               (NaN and -0 pass through)
//   Relu6      x < 0 ? 0 : (x > 6 ? 6 : x) (NaN passes through)
//   Elu        x < 0 ? exp(x) - 1 : x      (Eigen's vectorized exp)
//   LeakyRelu  x > 0 ? x : x * alpha       (NaN gives NaN)
//   Swish      x * sigmoid(beta * x)       (SwishFloat: the _Swish op's)
//   HardSwish  x * (relu6(x + 3) / 6)      (Relu6 as above)
void ApplyEpilogueRows(const GemmEpilogue& epilogue, float* data, int64_t rows,
                       int64_t channels, int64_t ld);

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_FUSED_EPILOGUE_H_
