// The pool of idle oneTBB arenas that sessions lease (executor/arena_pool.h):
// a returned arena is reused by the next lease of the same thread count,
// never handed to two leases at once, the pool stays bounded, and sessions
// created and destroyed one after another keep reusing one arena while
// their runs stay right.
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "executor/arena_pool.h"
#include "executor/session.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace arena_pool_test {

TEST(ArenaPoolTest, AReturnedArenaIsReusedForTheSameThreadCount) {
  tbb::task_arena* first = nullptr;
  {
    ArenaLease lease = LeaseArena(3);
    ASSERT_NE(lease, nullptr);
    EXPECT_TRUE(lease->is_active());
    first = lease.get();
    // A lease is the caller's alone: a second one is another arena.
    ArenaLease other = LeaseArena(3);
    EXPECT_NE(other.get(), first);
  }
  ArenaLease again = LeaseArena(3);
  const bool reused = again.get() == first;
  ArenaLease again2 = LeaseArena(3);
  // Both arenas of the block above went back; the two leases get them.
  EXPECT_TRUE(reused || again2.get() == first);
  // Another thread count never gets an arena made for 3 threads.
  ArenaLease four = LeaseArena(4);
  EXPECT_NE(four.get(), again.get());
  EXPECT_NE(four.get(), again2.get());
  int ran = 0;
  four->execute([&] { ran = 1; });
  EXPECT_EQ(ran, 1);
}

TEST(ArenaPoolTest, ThePoolStaysBounded) {
  {
    std::vector<ArenaLease> leases;
    for (int i = 0; i < kMaxIdleArenas + 5; ++i)
      leases.push_back(LeaseArena(2));
  }
  EXPECT_LE(IdleArenaCount(), kMaxIdleArenas);
}

TEST(ArenaPoolTest, ConcurrentLeasesAreDistinct) {
  constexpr int kThreads = 6;
  std::vector<tbb::task_arena*> got(kThreads);
  std::vector<ArenaLease> held(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        ArenaLease lease = LeaseArena(2);
        lease->execute([] {});
      }
      held[t] = LeaseArena(2);
      got[t] = held[t].get();
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(std::set<tbb::task_arena*>(got.begin(), got.end()).size(),
            static_cast<size_t>(kThreads));
}

std::unique_ptr<Session> MakeSession(int threads) {
  // y = x + x on 4 floats.
  auto def = ParseTextGraphDef(
      "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { "
      "type: DT_FLOAT } } attr { key: \"shape\" value { shape { dim { size: 4 "
      "} } } } }\n"
      "node { name: \"y\" op: \"AddV2\" input: \"x\" input: \"x\" attr { key: "
      "\"T\" value { type: DT_FLOAT } } }\n",
      "add.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  auto graph = ImportGraphDef(*def, ImportOptions());
  EXPECT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(InferShapes(graph->get(), ShapeInferenceOptions()).ok());
  SessionOptions options;
  options.threads = threads;
  auto session =
      Session::Create(std::shared_ptr<const Graph>(std::move(*graph)), options);
  EXPECT_TRUE(session.ok()) << session.status();
  return std::move(*session);
}

TEST(ArenaPoolTest, SessionsOneAfterAnotherReuseTheirArenas) {
  // Session creation and destruction in a loop (the soak of README's
  // Reliability section): the pool never grows past what one live session
  // needs, and every session computes the right values.
  // A session gives its arena back when it ends, and the next one of the
  // same thread count takes it.
  { auto session = MakeSession(5); }
  const int before = IdleArenaCount();
  ASSERT_GE(before, 1);
  {
    auto session = MakeSession(5);
    EXPECT_EQ(IdleArenaCount(), before - 1);
  }
  EXPECT_EQ(IdleArenaCount(), before);
  for (int i = 0; i < 200; ++i) {
    auto session = MakeSession(5);
    Tensor x(DT_FLOAT, TensorShape({4}));
    for (int j = 0; j < 4; ++j) x.data<float>()[j] = float(i + j);
    auto out = session->Run({{"x", x}}, {"y"});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int j = 0; j < 4; ++j) {
      ASSERT_EQ((*out)[0].data<float>()[j], 2.0f * float(i + j)) << i;
    }
  }
  EXPECT_EQ(IdleArenaCount(), before);
}

}  // namespace arena_pool_test
}  // namespace weft
