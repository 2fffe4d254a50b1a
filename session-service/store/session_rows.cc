#include "session-service/store/session_rows.h"

#include "absl/strings/str_cat.h"

namespace labgate::session {

SessionRecord ReadSessionRow(const Statement& stmt, int first_column) {
  SessionRecord session;
  session.id = stmt.ColumnText(first_column);
  session.device_id = stmt.ColumnText(first_column + 1);
  session.port_name = stmt.ColumnText(first_column + 2);
  session.created_at = stmt.ColumnText(first_column + 3);
  session.updated_at = stmt.ColumnText(first_column + 4);
  session.closed = stmt.ColumnInt64(first_column + 5) != 0;
  return session;
}

MessageRecord ReadMessageRow(const Statement& stmt, int first_column) {
  MessageRecord message;
  message.message_id = stmt.ColumnInt64(first_column);
  message.session_id = stmt.ColumnText(first_column + 1);
  message.role = stmt.ColumnText(first_column + 2);
  message.direction = stmt.ColumnOptionalText(first_column + 3);
  message.features = stmt.ColumnOptionalText(first_column + 4);
  message.latency_ms = stmt.ColumnOptionalInt64(first_column + 5);
  message.content = stmt.ColumnText(first_column + 6);
  message.created_at = stmt.ColumnText(first_column + 7);
  message.occurred_at = stmt.ColumnOptionalText(first_column + 8);
  return message;
}

absl::Status SessionNotFound(const std::string& session_id) {
  return absl::NotFoundError(absl::StrCat("session '", session_id, "' not found"));
}

}  // namespace labgate::session
