#include "serial-service/ports/port_worker.h"

#include <pthread.h>

#include <algorithm>
#include <deque>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/dcheck.h"

namespace labgate::serial {

namespace {
// The worker whose place the current thread runs in, if any (for AssertInPlace).
thread_local const void* t_in_place_of = nullptr;

// Marks the current thread as running in `state`'s place for its lifetime.
class InPlace {
 public:
  explicit InPlace(const void* state) : outer_(t_in_place_of) { t_in_place_of = state; }
  ~InPlace() { t_in_place_of = outer_; }
  InPlace(const InPlace&) = delete;
  InPlace& operator=(const InPlace&) = delete;

 private:
  const void* outer_;
};
}  // namespace

struct PortWorker::State {
  absl::Mutex mu;
  absl::CondVar wake;
  std::deque<Task> tasks ABSL_GUARDED_BY(mu);
  std::function<bool()> idle ABSL_GUARDED_BY(mu);
  int idle_period_ms = 0;                   // set before the thread starts
  bool polling ABSL_GUARDED_BY(mu) = true;  // the idle hook wants to run again
  bool woken ABSL_GUARDED_BY(mu) = false;
  bool stopping ABSL_GUARDED_BY(mu) = false;
  // A task, the idle hook or an inline attempt is running.
  bool running ABSL_GUARDED_BY(mu) = false;
  // The worker waits for an inline attempt to end.
  bool awaiting_inline ABSL_GUARDED_BY(mu) = false;
};

PortWorker::PortWorker(std::string name, std::function<bool()> idle, int idle_period_ms)
    : state_(std::make_shared<State>()) {
  {
    absl::MutexLock lock(&state_->mu);
    state_->idle = std::move(idle);
  }
  state_->idle_period_ms = idle_period_ms;
  thread_ = std::thread(&PortWorker::Run, state_);
  name.resize(std::min<size_t>(name.size(), 15));
  pthread_setname_np(thread_.native_handle(), name.c_str());
}

PortWorker::~PortWorker() {
  {
    absl::MutexLock lock(&state_->mu);
    state_->stopping = true;
    state_->idle = nullptr;
  }
  state_->wake.SignalAll();
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

void PortWorker::Post(Task task) {
  {
    absl::MutexLock lock(&state_->mu);
    state_->tasks.push_back(std::move(task));
  }
  state_->wake.Signal();
}

void PortWorker::Wake() {
  {
    absl::MutexLock lock(&state_->mu);
    state_->woken = true;
  }
  state_->wake.Signal();
}

bool PortWorker::TryRunInline(const std::function<void()>& attempt) {
  {
    absl::MutexLock lock(&state_->mu);
    if (state_->running || !state_->tasks.empty() || state_->stopping) return false;
    state_->running = true;
  }
  {
    InPlace in_place(state_.get());
    attempt();
  }
  bool notify;
  {
    absl::MutexLock lock(&state_->mu);
    state_->running = false;
    state_->polling = true;  // the attempt may have changed what the idle hook sees
    notify = state_->awaiting_inline;
  }
  if (notify) state_->wake.Signal();
  return true;
}

void PortWorker::AssertInPlace() const {
  LG_DCHECK(t_in_place_of == state_.get(), "must run in the port worker's place");
}

void PortWorker::Run(std::shared_ptr<State> state) {
  absl::MutexLock lock(&state->mu);
  for (;;) {
    if (state->running) {  // an inline attempt holds the port
      state->awaiting_inline = true;
      while (state->running) state->wake.Wait(&state->mu);
      state->awaiting_inline = false;
      continue;
    }
    if (!state->tasks.empty()) {
      Task task = std::move(state->tasks.front());
      state->tasks.pop_front();
      state->running = true;
      state->mu.Unlock();
      {
        InPlace in_place(state.get());
        task();
      }
      // Destroying the task may destroy the worker's owner; only `state` is used after.
      task = nullptr;
      state->mu.Lock();
      state->running = false;
      state->polling = true;  // a task may have changed what the idle hook sees
      continue;
    }
    if (state->stopping) return;
    if (state->idle && state->idle_period_ms > 0 && state->polling) {
      const absl::Time deadline = absl::Now() + absl::Milliseconds(state->idle_period_ms);
      bool woken = false;
      for (;;) {
        woken = !state->tasks.empty() || state->stopping;
        if (woken || state->wake.WaitWithDeadline(&state->mu, deadline)) break;
      }
      woken = woken || !state->tasks.empty() || state->stopping;
      if (woken || !state->idle || state->running) continue;
      std::function<bool()> idle = state->idle;
      state->woken = false;
      state->running = true;
      state->mu.Unlock();
      bool again = false;
      {
        InPlace in_place(state.get());
        again = idle();
      }
      state->mu.Lock();
      state->running = false;
      // A Wake() while the hook ran means it must look again.
      state->polling = again || state->woken;
    } else {
      while (state->tasks.empty() && !state->stopping && !state->woken) {
        state->wake.Wait(&state->mu);
      }
      state->woken = false;
      state->polling = true;
    }
  }
}

}  // namespace labgate::serial
