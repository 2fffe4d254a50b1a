// A request's cancellation: set once, from any thread; the handler registered for it runs
// once, whether it was registered before or after the cancel.
#pragma once

#include <atomic>
#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate::gateway {

class CancelSignal {
 public:
  bool cancelled() const { return cancelled_.load(); }

  // Runs `handler` now if already cancelled, else when Cancel() is called.
  void OnCancel(std::function<void()> handler) {
    {
      absl::MutexLock lock(&mutex_);
      if (!cancelled_.load()) {
        on_cancel_ = std::move(handler);
        return;
      }
    }
    handler();
  }

  // The first call runs the handler (outside the lock); later calls do nothing.
  void Cancel() {
    std::function<void()> handler;
    {
      absl::MutexLock lock(&mutex_);
      if (cancelled_.exchange(true)) return;
      handler = std::move(on_cancel_);
    }
    if (handler) handler();
  }

 private:
  std::atomic<bool> cancelled_{false};
  absl::Mutex mutex_;
  std::function<void()> on_cancel_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace labgate::gateway
