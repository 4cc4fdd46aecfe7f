// OpRegistry: the process-wide table of op interfaces, filled by REGISTER_OP
// at static-initialization time and by plugins at run time.
//
//   REGISTER_OP("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("T: {half, bfloat16, float, double, int32, int64}")
//       .SetShapeFn(shape_inference::MatMulShape);
//
// REGISTER_OP goes at namespace scope in a .cc file. It records __FILE__ and
// __LINE__ as the op's source, relative to weft's source root when the file
// lies under it ("ops/math_ops.cc:42"). Static initializers cannot return
// errors and must not abort a host process that embeds weft, so a failed
// static registration is kept in OpRegistry::StaticRegistrationStatus() for a
// session or the CLI to report.
//
// Selective registration: REGISTER_OP(name) only registers when
// WEFT_SHOULD_REGISTER_OP(name) is true. By default that is always true. A
// build that defines WEFT_SELECTIVE_REGISTRATION (the CMake option of that
// name does) must put a header "ops_to_register.h" on the include path that
// defines, at global scope,
//
//   constexpr bool ShouldRegisterOp(const char* name);
//   constexpr bool ShouldRegisterOpKernel(const char* kernel_class);
//
// `weft ops --used-by GRAPH... --header` writes one from the graphs an
// application ships. The filter is a template argument, so a filtered-out
// op's builder calls compile to nothing and its shape function can be
// dropped by the linker. What remains of a filtered-out op is its name,
// recorded at static-initialization time, so that a graph that needs it is
// told "op 'Cos' is left out of this selective build" rather than "unknown
// op". A translation unit may also define WEFT_SHOULD_REGISTER_OP(name)
// itself before including this header.
#ifndef WEFT_OPS_OP_REGISTRY_H_
#define WEFT_OPS_OP_REGISTRY_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "core/mutex.h"
#include "core/status.h"
#include "ops/op_def.h"
#include "ops/op_def_builder.h"

namespace weft {

class OpRegistry {
 public:
  // An empty registry. Code registers into and reads from Global(); separate
  // instances serve tests and tools that need an isolated table.
  OpRegistry() = default;
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  // Process-wide, created on first use, never destroyed (static destructors
  // of other objects may still look ops up).
  static OpRegistry* Global();

  // Finalizes `builder` and adds it with `source` ("ops/math_ops.cc:42", a
  // plugin path). Errors: the builder's error; a duplicate op name names
  // both sources: "op 'Foo' registered twice: at ops/a.cc:10 and at
  // libfoo.so".
  Status Register(const OpDefBuilder& builder, absl::string_view source);
  // Adds an already built op; `data.source` is set by the caller. The OpDef
  // is trusted to be well formed (it comes from OpDefBuilder or the plugin
  // ABI, which builds through OpDefBuilder).
  Status Register(OpRegistrationData data);

  // What REGISTER_OP calls: like Register, but a failure is recorded for
  // StaticRegistrationStatus() instead of returned.
  void RegisterStatic(const OpDefBuilder& builder, absl::string_view source);

  // NotFound: "unknown op 'MatMull'; did you mean 'MatMul'?", suggesting the
  // registered names closest by case-insensitive edit distance (no hint when
  // none is close). The pointer stays valid for the registry's lifetime.
  StatusOr<const OpRegistrationData*> LookUp(absl::string_view op_name) const;

  // Every registered op, sorted by name; the pointers stay valid for the
  // registry's lifetime.
  std::vector<const OpRegistrationData*> ListOps() const;

  // Selective builds: REGISTER_OP of an op the build's ops_to_register.h
  // does not list records the name here instead of registering, so that
  // LookUp can say the op is left out of this build (NotFound, "op 'Cos' is
  // left out of this selective build ..."). An op registered later under
  // that name (by an op library) is found as usual.
  void RecordLeftOut(absl::string_view op_name);
  // The names recorded, sorted; empty in a full build.
  std::vector<std::string> LeftOutOps() const;

  // OK when every RegisterStatic call succeeded; otherwise all the failures,
  // one per line, with the code of the first.
  Status StaticRegistrationStatus() const;

 private:
  Status AddLocked(std::unique_ptr<OpRegistrationData> data)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable Mutex mu_;
  // unique_ptr keeps entries at fixed addresses as the map grows.
  std::map<std::string, std::unique_ptr<const OpRegistrationData>, std::less<>>
      ops_ ABSL_GUARDED_BY(mu_);
  std::vector<Status> static_errors_ ABSL_GUARDED_BY(mu_);
  std::set<std::string, std::less<>> left_out_ ABSL_GUARDED_BY(mu_);
};

// Machinery behind REGISTER_OP; not for direct use.
namespace register_op {

template <bool kShouldRegister>
class OpDefBuilderWrapper;

// Collects the chained calls and the source location.
template <>
class OpDefBuilderWrapper<true> {
 public:
  OpDefBuilderWrapper(const char* name, const char* file, int line);
  OpDefBuilderWrapper& Input(std::string spec) {
    builder_.Input(std::move(spec));
    return *this;
  }
  OpDefBuilderWrapper& Output(std::string spec) {
    builder_.Output(std::move(spec));
    return *this;
  }
  OpDefBuilderWrapper& Attr(std::string spec) {
    builder_.Attr(std::move(spec));
    return *this;
  }
  OpDefBuilderWrapper& SetIsCommutative() {
    builder_.SetIsCommutative();
    return *this;
  }
  OpDefBuilderWrapper& SetIsAggregate() {
    builder_.SetIsAggregate();
    return *this;
  }
  OpDefBuilderWrapper& SetIsStateful() {
    builder_.SetIsStateful();
    return *this;
  }
  OpDefBuilderWrapper& SetAllowsUninitializedInput() {
    builder_.SetAllowsUninitializedInput();
    return *this;
  }
  OpDefBuilderWrapper& SetShapeFn(ShapeInferenceFn fn) {
    builder_.SetShapeFn(std::move(fn));
    return *this;
  }
  OpDefBuilderWrapper& Doc(std::string text) {
    builder_.Doc(std::move(text));
    return *this;
  }
  const OpDefBuilder& builder() const { return builder_; }
  const std::string& source() const { return source_; }

 private:
  OpDefBuilder builder_;
  std::string source_;
};

// A filtered-out op: every call is a no-op; only the name is kept.
template <>
class OpDefBuilderWrapper<false> {
 public:
  constexpr OpDefBuilderWrapper(const char* name, const char*, int)
      : name_(name) {}
  OpDefBuilderWrapper& Input(absl::string_view) { return *this; }
  OpDefBuilderWrapper& Output(absl::string_view) { return *this; }
  OpDefBuilderWrapper& Attr(absl::string_view) { return *this; }
  OpDefBuilderWrapper& SetIsCommutative() { return *this; }
  OpDefBuilderWrapper& SetIsAggregate() { return *this; }
  OpDefBuilderWrapper& SetIsStateful() { return *this; }
  OpDefBuilderWrapper& SetAllowsUninitializedInput() { return *this; }
  template <typename Fn>
  OpDefBuilderWrapper& SetShapeFn(Fn&&) {
    return *this;
  }
  OpDefBuilderWrapper& Doc(absl::string_view) { return *this; }
  constexpr const char* name() const { return name_; }

 private:
  const char* name_;
};

// Its constructor performs the registration into OpRegistry::Global(), or
// for a filtered-out op records the name as left out.
class OpDefBuilderReceiver {
 public:
  OpDefBuilderReceiver(const OpDefBuilderWrapper<true>& wrapper);   // NOLINT
  OpDefBuilderReceiver(const OpDefBuilderWrapper<false>& wrapper);  // NOLINT
};

}  // namespace register_op
}  // namespace weft

#ifndef WEFT_SHOULD_REGISTER_OP
#ifdef WEFT_SELECTIVE_REGISTRATION
#include "ops_to_register.h"
#define WEFT_SHOULD_REGISTER_OP(name) (::ShouldRegisterOp(name))
#else
#define WEFT_SHOULD_REGISTER_OP(name) true
#endif
#endif

#define REGISTER_OP(name) WEFT_REGISTER_OP_UNIQ_HELPER_(__COUNTER__, name)
#define WEFT_REGISTER_OP_UNIQ_HELPER_(ctr, name) \
  WEFT_REGISTER_OP_UNIQ_(ctr, name)
#define WEFT_REGISTER_OP_UNIQ_(ctr, name)                                   \
  [[maybe_unused]] static ::weft::register_op::OpDefBuilderReceiver         \
      weft_register_op_##ctr =                                              \
          ::weft::register_op::OpDefBuilderWrapper<WEFT_SHOULD_REGISTER_OP( \
              name)>(name, __FILE__, __LINE__)

#endif  // WEFT_OPS_OP_REGISTRY_H_
