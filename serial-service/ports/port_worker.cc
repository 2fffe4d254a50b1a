#include "serial-service/ports/port_worker.h"

#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <deque>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/dcheck.h"
#include "common/device_preemptions.h"

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
  State()
      : wake_fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), epoll_fd(epoll_create1(EPOLL_CLOEXEC)) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = wake_fd;
    if (wake_fd >= 0 && epoll_fd >= 0) {
      epolled = epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &event) == 0;
    }
  }
  ~State() {
    if (wake_fd >= 0) close(wake_fd);
    if (epoll_fd >= 0) close(epoll_fd);
  }

  absl::Mutex mu;
  absl::CondVar inline_done;
  // Written to wake the worker from its poll(); read back once it is awake. Without one (no
  // descriptors left) the worker sleeps at most kFallbackSleepMs at a time.
  const int wake_fd;
  // The worker sleeps in epoll_wait() on wake_fd and the device the hook asked for. An inline
  // attempt takes the device out of the set (an epoll set can change while a thread waits on
  // it), so the bytes the attempt itself reads do not wake the worker for nothing.
  const int epoll_fd;
  bool epolled = false;  // set before the thread starts: wake_fd is in epoll_fd
  static constexpr int kFallbackSleepMs = 5;
  int watched_fd ABSL_GUARDED_BY(mu) = -1;
  bool watching ABSL_GUARDED_BY(mu) = false;  // watched_fd is in the set with EPOLLIN
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

  // Puts `fd` (or nothing, -1) in the epoll set as the device, watched for input.
  void WatchLocked(int fd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (fd != watched_fd) {
      // A descriptor closed meanwhile has left the set by itself; the error is expected.
      if (watched_fd >= 0) epoll_ctl(epoll_fd, EPOLL_CTL_DEL, watched_fd, nullptr);
      watched_fd = fd;
      watching = false;
      if (fd < 0) return;
      epoll_event event{};
      event.events = EPOLLIN;
      event.data.fd = fd;
      if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0 && errno == EEXIST) {
        epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event);
      }
      watching = true;
      return;
    }
    SetWatchingLocked(true);
  }
  void SetWatchingLocked(bool on) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (watched_fd < 0 || watching == on || !epolled) return;
    epoll_event event{};
    event.events = on ? static_cast<uint32_t>(EPOLLIN) : 0u;
    event.data.fd = watched_fd;
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, watched_fd, &event);
    watching = on;
  }

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
    state_->SetWatchingLocked(false);
  }
  {
    InPlace in_place(state_.get());
    DevicePreemptions::Around(attempt);
  }
  bool notify;
  {
    absl::MutexLock lock(&state_->mu);
    state_->running = false;
    // Bytes the attempt left unread wake the worker now, as they should.
    state_->SetWatchingLocked(true);
    notify = state_->awaiting_inline;
  }
  if (notify) state_->inline_done.Signal();
  return true;
}

void PortWorker::AssertInPlace() const {
  LG_DCHECK(t_in_place_of == state_.get(), "must run in the port worker's place");
}

// The thread's own reference keeps State alive after its owner has gone.
void PortWorker::Run(std::shared_ptr<State> state) {  // NOLINT(performance-unnecessary-value-param)
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
    const int device = state->wait.fd >= 0 && state->idle ? state->wait.fd : -1;
    int timeout = !state->idle || state->wait.timeout_ms < 0
                      ? -1
                      : static_cast<int>(std::min<int64_t>(state->wait.timeout_ms, INT_MAX));
    if (!state->epolled && (timeout < 0 || timeout > State::kFallbackSleepMs)) {
      timeout = State::kFallbackSleepMs;  // nothing can interrupt the sleep: keep it short
    }
    if (state->epolled) state->WatchLocked(device);
    state->sleeping = true;
    state->mu.Unlock();
    int ready;
    bool device_ready = false;
    if (state->epolled) {
      epoll_event events[2];
      do {
        ready = epoll_wait(state->epoll_fd, events, 2, timeout);
      } while (ready < 0 && errno == EINTR);
      for (int i = 0; i < ready; ++i) device_ready |= events[i].data.fd == device;
    } else {
      pollfd entry = {device, POLLIN, 0};
      do {
        ready = poll(&entry, device >= 0 ? 1 : 0, timeout);
      } while (ready < 0 && errno == EINTR);
      device_ready = ready > 0;
    }
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
    if (ready == 0 || device_ready) state->run_idle = true;
    if (ready < 0) state->run_idle = true;  // a descriptor poll() refuses: let the hook look
  }
}

}  // namespace labgate::serial
