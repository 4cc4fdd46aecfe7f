#include "executor/arena_pool.h"

#include <mutex>
#include <utility>
#include <vector>

namespace weft {
namespace {

struct Pool {
  std::mutex mu;
  // Owned, each with the thread count it was created with (asked for, not
  // max_concurrency(), which oneTBB may report differently).
  std::vector<std::pair<int, tbb::task_arena*>> idle;
};

// Never destroyed: arenas still idle at exit are left to the process's end
// rather than terminated from a static destructor, after oneTBB's own
// teardown may have begun.
Pool& GetPool() {
  static Pool* pool = new Pool;
  return *pool;
}

}  // namespace

ArenaLease LeaseArena(int threads) {
  Pool& pool = GetPool();
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    for (auto it = pool.idle.begin(); it != pool.idle.end(); ++it) {
      if (it->first == threads) {
        tbb::task_arena* arena = it->second;
        pool.idle.erase(it);
        return ArenaLease(arena, ArenaReturn{threads});
      }
    }
  }
  auto arena = std::make_unique<tbb::task_arena>(threads);
  arena->initialize();
  return ArenaLease(arena.release(), ArenaReturn{threads});
}

void ArenaReturn::operator()(tbb::task_arena* arena) const {
  if (arena == nullptr) return;
  Pool& pool = GetPool();
  tbb::task_arena* evicted = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    // Full: the arena idle longest makes room, so that the thread counts in
    // use now stay pooled.
    if (static_cast<int>(pool.idle.size()) >= kMaxIdleArenas) {
      evicted = pool.idle.front().second;
      pool.idle.erase(pool.idle.begin());
    }
    pool.idle.emplace_back(threads, arena);
  }
  delete evicted;  // outside the lock: terminating an arena may wait
}

int IdleArenaCount() {
  Pool& pool = GetPool();
  std::lock_guard<std::mutex> lock(pool.mu);
  return static_cast<int>(pool.idle.size());
}

}  // namespace weft
