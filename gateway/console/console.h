// The operator's console: GET /console (one self-contained page, embedded at build time)
// and its read-only JSON/SSE API under /console/api/, fed by the same gRPC APIs the
// tools use (serial ListPorts/GetStatus/GetMetrics/Subscribe, session ListSessions/
// GetSession/ListMessages/FeatureIndex/WatchSession, reservations List, tasks List,
// grpc.health.v1) and the approval board. Access follows /mcp: Origin and Host allow-lists, and
// with tokens a bearer token on every API call. Endpoints answer GET, except the POSTs that act
// (console_csrf.h guards them): a replay for the operator's own principal, revoking a principal's
// HTTP sessions, and approving or declining a held write.
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "common/access/access_control.h"
#include "gateway/approvals/approval_board.h"
#include "gateway/backends/serial_benches.h"
#include "gateway/console/approval_views.h"
#include "gateway/console/console_csrf.h"
#include "gateway/console/console_routes.h"
#include "gateway/console/port_views.h"
#include "gateway/console/reservation_views.h"
#include "gateway/console/session_views.h"
#include "gateway/console/sse_relay.h"
#include "gateway/console/task_views.h"
#include "gateway/http/http_connection.h"
#include "gateway/http/http_options.h"

namespace labgate::gateway::console {

struct ConsoleOptions {
  // Every serial bench; one unnamed bench when the gateway has a single serial service.
  std::shared_ptr<const SerialBenches> serial_benches;
  std::shared_ptr<grpc::Channel> session_channel;
  // The reservation service's (labgate-session's); null: none.
  std::shared_ptr<grpc::Channel> reservation_channel;
  // The task service's (labgate-session's); null: none.
  std::shared_ptr<grpc::Channel> task_channel;
  // Each backend's channel by the name an operator knows it by (BackendChannels::Labelled).
  std::map<std::string, std::shared_ptr<grpc::Channel>> health_channels;
  std::chrono::milliseconds call_deadline{10000};
  // SSE streams open at once; more get 503.
  size_t max_streams = 256;
  // The access file (roles shown by whoami, and who may act); null: none.
  std::shared_ptr<const access::AccessControl> access;
  // Writes waiting for a person's approval (must outlive the console); null: none taken here.
  ApprovalBoard* approvals = nullptr;
};

// Ends a principal's stateful HTTP sessions; returns how many (HttpServer::RevokeSessionsOf).
using SessionRevoker = std::function<size_t(const std::string& principal)>;

class Console {
 public:
  explicit Console(ConsoleOptions options);
  ~Console();

  // Serves a request for /console or a path under it (console_routes.h IsConsolePath).
  void Serve(const std::shared_ptr<http::HttpConnection>& connection, const http::Request& request,
             const http::HttpOptions& http_options);
  // Ends every open stream (its client gets an "end" event); later ones get 503.
  void Stop();
  size_t open_streams() const { return relays_->open(); }
  // What POST /console/api/principals/{name}/revoke calls (set once the HTTP server runs).
  void SetSessionRevoker(SessionRevoker revoker);

 private:
  void ServeApi(const std::shared_ptr<http::HttpConnection>& connection,
                const http::Request& request, const std::string& principal, bool tokens);
  // Who is asking, and their role under the access file (and every named principal's).
  nlohmann::json Whoami(const std::string& principal, bool tokens) const;

  // A console action: the caller must be allowed to act (operator or admin).
  void Revoke(const std::shared_ptr<http::HttpConnection>& connection, const std::string& actor,
              const std::string& principal);

  // Console actions: force-closing a port or ending a reservation, as `actor` (operator or
  // admin), with the body's reason kept in the record.
  void CloseOrEnd(const std::shared_ptr<http::HttpConnection>& connection, const std::string& actor,
                  const Route& route, const std::string& body);

  ConsoleOptions options_;
  CsrfGuard csrf_;
  absl::Mutex revoker_mutex_;
  SessionRevoker revoker_ ABSL_GUARDED_BY(revoker_mutex_);
  PortViews ports_;
  SessionViews sessions_;
  ReservationViews reservations_;
  TaskViews tasks_;
  ApprovalViews approvals_;
  std::shared_ptr<RelayRegistry> relays_;
};

}  // namespace labgate::gateway::console
