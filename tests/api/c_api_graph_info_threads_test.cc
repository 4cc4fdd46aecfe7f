// weft_graph_find_tensor from many threads on one graph: c_api.h promises
// it is safe, and that a name looked up twice gives the same object (whose
// strings stay valid while the graph lives).
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/api/api_testutil.h"
#include "weft/c_api.h"

namespace {

TEST(CApiGraphInfoThreadsTest, ConcurrentLookupsAgree) {
  weft_status* status = weft_status_new();
  weft_graph* graph = weft_graph_load_file(
      weft::testing::ApiTestdata("graph_info.pbtxt").c_str(), nullptr, status);
  ASSERT_NE(graph, nullptr) << weft_status_message(status);
  weft_status_delete(status);

  const std::vector<std::string> names = {"probs", "logits", "halves:1", "k2",
                                          "x"};
  constexpr int kThreads = 8;
  constexpr int kRounds = 200;
  // found[t][i]: what thread t got for names[i] (the same every round).
  std::vector<std::vector<const weft_tensor_info*>> found(
      kThreads, std::vector<const weft_tensor_info*>(names.size()));
  std::vector<int> errors(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      weft_status* s = weft_status_new();
      for (int round = 0; round < kRounds; ++round) {
        for (size_t i = 0; i < names.size(); ++i) {
          // Threads start at different names so that first lookups race.
          const size_t k = (i + t) % names.size();
          const weft_tensor_info* info =
              weft_graph_find_tensor(graph, names[k].c_str(), s);
          if (info == nullptr || names[k] != weft_tensor_info_name(info) ||
              (found[t][k] != nullptr && found[t][k] != info)) {
            ++errors[t];
          }
          found[t][k] = info;
        }
      }
      weft_status_delete(s);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], 0) << "thread " << t;
    EXPECT_EQ(found[t], found[0]) << "thread " << t;
  }
  weft_graph_delete(graph);
}

}  // namespace
