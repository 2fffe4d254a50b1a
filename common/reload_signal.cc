#include "common/reload_signal.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <thread>

namespace labgate {

void BlockReloadSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

struct ReloadWatcher::State {
  std::atomic<bool> stop{false};
  std::thread thread;
};

ReloadWatcher::ReloadWatcher(std::function<void()> reload) : state_(std::make_unique<State>()) {
  state_->thread = std::thread([state = state_.get(), reload = std::move(reload)] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGHUP);
    for (;;) {
      int signal_number = 0;
      if (sigwait(&set, &signal_number) != 0) continue;
      if (state->stop) return;
      reload();
    }
  });
}

ReloadWatcher::~ReloadWatcher() {
  state_->stop = true;
  // Wakes the watcher's sigwait; SIGHUP is blocked everywhere, so only it takes this.
  pthread_kill(state_->thread.native_handle(), SIGHUP);
  state_->thread.join();
}

}  // namespace labgate
