#include "session-service/store/sqlite_read_ops.h"

#include <algorithm>

#include "session-service/store/session_rows.h"
#include "session-service/store/status_macros.h"

namespace labgate::session {

absl::StatusOr<SessionRecord> ReadSession(SqliteConnection& db, const std::string& session_id) {
  LG_ASSIGN_OR_RETURN(Statement stmt,
                      db.Prepare("SELECT " LG_SESSION_COLUMNS " FROM sessions WHERE id = ?1"));
  stmt.BindText(1, session_id);
  LG_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return SessionNotFound(session_id);
  return ReadSessionRow(stmt);
}

absl::StatusOr<std::vector<SessionRecord>> ReadSessions(SqliteConnection& db, bool include_closed,
                                                        int32_t limit) {
  LG_ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT " LG_SESSION_COLUMNS " FROM sessions "
                                                 "WHERE ?1 OR closed = 0 "
                                                 "ORDER BY created_at DESC, rowid DESC LIMIT ?2"));
  stmt.BindInt64(1, include_closed ? 1 : 0);
  stmt.BindInt64(2, limit);
  std::vector<SessionRecord> sessions;
  for (;;) {
    LG_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    sessions.push_back(ReadSessionRow(stmt));
  }
  return sessions;
}

absl::StatusOr<MessagePage> ReadMessages(SqliteConnection& db, const MessageQuery& query) {
  LG_RETURN_IF_ERROR(ReadSession(db, query.session_id).status());
  LG_ASSIGN_OR_RETURN(
      Statement stmt,
      db.Prepare("SELECT " LG_MESSAGE_COLUMNS " FROM messages m "
                 "WHERE m.session_id = ?1 AND m.message_id > ?2 "
                 "AND (?3 IS NULL OR m.role = ?3) "
                 "AND (?4 IS NULL OR m.direction = ?4) "
                 "AND (?5 IS NULL OR EXISTS (SELECT 1 FROM message_features f "
                 "WHERE f.session_id = m.session_id AND f.message_id = m.message_id "
                 "AND f.tag = ?5)) "
                 "ORDER BY m.message_id LIMIT ?6"));
  stmt.BindText(1, query.session_id);
  stmt.BindInt64(2, query.after_message_id);
  stmt.BindOptionalText(3, query.role);
  stmt.BindOptionalText(4, query.direction);
  stmt.BindOptionalText(5, query.feature);
  // One extra row tells whether another page follows.
  stmt.BindInt64(6, static_cast<int64_t>(query.limit) + 1);
  MessagePage page;
  for (;;) {
    LG_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    if (page.messages.size() == static_cast<size_t>(query.limit)) {
      page.next_cursor = page.messages.back().message_id;
      break;
    }
    page.messages.push_back(ReadMessageRow(stmt));
  }
  return page;
}

absl::StatusOr<SessionExportRecord> ReadExport(SqliteConnection& db,
                                               const std::string& session_id) {
  SessionExportRecord result;
  LG_ASSIGN_OR_RETURN(result.session, ReadSession(db, session_id));
  LG_ASSIGN_OR_RETURN(Statement stmt,
                      db.Prepare("SELECT " LG_MESSAGE_COLUMNS
                                 " FROM messages WHERE session_id = ?1 ORDER BY message_id"));
  stmt.BindText(1, session_id);
  for (;;) {
    LG_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    result.messages.push_back(ReadMessageRow(stmt));
  }
  return result;
}

absl::StatusOr<std::map<std::string, int64_t>> ReadFeatureIndex(SqliteConnection& db,
                                                                const std::string& session_id) {
  LG_RETURN_IF_ERROR(ReadSession(db, session_id).status());
  LG_ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT tag, COUNT(*) FROM message_features "
                                                 "WHERE session_id = ?1 GROUP BY tag"));
  stmt.BindText(1, session_id);
  std::map<std::string, int64_t> counts;
  for (;;) {
    LG_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    counts[stmt.ColumnText(0)] = stmt.ColumnInt64(1);
  }
  return counts;
}

absl::StatusOr<SessionStatsRecord> ReadStats(SqliteConnection& db, const std::string& session_id) {
  LG_ASSIGN_OR_RETURN(Statement stmt,
                      db.Prepare("SELECT s.last_message_id, COUNT(m.message_id), "
                                 "MIN(m.created_unix_ms), MAX(m.created_unix_ms) "
                                 "FROM sessions s LEFT JOIN messages m ON m.session_id = s.id "
                                 "WHERE s.id = ?1 GROUP BY s.id"));
  stmt.BindText(1, session_id);
  LG_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return SessionNotFound(session_id);
  SessionStatsRecord stats;
  stats.last_message_id = stmt.ColumnInt64(0);
  stats.message_count = stmt.ColumnInt64(1);
  stats.messages_per_min =
      MessagesPerMinute(stats.message_count, stmt.ColumnInt64(2), stmt.ColumnInt64(3));
  return stats;
}

double MessagesPerMinute(int64_t message_count, int64_t first_unix_ms, int64_t last_unix_ms) {
  if (message_count <= 0) return 0.0;
  constexpr int64_t kMinuteMs = 60 * 1000;
  int64_t span_ms = std::max<int64_t>(last_unix_ms - first_unix_ms, kMinuteMs);
  return static_cast<double>(message_count) * static_cast<double>(kMinuteMs) /
         static_cast<double>(span_ms);
}

}  // namespace labgate::session
