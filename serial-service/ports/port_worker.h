// One thread that runs a port's blocking work in order. Between tasks it runs an idle hook
// (the port's capture), which says what to sleep on next: the device's descriptor, a
// timeout, or neither. A task, Wake() or Stop wakes it at once. Safe to destroy from one of
// its own tasks: the thread then finishes on its own without touching the destroyed owner.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"

namespace labgate::serial {

// What the idle hook asks for: to run again once `fd` polls readable or hung up, or after
// `timeout_ms`, whichever comes first. -1 means neither: only a task or Wake() runs it again.
struct IdleWait {
  int fd = -1;
  int64_t timeout_ms = -1;
};

// The worker is also a capability for the thread-safety analysis: "running in the worker's
// place" (a task, the idle hook, or an inline attempt). State only that code may touch is
// ABSL_GUARDED_BY the worker, and code that runs there begins with AssertInPlace().
class ABSL_LOCKABLE PortWorker {
 public:
  using Task = std::function<void()>;

  // `idle` (may be empty) runs after every task and whenever the wait it asked for ends,
  // if no task is queued.
  PortWorker(std::string name, std::function<IdleWait()> idle);
  // Runs the tasks already queued, then stops. Joins unless called on the worker.
  ~PortWorker();
  PortWorker(const PortWorker&) = delete;
  PortWorker& operator=(const PortWorker&) = delete;

  // Tasks posted after destruction began are run too (they must always run: each
  // one finishes a gRPC call).
  void Post(Task task);
  // Makes the idle hook run again soon (e.g. a subscriber arrived, or an inline attempt left
  // something for it).
  void Wake();

  // Runs `attempt` on the calling thread, in the worker's place, when the worker is idle:
  // nothing queued, no task or idle hook running. It saves two thread hand-offs for work
  // that cannot block (a non-blocking write, a read whose data has already arrived).
  // False, without running it, when the worker is busy. `attempt` must not block or
  // post to this worker and wait.
  bool TryRunInline(const std::function<void()>& attempt);

  // Tells the analysis that the caller runs in the worker's place; debug builds check it.
  void AssertInPlace() const ABSL_ASSERT_EXCLUSIVE_LOCK();

 private:
  struct State;
  static void Run(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace labgate::serial
