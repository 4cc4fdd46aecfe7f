#include "core/status.h"

#include "gtest/gtest.h"

namespace weft {
namespace {

Status Fails() { return errors::InvalidArgument("bad ", 3); }
StatusOr<int> Seven() { return 7; }
StatusOr<int> NotFound() { return errors::NotFound("missing"); }

Status UsesReturnIfError() {
  WEFT_RETURN_IF_ERROR_CTX(Fails(), "node '", "a", "'");
  return Status();
}

StatusOr<int> UsesAssignOrReturn(bool fail) {
  WEFT_ASSIGN_OR_RETURN(int x, fail ? NotFound() : Seven());
  return x + 1;
}

TEST(StatusTest, ContextIsPrefixedAndCodeKept) {
  Status s = UsesReturnIfError();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "node 'a': bad 3");
  EXPECT_TRUE(AddContext(Status(), "ignored").ok());
  Status with_payload = errors::Internal("x");
  with_payload.SetPayload("weft/node", absl::Cord("n"));
  Status wrapped = AddContext(with_payload, "ctx");
  EXPECT_EQ(wrapped.message(), "ctx: x");
  EXPECT_TRUE(wrapped.GetPayload("weft/node").has_value());
}

TEST(StatusTest, AssignOrReturn) {
  EXPECT_EQ(*UsesAssignOrReturn(false), 8);
  EXPECT_EQ(UsesAssignOrReturn(true).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace weft
