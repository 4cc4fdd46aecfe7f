// BinaryBroadcast's simplified loop nests: dropped size-1 dimensions,
// merged runs, strides, and the incompatibility error.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/common/broadcast.h"

namespace weft {
namespace cpu_broadcast_test {

using Dims = std::vector<int64_t>;

Dims ToDims(absl::Span<const int64_t> s) { return Dims(s.begin(), s.end()); }

struct Case {
  TensorShape x, y, out;
  Dims dims, x_strides, y_strides;
};

TEST(BinaryBroadcastTest, SimplifiesToTheFewestDimensions) {
  const std::vector<Case> cases = {
      // Same shapes merge into one flat run.
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}, {24}, {1}, {1}},
      // A trailing vector: y repeats along the merged leading dims.
      {{8, 1, 3, 4}, {3, 4}, {8, 1, 3, 4}, {8, 12}, {12, 1}, {0, 1}},
      // An outer product.
      {{2, 1}, {1, 3}, {2, 3}, {2, 3}, {1, 0}, {0, 1}},
      // Size-1 output dimensions vanish; the rest alternate.
      {{4, 1, 1, 3},
       {1, 1, 5, 1},
       {4, 1, 5, 3},
       {4, 5, 3},
       {3, 0, 1},
       {0, 1, 0}},
      // A scalar against anything: a single run.
      {{}, {2, 3}, {2, 3}, {6}, {0}, {1}},
      // Scalars: nothing to loop over beyond the one element.
      {{1, 1}, {}, {1, 1}, {}, {}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.DebugString() + " " + c.y.DebugString());
    BinaryBroadcast b;
    ASSERT_TRUE(b.Init(c.x, c.y).ok());
    EXPECT_EQ(b.output_shape(), c.out);
    EXPECT_EQ(ToDims(b.reduced_dims()), c.dims);
    EXPECT_EQ(ToDims(b.x_strides()), c.x_strides);
    EXPECT_EQ(ToDims(b.y_strides()), c.y_strides);
  }
}

TEST(BinaryBroadcastTest, CompleteAndScalarInputs) {
  BinaryBroadcast b;
  ASSERT_TRUE(b.Init({3, 1}, {1}).ok());
  EXPECT_TRUE(b.x_complete());
  EXPECT_FALSE(b.y_complete());
  EXPECT_TRUE(b.y_is_scalar());
  ASSERT_TRUE(b.Init({0, 3}, {1, 3}).ok());
  EXPECT_EQ(b.output_size(), 0);
  EXPECT_TRUE(b.reduced_dims().empty());
}

TEST(BinaryBroadcastTest, IncompatibleShapes) {
  BinaryBroadcast b;
  const Status s = b.Init({5, 2, 3}, {4, 3});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            "x has shape [5,2,3] and y has shape [4,3], which do not "
            "broadcast: in dimension 1 of the rank-3 result x has size 2 and "
            "y has size 4; broadcasting needs equal sizes or a 1");
}

}  // namespace cpu_broadcast_test
}  // namespace weft
