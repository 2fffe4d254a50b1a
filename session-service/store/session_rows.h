// Column lists and row readers shared by the write and read paths, so every query
// returns sessions and messages in the same shape.
#pragma once

#include "session-service/store/session_store.h"
#include "session-service/store/sqlite_db.h"

namespace labgate::session {

#define LG_SESSION_COLUMNS "id, device_id, port_name, created_at, updated_at, closed"
#define LG_MESSAGE_COLUMNS                                                               \
  "message_id, session_id, role, direction, features, latency_ms, content, created_at, " \
  "occurred_at"

// Reads LG_SESSION_COLUMNS starting at `first_column`.
SessionRecord ReadSessionRow(const Statement& stmt, int first_column = 0);
// Reads LG_MESSAGE_COLUMNS starting at `first_column`.
MessageRecord ReadMessageRow(const Statement& stmt, int first_column = 0);

absl::Status SessionNotFound(const std::string& session_id);

}  // namespace labgate::session
