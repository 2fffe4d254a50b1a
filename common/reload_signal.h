// SIGHUP as "reload your configuration": blocked in every thread and taken by one
// watcher thread, so it never interrupts or ends the process.
#pragma once

#include <functional>
#include <memory>

namespace labgate {

// Call in main() before any thread starts, so that every thread inherits the mask.
void BlockReloadSignal();

class ReloadWatcher {
 public:
  // Runs `reload` on the watcher's thread at each SIGHUP.
  explicit ReloadWatcher(std::function<void()> reload);
  // Stops the thread.
  ~ReloadWatcher();
  ReloadWatcher(const ReloadWatcher&) = delete;
  ReloadWatcher& operator=(const ReloadWatcher&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace labgate
