// The three writes, each run by the writer thread inside the current batch
// transaction (under its own savepoint, so one failing request leaves the others).
#pragma once

#include <chrono>
#include <string>

#include "absl/status/statusor.h"
#include "session-service/store/session_store.h"
#include "session-service/store/sqlite_db.h"

namespace labgate::session {

struct WriteTime {
  std::string rfc3339;
  int64_t unix_ms = 0;
  static WriteTime Now();
};

absl::StatusOr<SessionRecord> InsertSession(SqliteConnection& db, const CreateSessionParams& params,
                                            const WriteTime& now);

// `changed` tells whether the session was open before (only then is an event due).
absl::StatusOr<SessionRecord> MarkSessionClosed(SqliteConnection& db, const std::string& session_id,
                                                const WriteTime& now, bool* changed);

struct AppendResult {
  SessionRecord session;  // with updated_at advanced
  MessageRecord message;
  // The idempotency key was already used for this same message: nothing was stored.
  bool replayed = false;
};

// `params` must already be validated and normalised. The id is the session row's
// last_message_id + 1, bumped in this same transaction. With an idempotency key already
// used in the session, the stored message is returned (`replayed`) when it is the same
// message, and FAILED_PRECONDITION when it differs.
absl::StatusOr<AppendResult> InsertMessage(SqliteConnection& db, const AppendParams& params,
                                           const WriteTime& now);

}  // namespace labgate::session
