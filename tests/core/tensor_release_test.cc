// Tensor::ReleaseSharedWith and TensorBuffer::Unref's sole-reference path:
// the executor releases a forwarded input and frees intermediates through
// them, so a wrong count frees a buffer too early or never. A counting
// allocator shows exactly when the buffer goes back.
#include <cstdlib>
#include <thread>
#include <vector>

#include "core/allocator.h"
#include "core/tensor.h"
#include "counting_allocator_testutil.h"
#include "gtest/gtest.h"

namespace weft {
namespace tensor_release_test {

Tensor Make(CountingAllocator* a) {
  auto t = Tensor::Allocate(a, DT_FLOAT, TensorShape({1}));
  EXPECT_TRUE(t.ok());
  return *std::move(t);
}

TEST(TensorReleaseTest, ReleasingOneOfTwoKeepsTheBufferForTheOther) {
  CountingAllocator a;
  Tensor in = Make(&a);
  in.data<float>()[0] = 2.5f;
  Tensor out = in;  // what forwarding or Identity leaves: two references
  in.ReleaseSharedWith(out);
  EXPECT_FALSE(in.IsInitialized());
  EXPECT_EQ(a.frees, 0);
  EXPECT_EQ(out.data<float>()[0], 2.5f);
  // The count is back to one: the keeper may now be written in place.
  EXPECT_TRUE(out.RefCountIsOne());
  out = Tensor();
  EXPECT_EQ(a.frees, 1);
}

TEST(TensorReleaseTest, AThirdReferenceTakesTheLockedPath) {
  CountingAllocator a;
  Tensor in = Make(&a);
  Tensor out = in;
  Tensor other = in;  // held elsewhere (a fetch, another consumer)
  in.ReleaseSharedWith(out);
  EXPECT_FALSE(in.IsInitialized());
  EXPECT_FALSE(out.RefCountIsOne());
  other = Tensor();
  EXPECT_TRUE(out.RefCountIsOne());
  EXPECT_EQ(a.frees, 0);
  out = Tensor();
  EXPECT_EQ(a.frees, 1);
}

TEST(TensorReleaseTest, AKeeperWithAnotherBufferReleasesNormally) {
  CountingAllocator a;
  Tensor in = Make(&a);
  Tensor unrelated = Make(&a);
  in.ReleaseSharedWith(unrelated);
  EXPECT_FALSE(in.IsInitialized());
  EXPECT_EQ(a.frees, 1);  // `in` was the only reference to its buffer
  EXPECT_TRUE(unrelated.IsInitialized());
  Tensor empty;
  empty.ReleaseSharedWith(unrelated);  // nothing to release
  EXPECT_EQ(a.frees, 1);
}

// Copies made and dropped on other threads while the owner keeps one: the
// buffer is freed once, after the last of them.
TEST(TensorReleaseTest, CopiesAcrossThreadsFreeTheBufferOnce) {
  CountingAllocator a;
  {
    Tensor t = Make(&a);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
      Tensor copy = t;
      threads.emplace_back([copy]() mutable {
        for (int k = 0; k < 1000; ++k) {
          Tensor again = copy;
          Tensor pair = again;
          again.ReleaseSharedWith(pair);
        }
      });
    }
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(a.frees, 0);
    EXPECT_TRUE(t.RefCountIsOne());
  }
  EXPECT_EQ(a.allocs, 1);
  EXPECT_EQ(a.frees, 1);
}

}  // namespace tensor_release_test
}  // namespace weft
