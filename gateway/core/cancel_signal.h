// A request's cancellation: set once, from any thread; the handler registered for it runs
// once, whether it was registered before or after the cancel.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>

namespace labgate::gateway {

class CancelSignal {
 public:
  bool cancelled() const { return cancelled_.load(); }

  // Runs `handler` now if already cancelled, else when Cancel() is called.
  void OnCancel(std::function<void()> handler) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cancelled_.load()) {
      lock.unlock();
      handler();
      return;
    }
    on_cancel_ = std::move(handler);
  }

  // The first call runs the handler (outside the lock); later calls do nothing.
  void Cancel() {
    std::function<void()> handler;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cancelled_.exchange(true)) return;
      handler = std::move(on_cancel_);
    }
    if (handler) handler();
  }

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;
  std::function<void()> on_cancel_;
};

}  // namespace labgate::gateway
