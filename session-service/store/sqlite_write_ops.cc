#include "session-service/store/sqlite_write_ops.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "common/time_format.h"
#include "session-service/store/feature_tags.h"
#include "session-service/store/session_rows.h"
#include "session-service/store/status_macros.h"
#include "session-service/store/uuid.h"

namespace labgate::session {
namespace {

absl::StatusOr<SessionRecord> SelectSession(SqliteConnection& db, const std::string& session_id) {
  LG_ASSIGN_OR_RETURN(Statement stmt,
                      db.Prepare("SELECT " LG_SESSION_COLUMNS " FROM sessions WHERE id = ?1"));
  stmt.BindText(1, session_id);
  LG_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return SessionNotFound(session_id);
  return ReadSessionRow(stmt);
}

// The message stored under `params.idempotency_key`, if any.
absl::StatusOr<std::optional<MessageRecord>> SelectByKey(SqliteConnection& db,
                                                         const AppendParams& params) {
  LG_ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT " LG_MESSAGE_COLUMNS " FROM messages "
                                                 "WHERE session_id = ?1 AND idempotency_key = ?2"));
  stmt.BindText(1, params.session_id);
  stmt.BindText(2, *params.idempotency_key);
  LG_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<MessageRecord>();
  return std::optional<MessageRecord>(ReadMessageRow(stmt));
}

bool SameMessage(const MessageRecord& stored, const AppendParams& params) {
  return stored.content == params.content && stored.role == params.role &&
         stored.direction == params.direction && stored.features == params.features &&
         stored.latency_ms == params.latency_ms && stored.occurred_at == params.occurred_at;
}

}  // namespace

WriteTime WriteTime::Now() {
  auto now = std::chrono::system_clock::now();
  WriteTime time;
  time.rfc3339 = FormatRfc3339(now);
  time.unix_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  return time;
}

absl::StatusOr<SessionRecord> InsertSession(SqliteConnection& db, const CreateSessionParams& params,
                                            const WriteTime& now) {
  SessionRecord session;
  session.id = NewUuidV4();
  session.device_id = params.device_id;
  session.port_name = params.port_name;
  session.created_at = now.rfc3339;
  session.updated_at = now.rfc3339;
  LG_ASSIGN_OR_RETURN(Statement stmt,
                      db.Prepare("INSERT INTO sessions(id, device_id, port_name, created_at, "
                                 "updated_at) VALUES (?1, ?2, ?3, ?4, ?5)"));
  stmt.BindText(1, session.id);
  stmt.BindText(2, session.device_id);
  stmt.BindText(3, session.port_name);
  stmt.BindText(4, session.created_at);
  stmt.BindText(5, session.updated_at);
  LG_RETURN_IF_ERROR(stmt.Run());
  return session;
}

absl::StatusOr<SessionRecord> MarkSessionClosed(SqliteConnection& db, const std::string& session_id,
                                                const WriteTime& now, bool* changed) {
  LG_ASSIGN_OR_RETURN(Statement stmt,
                      db.Prepare("UPDATE sessions SET closed = 1, updated_at = ?2 "
                                 "WHERE id = ?1 AND closed = 0 RETURNING " LG_SESSION_COLUMNS));
  stmt.BindText(1, session_id);
  stmt.BindText(2, now.rfc3339);
  LG_ASSIGN_OR_RETURN(bool row, stmt.Step());
  *changed = row;
  if (row) return ReadSessionRow(stmt);
  return SelectSession(db, session_id);  // already closed (harmless) or unknown
}

absl::StatusOr<AppendResult> InsertMessage(SqliteConnection& db, const AppendParams& params,
                                           const WriteTime& now) {
  AppendResult result;
  if (params.idempotency_key.has_value()) {
    // Checked before the closed check: a retry after the session closed still learns
    // that its message was stored.
    LG_ASSIGN_OR_RETURN(std::optional<MessageRecord> stored, SelectByKey(db, params));
    if (stored.has_value()) {
      if (!SameMessage(*stored, params)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "idempotency_key '", *params.idempotency_key, "' was already used in session '",
            params.session_id, "' for a different message (message_id ", stored->message_id,
            "); use a new key for new content"));
      }
      LG_ASSIGN_OR_RETURN(result.session, SelectSession(db, params.session_id));
      result.message = *std::move(stored);
      result.replayed = true;
      return result;
    }
  }
  {
    LG_ASSIGN_OR_RETURN(
        Statement bump,
        db.Prepare("UPDATE sessions SET last_message_id = last_message_id + 1, updated_at = ?2 "
                   "WHERE id = ?1 AND closed = 0 RETURNING " LG_SESSION_COLUMNS
                   ", last_message_id"));
    bump.BindText(1, params.session_id);
    bump.BindText(2, now.rfc3339);
    LG_ASSIGN_OR_RETURN(bool row, bump.Step());
    if (!row) {
      LG_ASSIGN_OR_RETURN(SessionRecord existing, SelectSession(db, params.session_id));
      return absl::FailedPreconditionError(
          absl::StrCat("session '", existing.id, "' is closed; appends are refused"));
    }
    result.session = ReadSessionRow(bump);
    result.message.message_id = bump.ColumnInt64(6);
  }

  MessageRecord& message = result.message;
  message.session_id = params.session_id;
  message.role = params.role;
  message.direction = params.direction;
  message.features = params.features;
  message.latency_ms = params.latency_ms;
  message.content = params.content;
  message.created_at = now.rfc3339;
  message.occurred_at = params.occurred_at;

  LG_ASSIGN_OR_RETURN(
      Statement insert,
      db.Prepare("INSERT INTO messages(session_id, message_id, role, direction, features, "
                 "latency_ms, content, created_at, created_unix_ms, idempotency_key, occurred_at) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"));
  insert.BindText(1, message.session_id);
  insert.BindInt64(2, message.message_id);
  insert.BindText(3, message.role);
  insert.BindOptionalText(4, message.direction);
  insert.BindOptionalText(5, message.features);
  insert.BindOptionalInt64(6, message.latency_ms);
  insert.BindText(7, message.content);
  insert.BindText(8, message.created_at);
  insert.BindInt64(9, now.unix_ms);
  insert.BindOptionalText(10, params.idempotency_key);
  insert.BindOptionalText(11, message.occurred_at);
  LG_RETURN_IF_ERROR(insert.Run());

  if (message.features.has_value()) {
    LG_ASSIGN_OR_RETURN(Statement tag_insert,
                        db.Prepare("INSERT INTO message_features(session_id, message_id, tag) "
                                   "VALUES (?1, ?2, ?3)"));
    for (const std::string& tag : NormaliseFeatureTags(*message.features)) {
      tag_insert.BindText(1, message.session_id);
      tag_insert.BindInt64(2, message.message_id);
      tag_insert.BindText(3, tag);
      LG_RETURN_IF_ERROR(tag_insert.Run());
    }
  }
  return result;
}

}  // namespace labgate::session
