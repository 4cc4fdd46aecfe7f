#include "kernels/kernel_def.h"

#include "device/device.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using register_kernel::Name;

TEST(KernelDefBuilderTest, RecordsEverythingGiven) {
  StatusOr<KernelDef> def = Name("Reshape")
                                .Device(DEVICE_CUDA)
                                .TypeConstraint<float>("T")
                                .TypeConstraint("Tshape", {DT_INT64, DT_INT32})
                                .HostMemory("shape")
                                .Priority(3)
                                .Label("fast")
                                .Build();
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(def->op, "Reshape");
  EXPECT_EQ(def->device_type, "CUDA");
  ASSERT_EQ(def->constraints.size(), 2u);
  EXPECT_EQ(def->constraints[0].name, "T");
  EXPECT_EQ(def->constraints[0].allowed_types, std::vector<DataType>{DT_FLOAT});
  // Types are kept in enum order whatever order they were given in.
  EXPECT_EQ(def->constraints[1].name, "Tshape");
  EXPECT_EQ(def->constraints[1].allowed_types,
            (std::vector<DataType>{DT_INT32, DT_INT64}));
  EXPECT_EQ(def->host_memory_args, std::vector<std::string>{"shape"});
  EXPECT_TRUE(def->IsHostMemoryArg("shape"));
  EXPECT_FALSE(def->IsHostMemoryArg("tensor"));
  EXPECT_EQ(def->priority, 3);
  EXPECT_EQ(def->label, "fast");
  ASSERT_NE(def->FindConstraint("Tshape"), nullptr);
  EXPECT_EQ(def->FindConstraint("N"), nullptr);
}

TEST(KernelDefBuilderTest, DefaultsAreUnlabelledPriorityZero) {
  StatusOr<KernelDef> def = Name("NoOp").Device(DEVICE_CPU).Build();
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_TRUE(def->constraints.empty());
  EXPECT_TRUE(def->host_memory_args.empty());
  EXPECT_EQ(def->label, "");
  EXPECT_EQ(def->priority, 0);
}

TEST(KernelDefBuilderTest, TypeConstraintTemplateMapsCxxTypes) {
  StatusOr<KernelDef> def = Name("Cast")
                                .Device(DEVICE_CPU)
                                .TypeConstraint<half>("SrcT")
                                .TypeConstraint<int64_t>("DstT")
                                .Build();
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(def->FindConstraint("SrcT")->allowed_types,
            std::vector<DataType>{DT_HALF});
  EXPECT_EQ(def->FindConstraint("DstT")->allowed_types,
            std::vector<DataType>{DT_INT64});
}

TEST(KernelDefBuilderTest, RepeatedTypesCollapse) {
  StatusOr<KernelDef> def =
      Name("Erf")
          .Device(DEVICE_CPU)
          .TypeConstraint("T", {DT_DOUBLE, DT_FLOAT, DT_DOUBLE})
          .Build();
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(def->constraints[0].allowed_types,
            (std::vector<DataType>{DT_FLOAT, DT_DOUBLE}));
}

struct BuilderErrorCase {
  const char* what;
  StatusOr<KernelDef> (*build)();
  const char* message;
};

TEST(KernelDefBuilderTest, MistakesAreReportedByBuild) {
  const BuilderErrorCase cases[] = {
      {"no device", [] { return Name("Erf").Build(); },
       "kernel for op 'Erf': no Device(...) given"},
      {"device twice",
       [] {
         return Name("Erf").Device(DEVICE_CPU).Device(DEVICE_CUDA).Build();
       },
       "kernel for op 'Erf': Device given twice ('CPU' and 'CUDA')"},
      {"empty device", [] { return Name("Erf").Device("").Build(); },
       "kernel for op 'Erf': Device is empty"},
      {"constraint twice",
       [] {
         return Name("Erf")
             .Device(DEVICE_CPU)
             .TypeConstraint<float>("T")
             .TypeConstraint<double>("T")
             .Build();
       },
       "kernel for op 'Erf': TypeConstraint on attr 'T' given twice"},
      {"no types",
       [] {
         return Name("Erf")
             .Device(DEVICE_CPU)
             .TypeConstraint("T", std::vector<DataType>{})
             .Build();
       },
       "kernel for op 'Erf': TypeConstraint on attr 'T' allows no types"},
      {"invalid type",
       [] {
         return Name("Erf")
             .Device(DEVICE_CPU)
             .TypeConstraint("T", DT_INVALID)
             .Build();
       },
       "kernel for op 'Erf': TypeConstraint on attr 'T' names an invalid "
       "type dtype(0)"},
      {"host memory twice",
       [] {
         return Name("Reshape")
             .Device(DEVICE_CUDA)
             .HostMemory("shape")
             .HostMemory("shape")
             .Build();
       },
       "kernel for op 'Reshape': HostMemory('shape') given twice"},
      {"empty label",
       [] { return Name("Erf").Device(DEVICE_CPU).Label("").Build(); },
       "kernel for op 'Erf': Label is empty (leave it out to serve "
       "unlabelled nodes)"},
      {"label twice",
       [] {
         return Name("Erf").Device(DEVICE_CPU).Label("a").Label("b").Build();
       },
       "kernel for op 'Erf': Label given twice ('a' and 'b')"},
      {"empty op", [] { return Name("").Device(DEVICE_CPU).Build(); },
       "kernel for op '': the op name is empty"},
  };
  for (const BuilderErrorCase& c : cases) {
    StatusOr<KernelDef> def = c.build();
    ASSERT_FALSE(def.ok()) << c.what;
    EXPECT_EQ(def.status().code(), absl::StatusCode::kInvalidArgument)
        << c.what;
    EXPECT_EQ(std::string(def.status().message()), c.message) << c.what;
  }
}

TEST(KernelDefBuilderTest, FirstMistakeWins) {
  StatusOr<KernelDef> def = Name("Erf")
                                .TypeConstraint<float>("T")
                                .TypeConstraint<float>("T")
                                .HostMemory("x")
                                .HostMemory("x")
                                .Build();
  ASSERT_FALSE(def.ok());
  EXPECT_EQ(def.status().message(),
            "kernel for op 'Erf': TypeConstraint on attr 'T' given twice");
}

TEST(KernelDefTest, SummaryListsDeviceConstraintsLabelPriority) {
  EXPECT_EQ(SummarizeKernelDef(*Name("NoOp").Device(DEVICE_CPU).Build()),
            "CPU");
  EXPECT_EQ(SummarizeKernelDef(*Name("Erf")
                                    .Device(DEVICE_CPU)
                                    .TypeConstraint("T", {DT_DOUBLE, DT_FLOAT})
                                    .Build()),
            "CPU{T in [float, double]}");
  EXPECT_EQ(SummarizeKernelDef(*Name("Sum")
                                    .Device(DEVICE_CUDA)
                                    .TypeConstraint<int64_t>("Tidx")
                                    .TypeConstraint<half>("T")
                                    .Label("fast")
                                    .Priority(-1)
                                    .Build()),
            "CUDA{T in [half], Tidx in [int64], label 'fast', priority -1}");
}

TEST(KernelDefTest, SameKernelSlotIgnoresHostMemoryOnly) {
  KernelDef a =
      *Name("Erf").Device(DEVICE_CPU).TypeConstraint<float>("T").Build();
  KernelDef b = *Name("Erf")
                     .Device(DEVICE_CPU)
                     .TypeConstraint<float>("T")
                     .HostMemory("x")
                     .Build();
  EXPECT_TRUE(SameKernelSlot(a, b));
  KernelDef c = *Name("Erf")
                     .Device(DEVICE_CPU)
                     .TypeConstraint<float>("T")
                     .Priority(1)
                     .Build();
  EXPECT_FALSE(SameKernelSlot(a, c));
  KernelDef d =
      *Name("Erf").Device(DEVICE_CPU).TypeConstraint<double>("T").Build();
  EXPECT_FALSE(SameKernelSlot(a, d));
  KernelDef e = *Name("Erf")
                     .Device(DEVICE_CPU)
                     .TypeConstraint<float>("T")
                     .Label("x")
                     .Build();
  EXPECT_FALSE(SameKernelSlot(a, e));
}

}  // namespace
}  // namespace weft
