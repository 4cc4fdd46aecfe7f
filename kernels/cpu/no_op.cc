// NoOp on the CPU: nothing to compute. Graphs use it to group control
// dependencies (Keras ends a frozen model with one).
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) const override {}
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("NoOp").Device(DEVICE_CPU), NoOp);

}  // namespace
}  // namespace weft
