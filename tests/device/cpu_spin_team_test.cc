#include "device/cpu_spin_team.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "core/tsan_annotations.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

// A run as the executor drives a team: helpers are tasks of a task group,
// pushed tasks count how often each ran and may push more.
class TeamRun {
 public:
  TeamRun(tbb::task_arena* arena, int num_tasks)
      : arena_(arena), runs_(num_tasks) {}

  // Builds the team inside the arena, calls body(team), then Finish and the
  // group's wait, as the executor does.
  template <typename Body>
  void Run(Body body, bool finish = true) {
    // tsan::HandOff and Acquire tell ThreadSanitizer about the hand-offs
    // inside libtbb, as the executor does (core/tsan_annotations.h).
    arena_->execute(tsan::HandOff(this, [&] {
      tbb::task_group group;
      group_ = &group;
      CpuSpinTeam team(arena_, arena_->max_concurrency() - 1, this,
                       &TeamRun::RunTask, &TeamRun::StartHelper);
      team_ = &team;
      {
        CpuSpinTeam::Scope scope(&team);
        body(&team);
        if (finish) team.Finish();
      }
      tsan::EnteringWait();
      group.wait();
      tsan::Acquire(this);
      team_ = nullptr;
      group_ = nullptr;
    }));
    tsan::Acquire(this);
  }

  // Task t pushes 2t+1 and 2t+2 while they are in range: a binary tree of
  // tasks spread over the threads.
  static void RunTask(void* context, int task) {
    TeamRun* self = static_cast<TeamRun*>(context);
    self->Note();
    self->runs_[task].fetch_add(1, std::memory_order_relaxed);
    for (int child : {2 * task + 1, 2 * task + 2}) {
      if (child < static_cast<int>(self->runs_.size())) {
        self->team_->Push(child);
      }
    }
  }
  static void StartHelper(void* context) {
    TeamRun* self = static_cast<TeamRun*>(context);
    self->group_->run(tsan::HandOff(self, [self] { self->team_->Helper(); }));
  }

  void Note() {
    std::lock_guard<std::mutex> lock(mu_);
    threads_.insert(std::this_thread::get_id());
    max_index_ =
        std::max(max_index_, tbb::this_task_arena::current_thread_index());
  }

  bool EachTaskRanOnce() const {
    for (const auto& r : runs_) {
      if (r.load() != 1) return false;
    }
    return true;
  }
  size_t num_threads() const { return threads_.size(); }
  int max_index() const { return max_index_; }

 private:
  tbb::task_arena* const arena_;
  tbb::task_group* group_ = nullptr;
  CpuSpinTeam* team_ = nullptr;
  std::vector<std::atomic<int>> runs_;
  std::mutex mu_;
  std::set<std::thread::id> threads_;
  int max_index_ = -1;
};

// Every index of [0, n) seen once, over contiguous blocks.
class SpinBlocks {
 public:
  explicit SpinBlocks(int64_t n) : counts_(n) {}
  void Record(int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) counts_[i].fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    ++blocks_;
    min_block_ = std::min(min_block_, end - begin);
  }
  bool CoveredOnce() const {
    for (const auto& c : counts_) {
      if (c.load() != 1) return false;
    }
    return true;
  }
  int blocks() const { return blocks_; }
  int64_t min_block() const { return min_block_; }

 private:
  std::vector<std::atomic<int>> counts_;
  std::mutex mu_;
  int blocks_ = 0;
  int64_t min_block_ = INT64_MAX;
};

TEST(CpuSpinTeamTest, ParallelForCoversTheRangeOnceInBlocksPerThread) {
  tbb::task_arena arena(3);
  TeamRun run(&arena, 0);
  for (int64_t n :
       {int64_t{2}, int64_t{3}, int64_t{7}, int64_t{1000}, int64_t{100003}}) {
    for (int64_t grain : {int64_t{1}, n / 2, n - 1}) {
      if (grain < 1 || n <= grain) continue;
      SpinBlocks blocks(n);
      bool taken = false;
      run.Run([&](CpuSpinTeam* team) {
        taken = team->ParallelFor(
            n, grain, [&](int64_t b, int64_t e) { blocks.Record(b, e); });
      });
      ASSERT_TRUE(taken);
      EXPECT_TRUE(blocks.CoveredOnce()) << "n=" << n << " grain=" << grain;
      // At most one block per thread, at least two, near-equal.
      EXPECT_GE(blocks.blocks(), 2);
      EXPECT_LE(blocks.blocks(), 3);
      EXPECT_GE(blocks.min_block(), n / blocks.blocks());
    }
  }
}

TEST(CpuSpinTeamTest, ManyForkJoinsInARowEachComplete) {
  // Back-to-back jobs: a helper late for one must never run a block of the
  // next under the old job's function.
  tbb::task_arena arena(2);
  TeamRun run(&arena, 0);
  run.Run([](CpuSpinTeam* team) {
    for (int i = 0; i < 2000; ++i) {
      const int64_t n = 2 + i % 17;
      std::vector<std::atomic<int>> seen(n);
      ASSERT_TRUE(team->ParallelFor(n, 1, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) seen[k].fetch_add(1);
      }));
      for (int64_t k = 0; k < n; ++k) ASSERT_EQ(seen[k].load(), 1) << i;
    }
  });
}

TEST(CpuSpinTeamTest, ANestedForkJoinIsLeftToTheCaller) {
  tbb::task_arena arena(2);
  TeamRun run(&arena, 0);
  std::atomic<int> nested_taken{0}, outer_blocks{0};
  run.Run([&](CpuSpinTeam* team) {
    ASSERT_TRUE(team->ParallelFor(4, 1, [&](int64_t, int64_t) {
      outer_blocks.fetch_add(1);
      if (team->ParallelFor(10, 1, [](int64_t, int64_t) {})) {
        nested_taken.fetch_add(1);
      }
    }));
  });
  EXPECT_EQ(outer_blocks.load(), 2);
  EXPECT_EQ(nested_taken.load(), 0);
}

TEST(CpuSpinTeamTest, PushedTasksRunOnceWithinTheArenasThreads) {
  tbb::task_arena arena(2);
  TeamRun run(&arena, 4095);
  run.Run([](CpuSpinTeam* team) { team->Push(0); });
  EXPECT_TRUE(run.EachTaskRanOnce());
  EXPECT_LE(run.num_threads(), 2u);
  EXPECT_LT(run.max_index(), 2);
}

TEST(CpuSpinTeamTest, FinishRunsTasksNoHelperTook) {
  // One thread: no helper can ever start, Finish runs everything itself.
  tbb::task_arena arena(1);
  TeamRun run(&arena, 100);
  run.Run([](CpuSpinTeam* team) { team->Push(0); });
  EXPECT_TRUE(run.EachTaskRanOnce());
  EXPECT_EQ(run.num_threads(), 1u);
}

TEST(CpuSpinTeamTest, IdleHelpersLeaveOnTheirOwn) {
  // Without Finish the helpers leave after kSpinLimit without work, so the
  // group's wait returns.
  tbb::task_arena arena(2);
  TeamRun run(&arena, 0);
  const auto start = std::chrono::steady_clock::now();
  run.Run(
      [](CpuSpinTeam* team) {
        ASSERT_TRUE(team->ParallelFor(2, 1, [](int64_t, int64_t) {}));
      },
      /*finish=*/false);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(CpuSpinTeamTest, CpuDeviceSplitsThroughTheTeamOfItsArena) {
  tbb::task_arena arena(2);
  CpuDevice device("cpu:0", &arena);
  tbb::task_arena other(2);
  TeamRun run(&arena, 0);
  TeamRun other_run(&other, 0);
  const int64_t n = 64;
  const int64_t cost = CpuDevice::kMinCostPerBlock;  // one unit per block
  // Whether the device's blocks ran as the team's fork-join: a fork-join of
  // the team started inside one is refused while that one is in flight.
  auto split = [&](CpuSpinTeam* team) {
    SpinBlocks blocks(n);
    std::atomic<int> inside_team_job{0};
    device.ParallelFor(n, cost, [&](int64_t b, int64_t e) {
      blocks.Record(b, e);
      if (!team->ParallelFor(2, 1, [](int64_t, int64_t) {})) {
        inside_team_job.fetch_add(1);
      }
    });
    EXPECT_TRUE(blocks.CoveredOnce());
    return inside_team_job.load() == blocks.blocks();
  };
  run.Run([&](CpuSpinTeam* team) {
    EXPECT_EQ(CpuSpinTeam::Current(), team);
    EXPECT_TRUE(split(team));
  });
  // A team of another arena is not used: oneTBB splits the work.
  other_run.Run([&](CpuSpinTeam* team) { EXPECT_FALSE(split(team)); });
  EXPECT_EQ(CpuSpinTeam::Current(), nullptr);
}

}  // namespace
}  // namespace weft
