#include "session-service/store/reader_pool.h"

#include <utility>

#include "absl/synchronization/mutex.h"

namespace labgate::session {

ReaderPool::ReaderPool(std::vector<std::unique_ptr<SqliteConnection>> connections)
    : connections_(std::move(connections)) {
  for (auto& connection : connections_) {
    threads_.emplace_back([this, raw = connection.get()] { Run(raw); });
  }
}

ReaderPool::~ReaderPool() { Shutdown(); }

bool ReaderPool::Submit(Task task) {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return false;
    tasks_.push_back(std::move(task));
  }
  wake_.Signal();
  return true;
}

void ReaderPool::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
  connections_.clear();
}

void ReaderPool::Run(SqliteConnection* connection) {
  for (;;) {
    Task task;
    {
      absl::MutexLock lock(&mu_);
      while (!stopping_ && tasks_.empty()) wake_.Wait(&mu_);
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task(*connection);
  }
}

}  // namespace labgate::session
