// The Streamable HTTP transport: accepts connections on the gateway's io_context,
// routes /mcp (and /) to MCP sessions, serves the operator routes (/health, /healthz,
// /readyz, /metrics, and the console under /console when one is set), and expires idle
// sessions. With HttpOptions::operator_only it serves the operator routes alone (the
// gateway's --metrics-listen). Nothing here blocks an Asio thread.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "gateway/dialects/mcp_stateless/stateless_dialect.h"
#include "gateway/http/era_headers.h"
#include "gateway/http/http_connection.h"
#include "gateway/http/http_options.h"
#include "gateway/http/idle_connections.h"
#include "gateway/http/request_headers.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/principals/principal_registry.h"

namespace labgate::gateway::console {
class Console;
}

namespace labgate::gateway::http {

class HttpSession;

// Asks whether the gRPC backends answer; calls `done` once, from any thread, without
// blocking the caller.
using ReadinessProbe = std::function<void(std::function<void(bool ready, std::string detail)>)>;

class HttpServer {
 public:
  // `stateless_dialect` serves the 2026 era (null: only the stateful era is served).
  HttpServer(boost::asio::io_context& io, const McpServer* server, HttpOptions options,
             ReadinessProbe readiness = nullptr,
             stateless::StatelessDialect* stateless_dialect = nullptr);
  ~HttpServer();

  // Spreads new connections, with the sessions they start, over these io_contexts (each run by
  // one thread) instead of the server's own. Before Start().
  void SetConnectionContexts(std::vector<boost::asio::io_context*> contexts);
  // Binds and starts accepting; port() is then the bound port.
  absl::Status Start();
  uint16_t port() const { return port_; }
  // Stops accepting and ends every session (their open streams end).
  void Stop();
  size_t session_count() const;
  // Expires the sessions idle past --session-idle-timeout-ms (by options.clock) and releases
  // the serial ports of principals idle past --port-idle-release-ms. A timer runs it every
  // quarter of the shorter of the two (at most 30 s); tests call it after moving the clock.
  void Sweep();
  // Ends every stateful session of the principal named `principal` (as DELETE would; requests
  // in flight get 404); its ports stay with the principal. Returns how many ended.
  size_t RevokeSessionsOf(const std::string& principal);
  size_t connection_count() const { return connections_->load(); }
  size_t idle_connection_count() const { return idle_->idle_count(); }
  PrincipalRegistry& principals() { return principals_; }
  // Serves /console and /console/api/ with `console` (null: 404); it must outlive the
  // server.
  void SetConsole(console::Console* console) { console_.store(console); }

 private:
  void Accept();
  // The route table: every path this server answers, in one place.
  void Route(std::shared_ptr<HttpConnection> connection, const Request& request);
  void ServeHealth(const std::shared_ptr<HttpConnection>& connection, const Request& request);
  void ServeReady(const std::shared_ptr<HttpConnection>& connection);
  void ServeMetrics(const std::shared_ptr<HttpConnection>& connection, const Request& request,
                    const RequestHeaders& headers);
  // Answers a request the server turns away before any dialect sees it, with its access line.
  void Refuse(const std::shared_ptr<HttpConnection>& connection, const Request& request,
              const std::string& principal, int status, HeaderList headers, std::string body);
  void RefuseUnauthorized(const std::shared_ptr<HttpConnection>& connection, const Request& request,
                          const RequestHeaders& headers);
  void RouteMcp(std::shared_ptr<HttpConnection> connection, const Request& request,
                const RequestHeaders& headers);
  void RoutePost(std::shared_ptr<HttpConnection> connection, const Request& request,
                 const RequestHeaders& headers, std::shared_ptr<HttpSession> session,
                 std::shared_ptr<Principal> principal);
  void RouteStateless(std::shared_ptr<HttpConnection> connection, const Request& request,
                      const RequestHeaders& headers, const jsonrpc::IncomingMessage& message,
                      std::shared_ptr<Principal> principal);
  std::shared_ptr<HttpSession> FindSession(const std::string& id) const;
  void ScheduleSweep();

  boost::asio::io_context& io_;
  std::vector<boost::asio::io_context*> connection_contexts_;  // empty: io_
  size_t next_context_ = 0;                                    // on the accept strand
  const McpServer* server_;
  std::shared_ptr<const HttpOptions> options_;
  ReadinessProbe readiness_;
  stateless::StatelessDialect* stateless_;
  std::atomic<console::Console*> console_{nullptr};
  PrincipalRegistry principals_;  // idle release reads options_->clock
  HeaderParamIndex header_params_;
  boost::asio::strand<boost::asio::io_context::executor_type> accept_strand_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer sweep_timer_;
  uint16_t port_ = 0;
  std::atomic<bool> stopped_{false};
  // Cleared by Stop(); handlers check it before touching the server, which may be gone.
  std::shared_ptr<std::atomic<bool>> alive_ = std::make_shared<std::atomic<bool>>(true);
  // Shared with connections, which may outlive the server by a moment at shutdown.
  std::shared_ptr<std::atomic<size_t>> connections_ = std::make_shared<std::atomic<size_t>>(0);
  // Open connections per client IP address, for max_connections_per_ip. Shared likewise.
  struct PeerCounts {
    absl::Mutex mutex;
    std::unordered_map<std::string, size_t> open ABSL_GUARDED_BY(mutex);
    // Counts one more from `peer`; false, counting nothing, when it is at `cap` (0 = none).
    bool TryAdd(const std::string& peer, size_t cap) ABSL_LOCKS_EXCLUDED(mutex);
    void Remove(const std::string& peer) ABSL_LOCKS_EXCLUDED(mutex);
  };
  std::shared_ptr<PeerCounts> peers_ = std::make_shared<PeerCounts>();
  // Connections waiting for a request, which the cap may close (shared likewise).
  std::shared_ptr<IdleConnections> idle_ = std::make_shared<IdleConnections>();

  mutable absl::Mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<HttpSession>> sessions_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace labgate::gateway::http
