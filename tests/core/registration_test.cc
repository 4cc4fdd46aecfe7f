#include "core/registration.h"

#include <string>

#include "gtest/gtest.h"

namespace weft {
namespace {

// The source root as the compiler spells it for this test, found
// independently of the library: this file is tests/core/ below it.
std::string TestSourceRoot() {
  const std::string self = __FILE__;
  const std::string suffix = "tests/core/registration_test.cc";
  if (self.size() < suffix.size() ||
      self.compare(self.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return "";
  }
  return self.substr(0, self.size() - suffix.size());
}

TEST(RegistrationTest, InTreeFilesAreRelativeToTheSourceRoot) {
  const std::string root = TestSourceRoot();
  ASSERT_FALSE(root.empty()) << __FILE__;
  EXPECT_EQ(SourceLocation(root + "kernels/cpu/matmul_op.cc", 42),
            "kernels/cpu/matmul_op.cc:42");
  EXPECT_EQ(SourceLocation(root + "ops/math_ops.cc", 3), "ops/math_ops.cc:3");
}

TEST(RegistrationTest, OtherFilesKeepTheirLastTwoComponents) {
  EXPECT_EQ(SourceLocation("/elsewhere/plugins/src/my_op.cc", 7),
            "src/my_op.cc:7");
  EXPECT_EQ(SourceLocation("kernels/matmul_op.cc", 7),
            "kernels/matmul_op.cc:7");
  EXPECT_EQ(SourceLocation("matmul_op.cc", 7), "matmul_op.cc:7");
  EXPECT_EQ(SourceLocation("/matmul_op.cc", 1), "/matmul_op.cc:1");
}

TEST(RegistrationTest, JoinsErrorsWithTheFirstCode) {
  EXPECT_TRUE(JoinRegistrationErrors({}, "op").ok());
  const Status one = errors::AlreadyExists("op 'A' registered twice");
  EXPECT_EQ(JoinRegistrationErrors({one}, "op"), one);
  const Status joined = JoinRegistrationErrors(
      {one, errors::InvalidArgument("kernel for op 'B': bad")}, "kernel");
  EXPECT_EQ(joined.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(joined.message(),
            "2 kernel registrations failed:\nop 'A' registered twice\n"
            "kernel for op 'B': bad");
}

}  // namespace
}  // namespace weft
