// weft's locks: Mutex (reader/writer), MutexLock, ReaderMutexLock and
// Notification, with the interface of abseil's and the same clang
// thread-safety annotations (ABSL_GUARDED_BY and friends work on them).
//
// Why not absl::Mutex: these are built on the standard library's
// std::shared_mutex, std::mutex and std::condition_variable, which are
// pthread objects that ThreadSanitizer intercepts, so a TSan build of weft
// sees every lock weft takes. Debian's abseil is not built with the
// sanitizer: TSan saw neither absl::Mutex nor absl::Notification and
// reported the data they guard as races. Uncontended, a pthread rwlock costs
// one atomic instruction to take and one to give back, as absl::Mutex does
// (Debian's abseil also checks lock order on every absl::Mutex operation).
#ifndef WEFT_CORE_MUTEX_H_
#define WEFT_CORE_MUTEX_H_

#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "absl/base/thread_annotations.h"

namespace weft {

// A reader/writer lock: any number of readers, or one writer. Constant-
// initialized as a global (ABSL_CONST_INIT), like absl::Mutex(kConstInit).
class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.lock_shared(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds `mu` exclusively for its scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Holds `mu` shared (as a reader) for its scope.
class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(Mutex* mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->ReaderLock();
  }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A one-shot event: Notify() once; WaitForNotification() returns once it has
// been notified. Everything the notifying thread did before Notify()
// happens before WaitForNotification() returns.
class Notification {
 public:
  Notification() = default;
  Notification(const Notification&) = delete;
  Notification& operator=(const Notification&) = delete;

  void Notify() {
    std::lock_guard<std::mutex> lock(mu_);
    notified_ = true;
    cv_.notify_all();
  }
  bool HasBeenNotified() const {
    std::lock_guard<std::mutex> lock(mu_);
    return notified_;
  }
  void WaitForNotification() const {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return notified_; });
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool notified_ = false;
};

}  // namespace weft

#endif  // WEFT_CORE_MUTEX_H_
