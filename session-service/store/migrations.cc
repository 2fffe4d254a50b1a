#include "session-service/store/migrations.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "session-service/store/feature_tags.h"
#include "session-service/store/status_macros.h"

namespace labgate::session {
namespace {

using MigrationStep = std::function<absl::Status(SqliteConnection&)>;

// v1: sessions and messages. last_message_id on the session row is what makes
// message ids rise by exactly one inside the append's own transaction.
absl::Status CreateInitialTables(SqliteConnection& db) {
  return db.Exec(R"sql(
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY NOT NULL,
      device_id TEXT NOT NULL,
      port_name TEXT NOT NULL DEFAULT '',
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      closed INTEGER NOT NULL DEFAULT 0,
      last_message_id INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_by_created ON sessions(created_at);
    CREATE TABLE messages (
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      message_id INTEGER NOT NULL,
      role TEXT NOT NULL,
      direction TEXT,
      features TEXT,
      latency_ms INTEGER,
      content TEXT NOT NULL,
      created_at TEXT NOT NULL,
      created_unix_ms INTEGER NOT NULL,
      PRIMARY KEY (session_id, message_id)
    );
  )sql");
}

// v2: one row per (message, tag) so a feature filter matches whole tags through an
// index instead of scanning the comma-joined column. Back-fills existing messages.
absl::Status AddFeatureTagIndex(SqliteConnection& db) {
  LG_RETURN_IF_ERROR(db.Exec(R"sql(
    CREATE TABLE message_features (
      session_id TEXT NOT NULL,
      message_id INTEGER NOT NULL,
      tag TEXT NOT NULL,
      PRIMARY KEY (session_id, message_id, tag),
      FOREIGN KEY (session_id, message_id)
        REFERENCES messages(session_id, message_id) ON DELETE CASCADE
    );
    CREATE INDEX message_features_by_tag ON message_features(session_id, tag);
  )sql"));
  LG_ASSIGN_OR_RETURN(Statement select,
                      db.Prepare("SELECT session_id, message_id, features FROM messages "
                                 "WHERE features IS NOT NULL AND features <> ''"));
  LG_ASSIGN_OR_RETURN(Statement insert,
                      db.Prepare("INSERT OR IGNORE INTO message_features(session_id, "
                                 "message_id, tag) VALUES (?1, ?2, ?3)"));
  for (;;) {
    LG_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    std::string session_id = select.ColumnText(0);
    int64_t message_id = select.ColumnInt64(1);
    for (const std::string& tag : NormaliseFeatureTags(select.ColumnText(2))) {
      insert.BindText(1, session_id);
      insert.BindInt64(2, message_id);
      insert.BindText(3, tag);
      LG_RETURN_IF_ERROR(insert.Run());
    }
  }
  return absl::OkStatus();
}

// v3: idempotency keys, unique per session. Existing messages have none.
absl::Status AddIdempotencyKeys(SqliteConnection& db) {
  return db.Exec(R"sql(
    ALTER TABLE messages ADD COLUMN idempotency_key TEXT;
    CREATE UNIQUE INDEX messages_by_idempotency_key ON messages(session_id, idempotency_key)
      WHERE idempotency_key IS NOT NULL;
  )sql");
}

// v4: when a message happened (e.g. when its bytes arrived), beside when it was stored.
absl::Status AddOccurredAt(SqliteConnection& db) {
  return db.Exec("ALTER TABLE messages ADD COLUMN occurred_at TEXT");
}

// v5: bench reservations (issue 32), one JSON body each (reservations/reservation_json), so a
// restart restores the queue and the grants.
absl::Status AddReservations(SqliteConnection& db) {
  return db.Exec(R"sql(
    CREATE TABLE reservations (
      id TEXT PRIMARY KEY NOT NULL,
      state TEXT NOT NULL,
      body TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX reservations_by_state ON reservations(state);
  )sql");
}

// v6: long operations as MCP tasks (issue 34), one JSON body each, with the principal that
// may see it and when it is forgotten.
absl::Status AddTasks(SqliteConnection& db) {
  return db.Exec(R"sql(
    CREATE TABLE tasks (
      id TEXT PRIMARY KEY NOT NULL,
      owner TEXT NOT NULL,
      status TEXT NOT NULL,
      body TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX tasks_by_expiry ON tasks(expires_at);
  )sql");
}

const std::vector<MigrationStep>& Migrations() {
  static const std::vector<MigrationStep> kMigrations = {CreateInitialTables, AddFeatureTagIndex,
                                                         AddIdempotencyKeys,  AddOccurredAt,
                                                         AddReservations,     AddTasks};
  return kMigrations;
}

}  // namespace

int LatestSchemaVersion() { return static_cast<int>(Migrations().size()); }

absl::StatusOr<int> SchemaVersion(SqliteConnection& db) {
  LG_ASSIGN_OR_RETURN(int64_t version, db.QueryInt64("PRAGMA user_version"));
  return static_cast<int>(version);
}

absl::Status MigrateSchema(SqliteConnection& db, int target_version) {
  LG_ASSIGN_OR_RETURN(int current, SchemaVersion(db));
  if (current > LatestSchemaVersion()) {
    return absl::FailedPreconditionError(absl::StrCat("database schema version ", current,
                                                      " is newer than this build supports (",
                                                      LatestSchemaVersion(), ")"));
  }
  for (int next = current + 1; next <= target_version; ++next) {
    LG_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
    absl::Status applied = Migrations()[static_cast<size_t>(next - 1)](db);
    if (applied.ok()) {
      // user_version takes no bound parameters; `next` is our own constant.
      applied = db.Exec(absl::StrCat("PRAGMA user_version = ", next).c_str());
    }
    if (applied.ok()) applied = db.Exec("COMMIT");
    if (!applied.ok()) {
      db.Exec("ROLLBACK").IgnoreError();
      return absl::Status(applied.code(), absl::StrCat("migrating the session database to v", next,
                                                       ": ", applied.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace labgate::session
