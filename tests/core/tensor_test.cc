#include "core/tensor.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/allocator.h"
#include "core/tensor_list.h"
#include "core/tensor_types.h"
#include "core/variant.h"
#include "gtest/gtest.h"
#include "tests/core/counting_allocator_testutil.h"

namespace weft {
namespace {

TEST(TensorTest, BuffersAre64ByteAligned) {
  for (int64_t n : {0, 1, 3, 17, 1000}) {
    Tensor t(DT_FLOAT, TensorShape({n}));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u) << n;
  }
}

TEST(TensorTest, EigenViewsShareTheBuffer) {
  Tensor t(DT_FLOAT, TensorShape({2, 3}));
  auto m = t.matrix<float>();
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) m(i, j) = static_cast<float>(i * 10 + j);
  }
  auto flat = t.flat<float>();
  EXPECT_EQ(flat.size(), 6);
  EXPECT_EQ(flat(4), 11.0f);  // row-major: [1][1]
  auto t3 = t.shaped<float, 3>({1, 3, 2});
  EXPECT_EQ(t3(0, 2, 1), 12.0f);  // element 5
  auto inner = t.flat_inner_dims<float>();
  EXPECT_EQ(inner.dimension(0), 2);
  EXPECT_EQ(inner.dimension(1), 3);
  // Eigen expressions evaluate into the view.
  Tensor u(DT_FLOAT, TensorShape({6}));
  u.flat<float>() = flat * 2.0f;
  EXPECT_EQ(u.vec<float>()(5), 24.0f);
}

TEST(TensorTest, ScalarAndHalf) {
  Tensor s(DT_HALF, TensorShape({}));
  s.scalar<half>()() = half(1.5f);
  EXPECT_EQ(static_cast<float>(s.flat<half>()(0)), 1.5f);
  EXPECT_EQ(s.TotalBytes(), 2u);
}

TEST(TensorTest, CopiesShareAndRefCountTracksOwners) {
  Tensor a(DT_INT32, TensorShape({4}));
  EXPECT_TRUE(a.RefCountIsOne());
  {
    Tensor b = a;
    EXPECT_TRUE(a.SharesBufferWith(b));
    EXPECT_FALSE(a.RefCountIsOne());
  }
  EXPECT_TRUE(a.RefCountIsOne());
  Tensor moved = std::move(a);
  EXPECT_TRUE(moved.RefCountIsOne());
  EXPECT_FALSE(a.IsInitialized());  // NOLINT(bugprone-use-after-move)
}

TEST(TensorTest, ReshapedSharesAndChecksCount) {
  Tensor a(DT_FLOAT, TensorShape({2, 3}));
  auto r = a.Reshaped(TensorShape({3, 2}));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->SharesBufferWith(a));
  auto bad = a.Reshaped(TensorShape({4}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("6 elements"), std::string::npos)
      << bad.status();
}

// SharedRows: aligned rows read the tensor's memory, keep it alive after
// the tensor is gone, allocate nothing and are never written in place;
// unaligned rows, out-of-range rows and strings give no view.
TEST(TensorTest, SharedRowsViewAlignedRows) {
  CountingAllocator counting;
  auto t = Tensor::Allocate(&counting, DT_FLOAT, TensorShape({4, 16}));
  ASSERT_TRUE(t.ok()) << t.status();
  for (int i = 0; i < 64; ++i) t->data<float>()[i] = static_cast<float>(i);
  Tensor row2 = t->SharedRows(2, 1, TensorShape({16}));
  Tensor rows13 = t->SharedRows(1, 3, TensorShape({3, 16}));
  ASSERT_TRUE(row2.IsInitialized());
  ASSERT_TRUE(rows13.IsInitialized());
  EXPECT_EQ(counting.allocs, 1);
  EXPECT_EQ(row2.data<float>(), t->data<float>() + 32);
  EXPECT_EQ(rows13.data<float>()[0], 16.0f);
  EXPECT_EQ(row2.shape(), TensorShape({16}));
  EXPECT_FALSE(row2.RefCountIsOne());  // never forwarded
  EXPECT_FALSE(t->RefCountIsOne());    // the views hold it
  *t = Tensor();
  EXPECT_EQ(counting.frees, 0);
  EXPECT_EQ(row2.data<float>()[15], 47.0f);
  Tensor copy = row2;
  row2 = Tensor();
  rows13 = Tensor();
  EXPECT_EQ(counting.frees, 0);
  copy = Tensor();
  EXPECT_EQ(counting.frees, 1);

  // Rows of 3 floats start 12 bytes apart: row 1 is not aligned.
  Tensor narrow(DT_FLOAT, TensorShape({4, 3}));
  EXPECT_TRUE(narrow.SharedRows(0, 1, TensorShape({3})).IsInitialized());
  EXPECT_FALSE(narrow.SharedRows(1, 1, TensorShape({3})).IsInitialized());
  EXPECT_FALSE(narrow.SharedRows(3, 2, TensorShape({2, 3})).IsInitialized());
  EXPECT_FALSE(narrow.SharedRows(0, 1, TensorShape({4})).IsInitialized());
  Tensor strings(DT_STRING, TensorShape({4, 16}));
  EXPECT_FALSE(strings.SharedRows(0, 1, TensorShape({16})).IsInitialized());
}

TEST(TensorTest, StringTensorsConstructAndDestroyElements) {
  Tensor s(DT_STRING, TensorShape({3}));
  auto* p = s.data<std::string>();
  p[0] = "a";
  p[2] = std::string(1000, 'x');  // heap-allocated, freed by the buffer
  EXPECT_EQ(s.SummarizeValue(2), "[\"a\" \"\"...]");
}

TEST(TensorTest, AllocatorStatsAndFailure) {
  CpuAllocator alloc;
  {
    auto t = Tensor::Allocate(&alloc, DT_DOUBLE, TensorShape({10}));
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(alloc.GetStats().bytes_in_use, 80);
    EXPECT_EQ(alloc.GetStats().num_allocs, 1);
  }
  EXPECT_EQ(alloc.GetStats().bytes_in_use, 0);
  EXPECT_EQ(alloc.GetStats().peak_bytes_in_use, 80);
  // 2^62 doubles cannot be allocated: a status, not a crash.
  auto huge = TensorShape::Build({int64_t{1} << 31, int64_t{1} << 31});
  ASSERT_TRUE(huge.ok());
  auto t = Tensor::Allocate(&alloc, DT_DOUBLE, *huge);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(t.status().message().find("[2147483648,2147483648]"),
            std::string::npos)
      << t.status();
  EXPECT_FALSE(Tensor::Allocate(&alloc, DT_INVALID, TensorShape({1})).ok());
  // Resource handles hold Variant elements (core/variant.h), empty at first.
  auto handle = Tensor::Allocate(&alloc, DT_RESOURCE, TensorShape({2}));
  ASSERT_TRUE(handle.ok()) << handle.status();
  EXPECT_TRUE(ResourceElements(*handle)[1].empty());
}

TEST(TensorTest, RequestsBeyondPhysicalMemoryFailWithoutReachingMalloc) {
  // 4 TiB: representable in size_t, more than any machine this runs on, and
  // beyond what AddressSanitizer's allocator accepts (it aborts rather than
  // return null), so this also checks the request never reaches it.
  CpuAllocator alloc;
  EXPECT_EQ(alloc.AllocateRaw(64, size_t{1} << 42), nullptr);
  auto t = Tensor::Allocate(&alloc, DT_FLOAT, TensorShape({int64_t{1} << 40}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(alloc.GetStats().num_allocs, 0);
}

// Buffers of at least kHugePageMinBytes start on a 2 MiB boundary, so that
// whole huge pages back them; smaller ones keep the requested alignment.
// The statistics count the bytes asked for, not the rounding. Either way
// every byte is usable (the huge-page request is only a hint).
TEST(TensorTest, LargeBuffersAreAlignedForHugePages) {
  CpuAllocator alloc;
  const size_t big = kHugePageMinBytes + 12345;
  void* p = alloc.AllocateRaw(64, big);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePageBytes, 0u);
  std::memset(p, 0x5a, big);
  EXPECT_EQ(static_cast<unsigned char*>(p)[big - 1], 0x5a);
  EXPECT_EQ(alloc.GetStats().bytes_in_use, static_cast<int64_t>(big));
  void* q = alloc.AllocateRaw(64, 1000);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 64, 0u);
  alloc.DeallocateRaw(q, 1000);
  alloc.DeallocateRaw(p, big);
  EXPECT_EQ(alloc.GetStats().bytes_in_use, 0);
  // The hint alone, on memory of any alignment, with or without a whole
  // huge page in it: no effect on the contents.
  std::vector<char> v(kHugePageMinBytes * 2, 'x');
  AdviseHugePages(v.data() + 1, v.size() - 1);
  AdviseHugePages(v.data(), 100);
  AdviseHugePages(nullptr, v.size());
  EXPECT_EQ(v[kHugePageMinBytes], 'x');
}

TEST(TensorTest, SummarizeValue) {
  Tensor t(DT_INT64, TensorShape({5}));
  for (int i = 0; i < 5; ++i) t.flat<int64_t>()(i) = i * i;
  EXPECT_EQ(t.SummarizeValue(10), "[0 1 4 9 16]");
  EXPECT_EQ(t.SummarizeValue(3), "[0 1 4...]");
  Tensor b(DT_BOOL, TensorShape({2}));
  b.flat<bool>()(0) = true;
  b.flat<bool>()(1) = false;
  EXPECT_EQ(b.SummarizeValue(10), "[true false]");
  EXPECT_EQ(t.DebugString(), "Tensor<int64 [5]>");
}

TEST(TensorTest, ConcurrentCopiesKeepCountsRight) {
  Tensor a(DT_FLOAT, TensorShape({8}));
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&a] {
      for (int i = 0; i < 10000; ++i) {
        Tensor c = a;
        (void)c;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(a.RefCountIsOne());
}

// Counts live instances, so the test sees when variant elements die.
struct Counted : VariantValue {
  explicit Counted(int* live) : live(live) { ++*live; }
  ~Counted() override { --*live; }
  const char* TypeName() const override { return "Counted"; }
  std::string DebugString() const override { return "counted"; }
  int* live;
};

TEST(TensorTest, VariantElementsAreConstructedSharedAndDestroyed) {
  int live = 0;
  {
    Tensor t(DT_VARIANT, TensorShape({3}));
    EXPECT_EQ(t.TotalBytes(), 0u);  // no plain bytes
    Variant* v = VariantElements(t);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(v[i].empty());
    v[0] = Variant(std::make_shared<Counted>(&live));
    v[2] = v[0];  // shares the value
    EXPECT_EQ(live, 1);
    EXPECT_EQ(v[2].get<Counted>(), v[0].get<Counted>());
    EXPECT_EQ(v[0].get<TensorList>(), nullptr);
    // Shared: no one may change it in place.
    EXPECT_EQ(v[0].MutableIfUnique<Counted>(), nullptr);
    v[2] = Variant();
    EXPECT_NE(v[0].MutableIfUnique<Counted>(), nullptr);
    EXPECT_EQ(t.SummarizeValue(5), "[counted <empty variant> <empty variant>]");
    Tensor copy = t;  // shares the buffer, not a new element
    EXPECT_EQ(live, 1);
  }
  EXPECT_EQ(live, 0);
}

TEST(TensorTest, MergeShapes) {
  PartialTensorShape out;
  ASSERT_TRUE(MergeShapes(PartialTensorShape({-1, 3}),
                          PartialTensorShape({2, -1}), &out)
                  .ok());
  EXPECT_EQ(out, PartialTensorShape({2, 3}));
  ASSERT_TRUE(
      MergeShapes(PartialTensorShape(), PartialTensorShape({4}), &out).ok());
  EXPECT_EQ(out, PartialTensorShape({4}));
  EXPECT_FALSE(
      MergeShapes(PartialTensorShape({2}), PartialTensorShape({3}), &out).ok());
  EXPECT_FALSE(
      ShapesCompatible(PartialTensorShape({2}), PartialTensorShape({2, 1})));
  EXPECT_TRUE(
      ShapesCompatible(PartialTensorShape(), PartialTensorShape::Scalar()));
}

TEST(TensorDeathTest, WrongTypedAccessAborts) {
  Tensor t(DT_FLOAT, TensorShape({2}));
  EXPECT_DEATH(t.flat<int32_t>(), "accessed as int32");
}

}  // namespace
}  // namespace weft
