// _FusedScalars on the CPU (ops/fused_scalar_ops.h): a loop's counters and
// conditions, integer and boolean scalar nodes, run as one kernel.
//
// Registers hold int64 values (bools as 0 and 1); a step computes in its
// operands' dtype, int32 results wrapped to 32 bits in two's complement, as
// the separate nodes' kernels compute them on the machines weft runs on.
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/fused_scalar_ops.h"

namespace weft {
namespace {

// a op b for integer operands of dtype `t`, wrapping as t does.
int64_t Arithmetic(ScalarOp op, DataType t, int64_t a, int64_t b) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  uint64_t r = 0;
  switch (op) {
    case ScalarOp::kAdd:
      r = ua + ub;
      break;
    case ScalarOp::kSub:
      r = ua - ub;
      break;
    case ScalarOp::kMul:
      r = ua * ub;
      break;
    case ScalarOp::kMaximum:
      return a > b ? a : b;
    default:  // kMinimum
      return a < b ? a : b;
  }
  return t == DT_INT32 ? static_cast<int64_t>(static_cast<int32_t>(r))
                       : static_cast<int64_t>(r);
}

int64_t Step(ScalarOp op, DataType t, int64_t a, int64_t b) {
  switch (op) {
    case ScalarOp::kLess:
      return a < b;
    case ScalarOp::kLessEqual:
      return a <= b;
    case ScalarOp::kGreater:
      return a > b;
    case ScalarOp::kGreaterEqual:
      return a >= b;
    case ScalarOp::kEqual:
      return a == b;
    case ScalarOp::kNotEqual:
      return a != b;
    case ScalarOp::kLogicalAnd:
      return a & b;
    case ScalarOp::kLogicalOr:
      return a | b;
    case ScalarOp::kLogicalNot:
      return !a;
    default:
      return Arithmetic(op, t, a, b);
  }
}

int64_t Read(const Tensor& t) {
  switch (t.dtype()) {
    case DT_INT32:
      return t.data<int32_t>()[0];
    case DT_INT64:
      return t.data<int64_t>()[0];
    default:
      return t.data<bool>()[0] ? 1 : 0;
  }
}

void Write(int64_t v, Tensor* t) {
  switch (t->dtype()) {
    case DT_INT32:
      t->data<int32_t>()[0] = static_cast<int32_t>(v);
      return;
    case DT_INT64:
      t->data<int64_t>()[0] = v;
      return;
    default:
      t->data<bool>()[0] = v != 0;
  }
}

class FusedScalarsOp : public OpKernel {
 public:
  explicit FusedScalarsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadScalarProgram(ctx->def().attr, &program_));
    for (int i = 0; i < program_.num_inputs(); ++i) inputs_.push_back(i);
  }

  void Compute(OpKernelContext* ctx) const override {
    const int num_inputs = program_.num_inputs();
    absl::InlinedVector<int64_t, 32> regs(program_.types.size());
    for (int i = 0; i < num_inputs; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(ctx, t.dims() == 0,
                  errors::InvalidArgument("input ", i, " has shape ",
                                          t.shape().DebugString(),
                                          "; every input is a scalar"));
      regs[i] = Read(t);
    }
    for (size_t s = 0; s < program_.steps.size(); ++s) {
      const ScalarStep& step = program_.steps[s];
      regs[num_inputs + s] = Step(step.op, program_.types[step.a], regs[step.a],
                                  step.b >= 0 ? regs[step.b] : 0);
    }
    // Every input is read above, so an output may take any input's buffer
    // that nothing else holds (the context checks dtype and references):
    // a loop's counters come back in the buffers they came in, which a
    // step that takes its variables hands over (Session::RunTakingFeeds).
    for (size_t o = 0; o < program_.results.size(); ++o) {
      Tensor* t = nullptr;
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              inputs_, static_cast<int>(o), TensorShape(), &t));
      Write(regs[program_.results[o]], t);
    }
  }

 private:
  ScalarProgram program_;
  std::vector<int> inputs_;  // 0 .. num_inputs - 1: all may be forwarded
};

REGISTER_KERNEL_BUILDER(Name("_FusedScalars").Device(DEVICE_CPU),
                        FusedScalarsOp);

}  // namespace
}  // namespace weft
