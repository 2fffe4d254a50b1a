// The session store contract: transcripts of what a client did with an instrument.
// Every call is asynchronous; `done` runs exactly once, on a store thread (or inline
// when the request is rejected before it is queued), so callers never block.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace labgate::session {

inline constexpr size_t kMaxContentBytes = 1048576;  // 1 MiB
inline constexpr int32_t kDefaultLimit = 100;
inline constexpr int32_t kMaxLimit = 1000;

struct SessionRecord {
  std::string id;
  std::string device_id;
  std::string port_name;
  std::string created_at;  // RFC 3339 UTC
  std::string updated_at;  // RFC 3339 UTC
  bool closed = false;
};

struct MessageRecord {
  int64_t message_id = 0;
  std::string session_id;
  std::string role;
  std::optional<std::string> direction;
  std::optional<std::string> features;  // normalised, comma-joined
  std::optional<int64_t> latency_ms;
  std::string content;
  std::string created_at;                  // RFC 3339 UTC, when stored
  std::optional<std::string> occurred_at;  // RFC 3339 UTC, when it happened, if the writer said
};

struct CreateSessionParams {
  std::string device_id;
  std::string port_name;
};

struct AppendParams {
  std::string session_id;
  std::string content;
  std::string role;  // empty means "tool"
  std::optional<std::string> direction;
  std::optional<std::string> features;
  std::optional<int64_t> latency_ms;
  // RFC 3339 in any offset; stored in UTC with milliseconds.
  std::optional<std::string> occurred_at;
  // Unique per session: a retry under the same key returns the original message.
  std::optional<std::string> idempotency_key;
};

inline constexpr size_t kMaxIdempotencyKeyBytes = 200;

struct ListSessionsQuery {
  bool include_closed = false;
  int32_t limit = 0;  // 0 = kDefaultLimit, clamped to kMaxLimit
};

// Messages of one session in ascending id order. Unset filters match everything;
// set ones are ANDed. `feature` matches one whole, normalised tag.
struct MessageQuery {
  std::string session_id;
  std::optional<std::string> role;
  std::optional<std::string> feature;
  std::optional<std::string> direction;
  int32_t limit = 0;  // 0 = kDefaultLimit, clamped to kMaxLimit
  int64_t after_message_id = 0;
};

struct MessagePage {
  std::vector<MessageRecord> messages;
  // The last returned id, set only when more matching messages follow.
  std::optional<int64_t> next_cursor;
};

struct SessionExportRecord {
  SessionRecord session;
  std::vector<MessageRecord> messages;
};

// A session brought in from an export: stored under a new id, with every message in order,
// then closed, in one transaction.
struct SessionImportParams {
  CreateSessionParams session;
  std::vector<AppendParams> messages;  // session_id is ignored: they go to the new session
};

// A bench reservation as stored: its id, its state's name, and the whole of it as JSON
// (reservations/reservation_json); the store does not read the body.
struct ReservationRow {
  std::string id;
  std::string state;
  std::string body;
};

// A long operation's task (the MCP tasks extension, issue 34) as stored: its id (a bearer
// handle), the principal that may see it, its status's name, the whole task as JSON (the store
// does not read it), and when it is forgotten (RFC 3339 UTC, as common/time_format writes it).
struct TaskRow {
  std::string id;
  std::string owner;
  std::string status;
  std::string body;
  std::string expires_at;
};

struct SessionStatsRecord {
  int64_t message_count = 0;
  int64_t last_message_id = 0;
  double messages_per_min = 0;
};

struct SessionEventRecord {
  enum class Type { kCreated, kAppended, kClosed };
  Type type = Type::kCreated;
  SessionRecord session;
  std::optional<MessageRecord> message;  // set for kAppended
};

template <typename T>
using StoreCallback = std::function<void(absl::StatusOr<T>)>;
using EventCallback = std::function<void(const SessionEventRecord&)>;

class SessionStore {
 public:
  virtual ~SessionStore() = default;

  // Writes: acknowledged only after their transaction commits.
  virtual void CreateSession(CreateSessionParams params, StoreCallback<SessionRecord> done) = 0;
  virtual void CloseSession(std::string session_id, StoreCallback<SessionRecord> done) = 0;
  virtual void AppendMessage(AppendParams params, StoreCallback<MessageRecord> done) = 0;
  // All or nothing: a message that would not append refuses the import, naming its place.
  virtual void ImportSession(SessionImportParams params, StoreCallback<SessionRecord> done) = 0;

  // Each row replaces the stored one of its id, all in one transaction; `done` gets how many.
  virtual void SaveReservations(std::vector<ReservationRow> rows, StoreCallback<int64_t> done) = 0;

  // Each row replaces the stored task of its id, all in one transaction; `done` gets how many.
  virtual void SaveTasks(std::vector<TaskRow> rows, StoreCallback<int64_t> done) = 0;
  // Forgets the tasks that expired at or before `now` (RFC 3339); `done` gets how many.
  virtual void DeleteExpiredTasks(std::string now, StoreCallback<int64_t> done) = 0;

  // Reads.
  // Every task that has not expired at `now`, for a restart.
  virtual void LoadLiveTasks(std::string now, StoreCallback<std::vector<TaskRow>> done) = 0;
  // Task `id` unless it expired at or before `now`: NOT_FOUND either way, as for no task at all.
  virtual void GetTask(std::string id, std::string now, StoreCallback<TaskRow> done) = 0;
  // The stored reservations that were waiting or granted, for a restart.
  virtual void LoadActiveReservations(StoreCallback<std::vector<ReservationRow>> done) = 0;
  virtual void GetSession(std::string session_id, StoreCallback<SessionRecord> done) = 0;
  virtual void ListSessions(ListSessionsQuery query,
                            StoreCallback<std::vector<SessionRecord>> done) = 0;
  virtual void QueryMessages(MessageQuery query, StoreCallback<MessagePage> done) = 0;
  virtual void ExportSession(std::string session_id, StoreCallback<SessionExportRecord> done) = 0;
  virtual void FeatureIndex(std::string session_id,
                            StoreCallback<std::map<std::string, int64_t>> done) = 0;
  virtual void SessionStats(std::string session_id, StoreCallback<SessionStatsRecord> done) = 0;

  // Committed changes, in commit order, each published before its write's `done` runs.
  // An empty `session_id` watches every session. `callback` runs on the writer thread
  // and must not block. Returns a subscription id.
  virtual uint64_t Subscribe(std::string session_id, EventCallback callback) = 0;
  // After this returns the callback is never invoked again.
  virtual void Unsubscribe(uint64_t subscription_id) = 0;

  // Completes every queued request, then stops the threads. Later calls fail with
  // UNAVAILABLE. Idempotent.
  virtual void Shutdown() = 0;
};

}  // namespace labgate::session
