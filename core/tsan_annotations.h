// ThreadSanitizer annotations for the places where weft hands work to
// oneTBB and gets it back. They compile to nothing unless the translation
// unit is built with -fsanitize=thread (GCC's __SANITIZE_THREAD__, clang's
// __has_feature(thread_sanitizer)); `./scripts/test --tsan` builds so.
//
// Why they are needed: TSan knows that one thread's writes happen before
// another thread's reads only through synchronization it sees: the pthread
// calls it intercepts and atomics in instrumented code. Debian's libtbb is
// not instrumented, so two things go wrong without these annotations:
//  1. The queues that take a task from the thread that spawns it to the
//     thread that runs it, and the wait for a task group, synchronize
//     properly but invisibly: every input a task reads (written by the
//     spawner) and every output the waiter reads (written by the task)
//     looks like a race.
//  2. oneTBB's inline header code (task objects, tbb::parallel_for's range
//     splitting and partitioner, the small-object pool that recycles task
//     memory between threads) is compiled into weft's objects and so is
//     instrumented, while the synchronization that orders it lives in
//     libtbb: hundreds of reports on oneTBB's own bookkeeping (measured: 371
//     in the executor suite alone).
//
// What they do:
//  - Release(addr) makes everything the calling thread did so far visible to
//    whoever later calls Acquire(addr) on the same address (releases on one
//    address accumulate). They add only orderings that oneTBB provides and
//    TSan cannot see, so they hide no race between two tasks that really
//    run at the same time.
//  - While a thread runs oneTBB code that weft called, TSan ignores its
//    memory accesses (__tsan_ignore_thread_begin/end; synchronization is
//    still tracked). weft's own code, task bodies included, is always
//    checked; only oneTBB's is not, as if libtbb's headers were part of the
//    uninstrumented library.
//
// Where (each call site says which edge it adds):
//  - HandOff(sync, f) wraps a functor given to oneTBB (task_group::run,
//    task_arena::execute and enqueue, the body of tbb::parallel_for), as a
//    temporary in the call. Built, it releases on its own address and starts
//    ignoring; the copy oneTBB keeps acquires from it (copies are made where
//    oneTBB splits work, tbb::parallel_for's bodies on other threads); when
//    oneTBB runs the copy it stops ignoring and acquires on the copy's
//    address (so the thread reads nothing before acquiring), runs `f`,
//    releases on `sync` and starts ignoring again, since control goes back
//    to oneTBB; the temporary, destroyed when the call returns, stops
//    ignoring.
//  - Acquire(sync) where a wait returns (task_group::wait,
//    task_arena::execute, tbb::parallel_for): the waiter sees what every
//    task released on `sync`, and stops ignoring (a wait may run tasks on
//    the waiting thread, after which it is in oneTBB code again).
//  - EnteringWait() before a wait that weft's code calls directly
//    (task_group::wait): the waiting thread steals tasks, and a stolen
//    tbb::parallel_for piece is split in oneTBB's header code, in task
//    memory another thread's body read a moment ago (recycled through
//    libtbb's pool). Unignored, that split was reported as a race against
//    the body's read of its range (OptimizeTest.Swish*, about 1 run in 60).
//  - EnteringTbb() when a oneTBB worker joins an arena (CpuDevice observes
//    its arena so): before its first task body a worker runs oneTBB's header
//    code too (taking and splitting a tbb::parallel_for range), which no
//    HandOff brackets; unignored, those accesses were reported against
//    weft's reads of recycled task memory.
#ifndef WEFT_CORE_TSAN_ANNOTATIONS_H_
#define WEFT_CORE_TSAN_ANNOTATIONS_H_

#include <utility>

#if defined(__SANITIZE_THREAD__)
#define WEFT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WEFT_TSAN 1
#endif
#endif

#ifdef WEFT_TSAN
#include <sanitizer/tsan_interface.h>
// libtsan's, not declared by every compiler's tsan_interface.h.
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace weft {
namespace tsan {

#ifdef WEFT_TSAN

namespace internal {

// Whether this thread is in oneTBB code that weft called, its accesses
// ignored. TSan fails a thread that ends while ignoring: a oneTBB worker
// ends in oneTBB code, so the flag's destructor (thread exit) stops it.
struct Ignoring {
  bool on = false;
  ~Ignoring() {
    if (on) __tsan_ignore_thread_end();
  }
};
inline Ignoring& ThisThread() {
  thread_local Ignoring ignoring;
  return ignoring;
}
inline void EnterTbb() {
  Ignoring& t = ThisThread();
  if (!t.on) {
    __tsan_ignore_thread_begin();
    t.on = true;
  }
}
inline void LeaveTbb() {
  Ignoring& t = ThisThread();
  if (t.on) {
    __tsan_ignore_thread_end();
    t.on = false;
  }
}

}  // namespace internal

// For a oneTBB worker thread joining an arena (a task_scheduler_observer's
// on_scheduler_entry): TSan ignores it in oneTBB code from then on, not
// only after its first task body; see CpuDevice's observer.
inline void EnteringTbb() { internal::EnterTbb(); }

// Before weft's code waits in oneTBB (task_group::wait); the Acquire that
// follows the wait stops ignoring.
inline void EnteringWait() { internal::EnterTbb(); }

inline void Release(const void* addr) {
  __tsan_release(const_cast<void*>(addr));
}
inline void Acquire(const void* addr) {
  internal::LeaveTbb();
  __tsan_acquire(const_cast<void*>(addr));
}

// `f` as handed to oneTBB; see the file comment.
template <typename F>
class HandedOff {
 public:
  HandedOff(const void* sync, F f)
      : sync_(sync), f_(std::move(f)), temporary_(true) {
    Release(this);
    internal::EnterTbb();
  }
  HandedOff(const HandedOff& other)
      : sync_((AcquireFrom(&other), other.sync_)), f_(other.f_) {
    Release(this);
  }
  HandedOff(HandedOff&& other)
      : sync_((AcquireFrom(&other), other.sync_)), f_(std::move(other.f_)) {
    Release(this);
  }
  HandedOff& operator=(const HandedOff&) = delete;
  ~HandedOff() {
    if (temporary_) internal::LeaveTbb();
  }

  template <typename... Args>
  void operator()(Args&&... args) const {
    Acquire(this);
    f_(std::forward<Args>(args)...);
    Release(sync_);
    internal::EnterTbb();
  }

 private:
  // Acquire without leaving oneTBB code: copies are made inside it.
  static void AcquireFrom(const void* addr) {
    __tsan_acquire(const_cast<void*>(addr));
  }

  const void* const sync_;
  F f_;
  const bool temporary_ = false;
};

template <typename F>
HandedOff<F> HandOff(const void* sync, F f) {
  return HandedOff<F>(sync, std::move(f));
}

#else  // !WEFT_TSAN

inline void EnteringTbb() {}
inline void EnteringWait() {}
inline void Release(const void*) {}
inline void Acquire(const void*) {}
template <typename F>
F HandOff(const void*, F f) {
  return f;
}

#endif  // WEFT_TSAN

}  // namespace tsan
}  // namespace weft

#endif  // WEFT_CORE_TSAN_ANNOTATIONS_H_
