#include "session-service/store/reader_pool.h"

#include <utility>

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
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return false;
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

void ReaderPool::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
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
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task(*connection);
  }
}

}  // namespace labgate::session
