#include "kernels/kernel_registry.h"

#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using register_kernel::Name;

// Ops are written out by hand so these tests do not depend on the op
// registry.
OpDef::ArgDef Arg(const std::string& name, const std::string& type_attr) {
  OpDef::ArgDef a;
  a.name = name;
  a.type_attr = type_attr;
  return a;
}

OpDef::AttrDef Attr(const std::string& name, const std::string& type) {
  OpDef::AttrDef a;
  a.name = name;
  a.type = type;
  return a;
}

// name(x: T) -> (y: T), T: type
OpDef UnaryOp(const std::string& name) {
  OpDef op;
  op.name = name;
  op.input_arg.push_back(Arg("x", "T"));
  op.output_arg.push_back(Arg("y", "T"));
  op.attr.push_back(Attr("T", "type"));
  return op;
}

NodeDef Node(const std::string& name, const std::string& op, AttrMap attrs) {
  NodeDef node;
  node.name = name;
  node.op = op;
  node.attr = std::move(attrs);
  return node;
}

NodeTypes UnaryTypes(DataType t) {
  NodeTypes types;
  types.input_types = {t};
  types.output_types = {t};
  types.input_ranges = {{0, 1}};
  types.output_ranges = {{0, 1}};
  return types;
}

class NoopKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) const override {}
};

KernelFactory NoopFactory() {
  return [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
    return std::make_unique<NoopKernel>(ctx);
  };
}

// Registers a builder's def with a noop factory; `source` identifies it.
Status Add(KernelRegistry* registry, const KernelDefBuilder& builder,
           const std::string& source) {
  StatusOr<KernelDef> def = builder.Build();
  if (!def.ok()) return def.status();
  return registry->Register(*std::move(def), NoopFactory(), source);
}

// The source of the kernel FindKernel picks, or the error message.
std::string Pick(const KernelRegistry& registry, const NodeDef& node,
                 const OpDef& op, absl::string_view device) {
  StatusOr<const KernelRegistration*> reg =
      registry.FindKernel(node, op, device);
  if (!reg.ok()) return std::string(reg.status().message());
  return (*reg)->source;
}

TEST(KernelRegistryTest, FindsTheKernelForDeviceAndType) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                  "cpu_float")
                  .ok());
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                  "cpu_double")
                  .ok());
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CUDA).TypeConstraint<float>("T"),
                  "cuda_float")
                  .ok());
  const OpDef erf = UnaryOp("Erf");
  EXPECT_EQ(Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}}),
                 erf, DEVICE_CPU),
            "cpu_float");
  EXPECT_EQ(
      Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_DOUBLE)}}), erf,
           DEVICE_CPU),
      "cpu_double");
  EXPECT_EQ(Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}}),
                 erf, DEVICE_CUDA),
            "cuda_float");
}

TEST(KernelRegistryTest, MissListsEveryKernelOfTheOp) {
  KernelRegistry registry;
  // Registered one type at a time, in scrambled order: the message merges
  // what can be merged exactly and sorts.
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CUDA).TypeConstraint<half>("T"),
                  "a")
                  .ok());
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                  "b")
                  .ok());
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CUDA).TypeConstraint<float>("T"),
                  "c")
                  .ok());
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                  "d")
                  .ok());
  StatusOr<const KernelRegistration*> reg =
      registry.FindKernel(Node("e", "Erf", {{"T", AttrValue::Type(DT_INT32)}}),
                          UnaryOp("Erf"), DEVICE_CUDA);
  ASSERT_FALSE(reg.ok());
  EXPECT_EQ(reg.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(reg.status().message(),
            "no kernel for op 'Erf' on device CUDA with T=int32; registered: "
            "CPU{T in [float, double]}, CUDA{T in [float, half]}");
  EXPECT_EQ(registry.SummarizeKernelsForOp("Erf"),
            "CPU{T in [float, double]}, CUDA{T in [float, half]}");
}

TEST(KernelRegistryTest, MissWithNoKernelsSaysNone) {
  KernelRegistry registry;
  StatusOr<const KernelRegistration*> reg =
      registry.FindKernel(Node("e", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}}),
                          UnaryOp("Erf"), DEVICE_CPU);
  ASSERT_FALSE(reg.ok());
  EXPECT_EQ(reg.status().message(),
            "no kernel for op 'Erf' on device CPU with T=float; registered: "
            "none");
  EXPECT_EQ(registry.SummarizeKernelsForOp("Erf"), "none");
  EXPECT_TRUE(registry.KernelsForOp("Erf").empty());
}

TEST(KernelRegistryTest, MissForOpWithoutTypeAttrs) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry, Name("NoOp").Device(DEVICE_CPU), "noop").ok());
  OpDef noop;
  noop.name = "NoOp";
  EXPECT_EQ(Pick(registry, Node("n", "NoOp", {}), noop, DEVICE_CPU), "noop");
  EXPECT_EQ(Pick(registry, Node("n", "NoOp", {}), noop, DEVICE_CUDA),
            "no kernel for op 'NoOp' on device CUDA; registered: CPU");
}

TEST(KernelRegistryTest, MergesOnlyWhatIsExact) {
  KernelRegistry registry;
  // Cast-like kernels: (float -> int32), (double -> int32) merge on SrcT;
  // (half -> int64) differs in both attrs and stays apart.
  OpDef cast;
  cast.name = "Cast";
  cast.input_arg.push_back(Arg("x", "SrcT"));
  cast.output_arg.push_back(Arg("y", "DstT"));
  cast.attr.push_back(Attr("SrcT", "type"));
  cast.attr.push_back(Attr("DstT", "type"));
  auto add = [&](DataType src, DataType dst, const std::string& source) {
    ASSERT_TRUE(Add(&registry,
                    Name("Cast")
                        .Device(DEVICE_CPU)
                        .TypeConstraint("SrcT", src)
                        .TypeConstraint("DstT", dst),
                    source)
                    .ok());
  };
  add(DT_FLOAT, DT_INT32, "1");
  add(DT_HALF, DT_INT64, "2");
  add(DT_DOUBLE, DT_INT32, "3");
  EXPECT_EQ(Pick(registry,
                 Node("c", "Cast",
                      {{"SrcT", AttrValue::Type(DT_DOUBLE)},
                       {"DstT", AttrValue::Type(DT_INT64)}}),
                 cast, DEVICE_CPU),
            "no kernel for op 'Cast' on device CPU with SrcT=double, "
            "DstT=int64; registered: CPU{DstT in [int32], SrcT in [float, "
            "double]}, CPU{DstT in [int64], SrcT in [half]}");
  EXPECT_EQ(Pick(registry,
                 Node("c", "Cast",
                      {{"SrcT", AttrValue::Type(DT_DOUBLE)},
                       {"DstT", AttrValue::Type(DT_INT32)}}),
                 cast, DEVICE_CPU),
            "3");
}

TEST(KernelRegistryTest, HigherPriorityWinsWhateverTheOrder) {
  for (bool high_first : {false, true}) {
    KernelRegistry registry;
    auto low = Name("Erf")
                   .Device(DEVICE_CPU)
                   .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE});
    auto high =
        Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(1);
    if (high_first) {
      ASSERT_TRUE(Add(&registry, high, "high").ok());
      ASSERT_TRUE(Add(&registry, low, "low").ok());
    } else {
      ASSERT_TRUE(Add(&registry, low, "low").ok());
      ASSERT_TRUE(Add(&registry, high, "high").ok());
    }
    const OpDef erf = UnaryOp("Erf");
    EXPECT_EQ(
        Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}}),
             erf, DEVICE_CPU),
        "high");
    // Only the low-priority kernel takes double.
    EXPECT_EQ(
        Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_DOUBLE)}}),
             erf, DEVICE_CPU),
        "low");
  }
}

TEST(KernelRegistryTest, NegativePriorityLosesToDefault) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry,
                  Name("Erf")
                      .Device(DEVICE_CPU)
                      .TypeConstraint<float>("T")
                      .Priority(-5),
                  "fallback")
                  .ok());
  ASSERT_TRUE(Add(&registry,
                  Name("Erf")
                      .Device(DEVICE_CPU)
                      .TypeConstraint("T", {DT_FLOAT, DT_HALF}),
                  "main")
                  .ok());
  EXPECT_EQ(Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}}),
                 UnaryOp("Erf"), DEVICE_CPU),
            "main");
}

TEST(KernelRegistryTest, OverlappingKernelsAtEqualPriorityAreAnError) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry,
                  Name("Erf")
                      .Device(DEVICE_CPU)
                      .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
                  "kernels/erf_a.cc:10")
                  .ok());
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                  "kernels/erf_b.cc:20")
                  .ok());
  StatusOr<const KernelRegistration*> reg =
      registry.FindKernel(Node("e", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}}),
                          UnaryOp("Erf"), DEVICE_CPU);
  ASSERT_FALSE(reg.ok());
  EXPECT_EQ(reg.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(reg.status().message(),
            "two kernels for op 'Erf' on device CPU match with T=float at "
            "equal priority 0: CPU{T in [float, double]} at "
            "kernels/erf_a.cc:10 and CPU{T in [float]} at kernels/erf_b.cc:20; "
            "give one of them a higher Priority()");
  // Where they do not overlap, there is no ambiguity.
  EXPECT_EQ(
      Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_DOUBLE)}}),
           UnaryOp("Erf"), DEVICE_CPU),
      "kernels/erf_a.cc:10");
}

TEST(KernelRegistryTest, IdenticalRegistrationIsRejected) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                  "kernels/a.cc:1")
                  .ok());
  Status s =
      Add(&registry, Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T"),
          "libplugin.so");
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(),
            "kernel CPU{T in [float]} for op 'Erf' registered twice: at "
            "kernels/a.cc:1 and at libplugin.so");
  EXPECT_EQ(registry.KernelsForOp("Erf").size(), 1u);
}

TEST(KernelRegistryTest, LabelsSelectKernels) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                  "plain")
                  .ok());
  ASSERT_TRUE(Add(&registry,
                  Name("Erf")
                      .Device(DEVICE_CPU)
                      .TypeConstraint<float>("T")
                      .Label("fast"),
                  "fast")
                  .ok());
  const OpDef erf = UnaryOp("Erf");
  // No label: only unlabelled kernels.
  EXPECT_EQ(Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}}),
                 erf, DEVICE_CPU),
            "plain");
  EXPECT_EQ(Pick(registry,
                 Node("e", "Erf",
                      {{"T", AttrValue::Type(DT_FLOAT)},
                       {"_kernel", AttrValue::String("fast")}}),
                 erf, DEVICE_CPU),
            "fast");
  EXPECT_EQ(Pick(registry,
                 Node("e", "Erf",
                      {{"T", AttrValue::Type(DT_FLOAT)},
                       {"_kernel", AttrValue::String("slow")}}),
                 erf, DEVICE_CPU),
            "no kernel for op 'Erf' on device CPU with T=float and label "
            "'slow'; registered: CPU{T in [float]}, CPU{T in [float], label "
            "'fast'}");
}

TEST(KernelRegistryTest, LabelOnlyKernelDoesNotServeUnlabelledNodes) {
  KernelRegistry registry;
  ASSERT_TRUE(
      Add(&registry, Name("NoOp").Device(DEVICE_CPU).Label("x"), "x").ok());
  OpDef noop;
  noop.name = "NoOp";
  EXPECT_EQ(Pick(registry, Node("n", "NoOp", {}), noop, DEVICE_CPU),
            "no kernel for op 'NoOp' on device CPU; registered: "
            "CPU{label 'x'}");
  EXPECT_EQ(
      Pick(registry, Node("n", "NoOp", {{"_kernel", AttrValue::String("x")}}),
           noop, DEVICE_CPU),
      "x");
}

TEST(KernelRegistryTest, NonStringLabelIsAnError) {
  KernelRegistry registry;
  StatusOr<const KernelRegistration*> reg = registry.FindKernel(
      Node("e", "Erf",
           {{"T", AttrValue::Type(DT_FLOAT)}, {"_kernel", AttrValue::Int(3)}}),
      UnaryOp("Erf"), DEVICE_CPU);
  ASSERT_FALSE(reg.ok());
  EXPECT_EQ(reg.status().message(),
            "node 'e' (Erf): attr '_kernel' selects a kernel label and must "
            "be a string, got int");
}

TEST(KernelRegistryTest, MultiTypeConstraint) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry,
                  Name("Erf")
                      .Device(DEVICE_CUDA)
                      .TypeConstraint("T", {DT_FLOAT, DT_HALF, DT_BFLOAT16}),
                  "cuda")
                  .ok());
  const OpDef erf = UnaryOp("Erf");
  for (DataType t : {DT_FLOAT, DT_HALF, DT_BFLOAT16}) {
    EXPECT_EQ(Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(t)}}), erf,
                   DEVICE_CUDA),
              "cuda")
        << DataTypeName(t);
  }
  EXPECT_EQ(
      Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_DOUBLE)}}), erf,
           DEVICE_CUDA),
      "no kernel for op 'Erf' on device CUDA with T=double; registered: "
      "CUDA{T in [float, bfloat16, half]}");
}

TEST(KernelRegistryTest, ListTypeConstraintNeedsEveryElementAllowed) {
  KernelRegistry registry;
  // IdentityN(input: T) -> (output: T), T: list(type)
  OpDef op;
  op.name = "IdentityN";
  OpDef::ArgDef in;
  in.name = "input";
  in.type_list_attr = "T";
  OpDef::ArgDef out = in;
  out.name = "output";
  op.input_arg.push_back(in);
  op.output_arg.push_back(out);
  op.attr.push_back(Attr("T", "list(type)"));
  ASSERT_TRUE(Add(&registry,
                  Name("IdentityN")
                      .Device(DEVICE_CPU)
                      .TypeConstraint("T", {DT_FLOAT, DT_INT32}),
                  "cpu")
                  .ok());
  EXPECT_EQ(
      Pick(registry,
           Node("i", "IdentityN",
                {{"T", AttrValue::TypeList({DT_FLOAT, DT_INT32, DT_FLOAT})}}),
           op, DEVICE_CPU),
      "cpu");
  EXPECT_EQ(Pick(registry,
                 Node("i", "IdentityN",
                      {{"T", AttrValue::TypeList({DT_FLOAT, DT_INT64})}}),
                 op, DEVICE_CPU),
            "no kernel for op 'IdentityN' on device CPU with T=[float, "
            "int64]; registered: CPU{T in [float, int32]}");
}

TEST(KernelRegistryTest, EveryConstraintMustHold) {
  KernelRegistry registry;
  OpDef sum;
  sum.name = "Sum";
  sum.input_arg.push_back(Arg("input", "T"));
  sum.input_arg.push_back(Arg("axis", "Tidx"));
  sum.output_arg.push_back(Arg("output", "T"));
  sum.attr.push_back(Attr("keep_dims", "bool"));
  sum.attr.push_back(Attr("T", "type"));
  sum.attr.push_back(Attr("Tidx", "type"));
  ASSERT_TRUE(Add(&registry,
                  Name("Sum")
                      .Device(DEVICE_CPU)
                      .TypeConstraint<float>("T")
                      .TypeConstraint<int32_t>("Tidx"),
                  "sum")
                  .ok());
  EXPECT_EQ(Pick(registry,
                 Node("s", "Sum",
                      {{"keep_dims", AttrValue::Bool(false)},
                       {"T", AttrValue::Type(DT_FLOAT)},
                       {"Tidx", AttrValue::Type(DT_INT32)}}),
                 sum, DEVICE_CPU),
            "sum");
  // Only type attrs are listed in the message.
  EXPECT_EQ(Pick(registry,
                 Node("s", "Sum",
                      {{"keep_dims", AttrValue::Bool(false)},
                       {"T", AttrValue::Type(DT_FLOAT)},
                       {"Tidx", AttrValue::Type(DT_INT64)}}),
                 sum, DEVICE_CPU),
            "no kernel for op 'Sum' on device CPU with T=float, Tidx=int64; "
            "registered: CPU{T in [float], Tidx in [int32]}");
}

TEST(KernelRegistryTest, ConstraintOnAttrTheOpLacksNamesTheSource) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("Q"),
                  "kernels/erf.cc:3")
                  .ok());
  EXPECT_EQ(Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}}),
                 UnaryOp("Erf"), DEVICE_CPU),
            "kernel CPU{Q in [float]} for op 'Erf' registered at "
            "kernels/erf.cc:3 constrains attr 'Q', which the op does not "
            "have");
}

TEST(KernelRegistryTest, ConstraintOnNonTypeAttrIsAnError) {
  KernelRegistry registry;
  OpDef op = UnaryOp("Erf");
  op.attr.push_back(Attr("N", "int"));
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<int32_t>("N"),
                  "src")
                  .ok());
  EXPECT_EQ(
      Pick(registry,
           Node("e", "Erf",
                {{"T", AttrValue::Type(DT_FLOAT)}, {"N", AttrValue::Int(2)}}),
           op, DEVICE_CPU),
      "kernel CPU{N in [int32]} for op 'Erf' registered at src "
      "constrains attr 'N' of type int; only type and list(type) attrs "
      "can be constrained");
}

TEST(KernelRegistryTest, UnvalidatedNodeIsReported) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                  "src")
                  .ok());
  EXPECT_EQ(Pick(registry, Node("e", "Erf", {}), UnaryOp("Erf"), DEVICE_CPU),
            "node 'e' (Erf): has no value for attr 'T' (kernel lookup needs a "
            "validated node with defaults filled)");
}

TEST(KernelRegistryTest, RegisterRejectsIncompleteKernels) {
  KernelRegistry registry;
  KernelDef def;
  def.device_type = DEVICE_CPU;
  EXPECT_EQ(registry.Register(def, NoopFactory(), "src").message(),
            "kernel registered at src names no op");
  def.op = "Erf";
  def.device_type = "";
  EXPECT_EQ(registry.Register(def, NoopFactory(), "src").message(),
            "kernel for op 'Erf' registered at src names no device type");
  def.device_type = DEVICE_CPU;
  EXPECT_EQ(registry.Register(def, nullptr, "src").message(),
            "kernel for op 'Erf' registered at src has no factory");
  // A hand-made def (as a plugin passes one) with a repeated constraint.
  def.constraints = {{"T", {DT_FLOAT}}, {"T", {DT_DOUBLE}}};
  EXPECT_EQ(registry.Register(def, NoopFactory(), "libp.so").message(),
            "kernel for op 'Erf' registered at libp.so: TypeConstraint on attr "
            "'T' given twice");
  EXPECT_TRUE(registry.KernelsForOp("Erf").empty());
}

TEST(KernelRegistryTest, HandMadeDefsAreCanonicalized) {
  KernelRegistry registry;
  KernelDef def;
  def.op = "Erf";
  def.device_type = DEVICE_CPU;
  def.constraints = {{"T", {DT_HALF, DT_FLOAT, DT_HALF}}};
  ASSERT_TRUE(registry.Register(def, NoopFactory(), "plugin").ok());
  EXPECT_EQ(registry.SummarizeKernelsForOp("Erf"), "CPU{T in [float, half]}");
  EXPECT_EQ(Pick(registry, Node("e", "Erf", {{"T", AttrValue::Type(DT_HALF)}}),
                 UnaryOp("Erf"), DEVICE_CPU),
            "plugin");
}

TEST(KernelRegistryTest, StaticRegistrationRecordsFailures) {
  KernelRegistry registry;
  EXPECT_TRUE(registry.StaticRegistrationStatus().ok());
  registry.RegisterStatic(Name("Erf").TypeConstraint<float>("T").Build(),
                          NoopFactory(), "kernels/erf.cc:7", "ErfOp<float>");
  Status one = registry.StaticRegistrationStatus();
  EXPECT_EQ(one.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(one.message(),
            "kernels/erf.cc:7: kernel for op 'Erf': no Device(...) given");
  registry.RegisterStatic(
      Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T").Build(),
      NoopFactory(), "kernels/erf.cc:9", "ErfOp<float>");
  registry.RegisterStatic(
      Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T").Build(),
      NoopFactory(), "kernels/erf2.cc:4", "ErfOp<float>");
  Status two = registry.StaticRegistrationStatus();
  EXPECT_EQ(two.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(two.message(),
            "2 kernel registrations failed:\n"
            "kernels/erf.cc:7: kernel for op 'Erf': no Device(...) given\n"
            "kernel CPU{T in [float]} for op 'Erf' registered twice: at "
            "kernels/erf.cc:9 and at kernels/erf2.cc:4");
  // The good one is in.
  ASSERT_EQ(registry.RegistrationsForOp("Erf").size(), 1u);
  EXPECT_EQ(registry.RegistrationsForOp("Erf")[0]->kernel_class_name,
            "ErfOp<float>");
}

TEST(KernelRegistryTest, KernelsForOpAreSorted) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CUDA).TypeConstraint<float>("T"),
                  "1")
                  .ok());
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                  "2")
                  .ok());
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                  "3")
                  .ok());
  ASSERT_TRUE(Add(&registry, Name("Other").Device(DEVICE_CPU), "4").ok());
  std::vector<const KernelDef*> defs = registry.KernelsForOp("Erf");
  std::vector<std::string> summaries;
  for (const KernelDef* d : defs) summaries.push_back(SummarizeKernelDef(*d));
  EXPECT_EQ(summaries,
            (std::vector<std::string>{"CPU{T in [double]}", "CPU{T in [float]}",
                                      "CUDA{T in [float]}"}));
}

TEST(KernelRegistryTest, ConcurrentLookupsAndRegistrations) {
  KernelRegistry registry;
  ASSERT_TRUE(Add(&registry,
                  Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                  "erf")
                  .ok());
  const OpDef erf = UnaryOp("Erf");
  const NodeDef node = Node("e", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}});
  std::thread writer([&] {
    for (int i = 0; i < 200; ++i) {
      ASSERT_TRUE(
          Add(&registry, Name("Op" + std::to_string(i)).Device(DEVICE_CPU), "w")
              .ok());
    }
  });
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(Pick(registry, node, erf, DEVICE_CPU), "erf");
  }
  writer.join();
  EXPECT_EQ(registry.KernelsForOp("Op199").size(), 1u);
}

// ---------------------------------------------------------------------------
// CreateKernel

class AttrReadingKernel : public OpKernel {
 public:
  explicit AttrReadingKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &type_));
    OP_REQUIRES(ctx, type_ != DT_DOUBLE,
                errors::Unimplemented("double is not supported yet"));
  }
  void Compute(OpKernelContext*) const override {}
  DataType type() const { return type_; }

 private:
  DataType type_ = DT_INVALID;
};

TEST(KernelRegistryTest, CreateKernelConstructsOnceWithAttrs) {
  KernelRegistry registry;
  int constructed = 0;
  StatusOr<KernelDef> def = Name("Erf")
                                .Device(DEVICE_CPU)
                                .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE})
                                .Build();
  ASSERT_TRUE(registry
                  .Register(
                      *def,
                      [&constructed](OpKernelConstruction* ctx)
                          -> std::unique_ptr<OpKernel> {
                        ++constructed;
                        return std::make_unique<AttrReadingKernel>(ctx);
                      },
                      "src")
                  .ok());
  CpuDevice device("cpu:0", nullptr);
  NodeDef node = Node("my/erf", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}});
  StatusOr<std::unique_ptr<OpKernel>> kernel = registry.CreateKernel(
      node, UnaryOp("Erf"), UnaryTypes(DT_FLOAT), &device);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ(constructed, 1);
  EXPECT_EQ((*kernel)->name(), "my/erf");
  EXPECT_EQ((*kernel)->type_string(), "Erf");
  EXPECT_EQ((*kernel)->node_label(), "node 'my/erf' (Erf)");
  EXPECT_EQ(static_cast<AttrReadingKernel*>(kernel->get())->type(), DT_FLOAT);
  EXPECT_EQ((*kernel)->input_types(), std::vector<DataType>{DT_FLOAT});
  EXPECT_EQ((*kernel)->output_types(), std::vector<DataType>{DT_FLOAT});
  EXPECT_EQ((*kernel)->input_memory_space(0), MemorySpace::kHost);
}

TEST(KernelRegistryTest, ConstructionErrorSurfacesNamingTheNode) {
  KernelRegistry registry;
  StatusOr<KernelDef> def = Name("Erf")
                                .Device(DEVICE_CPU)
                                .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE})
                                .Build();
  ASSERT_TRUE(
      registry
          .Register(
              *def,
              [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
                return std::make_unique<AttrReadingKernel>(ctx);
              },
              "src")
          .ok());
  CpuDevice device("cpu:0", nullptr);
  StatusOr<std::unique_ptr<OpKernel>> kernel = registry.CreateKernel(
      Node("my/erf", "Erf", {{"T", AttrValue::Type(DT_DOUBLE)}}),
      UnaryOp("Erf"), UnaryTypes(DT_DOUBLE), &device);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(kernel.status().message(),
            "node 'my/erf' (Erf): double is not supported yet");
}

TEST(KernelRegistryTest, CreateKernelMissNamesTheNode) {
  KernelRegistry registry;
  CpuDevice device("cpu:0", nullptr);
  StatusOr<std::unique_ptr<OpKernel>> kernel = registry.CreateKernel(
      Node("a/b", "Erf", {{"T", AttrValue::Type(DT_INT32)}}), UnaryOp("Erf"),
      UnaryTypes(DT_INT32), &device);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(kernel.status().message(),
            "node 'a/b' (Erf): no kernel for op 'Erf' on device CPU with "
            "T=int32; registered: none");
}

TEST(KernelRegistryTest, FactoryReturningNothingIsInternal) {
  KernelRegistry registry;
  ASSERT_TRUE(
      registry
          .Register(
              *Name("Erf").Device(DEVICE_CPU).Build(),
              [](OpKernelConstruction*) { return std::unique_ptr<OpKernel>(); },
              "libp.so")
          .ok());
  CpuDevice device("cpu:0", nullptr);
  StatusOr<std::unique_ptr<OpKernel>> kernel = registry.CreateKernel(
      Node("e", "Erf", {{"T", AttrValue::Type(DT_FLOAT)}}), UnaryOp("Erf"),
      UnaryTypes(DT_FLOAT), &device);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(kernel.status().message(),
            "node 'e' (Erf): kernel CPU registered at libp.so returned no "
            "kernel object");
}

// A device whose own memory the host cannot read, to see HostMemory args
// placed apart from the rest.
class DeviceMemoryAllocator final : public Allocator {
 public:
  std::string Name() const override { return "fake_device"; }
  MemorySpace memory_space() const override { return MemorySpace::kDevice; }
  void* AllocateRaw(size_t alignment, size_t n) override {
    return inner_.AllocateRaw(alignment, n);
  }
  void DeallocateRaw(void* p, size_t n) override { inner_.DeallocateRaw(p, n); }
  AllocatorStats GetStats() const override { return inner_.GetStats(); }

 private:
  CpuAllocator inner_;
};

class FakeAcceleratorDevice final : public Device {
 public:
  FakeAcceleratorDevice() : Device("fake:0", "FAKE") {}
  Allocator* allocator() const override { return &device_memory_; }
  Allocator* host_allocator() const override { return &host_memory_; }
  int num_threads() const override { return 0; }
  void ParallelFor(
      int64_t n, int64_t,
      const std::function<void(int64_t, int64_t)>& fn) const override {
    if (n > 0) fn(0, n);
  }

 private:
  mutable DeviceMemoryAllocator device_memory_;
  mutable CpuAllocator host_memory_;
};

// Reshape(tensor: T, shape: Tshape) -> (output: T)
OpDef ReshapeOp() {
  OpDef op;
  op.name = "Reshape";
  op.input_arg.push_back(Arg("tensor", "T"));
  op.input_arg.push_back(Arg("shape", "Tshape"));
  op.output_arg.push_back(Arg("output", "T"));
  op.attr.push_back(Attr("T", "type"));
  op.attr.push_back(Attr("Tshape", "type"));
  return op;
}

NodeTypes ReshapeTypes() {
  NodeTypes types;
  types.input_types = {DT_FLOAT, DT_INT32};
  types.output_types = {DT_FLOAT};
  types.input_ranges = {{0, 1}, {1, 2}};
  types.output_ranges = {{0, 1}};
  return types;
}

TEST(KernelRegistryTest, HostMemoryArgsStayOnTheHost) {
  KernelRegistry registry;
  ASSERT_TRUE(
      Add(&registry, Name("Reshape").Device("FAKE").HostMemory("shape"), "r")
          .ok());
  FakeAcceleratorDevice device;
  StatusOr<std::unique_ptr<OpKernel>> kernel =
      registry.CreateKernel(Node("r", "Reshape",
                                 {{"T", AttrValue::Type(DT_FLOAT)},
                                  {"Tshape", AttrValue::Type(DT_INT32)}}),
                            ReshapeOp(), ReshapeTypes(), &device);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ((*kernel)->input_memory_space(0), MemorySpace::kDevice);
  EXPECT_EQ((*kernel)->input_memory_space(1), MemorySpace::kHost);
  EXPECT_EQ((*kernel)->output_memory_space(0), MemorySpace::kDevice);
}

TEST(KernelRegistryTest, HostMemoryNamingNoArgIsAnError) {
  KernelRegistry registry;
  ASSERT_TRUE(
      Add(&registry, Name("Reshape").Device("FAKE").HostMemory("shapes"), "r")
          .ok());
  FakeAcceleratorDevice device;
  StatusOr<std::unique_ptr<OpKernel>> kernel =
      registry.CreateKernel(Node("r", "Reshape",
                                 {{"T", AttrValue::Type(DT_FLOAT)},
                                  {"Tshape", AttrValue::Type(DT_INT32)}}),
                            ReshapeOp(), ReshapeTypes(), &device);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().message(),
            "node 'r' (Reshape): kernel FAKE declares HostMemory('shapes'), "
            "but op 'Reshape' has no such input or output; inputs are "
            "[tensor, shape], outputs are [output]");
}

// ---------------------------------------------------------------------------
// REGISTER_KERNEL_BUILDER

template <typename T>
class StaticTestKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) const override {}
};

constexpr int kStaticRegistrationLine = __LINE__ + 1;
REGISTER_KERNEL_BUILDER(Name("WeftRegistryTestStaticOp")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        StaticTestKernel<float>);

// Instantiating this class fails to compile, so a filtered-out registration
// provably never instantiates its kernel.
template <typename T>
class NeverInstantiated : public OpKernel {
  static_assert(sizeof(T) == 0, "a filtered-out kernel was instantiated");
};

TEST(KernelRegistryTest, MacroRegistersIntoTheGlobalRegistry) {
  std::vector<const KernelRegistration*> regs =
      KernelRegistry::Global()->RegistrationsForOp("WeftRegistryTestStaticOp");
  ASSERT_EQ(regs.size(), 1u);
  EXPECT_EQ(regs[0]->source, "tests/kernels/kernel_registry_test.cc:" +
                                 std::to_string(kStaticRegistrationLine));
  EXPECT_EQ(regs[0]->kernel_class_name, "StaticTestKernel<float>");
  EXPECT_EQ(SummarizeKernelDef(regs[0]->def), "CPU{T in [float]}");

  CpuDevice device("cpu:0", nullptr);
  StatusOr<std::unique_ptr<OpKernel>> kernel =
      KernelRegistry::Global()->CreateKernel(
          Node("s", "WeftRegistryTestStaticOp",
               {{"T", AttrValue::Type(DT_FLOAT)}}),
          UnaryOp("WeftRegistryTestStaticOp"), UnaryTypes(DT_FLOAT), &device);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_NE(dynamic_cast<StaticTestKernel<float>*>(kernel->get()), nullptr);
}

TEST(KernelRegistryTest, FilteredOutRegistrarRegistersNothing) {
  kernel_registration::KernelRegistrar<false, NeverInstantiated<int>> registrar(
      Name("WeftRegistryTestFilteredOp").Device(DEVICE_CPU),
      "NeverInstantiated<int>", __FILE__, __LINE__);
  EXPECT_TRUE(KernelRegistry::Global()
                  ->KernelsForOp("WeftRegistryTestFilteredOp")
                  .empty());
  // A node that needs it is told that the kernel is left out of this build.
  StatusOr<const KernelRegistration*> found =
      KernelRegistry::Global()->FindKernel(
          Node("f", "WeftRegistryTestFilteredOp",
               {{"T", AttrValue::Type(DT_INT32)}}),
          UnaryOp("WeftRegistryTestFilteredOp"), "CPU");
  EXPECT_EQ(found.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(found.status().message(),
            "no kernel for op 'WeftRegistryTestFilteredOp' on device CPU with "
            "T=int32; kernel CPU (NeverInstantiated<int>) would match but "
            "is left out of this selective build (regenerate its "
            "ops_to_register.h with `weft ops --used-by GRAPH... --header` "
            "over this graph too); registered: none");
  // On another device it would not have matched: no such note.
  EXPECT_EQ(KernelRegistry::Global()
                ->FindKernel(Node("f", "WeftRegistryTestFilteredOp",
                                  {{"T", AttrValue::Type(DT_INT32)}}),
                             UnaryOp("WeftRegistryTestFilteredOp"), "CUDA")
                .status()
                .message(),
            "no kernel for op 'WeftRegistryTestFilteredOp' on device CUDA with "
            "T=int32; registered: none");
}

}  // namespace
}  // namespace weft
