// One thread that runs a port's blocking work in order. Between tasks it can run an
// idle hook (the Subscribe poller) every idle period for as long as the hook asks to;
// after that it sleeps until the next task or Wake(). Safe to destroy from one of its own tasks:
// the thread then finishes on its own without touching the destroyed owner.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"

namespace labgate::serial {

// The worker is also a capability for the thread-safety analysis: "running in the worker's
// place" (a task, the idle hook, or an inline attempt). State only that code may touch is
// ABSL_GUARDED_BY the worker, and code that runs there begins with AssertInPlace().
class ABSL_LOCKABLE PortWorker {
 public:
  using Task = std::function<void()>;

  // `idle` (may be empty) runs whenever no task arrived within `idle_period_ms`; it
  // returns whether it wants to run again.
  PortWorker(std::string name, std::function<bool()> idle, int idle_period_ms);
  // Runs the tasks already queued, then stops. Joins unless called on the worker.
  ~PortWorker();
  PortWorker(const PortWorker&) = delete;
  PortWorker& operator=(const PortWorker&) = delete;

  // Tasks posted after destruction began are run too (they must always run: each
  // one finishes a gRPC call).
  void Post(Task task);
  // Makes the idle hook run again (e.g. a subscriber arrived).
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
