// One thread that runs a port's blocking work in order. Between tasks it can run an
// idle hook (the Subscribe poller). Safe to destroy from one of its own tasks: the
// thread then finishes on its own without touching the destroyed owner.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace labgate::serial {

class PortWorker {
 public:
  using Task = std::function<void()>;

  // `idle` (may be empty) runs whenever no task arrived within `idle_period_ms`.
  PortWorker(std::string name, std::function<void()> idle, int idle_period_ms);
  // Runs the tasks already queued, then stops. Joins unless called on the worker.
  ~PortWorker();
  PortWorker(const PortWorker&) = delete;
  PortWorker& operator=(const PortWorker&) = delete;

  // Tasks posted after destruction began are run too (they must always run: each
  // one finishes a gRPC call).
  void Post(Task task);

 private:
  struct State;
  static void Run(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace labgate::serial
