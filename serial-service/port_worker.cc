#include "serial-service/port_worker.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace labgate::serial {

struct PortWorker::State {
  std::mutex mu;
  std::condition_variable wake;
  std::deque<Task> tasks;
  std::function<bool()> idle;
  int idle_period_ms = 0;
  bool polling = true;  // the idle hook wants to run again
  bool woken = false;
  bool stopping = false;
  bool running = false;          // a task, the idle hook or an inline attempt is running
  bool awaiting_inline = false;  // the worker waits for an inline attempt to end
};

PortWorker::PortWorker(std::string name, std::function<bool()> idle, int idle_period_ms)
    : state_(std::make_shared<State>()) {
  state_->idle = std::move(idle);
  state_->idle_period_ms = idle_period_ms;
  thread_ = std::thread(&PortWorker::Run, state_);
  name.resize(std::min<size_t>(name.size(), 15));
  pthread_setname_np(thread_.native_handle(), name.c_str());
}

PortWorker::~PortWorker() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stopping = true;
    state_->idle = nullptr;
  }
  state_->wake.notify_all();
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

void PortWorker::Post(Task task) {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->tasks.push_back(std::move(task));
  }
  state_->wake.notify_one();
}

void PortWorker::Wake() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->woken = true;
  }
  state_->wake.notify_one();
}

bool PortWorker::TryRunInline(const std::function<void()>& attempt) {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->running || !state_->tasks.empty() || state_->stopping) return false;
    state_->running = true;
  }
  attempt();
  bool notify;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->running = false;
    state_->polling = true;  // the attempt may have changed what the idle hook sees
    notify = state_->awaiting_inline;
  }
  if (notify) state_->wake.notify_one();
  return true;
}

void PortWorker::Run(std::shared_ptr<State> state) {
  std::unique_lock<std::mutex> lock(state->mu);
  for (;;) {
    if (state->running) {  // an inline attempt holds the port
      state->awaiting_inline = true;
      state->wake.wait(lock, [&] { return !state->running; });
      state->awaiting_inline = false;
      continue;
    }
    if (!state->tasks.empty()) {
      Task task = std::move(state->tasks.front());
      state->tasks.pop_front();
      state->running = true;
      lock.unlock();
      task();
      // Destroying the task may destroy the worker's owner; only `state` is used after.
      task = nullptr;
      lock.lock();
      state->running = false;
      state->polling = true;  // a task may have changed what the idle hook sees
      continue;
    }
    if (state->stopping) return;
    if (state->idle && state->idle_period_ms > 0 && state->polling) {
      const bool woken =
          state->wake.wait_for(lock, std::chrono::milliseconds(state->idle_period_ms),
                               [&] { return !state->tasks.empty() || state->stopping; });
      if (woken || !state->idle || state->running) continue;
      std::function<bool()> idle = state->idle;
      state->woken = false;
      state->running = true;
      lock.unlock();
      const bool again = idle();
      lock.lock();
      state->running = false;
      // A Wake() while the hook ran means it must look again.
      state->polling = again || state->woken;
    } else {
      state->wake.wait(lock,
                       [&] { return !state->tasks.empty() || state->stopping || state->woken; });
      state->woken = false;
      state->polling = true;
    }
  }
}

}  // namespace labgate::serial
