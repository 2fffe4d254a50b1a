// Thin RAII layer over the SQLite C API: one connection with its prepared-statement
// cache, and the mapping of SQLite result codes onto absl::Status.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace labgate::session {

// BUSY/LOCKED (another writer holds the database) and CANTOPEN/READONLY become
// UNAVAILABLE; everything else (full disk, I/O error, corruption) becomes INTERNAL.
// The message carries `context` and SQLite's own text.
absl::Status SqliteStatus(int rc, sqlite3* db, std::string_view context);

class SqliteConnection;

// A cached prepared statement, reset and unbound when this handle goes away.
class Statement {
 public:
  Statement(sqlite3_stmt* stmt, SqliteConnection* connection)
      : stmt_(stmt), connection_(connection) {}
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  // Parameters are 1-based, as in SQLite.
  void BindText(int index, std::string_view value);
  void BindInt64(int index, int64_t value);
  void BindNull(int index);
  void BindOptionalText(int index, const std::optional<std::string>& value);
  void BindOptionalInt64(int index, const std::optional<int64_t>& value);

  // True when a row is available, false when the statement has finished.
  absl::StatusOr<bool> Step();
  // Runs a statement that returns no rows we need, then resets it for re-binding.
  absl::Status Run();
  // Makes the statement ready to bind and step again.
  void Reset();

  bool IsNull(int column) const;
  int64_t ColumnInt64(int column) const;
  std::string ColumnText(int column) const;
  std::optional<std::string> ColumnOptionalText(int column) const;
  std::optional<int64_t> ColumnOptionalInt64(int column) const;

 private:
  void NoteBind(int rc);
  sqlite3_stmt* stmt_;
  SqliteConnection* connection_;
  int bind_error_ = SQLITE_OK;
};

class SqliteConnection {
 public:
  struct Options {
    int busy_timeout_ms = 5000;
    bool read_only = false;  // readers: PRAGMA query_only
  };

  // Opens (creating if needed) `path` with WAL, foreign keys and synchronous=FULL.
  static absl::StatusOr<std::unique_ptr<SqliteConnection>> Open(const std::string& path,
                                                                const Options& options);
  ~SqliteConnection();
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  sqlite3* handle() const { return db_; }

  // Runs constant SQL (schema, transaction control). Never used with values.
  absl::Status Exec(const char* sql);
  // Runs one constant statement through the statement cache (BEGIN, COMMIT, ...).
  absl::Status Run(const char* sql);
  // Returns the cached statement for `sql`, preparing it on first use.
  absl::StatusOr<Statement> Prepare(const char* sql);
  absl::StatusOr<int64_t> QueryInt64(const char* sql);

  absl::Status Error(int rc, std::string_view context) const {
    return SqliteStatus(rc, db_, context);
  }

 private:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
};

}  // namespace labgate::session
