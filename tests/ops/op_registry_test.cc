// This file also exercises selective registration: the filter below must be
// defined before ops/op_registry.h is included, so that header comes second.
namespace weft_registry_test {
constexpr bool HasPrefix(const char* s, const char* prefix) {
  for (; *prefix != '\0'; ++s, ++prefix) {
    if (*s != *prefix) return false;
  }
  return true;
}
constexpr bool KeepOp(const char* name) {
  return !HasPrefix(name, "WeftTestFilteredOut");
}
}  // namespace weft_registry_test
#define WEFT_SHOULD_REGISTER_OP(name) (::weft_registry_test::KeepOp(name))

#include "ops/op_registry.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace op_registry_test {

using ::testing::HasSubstr;

Status NoShapeFn(shape_inference::InferenceContext*) { return Status(); }

static_assert(weft_registry_test::KeepOp("MatMul"));
static_assert(!weft_registry_test::KeepOp("WeftTestFilteredOutOp"));

constexpr int kRegisteredOpLine = __LINE__ + 1;
REGISTER_OP("WeftTestRegisteredOp")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32} = DT_FLOAT")
    .SetIsStateful()
    .Doc("An op registered by the registry test.")
    .SetShapeFn(NoShapeFn);

REGISTER_OP("WeftTestFilteredOutOp").Input("x: float").SetShapeFn(NoShapeFn);

// Would fail to finalize; the filter drops it before that can happen.
REGISTER_OP("WeftTestFilteredOutBadSpec").Attr("T: bogus");

OpDefBuilder SimpleOp(const std::string& name) {
  OpDefBuilder b(name);
  b.Input("x: float").Output("y: float").SetShapeFn(NoShapeFn);
  return b;
}

TEST(OpRegistryTest, StaticRegistration) {
  StatusOr<const OpRegistrationData*> data =
      OpRegistry::Global()->LookUp("WeftTestRegisteredOp");
  ASSERT_TRUE(data.ok()) << data.status();
  const OpDef& op = (*data)->op_def;
  EXPECT_EQ(op.name, "WeftTestRegisteredOp");
  ASSERT_EQ(op.input_arg.size(), 1u);
  EXPECT_EQ(op.input_arg[0].type_attr, "T");
  ASSERT_EQ(op.attr.size(), 1u);
  EXPECT_TRUE(*op.attr[0].default_value == AttrValue::Type(DT_FLOAT));
  EXPECT_TRUE(op.is_stateful);
  EXPECT_EQ(op.summary, "An op registered by the registry test.");
  EXPECT_TRUE((*data)->shape_fn);
  // In-tree sources are recorded relative to the source root.
  EXPECT_EQ((*data)->source,
            absl::StrCat("tests/ops/op_registry_test.cc:", kRegisteredOpLine));
}

TEST(OpRegistryTest, SelectiveRegistrationDropsFilteredOps) {
  EXPECT_EQ(
      OpRegistry::Global()->LookUp("WeftTestFilteredOutOp").status().code(),
      absl::StatusCode::kNotFound);
  EXPECT_FALSE(OpRegistry::Global()->LookUp("WeftTestFilteredOutBadSpec").ok());
  // A graph that needs a filtered-out op is told so, not "unknown op".
  EXPECT_THAT(
      std::string(OpRegistry::Global()
                      ->LookUp("WeftTestFilteredOutOp")
                      .status()
                      .message()),
      HasSubstr("op 'WeftTestFilteredOutOp' is left out of this selective "
                "build"));
  std::vector<std::string> left_out = OpRegistry::Global()->LeftOutOps();
  EXPECT_EQ(left_out, (std::vector<std::string>{"WeftTestFilteredOutBadSpec",
                                                "WeftTestFilteredOutOp"}));
  // An op that is neither registered nor left out stays unknown.
  EXPECT_THAT(std::string(OpRegistry::Global()
                              ->LookUp("WeftTestNeverDefined")
                              .status()
                              .message()),
              HasSubstr("unknown op 'WeftTestNeverDefined'"));
}

// Every REGISTER_OP linked into this test binary (this file's and the op
// families') registered cleanly; a failure lists each broken registration.
TEST(OpRegistryTest, GlobalStaticRegistrationsSucceed) {
  EXPECT_TRUE(OpRegistry::Global()->StaticRegistrationStatus().ok())
      << OpRegistry::Global()->StaticRegistrationStatus();
}

TEST(OpRegistryTest, GlobalIsOneInstance) {
  EXPECT_EQ(OpRegistry::Global(), OpRegistry::Global());
}

TEST(OpRegistryTest, RegisterLookUpAndList) {
  OpRegistry registry;
  EXPECT_TRUE(registry.ListOps().empty());
  ASSERT_TRUE(registry.Register(SimpleOp("Sub"), "ops/math_ops.cc:3").ok());
  ASSERT_TRUE(registry.Register(SimpleOp("Add"), "ops/math_ops.cc:1").ok());
  ASSERT_TRUE(registry.Register(SimpleOp("Mul"), "ops/math_ops.cc:2").ok());

  StatusOr<const OpRegistrationData*> add = registry.LookUp("Add");
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ((*add)->op_def.name, "Add");
  EXPECT_EQ((*add)->source, "ops/math_ops.cc:1");

  std::vector<const OpRegistrationData*> ops = registry.ListOps();
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0]->op_def.name, "Add");
  EXPECT_EQ(ops[1]->op_def.name, "Mul");
  EXPECT_EQ(ops[2]->op_def.name, "Sub");
  EXPECT_EQ(ops[0], *add);
}

TEST(OpRegistryTest, RegisterFinishedData) {
  OpRegistry registry;
  StatusOr<OpRegistrationData> data = SimpleOp("ZeroOut").Finalize();
  ASSERT_TRUE(data.ok());
  data->source = "libzero_out.so";
  ASSERT_TRUE(registry.Register(std::move(*data)).ok());
  StatusOr<const OpRegistrationData*> found = registry.LookUp("ZeroOut");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)->source, "libzero_out.so");
}

TEST(OpRegistryTest, DuplicateNamesBothSources) {
  OpRegistry registry;
  ASSERT_TRUE(registry.Register(SimpleOp("Foo"), "ops/a.cc:10").ok());
  Status status = registry.Register(SimpleOp("Foo"), "libfoo.so");
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(status.message(),
            "op 'Foo' registered twice: at ops/a.cc:10 and at libfoo.so");
  // The first registration stays.
  EXPECT_EQ((*registry.LookUp("Foo"))->source, "ops/a.cc:10");
  EXPECT_EQ(registry.ListOps().size(), 1u);
}

TEST(OpRegistryTest, BuilderErrorsAreReturnedAndNothingIsAdded) {
  OpRegistry registry;
  Status status = registry.Register(
      OpDefBuilder("Bad").Attr("T: {float, doubel}").SetShapeFn(NoShapeFn),
      "ops/bad.cc:1");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "op 'Bad': attr spec 'T: {float, doubel}': unknown type 'doubel'");
  EXPECT_FALSE(registry.LookUp("Bad").ok());
  EXPECT_TRUE(registry.ListOps().empty());
  // A plain Register failure is the caller's to report, not a static one.
  EXPECT_TRUE(registry.StaticRegistrationStatus().ok());
}

TEST(OpRegistryTest, LookUpSuggestions) {
  OpRegistry registry;
  for (const char* name :
       {"MatMul", "BatchMatMul", "Conv2D", "Add", "AddN", "Sub", "Sum"}) {
    ASSERT_TRUE(registry.Register(SimpleOp(name), "test").ok());
  }
  struct Case {
    const char* query;
    const char* message;
  };
  const Case cases[] = {
      {"MatMull", "unknown op 'MatMull'; did you mean 'MatMul'?"},
      {"matmul", "unknown op 'matmul'; did you mean 'MatMul'?"},
      {"Conv2d", "unknown op 'Conv2d'; did you mean 'Conv2D'?"},
      {"BatchMatMu", "unknown op 'BatchMatMu'; did you mean 'BatchMatMul'?"},
      {"Adx", "unknown op 'Adx'; did you mean 'Add'?"},
      // Ties are all offered, in name order.
      {"Su", "unknown op 'Su'; did you mean 'Sub' or 'Sum'?"},
      // Nothing close: no hint.
      {"Reshape", "unknown op 'Reshape'"},
      {"XYZ", "unknown op 'XYZ'"},
      {"", "unknown op ''"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.query);
    StatusOr<const OpRegistrationData*> data = registry.LookUp(c.query);
    ASSERT_FALSE(data.ok());
    EXPECT_EQ(data.status().code(), absl::StatusCode::kNotFound);
    EXPECT_EQ(data.status().message(), c.message);
  }
}

TEST(OpRegistryTest, LookUpInEmptyRegistry) {
  OpRegistry registry;
  EXPECT_EQ(registry.LookUp("MatMul").status().message(),
            "unknown op 'MatMul'");
}

TEST(OpRegistryTest, StaticRegistrationStatusCollectsEveryFailure) {
  OpRegistry registry;
  registry.RegisterStatic(SimpleOp("Good"), "ops/good.cc:1");
  EXPECT_TRUE(registry.StaticRegistrationStatus().ok());
  EXPECT_TRUE(registry.LookUp("Good").ok());

  registry.RegisterStatic(OpDefBuilder("Bad").Attr("T: bogus"), "ops/bad.cc:5");
  Status one = registry.StaticRegistrationStatus();
  EXPECT_EQ(one.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(one.message()),
              ::testing::StartsWith("op 'Bad': attr spec 'T: bogus': "
                                    "unknown attr type 'bogus'"));

  registry.RegisterStatic(SimpleOp("Good"), "libgood.so");
  Status two = registry.StaticRegistrationStatus();
  EXPECT_EQ(two.code(), absl::StatusCode::kInvalidArgument);  // the first's
  EXPECT_THAT(std::string(two.message()),
              ::testing::StartsWith("2 op registrations failed:\nop 'Bad': "));
  EXPECT_THAT(std::string(two.message()),
              HasSubstr("\nop 'Good' registered twice: at ops/good.cc:1 and "
                        "at libgood.so"));
}

TEST(OpRegistryTest, PointersStayValid) {
  OpRegistry registry;
  ASSERT_TRUE(registry.Register(SimpleOp("First"), "test").ok());
  const OpRegistrationData* first = *registry.LookUp("First");
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(registry.Register(SimpleOp(absl::StrCat("Op", i)), "t").ok());
  }
  EXPECT_EQ(*registry.LookUp("First"), first);
  EXPECT_EQ(first->op_def.name, "First");
  EXPECT_EQ(registry.ListOps().size(), 501u);
}

TEST(OpRegistryTest, ConcurrentRegisterAndLookUp) {
  OpRegistry registry;
  ASSERT_TRUE(registry.Register(SimpleOp("Shared"), "test").ok());
  constexpr int kThreads = 4;
  constexpr int kOpsPerThread = 100;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&registry, &failures, t] {
      for (int i = 0; i < kOpsPerThread; ++i) {
        const std::string name = absl::StrCat("T", t, "Op", i);
        if (!registry.Register(SimpleOp(name), "thread").ok()) ++failures[t];
        if (!registry.LookUp(name).ok()) ++failures[t];
        if (!registry.LookUp("Shared").ok()) ++failures[t];
        // Every thread also races on one name: exactly one wins.
        registry.Register(SimpleOp(absl::StrCat("Race", i)), "thread")
            .IgnoreError();
        registry.ListOps();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0);
  EXPECT_EQ(registry.ListOps().size(),
            1u + kThreads * kOpsPerThread + kOpsPerThread);
}

}  // namespace op_registry_test
}  // namespace weft
