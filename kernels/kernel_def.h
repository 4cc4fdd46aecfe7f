// KernelDef: what one kernel registration claims to implement: an op on a
// device type, for the attr values its type constraints allow, optionally
// only for nodes that ask for a label, at a priority. KernelDefBuilder is the
// chained form REGISTER_KERNEL_BUILDER reads:
//
//   REGISTER_KERNEL_BUILDER(
//       Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//       MatMulOp<float>);
//
// Builder calls never fail on the spot; a mistake (a constraint given twice,
// no device) is kept and reported by Build(), so static registration can
// record it instead of aborting the host process.
#ifndef WEFT_KERNELS_KERNEL_DEF_H_
#define WEFT_KERNELS_KERNEL_DEF_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/dtype_traits.h"
#include "core/status.h"
#include "core/types.h"

namespace weft {

struct KernelDef {
  // The kernel only serves nodes whose attr `name` (a "type" attr, or every
  // element of a "list(type)" attr) is one of `allowed_types`.
  struct AttrConstraint {
    std::string name;
    std::vector<DataType> allowed_types;  // ascending enum order, no repeats
  };

  std::string op;
  std::string device_type;                  // DEVICE_CPU, DEVICE_CUDA, ...
  std::vector<AttrConstraint> constraints;  // by attr name, one per attr
  // Input or output arg names whose tensors stay in host memory even though
  // the device computes in its own memory (shape or axis arguments that a
  // GPU kernel reads on the host).
  std::vector<std::string> host_memory_args;
  // Empty: serves nodes without a "_kernel" attr. Otherwise serves only
  // nodes whose "_kernel" attr equals it.
  std::string label;
  // Among kernels that all match a node, the highest priority wins.
  int32_t priority = 0;

  const AttrConstraint* FindConstraint(absl::string_view attr) const;
  bool IsHostMemoryArg(absl::string_view arg) const;
};

// Whether the two describe the same kernel slot: op, device, constraints,
// label and priority all equal (host-memory args aside).
bool SameKernelSlot(const KernelDef& a, const KernelDef& b);

// The device and what the kernel accepts, as lookup errors and `weft ops`
// print it: "CPU{T in [float, double]}", "CUDA{T in [float], label 'fast',
// priority 1}", or just "CPU" when nothing is constrained.
std::string SummarizeKernelDef(const KernelDef& def);

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(absl::string_view op);

  KernelDefBuilder& Device(absl::string_view device_type);
  template <typename T>
  KernelDefBuilder& TypeConstraint(absl::string_view attr) {
    return TypeConstraint(attr, DataTypeToEnum<T>::value);
  }
  KernelDefBuilder& TypeConstraint(absl::string_view attr, DataType type);
  // Any of `types`; repeats are fine.
  KernelDefBuilder& TypeConstraint(absl::string_view attr,
                                   std::vector<DataType> types);
  KernelDefBuilder& HostMemory(absl::string_view arg);
  KernelDefBuilder& Priority(int32_t priority);
  KernelDefBuilder& Label(absl::string_view label);

  // The finished def, or the first mistake, as InvalidArgument naming the op
  // ("kernel for op 'MatMul': TypeConstraint on attr 'T' given twice").
  StatusOr<KernelDef> Build() const;

 private:
  void Fail(std::string message);

  KernelDef def_;
  bool device_set_ = false;
  bool label_set_ = false;
  std::string error_;  // the first mistake; empty when none
};

// What REGISTER_KERNEL_BUILDER's first argument is written against:
// Name("MatMul") reads as in TensorFlow.
namespace register_kernel {
class Name : public KernelDefBuilder {
 public:
  explicit Name(absl::string_view op) : KernelDefBuilder(op) {}
};
}  // namespace register_kernel

}  // namespace weft

#endif  // WEFT_KERNELS_KERNEL_DEF_H_
