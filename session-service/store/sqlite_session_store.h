// SessionStore on SQLite: <data_dir>/sessions.db in WAL mode. One writer thread owns
// the write connection and commits every waiting create/append/close in one
// transaction (group commit), acknowledging each only after COMMIT returns with
// synchronous=FULL. Reads run on a small pool of reader connections.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
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
  // Commit delay (like PostgreSQL's commit_delay/commit_siblings). When the writer has
  // recently seen more writes outstanding than are queued now (the writes it just
  // acknowledged tend to come straight back from pipelining clients), it waits for them
  // before BEGIN, so one fsync covers them all instead of two half-size batches
  // alternating. The wait ends as soon as that many are queued, when no new write has
  // arrived for an adaptive gap (a few observed inter-arrival times, at least
  // `commit_gap_min_us`), or after `commit_delay_max_us` (further capped by the recent
  // commit time). A lone writer is never delayed: it leaves nothing outstanding.
  // 0 turns the delay off. Acknowledgements still wait for COMMIT (synchronous=FULL).
  int64_t commit_delay_max_us = 4000;
  int64_t commit_gap_min_us = 250;
};

// What the writer thread has done; read with SqliteSessionStore::writer_stats().
struct WriterStats {
  uint64_t transactions = 0;     // committed transactions
  uint64_t writes = 0;           // writes in committed transactions
  uint64_t largest_batch = 0;    // most writes in one committed transaction
  uint64_t delayed_batches = 0;  // batches the commit delay held back
  uint64_t delay_us = 0;         // total time spent in commit delays
  uint64_t execute_us = 0;       // total time from BEGIN to just before COMMIT
  uint64_t commit_us = 0;        // total time in COMMIT (the WAL write and fsync)
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
  void ImportSession(SessionImportParams params, StoreCallback<SessionRecord> done) override;
  void SaveReservations(std::vector<ReservationRow> rows, StoreCallback<int64_t> done) override;
  void LoadActiveReservations(StoreCallback<std::vector<ReservationRow>> done) override;
  void SaveTasks(std::vector<TaskRow> rows, StoreCallback<int64_t> done) override;
  void DeleteExpiredTasks(std::string now, StoreCallback<int64_t> done) override;
  void GetTask(std::string id, std::string now, StoreCallback<TaskRow> done) override;
  void LoadLiveTasks(std::string now, StoreCallback<std::vector<TaskRow>> done) override;
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
  WriterStats writer_stats() const;
  const std::string& database_path() const { return database_path_; }

  // One queued write; defined in the .cc file.
  class WriteRequest;

 private:
  SqliteSessionStore(std::string database_path, const SqliteSessionStoreOptions& options,
                     std::unique_ptr<SqliteConnection> writer,
                     std::vector<std::unique_ptr<SqliteConnection>> readers);

  void EnqueueWrite(std::unique_ptr<WriteRequest> request) ABSL_LOCKS_EXCLUDED(mu_);
  void WriterLoop() ABSL_LOCKS_EXCLUDED(mu_);
  // Called with mu_ held and the queue non-empty: waits (releasing mu_) while the commit
  // delay policy expects more writes to join the next batch.
  void DelayCommit() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) ABSL_LOCKS_EXCLUDED(stats_mu_);
  void CommitBatch(std::deque<std::unique_ptr<WriteRequest>>& batch) ABSL_LOCKS_EXCLUDED(mu_);
  // Brings labgate_session_database_bytes up to date (the writer thread, or before it runs).
  void ReportDatabaseSize();

  const std::string database_path_;
  const size_t max_batch_;
  const int64_t commit_delay_max_us_;
  const int64_t commit_gap_min_us_;
  std::unique_ptr<SqliteConnection> writer_connection_;  // used by the writer thread only
  ReaderPool readers_;
  EventHub events_;
  std::atomic<uint64_t> committed_transactions_{0};

  absl::Mutex mu_;
  absl::CondVar wake_writer_;
  std::deque<std::unique_ptr<WriteRequest>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Commit-delay state. `outstanding_` estimates how many writes clients keep in flight:
  // the last batch plus what queued up while it committed.
  size_t outstanding_ ABSL_GUARDED_BY(mu_) = 0;
  std::chrono::steady_clock::time_point last_arrival_ ABSL_GUARDED_BY(mu_);
  double arrival_gap_us_ ABSL_GUARDED_BY(mu_) = 0;  // moving average of inter-arrival time
  double commit_us_ = 0;       // moving average of BEGIN..COMMIT; writer thread only
  double reported_bytes_ = 0;  // this store's share of the database size gauge; likewise
  mutable absl::Mutex stats_mu_;
  WriterStats stats_ ABSL_GUARDED_BY(stats_mu_);
  absl::Mutex shutdown_mu_;  // one Shutdown() at a time
  std::thread writer_thread_;
};

}  // namespace labgate::session
