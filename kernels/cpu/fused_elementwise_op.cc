// _FusedElementwise on the CPU (ops/fused_elementwise_ops.h): a group of
// element-wise float nodes run as one kernel.
//
// The common case, every input of the result's shape, a single element of
// no higher rank, or a row of the result's last axis (what the optimizer fuses:
// an RNN cell's gates and states, a scalar constant), runs the program a block
// of elements at a time: each step over 256 elements into a stack buffer that
// stays in L1 (or straight into its output), so a run allocates its outputs and
// nothing else, and a large tensor is read once rather than once per node.
// Any other combination of shapes, which only unknown dimensions at
// optimization time allow, runs step by step on whole tensors with NumPy
// broadcasting, as the nodes would.
//
// An input may be read as a slice of its last axis (the `slices` attr: the
// columns a Split or StridedSlice took, or the part of a bias an add before
// the split added to them): its rows are then read in place, `width`
// floats at `offset` within each row of the whole tensor, and a blocked run
// keeps each block within one row. A one-dimensional input as long as the
// result's last axis (a bias, or a part of one) is read again for each row.
//
// Every step calls the float loop of its op's own kernel (binary_float.h,
// sigmoid_float.h, tanh_float.h, exp_float.h; Neg and Square are exact), an
// element's value does not depend on where a block or a thread's range
// starts, so the outputs equal the separate nodes' bit for bit on every CPU
// path and at every thread count, NaN payloads aside: where both operands
// of a step are NaN, the result is NaN, but which operand's sign and payload
// it keeps depends on whether the element falls in a loop's vectors or its
// scalar tail, so on where its block starts.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/common/broadcast.h"
#include "kernels/common/copy_util.h"
#include "kernels/cpu/binary_float.h"
#include "kernels/cpu/exp_float.h"
#include "kernels/cpu/sigmoid_float.h"
#include "kernels/cpu/tanh_float.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/fused_elementwise_ops.h"

namespace weft {
namespace {

// Elements per block: with kMaxBlockedSteps buffers, 32 KiB of stack.
constexpr int64_t kBlock = 256;
// Programs with more steps run step by step (the optimizer makes none).
constexpr int kMaxBlockedSteps = 32;

BinaryFloatOp BinaryOf(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::kSub:
      return BinaryFloatOp::kSub;
    case ElementwiseOp::kMul:
      return BinaryFloatOp::kMul;
    case ElementwiseOp::kDiv:
      return BinaryFloatOp::kDiv;
    default:
      return BinaryFloatOp::kAdd;
  }
}

// out[i] = op(in[i]) for i < n; `out` may be `in`.
void RunUnary(ElementwiseOp op, const float* in, float* out, int64_t n) {
  switch (op) {
    case ElementwiseOp::kSigmoid:
      return SigmoidFloat(in, out, n);
    case ElementwiseOp::kTanh:
      return TanhFloat(in, out, n);
    case ElementwiseOp::kExp:
      return ExpFloat(in, out, n);
    case ElementwiseOp::kNeg:
      for (int64_t i = 0; i < n; ++i) out[i] = -in[i];
      return;
    case ElementwiseOp::kSquare:
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] * in[i];
      return;
    default:
      return;
  }
}

// ParallelFor's cost per element of a step, in cycles, as the vector paths
// run them: an LSTM cell's 15 steps took about 9 cycles per element on
// AVX-512 (Zen 4), Sigmoid and Tanh about 2 each. Counting 20 for each (the
// scalar cost) put a batch-1 cell of 128 units over ParallelFor's threshold,
// and two threads then split 2 us of work into two halves that cost more
// to hand out and join than they saved, in every loop iteration.
int64_t StepCost(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::kSigmoid:
    case ElementwiseOp::kTanh:
    case ElementwiseOp::kExp:
      return 4;
    case ElementwiseOp::kDiv:
      return 2;
    default:
      return 1;
  }
}

class FusedElementwiseOp : public OpKernel {
 public:
  explicit FusedElementwiseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadElementwiseProgram(ctx->def().attr, &program_));
    const int num_steps = static_cast<int>(program_.steps.size());
    output_of_step_.assign(num_steps, -1);
    for (size_t o = 0; o < program_.results.size(); ++o) {
      output_of_step_[program_.results[o] - program_.num_inputs] =
          static_cast<int>(o);
    }
    last_read_.assign(program_.num_inputs, -1);
    for (int s = 0; s < num_steps; ++s) {
      const ElementwiseStep& step = program_.steps[s];
      cost_ += StepCost(step.op);
      if (step.a < program_.num_inputs) last_read_[step.a] = s;
      if (step.b >= 0 && step.b < program_.num_inputs) last_read_[step.b] = s;
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const int num_inputs = program_.num_inputs;
    // Each input's elements as the steps read it (its slice, if any).
    absl::InlinedVector<int64_t, 16> elements(num_inputs);
    int64_t most = 0;
    for (int i = 0; i < num_inputs; ++i) {
      const TensorShape& in = ctx->input(i).shape();
      const int64_t width = program_.slices[2 * i + 1];
      if (width < 0) {
        elements[i] = in.num_elements();
      } else {
        OP_REQUIRES_OK(ctx, CheckSlice(in, i));
        const int64_t last = in.dim_size(in.dims() - 1);
        elements[i] = last > 0 ? in.num_elements() / last * width : 0;
      }
      most = std::max(most, elements[i]);
    }
    // The result's shape: that of the input with the most elements, a
    // whole one if there is one (a slice's must be built).
    const TensorShape* result = nullptr;
    TensorShape built;
    for (int i = 0; i < num_inputs && result == nullptr; ++i) {
      if (elements[i] == most && program_.slices[2 * i + 1] < 0) {
        result = &ctx->input(i).shape();
      }
    }
    for (int i = 0; i < num_inputs && result == nullptr; ++i) {
      if (elements[i] == most) {
        OP_REQUIRES_OK(ctx, SlicedShape(ctx->input(i).shape(), i, &built));
        result = &built;
      }
    }
    const TensorShape& shape = *result;
    const int64_t row = shape.dims() > 0 ? shape.dim_size(shape.dims() - 1) : 1;
    absl::InlinedVector<Reading, 16> reading(num_inputs);
    bool blocked = static_cast<int>(program_.steps.size()) <= kMaxBlockedSteps;
    bool by_rows = false;  // some input is read a row at a time
    for (int i = 0; i < num_inputs && blocked; ++i) {
      const Tensor& t = ctx->input(i);
      const TensorShape& in = t.shape();
      Reading& r = reading[i];
      r.data = t.data<float>();
      const int64_t width = program_.slices[2 * i + 1];
      // Its rank and last dimension as read.
      const int rank = in.dims();
      const int64_t last = width >= 0 ? width
                           : rank > 0 ? in.dim_size(rank - 1)
                                      : 1;
      if (width >= 0) {
        r.data += program_.slices[2 * i];
        r.stride = in.dim_size(rank - 1);
      }
      bool same = rank == shape.dims() && elements[i] == most;
      for (int d = 0; d + 1 < rank && same; ++d) {
        same = in.dim_size(d) == shape.dim_size(d);
      }
      if (same && (rank == 0 || last == row)) {
        r.how = width >= 0 ? Reading::kRows : Reading::kWhole;
      } else if (elements[i] == 1 && rank <= shape.dims()) {
        r.how = Reading::kSingle;
      } else if (rank == 1 && shape.dims() > 1 && last == row) {
        r.how = Reading::kRows;  // every row reads it again
        r.stride = 0;
      } else {
        blocked = false;
      }
      by_rows = by_rows || r.how == Reading::kRows;
    }
    // A step on broadcast operands alone would have a smaller shape.
    auto broadcast = [&](int reg) {
      return reg < 0 ||
             (reg < num_inputs && (reading[reg].how == Reading::kSingle ||
                                   (reading[reg].how == Reading::kRows &&
                                    reading[reg].stride == 0)));
    };
    for (size_t s = 0; s < program_.steps.size() && blocked; ++s) {
      const ElementwiseStep& step = program_.steps[s];
      blocked = !(broadcast(step.a) && broadcast(step.b));
    }
    if (!blocked) return RunStepByStep(ctx);

    absl::InlinedVector<float*, 4> out(program_.results.size(), nullptr);
    absl::InlinedVector<char, 16> forwarded(num_inputs, 0);
    for (size_t o = 0; o < program_.results.size(); ++o) {
      const int step = program_.results[o] - num_inputs;
      Tensor* t = nullptr;
      // A whole input no later step reads may hold the output: a block's
      // step reads its operands before writing, and earlier steps are done.
      for (int i = 0; i < num_inputs && t == nullptr; ++i) {
        if (reading[i].how != Reading::kWhole || forwarded[i] ||
            last_read_[i] > step) {
          continue;
        }
        if (ctx->forward_input_to_output_with_shape(i, static_cast<int>(o),
                                                    shape, &t)) {
          forwarded[i] = 1;
        }
      }
      if (t == nullptr) {
        OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(static_cast<int>(o), shape, &t));
      }
      out[o] = t->data<float>();
    }
    // Two pointers of capture: std::function keeps them inline, so the
    // call allocates nothing.
    const Operands operands{reading.data(), out.data(), by_rows ? row : 0};
    ctx->ParallelFor(shape.num_elements(), cost_,
                     [this, &operands](int64_t begin, int64_t end) {
                       RunBlocks(operands, begin, end);
                     });
  }

 private:
  // How the blocked run reads an input.
  struct Reading {
    enum How : uint8_t {
      kWhole,   // element e at data[e]
      kSingle,  // every element is data[0]
      kRows,    // element e at data[(e / row) * stride + e % row]
    };
    const float* data = nullptr;
    int64_t stride = 0;
    How how = kWhole;
  };
  struct Operands {
    const Reading* in;
    float* const* out;
    int64_t row;  // > 0: blocks stay within rows of this many elements
  };

  // Whether input `i`'s slice lies inside its last axis.
  Status CheckSlice(const TensorShape& in, int i) const {
    const int64_t offset = program_.slices[2 * i];
    const int64_t width = program_.slices[2 * i + 1];
    if (in.dims() == 0 || offset + width > in.dim_size(in.dims() - 1)) {
      return errors::InvalidArgument(
          "input ", i, " of shape ", in.DebugString(), " has no columns [",
          offset, ", ", offset + width, ") on its last axis to read");
    }
    return Status();
  }

  // Input `i`'s shape as the steps read it: with a slice (checked), its
  // last axis is the slice's width.
  Status SlicedShape(const TensorShape& in, int i, TensorShape* out) const {
    const int64_t width = program_.slices[2 * i + 1];
    if (width < 0) {
      *out = in;
      return Status();
    }
    TensorShape::Dims dims(in.dim_sizes().begin(), in.dim_sizes().end());
    dims.back() = width;
    WEFT_ASSIGN_OR_RETURN(*out, TensorShape::Build(dims));
    return Status();
  }

  // The program over elements [begin, end) of the result.
  void RunBlocks(const Operands& ops, int64_t begin, int64_t end) const {
    alignas(64) float scratch[kMaxBlockedSteps][kBlock];
    const int num_inputs = program_.num_inputs;
    const int num_steps = static_cast<int>(program_.steps.size());
    float* values[kMaxBlockedSteps];
    for (int64_t b = begin; b < end;) {
      int64_t len = std::min(kBlock, end - b);
      if (ops.row > 0) len = std::min(len, ops.row - b % ops.row);
      // Where register r's elements of this block are, and their stride.
      auto operand = [&](int r, int64_t* stride) -> const float* {
        *stride = 1;
        if (r >= num_inputs) return values[r - num_inputs];
        const Reading& in = ops.in[r];
        switch (in.how) {
          case Reading::kSingle:
            *stride = 0;
            return in.data;
          case Reading::kRows:
            return in.data + (b / ops.row) * in.stride + b % ops.row;
          default:
            return in.data + b;
        }
      };
      for (int s = 0; s < num_steps; ++s) {
        const ElementwiseStep& step = program_.steps[s];
        const int o = output_of_step_[s];
        float* dst = o >= 0 ? ops.out[o] + b : scratch[s];
        values[s] = dst;
        int64_t sa = 1, sb = 1;
        const float* a = operand(step.a, &sa);
        if (step.b < 0) {
          RunUnary(step.op, a, dst, len);
        } else {
          const float* bp = operand(step.b, &sb);
          BinaryFloat(BinaryOf(step.op), a, sa, bp, sb, dst, len);
        }
      }
      b += len;
    }
  }

  // Each step on whole tensors with NumPy broadcasting: operands that are
  // neither complete nor a single element are expanded first.
  void RunStepByStep(OpKernelContext* ctx) const {
    const int num_inputs = program_.num_inputs;
    std::vector<Tensor> values;
    for (int i = 0; i < num_inputs; ++i) {
      const Tensor& in = ctx->input(i);
      if (program_.slices[2 * i + 1] < 0) {
        values.push_back(in);
        continue;
      }
      // A slice is copied out: rows of its width from rows of the input's.
      TensorShape sliced;
      OP_REQUIRES_OK(ctx, SlicedShape(in.shape(), i, &sliced));
      Tensor t;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, sliced, &t));
      const int64_t width = program_.slices[2 * i + 1];
      const int64_t in_row = in.dim_size(in.dims() - 1);
      const float* src = in.data<float>() + program_.slices[2 * i];
      float* dst = t.data<float>();
      for (int64_t r = 0; width > 0 && r < t.NumElements() / width; ++r) {
        std::copy(src + r * in_row, src + r * in_row + width, dst + r * width);
      }
      values.push_back(std::move(t));
    }
    for (size_t s = 0; s < program_.steps.size(); ++s) {
      const ElementwiseStep& step = program_.steps[s];
      const Tensor& a = values[step.a];
      TensorShape shape = a.shape();
      BinaryBroadcast bcast;
      if (step.b >= 0) {
        Status st = bcast.Init(a.shape(), values[step.b].shape());
        OP_REQUIRES(ctx, st.ok(),
                    errors::InvalidArgument("step ", s, " (",
                                            ElementwiseOpName(step.op),
                                            "): ", st.message()));
        shape = bcast.output_shape();
      }
      Tensor result;
      const int o = output_of_step_[s];
      if (o >= 0) {
        Tensor* t = nullptr;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(o, shape, &t));
        result = *t;
      } else {
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, shape, &result));
      }
      const int64_t n = shape.num_elements();
      if (n > 0 && step.b < 0) {
        RunUnary(step.op, a.data<float>(), result.data<float>(), n);
      } else if (n > 0) {
        int64_t sa = 1, sb = 1;
        Tensor ea, eb;
        const float* pa = nullptr;
        const float* pb = nullptr;
        OP_REQUIRES_OK(
            ctx, Operand(ctx, a, bcast.x_complete(), bcast.x_is_scalar(), bcast,
                         bcast.x_strides(), &ea, &pa, &sa));
        OP_REQUIRES_OK(ctx, Operand(ctx, values[step.b], bcast.y_complete(),
                                    bcast.y_is_scalar(), bcast,
                                    bcast.y_strides(), &eb, &pb, &sb));
        BinaryFloat(BinaryOf(step.op), pa, sa, pb, sb, result.data<float>(), n);
      }
      values.push_back(std::move(result));
    }
  }

  // A binary step's operand `t` as a pointer and stride over the step's
  // elements: itself when complete, its element repeated when single, else
  // expanded into `expanded`.
  static Status Operand(OpKernelContext* ctx, const Tensor& t, bool complete,
                        bool scalar, const BinaryBroadcast& bcast,
                        absl::Span<const int64_t> strides, Tensor* expanded,
                        const float** data, int64_t* stride) {
    *stride = complete || !scalar ? 1 : 0;
    *data = t.data<float>();
    if (complete || scalar) return Status();
    WEFT_RETURN_IF_ERROR(
        ctx->allocate_temp(DT_FLOAT, bcast.output_shape(), expanded));
    copy_util::StridedGather(*ctx, DT_FLOAT, t.data<float>(), 0,
                             bcast.reduced_dims(), strides,
                             expanded->data<float>());
    *data = expanded->data<float>();
    return Status();
  }

  ElementwiseProgram program_;
  std::vector<int> output_of_step_;  // per step: its output, or -1
  std::vector<int> last_read_;       // per input: the last step reading it
  int64_t cost_ = 0;                 // ParallelFor's cost per element
};

REGISTER_KERNEL_BUILDER(
    Name("_FusedElementwise").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedElementwiseOp);

}  // namespace
}  // namespace weft
