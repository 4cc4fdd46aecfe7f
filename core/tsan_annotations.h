// ThreadSanitizer annotations for the places where weft hands work to
// oneTBB and gets it back. They compile to nothing unless the translation
// unit is built with -fsanitize=thread (GCC's __SANITIZE_THREAD__, clang's
// __has_feature(thread_sanitizer)).
//
// Why they are needed: TSan knows that one thread's writes happen before
// another thread's reads only through synchronization it can see, the
// pthread calls it intercepts and atomics in instrumented code. Debian's
// libtbb is not instrumented: the queues through which a task goes from the
// thread that spawns it to the thread that runs it, and the wait for a task
// group, synchronize properly but invisibly. Without these annotations TSan
// reports every input a task reads (written by the spawner) and every output
// the waiter reads (written by the task) as a race.
//
// What they say, in TSan's terms: Release(addr) makes everything the calling
// thread did so far visible to whoever later calls Acquire(addr) with the
// same address; releases on one address accumulate. They add ordering TSan
// could not see and nothing else, so they hide no race between two tasks
// that really run at the same time.
//
// The places (each call site says which edge it adds):
//  - HandOff(sync, f) wraps a functor given to oneTBB (task_group::run,
//    task_arena::execute and enqueue, the body of tbb::parallel_for): the
//    spawner's writes reach the task (the wrapper releases on its own
//    address when constructed or copied, and acquires on it when called,
//    so the task thread needs to read nothing before acquiring), and the
//    task's writes are released on `sync` when it returns;
//  - Acquire(sync) after the wait (task_group::wait, task_arena::execute,
//    tbb::parallel_for returning): the waiter sees what every task wrote.
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
#endif

namespace weft {
namespace tsan {

#ifdef WEFT_TSAN

inline void Release(const void* addr) {
  __tsan_release(const_cast<void*>(addr));
}
inline void Acquire(const void* addr) {
  __tsan_acquire(const_cast<void*>(addr));
}

// `f` as handed to another thread; see the file comment. A copy or move
// first acquires from its source, since oneTBB copies bodies on the thread
// that splits the work (tbb::parallel_for), not the one that made them.
template <typename F>
class HandedOff {
 public:
  HandedOff(const void* sync, F f) : sync_(sync), f_(std::move(f)) {
    Release(this);
  }
  HandedOff(const HandedOff& other)
      : sync_((Acquire(&other), other.sync_)), f_(other.f_) {
    Release(this);
  }
  HandedOff(HandedOff&& other)
      : sync_((Acquire(&other), other.sync_)), f_(std::move(other.f_)) {
    Release(this);
  }
  HandedOff& operator=(const HandedOff&) = delete;

  template <typename... Args>
  void operator()(Args&&... args) const {
    Acquire(this);
    f_(std::forward<Args>(args)...);
    Release(sync_);
  }

 private:
  const void* const sync_;
  F f_;
};

template <typename F>
HandedOff<F> HandOff(const void* sync, F f) {
  return HandedOff<F>(sync, std::move(f));
}

#else  // !WEFT_TSAN

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
