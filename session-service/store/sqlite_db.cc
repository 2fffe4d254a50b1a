#include "session-service/store/sqlite_db.h"

#include "absl/strings/str_cat.h"

namespace labgate::session {
namespace {

absl::string_view View(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

}  // namespace

absl::Status SqliteStatus(int rc, sqlite3* db, std::string_view context) {
  const char* detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  std::string message = absl::StrCat(View(context), ": ", detail, " (sqlite code ", rc, ")");
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(absl::StrCat("database is busy: ", message));
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return absl::UnavailableError(absl::StrCat("database cannot be written: ", message));
    default:
      return absl::InternalError(absl::StrCat("database error: ", message));
  }
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(other.stmt_), connection_(other.connection_), bind_error_(other.bind_error_) {
  other.stmt_ = nullptr;
}

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Statement::NoteBind(int rc) {
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) bind_error_ = rc;
}

void Statement::BindText(int index, std::string_view value) {
  NoteBind(
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
}

void Statement::BindInt64(int index, int64_t value) {
  NoteBind(sqlite3_bind_int64(stmt_, index, value));
}

void Statement::BindNull(int index) { NoteBind(sqlite3_bind_null(stmt_, index)); }

void Statement::BindOptionalText(int index, const std::optional<std::string>& value) {
  if (value.has_value()) {
    BindText(index, *value);
  } else {
    BindNull(index);
  }
}

void Statement::BindOptionalInt64(int index, const std::optional<int64_t>& value) {
  if (value.has_value()) {
    BindInt64(index, *value);
  } else {
    BindNull(index);
  }
}

absl::StatusOr<bool> Statement::Step() {
  if (bind_error_ != SQLITE_OK) return connection_->Error(bind_error_, "binding parameters");
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return connection_->Error(rc, sqlite3_sql(stmt_));
}

absl::Status Statement::Run() {
  for (;;) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) {
      Reset();
      return absl::OkStatus();
    }
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = SQLITE_OK;
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::ColumnInt64(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return std::string();
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::optional<std::string> Statement::ColumnOptionalText(int column) const {
  if (IsNull(column)) return std::nullopt;
  return ColumnText(column);
}

std::optional<int64_t> Statement::ColumnOptionalInt64(int column) const {
  if (IsNull(column)) return std::nullopt;
  return ColumnInt64(column);
}

absl::StatusOr<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(const std::string& path,
                                                                         const Options& options) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  std::unique_ptr<SqliteConnection> connection(new SqliteConnection(db));
  if (rc != SQLITE_OK) return SqliteStatus(rc, db, absl::StrCat("opening ", path));
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, options.busy_timeout_ms);

  if (!options.read_only) {
    // journal_mode answers with the mode actually in effect.
    absl::StatusOr<Statement> wal = connection->Prepare("PRAGMA journal_mode=WAL");
    if (!wal.ok()) return wal.status();
    absl::StatusOr<bool> row = wal->Step();
    if (!row.ok()) return row.status();
    if (!*row || wal->ColumnText(0) != "wal") {
      return absl::InternalError(absl::StrCat("cannot switch ", path, " to WAL mode"));
    }
  }
  if (!options.read_only) {
    // The writer's per-request savepoints journal every page they touch into a
    // sub-journal that only ROLLBACK TO reads; on disk it cost a pwrite per page per
    // request. Crash recovery never uses it (the WAL does), so keeping it in memory does
    // not change durability.
    if (absl::Status s = connection->Exec("PRAGMA temp_store=MEMORY"); !s.ok()) return s;
  }
  if (absl::Status s = connection->Exec("PRAGMA foreign_keys=ON"); !s.ok()) return s;
  if (absl::Status s = connection->Exec("PRAGMA synchronous=FULL"); !s.ok()) return s;
  if (options.read_only) {
    if (absl::Status s = connection->Exec("PRAGMA query_only=ON"); !s.ok()) return s;
  }
  return connection;
}

SqliteConnection::~SqliteConnection() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

absl::Status SqliteConnection::Exec(const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  sqlite3_free(error);
  if (rc != SQLITE_OK) return Error(rc, sql);
  return absl::OkStatus();
}

absl::Status SqliteConnection::Run(const char* sql) {
  absl::StatusOr<Statement> stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  return stmt->Run();
}

absl::StatusOr<Statement> SqliteConnection::Prepare(const char* sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end()) return Statement(it->second, this);
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(rc, absl::StrCat("preparing ", sql));
  }
  cache_.emplace(sql, stmt);
  return Statement(stmt, this);
}

absl::StatusOr<int64_t> SqliteConnection::QueryInt64(const char* sql) {
  absl::StatusOr<Statement> stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::InternalError(absl::StrCat("no result from ", sql));
  return stmt->ColumnInt64(0);
}

}  // namespace labgate::session
