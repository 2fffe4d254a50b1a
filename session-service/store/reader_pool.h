// A few threads, each owning one read-only SQLite connection, that run queued reads.
// Reads never wait behind the writer: WAL lets them proceed on their own snapshot.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "session-service/store/sqlite_db.h"

namespace labgate::session {

class ReaderPool {
 public:
  using Task = std::function<void(SqliteConnection&)>;

  // One thread per connection.
  explicit ReaderPool(std::vector<std::unique_ptr<SqliteConnection>> connections);
  ~ReaderPool();

  // False once shut down; the task is then not run.
  bool Submit(Task task);
  // Runs every queued task, then joins the threads. Idempotent.
  void Shutdown();

 private:
  void Run(SqliteConnection* connection);

  std::vector<std::unique_ptr<SqliteConnection>> connections_;
  std::vector<std::thread> threads_;
  absl::Mutex mu_;
  absl::CondVar wake_;
  std::deque<Task> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace labgate::session
