#include "session-service/store/sqlite_session_store.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "session-service/store/feature_tags.h"
#include "session-service/store/migrations.h"
#include "session-service/store/sqlite_read_ops.h"
#include "session-service/store/sqlite_write_ops.h"
#include "session-service/store/store_metrics.h"
#include "session-service/store/validation.h"

namespace labgate::session {

class SqliteSessionStore::WriteRequest {
 public:
  virtual ~WriteRequest() = default;
  // Runs inside the batch transaction under a savepoint.
  virtual absl::Status Execute(SqliteConnection& db, const WriteTime& now) = 0;
  // Called once after the batch: `status` is this request's own error, or the
  // transaction's; OK means the change is committed. The event is published before the
  // caller hears back, so a watcher subscribed before the call sees it before the
  // acknowledgement, and one subscribed after the acknowledgement never sees it.
  virtual void Complete(const absl::Status& status, EventHub& events) = 0;
};

namespace {

using WriteRequest = SqliteSessionStore::WriteRequest;

absl::Status ShutDownError() { return absl::UnavailableError("session store is shut down"); }

// An imported message's session until the new one exists (validation wants one).
constexpr char kImportPlaceholderId[] = "import";

class CreateRequest : public WriteRequest {
 public:
  CreateRequest(CreateSessionParams params, StoreCallback<SessionRecord> done)
      : params_(std::move(params)), done_(std::move(done)) {}
  absl::Status Execute(SqliteConnection& db, const WriteTime& now) override {
    absl::StatusOr<SessionRecord> created = InsertSession(db, params_, now);
    if (!created.ok()) return created.status();
    session_ = std::move(*created);
    return absl::OkStatus();
  }
  void Complete(const absl::Status& status, EventHub& events) override {
    if (!status.ok()) return done_(status);
    events.Publish({SessionEventRecord::Type::kCreated, session_, std::nullopt});
    done_(std::move(session_));
  }

 private:
  CreateSessionParams params_;
  StoreCallback<SessionRecord> done_;
  SessionRecord session_;
};

class CloseRequest : public WriteRequest {
 public:
  CloseRequest(std::string session_id, StoreCallback<SessionRecord> done)
      : session_id_(std::move(session_id)), done_(std::move(done)) {}
  absl::Status Execute(SqliteConnection& db, const WriteTime& now) override {
    absl::StatusOr<SessionRecord> closed = MarkSessionClosed(db, session_id_, now, &changed_);
    if (!closed.ok()) return closed.status();
    session_ = std::move(*closed);
    return absl::OkStatus();
  }
  void Complete(const absl::Status& status, EventHub& events) override {
    if (!status.ok()) return done_(status);
    // Closing twice is harmless and does not announce a second close.
    if (changed_) events.Publish({SessionEventRecord::Type::kClosed, session_, std::nullopt});
    done_(std::move(session_));
  }

 private:
  std::string session_id_;
  StoreCallback<SessionRecord> done_;
  SessionRecord session_;
  bool changed_ = false;
};

class AppendRequest : public WriteRequest {
 public:
  AppendRequest(AppendParams params, StoreCallback<MessageRecord> done)
      : params_(std::move(params)), done_(std::move(done)) {}
  absl::Status Execute(SqliteConnection& db, const WriteTime& now) override {
    absl::StatusOr<AppendResult> appended = InsertMessage(db, params_, now);
    if (!appended.ok()) return appended.status();
    result_ = std::move(*appended);
    return absl::OkStatus();
  }
  void Complete(const absl::Status& status, EventHub& events) override {
    if (!status.ok()) return done_(status);
    // A replay stored nothing, so watchers have nothing new to hear.
    if (!result_.replayed) {
      StoreMetrics::Get().appends.Get().Increment();
      events.Publish({SessionEventRecord::Type::kAppended, result_.session, result_.message});
    }
    done_(std::move(result_.message));
  }

 private:
  AppendParams params_;
  StoreCallback<MessageRecord> done_;
  AppendResult result_;
};

class ImportRequest : public WriteRequest {
 public:
  ImportRequest(SessionImportParams params, StoreCallback<SessionRecord> done)
      : params_(std::move(params)), done_(std::move(done)) {}
  absl::Status Execute(SqliteConnection& db, const WriteTime& now) override {
    absl::StatusOr<SessionRecord> created = InsertSession(db, params_.session, now);
    if (!created.ok()) return created.status();
    for (size_t i = 0; i < params_.messages.size(); ++i) {
      AppendParams& message = params_.messages[i];
      message.session_id = created->id;
      absl::StatusOr<AppendResult> appended = InsertMessage(db, message, now);
      if (!appended.ok()) {
        return absl::Status(
            appended.status().code(),
            absl::StrCat("message ", i + 1, " of the import: ", appended.status().message()));
      }
    }
    bool changed = false;
    absl::StatusOr<SessionRecord> closed = MarkSessionClosed(db, created->id, now, &changed);
    if (!closed.ok()) return closed.status();
    session_ = std::move(*closed);
    return absl::OkStatus();
  }
  void Complete(const absl::Status& status, EventHub& events) override {
    if (!status.ok()) return done_(status);
    // Watchers hear of the session, not of each of its (possibly many) messages.
    events.Publish({SessionEventRecord::Type::kCreated, session_, std::nullopt});
    events.Publish({SessionEventRecord::Type::kClosed, session_, std::nullopt});
    done_(std::move(session_));
  }

 private:
  SessionImportParams params_;
  StoreCallback<SessionRecord> done_;
  SessionRecord session_;
};

// Rows written in one transaction by one upsert statement: reservations, tasks. `bind` binds a
// row's values, and the write's time, to the statement.
template <typename Row>
class UpsertRowsRequest : public WriteRequest {
 public:
  using Bind = void (*)(Statement& statement, const Row& row, const std::string& now);
  UpsertRowsRequest(const char* sql, Bind bind, std::vector<Row> rows, StoreCallback<int64_t> done)
      : sql_(sql), bind_(bind), rows_(std::move(rows)), done_(std::move(done)) {}
  absl::Status Execute(SqliteConnection& db, const WriteTime& now) override {
    absl::StatusOr<Statement> upsert = db.Prepare(sql_);
    if (!upsert.ok()) return upsert.status();
    for (const Row& row : rows_) {
      bind_(*upsert, row, now.rfc3339);
      if (absl::Status ran = upsert->Run(); !ran.ok()) return ran;
    }
    return absl::OkStatus();
  }
  void Complete(const absl::Status& status, EventHub& /*events*/) override {
    if (!status.ok()) return done_(status);
    done_(static_cast<int64_t>(rows_.size()));
  }

 private:
  const char* const sql_;
  const Bind bind_;
  std::vector<Row> rows_;
  StoreCallback<int64_t> done_;
};

constexpr char kUpsertReservation[] =
    "INSERT INTO reservations(id, state, body, updated_at) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT(id) DO UPDATE SET state = excluded.state, body = excluded.body, "
    "updated_at = excluded.updated_at";

void BindReservation(Statement& statement, const ReservationRow& row, const std::string& now) {
  statement.BindText(1, row.id);
  statement.BindText(2, row.state);
  statement.BindText(3, row.body);
  statement.BindText(4, now);
}

constexpr char kUpsertTask[] =
    "INSERT INTO tasks(id, owner, status, body, expires_at, updated_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(id) DO UPDATE SET owner = excluded.owner, "
    "status = excluded.status, body = excluded.body, expires_at = excluded.expires_at, "
    "updated_at = excluded.updated_at";

void BindTask(Statement& statement, const TaskRow& row, const std::string& now) {
  statement.BindText(1, row.id);
  statement.BindText(2, row.owner);
  statement.BindText(3, row.status);
  statement.BindText(4, row.body);
  statement.BindText(5, row.expires_at);
  statement.BindText(6, now);
}

class DeleteExpiredTasksRequest : public WriteRequest {
 public:
  DeleteExpiredTasksRequest(std::string now, StoreCallback<int64_t> done)
      : now_(std::move(now)), done_(std::move(done)) {}
  absl::Status Execute(SqliteConnection& db, const WriteTime& /*now*/) override {
    absl::StatusOr<Statement> remove = db.Prepare("DELETE FROM tasks WHERE expires_at <= ?1");
    if (!remove.ok()) return remove.status();
    remove->BindText(1, now_);
    if (absl::Status ran = remove->Run(); !ran.ok()) return ran;
    absl::StatusOr<int64_t> changed = db.QueryInt64("SELECT changes()");
    if (!changed.ok()) return changed.status();
    deleted_ = *changed;
    return absl::OkStatus();
  }
  void Complete(const absl::Status& status, EventHub& /*events*/) override {
    if (!status.ok()) return done_(status);
    done_(deleted_);
  }

 private:
  std::string now_;
  StoreCallback<int64_t> done_;
  int64_t deleted_ = 0;
};

// The task row a "SELECT id, owner, status, body, expires_at" statement stands on.
TaskRow TaskRowAt(Statement& select) {
  return {select.ColumnText(0), select.ColumnText(1), select.ColumnText(2), select.ColumnText(3),
          select.ColumnText(4)};
}

absl::StatusOr<TaskRow> ReadTask(SqliteConnection& db, const std::string& id,
                                 const std::string& now) {
  absl::StatusOr<Statement> select = db.Prepare(
      "SELECT id, owner, status, body, expires_at FROM tasks WHERE id = ?1 AND expires_at > ?2");
  if (!select.ok()) return select.status();
  select->BindText(1, id);
  select->BindText(2, now);
  absl::StatusOr<bool> row = select->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError(absl::StrCat("no task ", id));
  return TaskRowAt(*select);
}

absl::StatusOr<std::vector<TaskRow>> ReadLiveTasks(SqliteConnection& db, const std::string& now) {
  absl::StatusOr<Statement> select = db.Prepare(
      "SELECT id, owner, status, body, expires_at FROM tasks WHERE expires_at > ?1 ORDER BY id");
  if (!select.ok()) return select.status();
  select->BindText(1, now);
  std::vector<TaskRow> rows;
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (!*row) return rows;
    rows.push_back(TaskRowAt(*select));
  }
}

absl::StatusOr<std::vector<ReservationRow>> ReadActiveReservations(SqliteConnection& db) {
  absl::StatusOr<Statement> select =
      db.Prepare("SELECT id, state, body FROM reservations WHERE state IN ('waiting', 'granted')");
  if (!select.ok()) return select.status();
  std::vector<ReservationRow> rows;
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (!*row) return rows;
    rows.push_back({select->ColumnText(0), select->ColumnText(1), select->ColumnText(2)});
  }
}

// Runs `query` on a reader connection inside one read transaction.
template <typename T, typename Query>
void RunRead(ReaderPool& pool, Query query, StoreCallback<T> done) {
  auto shared_done = std::make_shared<StoreCallback<T>>(std::move(done));
  bool queued = pool.Submit([query = std::move(query), shared_done](SqliteConnection& db) {
    absl::Status begin = db.Run("BEGIN");
    if (!begin.ok()) return (*shared_done)(begin);
    absl::StatusOr<T> result = query(db);
    if (absl::Status end = db.Run("COMMIT"); !end.ok()) {
      db.Run("ROLLBACK").IgnoreError();
      if (result.ok()) result = end;
    }
    (*shared_done)(std::move(result));
  });
  if (!queued) (*shared_done)(ShutDownError());
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteSessionStore>> SqliteSessionStore::Open(
    const SqliteSessionStoreOptions& options) {
  if (options.data_dir.empty()) return absl::InvalidArgumentError("data_dir is required");
  std::error_code error;
  std::filesystem::create_directories(options.data_dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot create data directory '", options.data_dir, "': ", error.message()));
  }
  std::string path = (std::filesystem::path(options.data_dir) / kDatabaseFileName).string();

  SqliteConnection::Options writer_options;
  writer_options.busy_timeout_ms = options.busy_timeout_ms;
  absl::StatusOr<std::unique_ptr<SqliteConnection>> writer =
      SqliteConnection::Open(path, writer_options);
  if (!writer.ok()) return writer.status();
  if (absl::Status migrated = MigrateSchema(**writer, LatestSchemaVersion()); !migrated.ok()) {
    return migrated;
  }

  SqliteConnection::Options reader_options = writer_options;
  reader_options.read_only = true;
  std::vector<std::unique_ptr<SqliteConnection>> readers;
  for (int i = 0; i < std::max(1, options.reader_threads); ++i) {
    absl::StatusOr<std::unique_ptr<SqliteConnection>> reader =
        SqliteConnection::Open(path, reader_options);
    if (!reader.ok()) return reader.status();
    readers.push_back(std::move(*reader));
  }
  return std::unique_ptr<SqliteSessionStore>(
      new SqliteSessionStore(std::move(path), options, std::move(*writer), std::move(readers)));
}

SqliteSessionStore::SqliteSessionStore(std::string database_path,
                                       const SqliteSessionStoreOptions& options,
                                       std::unique_ptr<SqliteConnection> writer,
                                       std::vector<std::unique_ptr<SqliteConnection>> readers)
    : database_path_(std::move(database_path)),
      max_batch_(std::max<size_t>(1, options.max_batch)),
      commit_delay_max_us_(std::max<int64_t>(0, options.commit_delay_max_us)),
      commit_gap_min_us_(std::max<int64_t>(1, options.commit_gap_min_us)),
      writer_connection_(std::move(writer)),
      readers_(std::move(readers)) {
  StoreMetrics::Get();
  ReportDatabaseSize();
  writer_thread_ = std::thread([this] { WriterLoop(); });
}

void SqliteSessionStore::ReportDatabaseSize() {
  // Several stores in one process (tests) each add their own share.
  std::error_code error;
  double bytes = 0;
  for (const std::string& path : {database_path_, database_path_ + "-wal"}) {
    const auto size = std::filesystem::file_size(path, error);
    if (!error) bytes += static_cast<double>(size);
  }
  StoreMetrics::Get().database_bytes.Get().Add(bytes - reported_bytes_);
  reported_bytes_ = bytes;
}

SqliteSessionStore::~SqliteSessionStore() { Shutdown(); }

void SqliteSessionStore::Shutdown() {
  absl::MutexLock shutdown_lock(&shutdown_mu_);
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_writer_.SignalAll();
  if (writer_thread_.joinable()) writer_thread_.join();
  readers_.Shutdown();
  writer_connection_.reset();  // closing the last connection checkpoints the WAL
  StoreMetrics::Get().database_bytes.Get().Add(-reported_bytes_);
  reported_bytes_ = 0;
}

WriterStats SqliteSessionStore::writer_stats() const {
  absl::MutexLock lock(&stats_mu_);
  return stats_;
}

void SqliteSessionStore::EnqueueWrite(std::unique_ptr<WriteRequest> request) {
  {
    absl::MutexLock lock(&mu_);
    if (!stopping_) {
      auto now = std::chrono::steady_clock::now();
      // Inter-arrival times within a burst feed the commit delay's gap; idle pauses
      // (longer than the longest delay) say nothing about a burst and are skipped.
      double since_last_us = std::chrono::duration<double, std::micro>(now - last_arrival_).count();
      if (since_last_us >= 0 && since_last_us <= static_cast<double>(commit_delay_max_us_)) {
        arrival_gap_us_ = arrival_gap_us_ * 0.875 + since_last_us * 0.125;
      }
      last_arrival_ = now;
      queue_.push_back(std::move(request));
      request = nullptr;
    }
  }
  if (request != nullptr) return request->Complete(ShutDownError(), events_);
  wake_writer_.Signal();
}

void SqliteSessionStore::DelayCommit() {
  using std::chrono::microseconds;
  using std::chrono::steady_clock;
  if (commit_delay_max_us_ == 0) return;
  const size_t target = std::min(outstanding_, max_batch_);
  if (stopping_ || queue_.size() >= target) return;
  // Waiting much longer than a commit takes would cost more than it saves.
  const int64_t cap = std::min(commit_delay_max_us_,
                               std::max(commit_gap_min_us_, static_cast<int64_t>(2 * commit_us_)));
  const steady_clock::time_point start = steady_clock::now();
  const steady_clock::time_point deadline = start + microseconds(cap);
  bool delayed = false;
  while (!stopping_ && queue_.size() < target) {
    const int64_t gap = std::clamp(static_cast<int64_t>(4 * arrival_gap_us_), commit_gap_min_us_,
                                   std::max(commit_gap_min_us_, cap));
    const steady_clock::time_point wake = std::min(deadline, last_arrival_ + microseconds(gap));
    if (steady_clock::now() >= wake) break;
    delayed = true;
    const size_t seen = queue_.size();
    while (!stopping_ && queue_.size() == seen) {
      const steady_clock::duration left = wake - steady_clock::now();
      if (left <= steady_clock::duration::zero() ||
          wake_writer_.WaitWithTimeout(&mu_, absl::FromChrono(left))) {
        break;  // timed out
      }
    }
  }
  if (delayed) {
    auto waited = std::chrono::duration_cast<microseconds>(steady_clock::now() - start);
    absl::MutexLock stats_lock(&stats_mu_);
    ++stats_.delayed_batches;
    stats_.delay_us += static_cast<uint64_t>(waited.count());
  }
}

void SqliteSessionStore::WriterLoop() {
  for (;;) {
    std::deque<std::unique_ptr<WriteRequest>> batch;
    {
      absl::MutexLock lock(&mu_);
      while (!stopping_ && queue_.empty()) wake_writer_.Wait(&mu_);
      if (queue_.empty()) return;  // stopping and drained
      DelayCommit();
      while (!queue_.empty() && batch.size() < max_batch_) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    CommitBatch(batch);
  }
}

void SqliteSessionStore::CommitBatch(std::deque<std::unique_ptr<WriteRequest>>& batch) {
  SqliteConnection& db = *writer_connection_;
  std::vector<absl::Status> outcomes(batch.size());
  WriteTime now = WriteTime::Now();
  const auto started = std::chrono::steady_clock::now();
  absl::Status transaction = db.Run("BEGIN IMMEDIATE");
  for (size_t i = 0; transaction.ok() && i < batch.size(); ++i) {
    transaction = db.Run("SAVEPOINT write_request");
    if (!transaction.ok()) break;
    outcomes[i] = batch[i]->Execute(db, now);
    if (outcomes[i].ok()) {
      transaction = db.Run("RELEASE write_request");
    } else if (sqlite3_get_autocommit(db.handle())) {
      transaction = outcomes[i];  // SQLite rolled the whole transaction back (I/O, full)
    } else {
      transaction = db.Run("ROLLBACK TO write_request");
      if (transaction.ok()) transaction = db.Run("RELEASE write_request");
    }
  }
  const auto executed = std::chrono::steady_clock::now();
  if (transaction.ok()) transaction = db.Run("COMMIT");
  if (transaction.ok()) {
    const auto committed = std::chrono::steady_clock::now();
    double took_us = std::chrono::duration<double, std::micro>(committed - started).count();
    commit_us_ = commit_us_ == 0 ? took_us : commit_us_ * 0.75 + took_us * 0.25;
    {
      absl::MutexLock lock(&stats_mu_);
      ++stats_.transactions;
      stats_.writes += batch.size();
      stats_.largest_batch = std::max<uint64_t>(stats_.largest_batch, batch.size());
      using std::chrono::duration_cast;
      using std::chrono::microseconds;
      stats_.execute_us +=
          static_cast<uint64_t>(duration_cast<microseconds>(executed - started).count());
      stats_.commit_us +=
          static_cast<uint64_t>(duration_cast<microseconds>(committed - executed).count());
    }
    committed_transactions_.fetch_add(1);
    StoreMetrics& families = StoreMetrics::Get();
    families.commit_batch.Get().Observe(static_cast<double>(batch.size()));
    families.commit_seconds.Get().Observe(
        std::chrono::duration<double>(committed - executed).count());
    ReportDatabaseSize();
  } else {
    LG_LOG(kWarning) << "session store: batch of " << batch.size()
                     << " writes failed: " << std::string(transaction.message());
    if (!sqlite3_get_autocommit(db.handle())) db.Run("ROLLBACK").IgnoreError();
  }
  {
    // Pipelining clients send the writes about to be acknowledged straight back, so the
    // writes outstanding are this batch plus whatever queued up while it ran. Counted
    // before any acknowledgement goes out, so no write is counted twice.
    absl::MutexLock lock(&mu_);
    outstanding_ = batch.size() + queue_.size();
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    batch[i]->Complete(outcomes[i].ok() ? transaction : outcomes[i], events_);
  }
}

void SqliteSessionStore::CreateSession(CreateSessionParams params,
                                       StoreCallback<SessionRecord> done) {
  if (absl::Status valid = ValidateCreate(params); !valid.ok()) return done(valid);
  EnqueueWrite(std::make_unique<CreateRequest>(std::move(params), std::move(done)));
}

void SqliteSessionStore::CloseSession(std::string session_id, StoreCallback<SessionRecord> done) {
  if (absl::Status valid = ValidateSessionId(session_id); !valid.ok()) return done(valid);
  EnqueueWrite(std::make_unique<CloseRequest>(std::move(session_id), std::move(done)));
}

void SqliteSessionStore::AppendMessage(AppendParams params, StoreCallback<MessageRecord> done) {
  if (absl::Status valid = ValidateAppend(params); !valid.ok()) return done(valid);
  EnqueueWrite(
      std::make_unique<AppendRequest>(NormaliseAppend(std::move(params)), std::move(done)));
}

void SqliteSessionStore::ImportSession(SessionImportParams params,
                                       StoreCallback<SessionRecord> done) {
  if (absl::Status valid = ValidateCreate(params.session); !valid.ok()) return done(valid);
  for (size_t i = 0; i < params.messages.size(); ++i) {
    AppendParams& message = params.messages[i];
    message.session_id = kImportPlaceholderId;  // replaced by the new id when it is stored
    message.idempotency_key.reset();
    if (absl::Status valid = ValidateAppend(message); !valid.ok()) {
      return done(absl::Status(
          valid.code(), absl::StrCat("message ", i + 1, " of the import: ", valid.message())));
    }
    message = NormaliseAppend(std::move(message));
  }
  EnqueueWrite(std::make_unique<ImportRequest>(std::move(params), std::move(done)));
}

void SqliteSessionStore::SaveReservations(std::vector<ReservationRow> rows,
                                          StoreCallback<int64_t> done) {
  for (const ReservationRow& row : rows) {
    if (row.id.empty() || row.state.empty() || row.body.empty()) {
      return done(absl::InvalidArgumentError("a reservation row needs an id, a state and a body"));
    }
  }
  EnqueueWrite(std::make_unique<UpsertRowsRequest<ReservationRow>>(
      kUpsertReservation, BindReservation, std::move(rows), std::move(done)));
}

void SqliteSessionStore::LoadActiveReservations(StoreCallback<std::vector<ReservationRow>> done) {
  RunRead<std::vector<ReservationRow>>(readers_, ReadActiveReservations, std::move(done));
}

void SqliteSessionStore::SaveTasks(std::vector<TaskRow> rows, StoreCallback<int64_t> done) {
  for (const TaskRow& row : rows) {
    if (row.id.empty() || row.owner.empty() || row.status.empty() || row.body.empty() ||
        row.expires_at.empty()) {
      return done(absl::InvalidArgumentError(
          "a task row needs an id, an owner, a status, a body and an expiry"));
    }
  }
  EnqueueWrite(std::make_unique<UpsertRowsRequest<TaskRow>>(kUpsertTask, BindTask, std::move(rows),
                                                            std::move(done)));
}

void SqliteSessionStore::DeleteExpiredTasks(std::string now, StoreCallback<int64_t> done) {
  EnqueueWrite(std::make_unique<DeleteExpiredTasksRequest>(std::move(now), std::move(done)));
}

void SqliteSessionStore::GetTask(std::string id, std::string now, StoreCallback<TaskRow> done) {
  RunRead<TaskRow>(
      readers_,
      [id = std::move(id), now = std::move(now)](SqliteConnection& db) {
        return ReadTask(db, id, now);
      },
      std::move(done));
}

void SqliteSessionStore::LoadLiveTasks(std::string now, StoreCallback<std::vector<TaskRow>> done) {
  RunRead<std::vector<TaskRow>>(
      readers_, [now = std::move(now)](SqliteConnection& db) { return ReadLiveTasks(db, now); },
      std::move(done));
}

void SqliteSessionStore::GetSession(std::string session_id, StoreCallback<SessionRecord> done) {
  if (absl::Status valid = ValidateSessionId(session_id); !valid.ok()) return done(valid);
  RunRead<SessionRecord>(
      readers_, [id = std::move(session_id)](SqliteConnection& db) { return ReadSession(db, id); },
      std::move(done));
}

void SqliteSessionStore::ListSessions(ListSessionsQuery query,
                                      StoreCallback<std::vector<SessionRecord>> done) {
  absl::StatusOr<int32_t> limit = EffectiveLimit(query.limit);
  if (!limit.ok()) return done(limit.status());
  RunRead<std::vector<SessionRecord>>(
      readers_,
      [include_closed = query.include_closed, limit = *limit](SqliteConnection& db) {
        return ReadSessions(db, include_closed, limit);
      },
      std::move(done));
}

void SqliteSessionStore::QueryMessages(MessageQuery query, StoreCallback<MessagePage> done) {
  if (absl::Status valid = ValidateSessionId(query.session_id); !valid.ok()) return done(valid);
  if (absl::Status valid = ValidateQuery(query); !valid.ok()) return done(valid);
  absl::StatusOr<int32_t> limit = EffectiveLimit(query.limit);
  if (!limit.ok()) return done(limit.status());
  query.limit = *limit;
  if (query.feature.has_value()) {
    std::vector<std::string> tags = NormaliseFeatureTags(*query.feature);
    if (tags.size() > 1) {
      return done(absl::InvalidArgumentError("feature must be a single tag"));
    }
    query.feature = tags.empty() ? std::nullopt : std::optional<std::string>(tags[0]);
  }
  if (query.role.has_value() && query.role->empty()) query.role.reset();
  if (query.direction.has_value() && query.direction->empty()) query.direction.reset();
  RunRead<MessagePage>(
      readers_,
      [query = std::move(query)](SqliteConnection& db) { return ReadMessages(db, query); },
      std::move(done));
}

void SqliteSessionStore::ExportSession(std::string session_id,
                                       StoreCallback<SessionExportRecord> done) {
  if (absl::Status valid = ValidateSessionId(session_id); !valid.ok()) return done(valid);
  RunRead<SessionExportRecord>(
      readers_, [id = std::move(session_id)](SqliteConnection& db) { return ReadExport(db, id); },
      std::move(done));
}

void SqliteSessionStore::FeatureIndex(std::string session_id,
                                      StoreCallback<std::map<std::string, int64_t>> done) {
  if (absl::Status valid = ValidateSessionId(session_id); !valid.ok()) return done(valid);
  RunRead<std::map<std::string, int64_t>>(
      readers_,
      [id = std::move(session_id)](SqliteConnection& db) { return ReadFeatureIndex(db, id); },
      std::move(done));
}

void SqliteSessionStore::SessionStats(std::string session_id,
                                      StoreCallback<SessionStatsRecord> done) {
  if (absl::Status valid = ValidateSessionId(session_id); !valid.ok()) return done(valid);
  RunRead<SessionStatsRecord>(
      readers_, [id = std::move(session_id)](SqliteConnection& db) { return ReadStats(db, id); },
      std::move(done));
}

uint64_t SqliteSessionStore::Subscribe(std::string session_id, EventCallback callback) {
  return events_.Subscribe(std::move(session_id), std::move(callback));
}

void SqliteSessionStore::Unsubscribe(uint64_t subscription_id) {
  events_.Unsubscribe(subscription_id);
}

}  // namespace labgate::session
