// KernelRegistry: the process-wide table of kernels, filled by
// REGISTER_KERNEL_BUILDER at static-initialization time and by plugins at
// run time, and the lookup that picks a node's kernel for a device:
//
//   REGISTER_KERNEL_BUILDER(
//       Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//       MatMulOp<float>);
//
// REGISTER_KERNEL_BUILDER goes at namespace scope in a .cc file (inside
// namespace weft, or anywhere DEVICE_CPU and the kernel class are visible).
// Like REGISTER_OP it must not abort the host process: a failed static
// registration is kept in StaticRegistrationStatus().
//
// Selective registration: a kernel class is only registered when
// WEFT_SHOULD_REGISTER_OP_KERNEL("ClassName<float>") is true, by default
// always. The string is the class as the registration spells it after macro
// expansion (KernelRegistration::kernel_class_name, which `weft ops
// --used-by GRAPH... --header` reads). A build defining
// WEFT_SELECTIVE_REGISTRATION provides, in the "ops_to_register.h" that
// ops/op_registry.h reads,
//
//   constexpr bool ShouldRegisterOpKernel(const char* kernel_class);
//
// The filter is a template argument, so a filtered-out kernel class is never
// instantiated and costs no code; only its KernelDef is recorded, so that a
// node that needs it is told the kernel is left out of this selective build.
#ifndef WEFT_KERNELS_KERNEL_REGISTRY_H_
#define WEFT_KERNELS_KERNEL_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "core/mutex.h"
#include "core/registration.h"
#include "core/status.h"
#include "device/device.h"
#include "kernels/kernel_def.h"
#include "kernels/op_kernel.h"
#include "ops/node_def.h"
#include "ops/op_def.h"
#include "ops/op_def_util.h"

namespace weft {

// Makes one kernel instance for one node. Errors go to the construction's
// SetStatus; a factory may still return the object (the registry drops it).
using KernelFactory =
    std::function<std::unique_ptr<OpKernel>(OpKernelConstruction*)>;

struct KernelRegistration {
  KernelDef def;
  KernelFactory factory;
  // Where it was registered ("kernels/matmul_op.cc:42", a plugin's path).
  std::string source;
  // "MatMulOp<float>" for `weft ops`; may be empty.
  std::string kernel_class_name;
};

// The attr on a node that selects a labelled kernel.
inline constexpr char kKernelLabelAttr[] = "_kernel";

class KernelRegistry {
 public:
  // An empty registry. In-tree code uses Global(); separate instances serve
  // tests and tools that need an isolated table.
  KernelRegistry() = default;
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  // Process-wide, created on first use, never destroyed.
  static KernelRegistry* Global();

  // Adds a kernel. Thread-safe. Errors: an empty op or device or a null
  // factory; a kernel identical in op, device, constraints, label and
  // priority to one already registered (it could never be chosen), naming
  // both sources: "kernel CPU{T in [float]} for op 'Foo' registered twice:
  // at kernels/a.cc:10 and at libfoo.so".
  Status Register(KernelDef def, KernelFactory factory, std::string source,
                  std::string kernel_class_name = "");

  // What REGISTER_KERNEL_BUILDER calls: a builder error or a Register error
  // is recorded for StaticRegistrationStatus(), prefixed with `source`.
  void RegisterStatic(const StatusOr<KernelDef>& def, KernelFactory factory,
                      std::string source, std::string kernel_class_name);

  // OK when every RegisterStatic call succeeded; otherwise all the failures,
  // one per line, with the code of the first.
  Status StaticRegistrationStatus() const;

  // The kernel for `node` (validated: attr defaults filled) on
  // `device_type`: among the op's kernels for that device whose type
  // constraints all hold for the node's attr values (every element, for a
  // list(type) attr) and whose label equals the node's "_kernel" attr (none
  // for none), the one with the highest priority.
  //  - NotFound when none matches: "no kernel for op 'Erf' on device CUDA
  //    with T=int32; registered: CPU{T in [float, double]}, CUDA{T in
  //    [float, half]}" ("registered: none" when the op has no kernels).
  //  - InvalidArgument when two match at the same priority, naming both
  //    sources; or when a kernel constrains an attr the op lacks or that is
  //    not a type, naming the kernel's source.
  // The pointer stays valid for the registry's lifetime.
  StatusOr<const KernelRegistration*> FindKernel(
      const NodeDef& node, const OpDef& op_def,
      absl::string_view device_type) const;

  // FindKernel for `device`'s type, then constructs the kernel. Every error
  // names the node ("node 'x' (Erf): no kernel for op 'Erf' ...",
  // construction errors from the kernel's constructor).
  StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const NodeDef& node,
                                                   const OpDef& op_def,
                                                   const NodeTypes& types,
                                                   Device* device) const;

  // The op's kernels, sorted by device type, unlabelled before labelled,
  // higher priority first, then by constraints, then by source.
  std::vector<const KernelDef*> KernelsForOp(absl::string_view op) const;
  std::vector<const KernelRegistration*> RegistrationsForOp(
      absl::string_view op) const;

  // The op's kernels as the miss message lists them: per device type,
  // registrations differing in one constraint are merged ("CPU{T in [float,
  // double]}"); "none" when there are none.
  std::string SummarizeKernelsForOp(absl::string_view op) const;

  // Selective builds: REGISTER_KERNEL_BUILDER of a kernel class the build's
  // ops_to_register.h does not list records its def here instead of
  // registering (a builder error is dropped: the kernel would not run
  // anyway). FindKernel's NotFound then names the left-out kernel that would
  // have matched.
  void RecordLeftOut(const StatusOr<KernelDef>& def,
                     std::string kernel_class_name);

 private:
  std::vector<const KernelRegistration*> SortedLocked(
      absl::string_view op) const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  mutable Mutex mu_;
  // unique_ptr keeps registrations at fixed addresses as vectors grow.
  std::map<std::string, std::vector<std::unique_ptr<const KernelRegistration>>,
           std::less<>>
      kernels_ ABSL_GUARDED_BY(mu_);
  std::vector<Status> static_errors_ ABSL_GUARDED_BY(mu_);
  // Selective builds: the kernels left out, by op (factories are empty).
  std::map<std::string, std::vector<KernelRegistration>, std::less<>> left_out_
      ABSL_GUARDED_BY(mu_);
};

// Machinery behind REGISTER_KERNEL_BUILDER; not for direct use.
namespace kernel_registration {

template <bool kShouldRegister, typename Kernel>
class KernelRegistrar;

template <typename Kernel>
class KernelRegistrar<true, Kernel> {
 public:
  KernelRegistrar(const KernelDefBuilder& builder, const char* class_name,
                  const char* file, int line) {
    KernelRegistry::Global()->RegisterStatic(
        builder.Build(),
        [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
          return std::make_unique<Kernel>(ctx);
        },
        SourceLocation(file, line), class_name);
  }
};

// Records a filtered-out kernel's def; out of line, so that every left-out
// registration shares one copy of the code.
void RecordLeftOut(const KernelDefBuilder& builder, const char* class_name);

// A filtered-out kernel: Kernel is never instantiated.
template <typename Kernel>
class KernelRegistrar<false, Kernel> {
 public:
  KernelRegistrar(const KernelDefBuilder& builder, const char* class_name,
                  const char*, int) {
    RecordLeftOut(builder, class_name);
  }
};

}  // namespace kernel_registration
}  // namespace weft

#ifndef WEFT_SHOULD_REGISTER_OP_KERNEL
#ifdef WEFT_SELECTIVE_REGISTRATION
#include "ops_to_register.h"
#define WEFT_SHOULD_REGISTER_OP_KERNEL(clz) (::ShouldRegisterOpKernel(clz))
#else
#define WEFT_SHOULD_REGISTER_OP_KERNEL(clz) true
#endif
#endif

// REGISTER_KERNEL_BUILDER(Name("Op").Device(...)..., KernelClass<...>);
#define REGISTER_KERNEL_BUILDER(kernel_builder, ...) \
  WEFT_REGISTER_KERNEL_UNIQ_HELPER_(__COUNTER__, kernel_builder, __VA_ARGS__)
#define WEFT_REGISTER_KERNEL_UNIQ_HELPER_(ctr, kernel_builder, ...) \
  WEFT_REGISTER_KERNEL_UNIQ_(ctr, kernel_builder, __VA_ARGS__)
#define WEFT_REGISTER_KERNEL_UNIQ_(ctr, kernel_builder, ...)               \
  [[maybe_unused]] static ::weft::kernel_registration::KernelRegistrar<    \
      WEFT_SHOULD_REGISTER_OP_KERNEL(#__VA_ARGS__), __VA_ARGS__>           \
      weft_kernel_registrar_##ctr(::weft::register_kernel::kernel_builder, \
                                  #__VA_ARGS__, __FILE__, __LINE__)

#endif  // WEFT_KERNELS_KERNEL_REGISTRY_H_
