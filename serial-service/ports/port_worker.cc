#include "serial-service/ports/port_worker.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <deque>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
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
  State() : wake_fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~State() {
    if (wake_fd >= 0) close(wake_fd);
  }

  absl::Mutex mu;
  absl::CondVar inline_done;
  // Written to wake the worker from its poll(); read back once it is awake. Without one (no
  // descriptors left) the worker sleeps at most kFallbackSleepMs at a time.
  const int wake_fd;
  static constexpr int kFallbackSleepMs = 5;
  std::deque<Task> tasks ABSL_GUARDED_BY(mu);
  std::function<IdleWait()> idle ABSL_GUARDED_BY(mu);
  IdleWait wait ABSL_GUARDED_BY(mu);              // what the hook last asked for
  bool run_idle ABSL_GUARDED_BY(mu) = true;       // the hook is due (it runs once at start)
  bool sleeping ABSL_GUARDED_BY(mu) = false;      // in poll(), outside the mutex
  bool wake_written ABSL_GUARDED_BY(mu) = false;  // wake_fd holds a count
  bool stopping ABSL_GUARDED_BY(mu) = false;
  // A task, the idle hook or an inline attempt is running.
  bool running ABSL_GUARDED_BY(mu) = false;
  // The worker waits for an inline attempt to end.
  bool awaiting_inline ABSL_GUARDED_BY(mu) = false;

  // Interrupts a sleeping worker. Written once per sleep, so a burst of posts costs one.
  void WakeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (!sleeping || wake_written || wake_fd < 0) return;
    wake_written = true;
    const uint64_t one = 1;
    while (write(wake_fd, &one, sizeof(one)) < 0 && errno == EINTR) {
    }
  }
};

PortWorker::PortWorker(std::string name, std::function<IdleWait()> idle)
    : state_(std::make_shared<State>()) {
  {
    absl::MutexLock lock(&state_->mu);
    state_->idle = std::move(idle);
  }
  thread_ = std::thread(&PortWorker::Run, state_);
  name.resize(std::min<size_t>(name.size(), 15));
  pthread_setname_np(thread_.native_handle(), name.c_str());
}

PortWorker::~PortWorker() {
  {
    absl::MutexLock lock(&state_->mu);
    state_->stopping = true;
    state_->idle = nullptr;
    state_->WakeLocked();
  }
  state_->inline_done.SignalAll();
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

void PortWorker::Post(Task task) {
  absl::MutexLock lock(&state_->mu);
  state_->tasks.push_back(std::move(task));
  state_->WakeLocked();
}

void PortWorker::Wake() {
  absl::MutexLock lock(&state_->mu);
  state_->run_idle = true;
  state_->WakeLocked();
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
    notify = state_->awaiting_inline;
  }
  if (notify) state_->inline_done.Signal();
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
      while (state->running) state->inline_done.Wait(&state->mu);
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
      state->run_idle = true;  // a task may have changed what the hook sees
      continue;
    }
    if (state->stopping) return;
    if (state->run_idle && state->idle) {
      std::function<IdleWait()> idle = state->idle;
      state->run_idle = false;
      state->running = true;
      state->mu.Unlock();
      IdleWait wait;
      {
        InPlace in_place(state.get());
        wait = idle();
      }
      state->mu.Lock();
      state->running = false;
      state->wait = wait;
      continue;
    }
    // Sleep until a task, Wake(), the descriptor or the timeout.
    pollfd entries[2] = {{state->wake_fd, POLLIN, 0}, {state->wait.fd, POLLIN, 0}};
    const bool on_device = state->wait.fd >= 0 && state->idle;
    int timeout = !state->idle || state->wait.timeout_ms < 0
                      ? -1
                      : static_cast<int>(std::min<int64_t>(state->wait.timeout_ms, INT_MAX));
    if (state->wake_fd < 0 && (timeout < 0 || timeout > State::kFallbackSleepMs)) {
      timeout = State::kFallbackSleepMs;
    }
    state->sleeping = true;
    state->mu.Unlock();
    int ready;
    do {
      ready = poll(entries, on_device ? 2 : 1, timeout);
    } while (ready < 0 && errno == EINTR);
    state->mu.Lock();
    state->sleeping = false;
    if (state->wake_written) {
      uint64_t drained;
      while (read(state->wake_fd, &drained, sizeof(drained)) < 0 && errno == EINTR) {
      }
      state->wake_written = false;
    }
    // The device spoke (or hung up), or the hook's timeout passed: the hook runs again.
    // A wake for a task only runs the task, which runs the hook after it anyway.
    if (ready == 0 || (on_device && entries[1].revents != 0)) state->run_idle = true;
    if (ready < 0) state->run_idle = true;  // a descriptor poll() refuses: let the hook look
  }
}

}  // namespace labgate::serial
