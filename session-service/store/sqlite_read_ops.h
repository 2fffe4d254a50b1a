// Queries run on a reader connection, each inside one read transaction so that a
// session and its messages come from the same snapshot.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "session-service/store/session_store.h"
#include "session-service/store/sqlite_db.h"

namespace labgate::session {

absl::StatusOr<SessionRecord> ReadSession(SqliteConnection& db, const std::string& session_id);
// `limit` is already the effective limit.
absl::StatusOr<std::vector<SessionRecord>> ReadSessions(SqliteConnection& db, bool include_closed,
                                                        int32_t limit);
// `query.limit` is already the effective limit; `query.feature` a single normalised tag.
absl::StatusOr<MessagePage> ReadMessages(SqliteConnection& db, const MessageQuery& query);
absl::StatusOr<SessionExportRecord> ReadExport(SqliteConnection& db, const std::string& session_id);
absl::StatusOr<std::map<std::string, int64_t>> ReadFeatureIndex(SqliteConnection& db,
                                                                const std::string& session_id);
absl::StatusOr<SessionStatsRecord> ReadStats(SqliteConnection& db, const std::string& session_id);

// messages_per_min: the message count divided by the minutes between the first and
// last message, with that span floored at one minute. So 0 messages give 0, a single
// message (or a burst inside one minute) gives its count, and the rate never divides
// by zero.
double MessagesPerMinute(int64_t message_count, int64_t first_unix_ms, int64_t last_unix_ms);

}  // namespace labgate::session
