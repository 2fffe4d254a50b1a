// The console's view of the session transcripts: the list (filtered by device and by
// feature tag), one transcript page, a whole session exported as JSON or NDJSON, and a
// session's WatchSession stream relayed as SSE.
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "gateway/console/sse_relay.h"
#include "gateway/http/http_connection.h"
#include "labgate/session/v1/session.pb.h"

namespace labgate::gateway::console {

// Most sessions one list answer holds (and the newest this many are filtered).
inline constexpr int kMaxSessionsListed = 1000;
// Most messages one transcript page holds.
inline constexpr int kMaxMessagesPerPage = 1000;
// An export larger than this is refused (export_session over gRPC streams nothing either).
inline constexpr size_t kMaxExportBytes = 64 * 1024 * 1024;

struct ExportedSession {
  std::string body;
  std::string content_type;
  std::string file_name;
};

class SessionViews {
 public:
  SessionViews(std::shared_ptr<grpc::Channel> session_channel, std::chrono::milliseconds deadline);

  using Query = std::map<std::string, std::string>;
  using JsonDone = std::function<void(absl::StatusOr<nlohmann::json>)>;
  // ?device= (part of the device id, any case), ?feature= (a whole feature tag that some
  // message carries), ?closed=0 (leave closed sessions out), ?limit= (default 100).
  // {"sessions": [...], "count", "truncated"}.
  void List(const Query& query, JsonDone done) const;
  // {"session", "features": {tag: count}, "messages": [...], "next_cursor"}; ?after=
  // (cursor), ?limit= (default 500), ?feature=, ?role=, ?direction= filter the messages.
  void Transcript(const std::string& id, const Query& query, JsonDone done) const;
  // ?format=json (the default): {"session", "messages"}; ?format=ndjson: the line
  // {"session": ...}, then one {"message": ...} line per message.
  void Export(const std::string& id, const std::string& format,
              std::function<void(absl::StatusOr<ExportedSession>)> done) const;
  // Relays the session's events (created, appended, closed) as SSE; 404 for an unknown
  // session.
  void Relay(std::shared_ptr<http::HttpConnection> connection, const std::string& id,
             std::shared_ptr<RelayRegistry> relays) const;

 private:
  class Impl;
  std::shared_ptr<const Impl> impl_;
};

// A WatchSession event as the console streams it: {"type": "created"|"appended"|"closed",
// "session", "message"?}.
nlohmann::json SessionEventJson(const labgate::session::v1::SessionEvent& event);

// The NDJSON export: a {"session": ...} line, then a {"message": ...} line per message.
std::string ExportNdjson(const labgate::session::v1::Session& session,
                         const std::vector<labgate::session::v1::Message>& messages);

}  // namespace labgate::gateway::console
