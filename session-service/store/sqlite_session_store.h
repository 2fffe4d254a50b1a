// SessionStore on SQLite: <data_dir>/sessions.db in WAL mode. One writer thread owns
// the write connection and commits every waiting create/append/close in one
// transaction (group commit), acknowledging each only after COMMIT returns with
// synchronous=FULL. Reads run on a small pool of reader connections.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "session-service/store/event_hub.h"
#include "session-service/store/reader_pool.h"
#include "session-service/store/session_store.h"
#include "session-service/store/sqlite_db.h"

namespace labgate::session {

struct SqliteSessionStoreOptions {
  std::string data_dir;  // created if missing
  int reader_threads = 2;
  int busy_timeout_ms = 5000;
  size_t max_batch = 1024;  // most requests committed in one transaction
};

class SqliteSessionStore : public SessionStore {
 public:
  static constexpr const char* kDatabaseFileName = "sessions.db";

  // Opens or creates the database and brings its schema up to date.
  static absl::StatusOr<std::unique_ptr<SqliteSessionStore>> Open(
      const SqliteSessionStoreOptions& options);
  ~SqliteSessionStore() override;

  void CreateSession(CreateSessionParams params, StoreCallback<SessionRecord> done) override;
  void CloseSession(std::string session_id, StoreCallback<SessionRecord> done) override;
  void AppendMessage(AppendParams params, StoreCallback<MessageRecord> done) override;
  void GetSession(std::string session_id, StoreCallback<SessionRecord> done) override;
  void ListSessions(ListSessionsQuery query,
                    StoreCallback<std::vector<SessionRecord>> done) override;
  void QueryMessages(MessageQuery query, StoreCallback<MessagePage> done) override;
  void ExportSession(std::string session_id, StoreCallback<SessionExportRecord> done) override;
  void FeatureIndex(std::string session_id,
                    StoreCallback<std::map<std::string, int64_t>> done) override;
  void SessionStats(std::string session_id, StoreCallback<SessionStatsRecord> done) override;
  uint64_t Subscribe(std::string session_id, EventCallback callback) override;
  void Unsubscribe(uint64_t subscription_id) override;
  // Must not be called from a store callback (it joins the store's threads).
  void Shutdown() override;

  // Transactions the writer has committed; fewer than the writes when batching works.
  uint64_t committed_transactions() const { return committed_transactions_.load(); }
  const std::string& database_path() const { return database_path_; }

  // One queued write; defined in the .cc file.
  class WriteRequest;

 private:
  SqliteSessionStore(std::string database_path, size_t max_batch,
                     std::unique_ptr<SqliteConnection> writer,
                     std::vector<std::unique_ptr<SqliteConnection>> readers);

  void EnqueueWrite(std::unique_ptr<WriteRequest> request);
  void WriterLoop();
  void CommitBatch(std::deque<std::unique_ptr<WriteRequest>>& batch);

  const std::string database_path_;
  const size_t max_batch_;
  std::unique_ptr<SqliteConnection> writer_connection_;  // used by the writer thread only
  ReaderPool readers_;
  EventHub events_;
  std::atomic<uint64_t> committed_transactions_{0};

  std::mutex mu_;
  std::condition_variable wake_writer_;
  std::deque<std::unique_ptr<WriteRequest>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::mutex shutdown_mu_;
  std::thread writer_thread_;
};

}  // namespace labgate::session
