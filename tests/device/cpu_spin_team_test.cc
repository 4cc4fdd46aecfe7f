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

#include "core/tsan_annotations.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

// Runs as the executor drives a team: the run's own thread in the arena,
// pushed tasks counted in the run's pending counter; task t counts how
// often it ran and pushes 2t+1 and 2t+2 while they are in range (a binary
// tree of tasks spread over the threads).
class TeamRun {
 public:
  TeamRun(CpuSpinTeam* team, tbb::task_arena* arena, int num_tasks)
      : team_(team),
        arena_(arena),
        tsan_workers_(ObserveWorkersForTsan(arena)),
        runs_(num_tasks) {}

  // Calls body(team) on a thread of the arena marked as the team's, then
  // Finish, as the executor does.
  template <typename Body>
  void Run(Body body) {
    std::atomic<int> pending{0};
    pending_ = &pending;
    // tsan::HandOff and Acquire tell ThreadSanitizer about the hand-off
    // inside libtbb, as the executor does (core/tsan_annotations.h).
    arena_->execute(tsan::HandOff(this, [&] {
      CpuSpinTeam::Scope scope(team_);
      body(team_);
      team_->Finish(&pending);
    }));
    tsan::Acquire(this);
    EXPECT_EQ(pending.load(), 0);
  }

  void PushRoot() { team_->Push(&TeamRun::RunTask, this, 0, pending_); }

  static void RunTask(void* context, int task) {
    TeamRun* self = static_cast<TeamRun*>(context);
    self->Note();
    self->runs_[task].fetch_add(1, std::memory_order_relaxed);
    for (int child : {2 * task + 1, 2 * task + 2}) {
      if (child < static_cast<int>(self->runs_.size())) {
        self->team_->Push(&TeamRun::RunTask, self, child, self->pending_);
      }
    }
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
  CpuSpinTeam* const team_;
  tbb::task_arena* const arena_;
  // When Run's callers outnumber the arena's slots, a worker runs the
  // execute delegate (in oneTBB's header code, reading the caller's stack):
  // TSan must ignore workers there as the CpuDevice's arena has it do
  // (without it, ConcurrentRunsShareTheTeam was reported once in the CI
  // runs: a worker reading the delegate another caller built).
  const std::unique_ptr<tbb::task_scheduler_observer> tsan_workers_;
  std::atomic<int>* pending_ = nullptr;
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
  CpuSpinTeam team(&arena);
  TeamRun run(&team, &arena, 0);
  for (int64_t n :
       {int64_t{2}, int64_t{3}, int64_t{7}, int64_t{1000}, int64_t{100003}}) {
    for (int64_t grain : {int64_t{1}, n / 2, n - 1}) {
      if (grain < 1 || n <= grain) continue;
      SpinBlocks blocks(n);
      bool taken = false;
      run.Run([&](CpuSpinTeam* team) {
        taken = team->ParallelFor(n, grain, false, [&](int64_t b, int64_t e) {
          blocks.Record(b, e);
        });
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

TEST(CpuSpinTeamTest, ASharedForkJoinCoversTheRangeOnce) {
  // Shared (4+ units a block) and the cases left as blocks (fewer units a
  // block, more than kMaxSharedUnits units), at 2 and 3 threads.
  for (int threads : {2, 3}) {
    tbb::task_arena arena(threads);
    CpuSpinTeam team(&arena);
    TeamRun run(&team, &arena, 0);
    for (int64_t n : {int64_t{2}, int64_t{7}, int64_t{8}, int64_t{12},
                      int64_t{13}, int64_t{1000}, CpuSpinTeam::kMaxSharedUnits,
                      CpuSpinTeam::kMaxSharedUnits + 1}) {
      for (int repeat = 0; repeat < 20; ++repeat) {
        SpinBlocks blocks(n);
        run.Run([&](CpuSpinTeam* team) {
          ASSERT_TRUE(team->ParallelFor(
              n, 1, true, [&](int64_t b, int64_t e) { blocks.Record(b, e); }));
        });
        ASSERT_TRUE(blocks.CoveredOnce())
            << "threads=" << threads << " n=" << n;
        if (n < CpuSpinTeam::kMinSharedUnits * threads ||
            n > CpuSpinTeam::kMaxSharedUnits) {
          EXPECT_LE(blocks.blocks(), threads) << "n=" << n;
        }
      }
    }
  }
}

TEST(CpuSpinTeamTest, ASharedForkJoinMovesUnitsToTheThreadAhead) {
  // The first call of block 0 stalls; the other thread, done with block 1,
  // takes what is left of block 0 from its back. As blocks, all of [0, 8)
  // would wait for the stalled thread.
  tbb::task_arena arena(2);
  CpuSpinTeam team(&arena);
  TeamRun run(&team, &arena, 0);
  const int64_t n = 16;
  std::vector<std::thread::id> ran_on(n);
  std::vector<int> calls_at(n, 0);
  std::mutex mu;
  run.Run([&](CpuSpinTeam* team) {
    ASSERT_TRUE(team->ParallelFor(n, 1, true, [&](int64_t b, int64_t e) {
      {
        std::lock_guard<std::mutex> lock(mu);
        for (int64_t i = b; i < e; ++i) ran_on[i] = std::this_thread::get_id();
        ++calls_at[b];
      }
      // Long enough for a helper to arrive and finish everything else.
      if (b == 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }));
  });
  // Block 0's owner took its front half, [0, 4), first.
  EXPECT_EQ(calls_at[0], 1);
  for (int64_t i = 1; i < 4; ++i) EXPECT_EQ(ran_on[i], ran_on[0]) << i;
  for (int64_t i = 4; i < n; ++i) EXPECT_NE(ran_on[i], ran_on[0]) << i;
}

TEST(CpuSpinTeamTest, ManyForkJoinsInARowEachComplete) {
  // Back-to-back jobs: a helper late for one must never run a block of the
  // next under the old job's function.
  tbb::task_arena arena(2);
  CpuSpinTeam team(&arena);
  TeamRun run(&team, &arena, 0);
  run.Run([](CpuSpinTeam* team) {
    for (int i = 0; i < 2000; ++i) {
      const int64_t n = 2 + i % 17;
      std::vector<std::atomic<int>> seen(n);
      ASSERT_TRUE(team->ParallelFor(n, 1, false, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) seen[k].fetch_add(1);
      }));
      for (int64_t k = 0; k < n; ++k) ASSERT_EQ(seen[k].load(), 1) << i;
    }
  });
}

TEST(CpuSpinTeamTest, ANestedForkJoinIsLeftToTheCaller) {
  tbb::task_arena arena(2);
  CpuSpinTeam team(&arena);
  TeamRun run(&team, &arena, 0);
  std::atomic<int> nested_taken{0}, outer_blocks{0};
  run.Run([&](CpuSpinTeam* team) {
    ASSERT_TRUE(team->ParallelFor(4, 1, false, [&](int64_t, int64_t) {
      outer_blocks.fetch_add(1);
      if (team->ParallelFor(10, 1, false, [](int64_t, int64_t) {})) {
        nested_taken.fetch_add(1);
      }
    }));
  });
  EXPECT_EQ(outer_blocks.load(), 2);
  EXPECT_EQ(nested_taken.load(), 0);
}

TEST(CpuSpinTeamTest, PushedTasksRunOnceWithinTheArenasThreads) {
  tbb::task_arena arena(2);
  CpuSpinTeam team(&arena);
  for (int round = 0; round < 3; ++round) {  // helpers kept between runs
    TeamRun run(&team, &arena, 4095);
    run.Run([&](CpuSpinTeam*) { run.PushRoot(); });
    EXPECT_TRUE(run.EachTaskRanOnce());
    EXPECT_LE(run.num_threads(), 2u);
    EXPECT_LT(run.max_index(), 2);
  }
}

TEST(CpuSpinTeamTest, ConcurrentRunsShareTheTeam) {
  // Two callers' runs push into one team; each Finish returns once its own
  // tasks have run, whoever ran them.
  tbb::task_arena arena(3);
  CpuSpinTeam team(&arena);
  std::vector<std::unique_ptr<TeamRun>> runs;
  for (int i = 0; i < 6; ++i) {
    runs.push_back(std::make_unique<TeamRun>(&team, &arena, 1023));
  }
  std::vector<std::thread> callers;
  for (auto& run : runs) {
    callers.emplace_back(
        [&run] { run->Run([&](CpuSpinTeam*) { run->PushRoot(); }); });
  }
  for (auto& c : callers) c.join();
  for (auto& run : runs) EXPECT_TRUE(run->EachTaskRanOnce());
}

TEST(CpuSpinTeamTest, OneThreadHasNoHelpers) {
  // Concurrency 1: no helper may start; Finish runs everything itself.
  tbb::task_arena arena(1);
  CpuSpinTeam team(&arena);
  TeamRun run(&team, &arena, 100);
  run.Run([&](CpuSpinTeam*) { run.PushRoot(); });
  EXPECT_TRUE(run.EachTaskRanOnce());
  EXPECT_EQ(run.num_threads(), 1u);
}

TEST(CpuSpinTeamTest, EndingWaitsForSpinningHelpers) {
  // Helpers spinning after a run leave when the team ends; its destructor
  // returns (and the blocks they ran are done) well within the test's time.
  tbb::task_arena arena(4);
  std::atomic<int> blocks{0};
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    CpuSpinTeam team(&arena);
    TeamRun run(&team, &arena, 0);
    run.Run([&](CpuSpinTeam* t) {
      ASSERT_TRUE(t->ParallelFor(4, 1, false, [&](int64_t b, int64_t e) {
        blocks.fetch_add(static_cast<int>(e - b));
      }));
    });
  }
  EXPECT_EQ(blocks.load(), 80);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(CpuSpinTeamTest, ACallerWaitingToEnterMakesBusyHelpersLeave) {
  // One run keeps the team's helper at work with back-to-back fork-joins of
  // 10 us blocks (never 100 us idle) until told to stop. A caller marked
  // Entering makes the helper leave between two of them, and no new one
  // starts while it waits: a spinning helper must not keep it out.
  tbb::task_arena arena(2);
  CpuSpinTeam team(&arena);
  TeamRun busy(&team, &arena, 0);
  std::atomic<bool> stop{false}, helper_working{false};
  std::thread first([&] {
    const std::thread::id own = std::this_thread::get_id();
    busy.Run([&](CpuSpinTeam* t) {
      const auto end =
          std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!stop.load() && std::chrono::steady_clock::now() < end) {
        ASSERT_TRUE(t->ParallelFor(2, 1, false, [&](int64_t, int64_t) {
          const auto until =
              std::chrono::steady_clock::now() + std::chrono::microseconds(10);
          while (std::chrono::steady_clock::now() < until) {
          }
          if (std::this_thread::get_id() != own) helper_working.store(true);
        }));
      }
    });
  });
  while (!helper_working.load()) std::this_thread::yield();
  {
    // Within 300 ms: here it takes 1-5 ms; a helper that ignored the
    // caller stayed until a preemption of 100 us made it idle (about 1 s).
    CpuSpinTeam::Entering entering(&team);
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (team.num_helpers() > 0 && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(team.num_helpers(), 0);
    // Still none while the caller waits, though fork-joins go on.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(team.num_helpers(), 0);
  }
  stop.store(true);
  first.join();
}

TEST(CpuSpinTeamTest, CpuDeviceSplitsThroughTheTeamOfItsArena) {
  tbb::task_arena arena(2);
  CpuDevice device("cpu:0", &arena);
  ASSERT_NE(device.spin_team(), nullptr);
  EXPECT_EQ(device.spin_team()->arena(), &arena);
  tbb::task_arena other(2);
  CpuSpinTeam other_team(&other);
  TeamRun run(device.spin_team(), &arena, 0);
  TeamRun other_run(&other_team, &other, 0);
  const int64_t n = 64;
  const int64_t cost = CpuDevice::kMinCostPerBlock;  // one unit per block
  // Whether the device's blocks ran as the team's fork-join: a fork-join of
  // the team started inside one is refused while that one is in flight.
  auto split = [&](CpuSpinTeam* team) {
    SpinBlocks blocks(n);
    std::atomic<int> inside_team_job{0};
    device.ParallelFor(n, cost, [&](int64_t b, int64_t e) {
      blocks.Record(b, e);
      if (!team->ParallelFor(2, 1, false, [](int64_t, int64_t) {})) {
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
  // No team without threads to help.
  tbb::task_arena one(1);
  EXPECT_EQ(CpuDevice("cpu:1", &one).spin_team(), nullptr);
  EXPECT_EQ(CpuDevice("cpu:2", nullptr).spin_team(), nullptr);
}

}  // namespace
}  // namespace weft
