// Where sessions get the oneTBB arena they own: a process-wide pool of idle
// arenas, keyed by thread count.
//
// Why: with oneTBB 2021.8 (Debian 12) every task_arena that is created with
// a worker slot, used and destroyed leaves 5 to 7 KiB behind outside malloc,
// so a service that creates and destroys sessions grows without bound
// (README, Reliability -> Soak: 10,000 sessions, +54 MiB). A destroyed
// session's arena is kept idle here instead, and the next session that
// wants the same thread count takes it: sessions created one after another
// reuse the same few arenas and memory stays flat.
//
// An arena is never shared: a leased arena belongs to one session until the
// lease ends, so a session's thread count stays its own, as with a fresh
// arena. An idle arena holds no thread (oneTBB's workers leave an arena
// that has no work). At most kMaxIdleArenas stay idle; when the pool is
// full, a returned arena takes the place of the one idle longest, which is
// destroyed.
#ifndef WEFT_EXECUTOR_ARENA_POOL_H_
#define WEFT_EXECUTOR_ARENA_POOL_H_

#include <memory>

#include "oneapi/tbb/task_arena.h"

namespace weft {

// Idle arenas kept at most, all thread counts together.
inline constexpr int kMaxIdleArenas = 8;

// Gives the arena back to the pool (see above for a full pool).
struct ArenaReturn {
  int threads = 0;  // what the arena was created with
  void operator()(tbb::task_arena* arena) const;
};
using ArenaLease = std::unique_ptr<tbb::task_arena, ArenaReturn>;

// An initialized arena of `threads` threads (the caller's thread included),
// idle, for the caller alone until the lease is destroyed. Thread-safe.
ArenaLease LeaseArena(int threads);

// How many idle arenas the pool holds now (for tests).
int IdleArenaCount();

}  // namespace weft

#endif  // WEFT_EXECUTOR_ARENA_POOL_H_
