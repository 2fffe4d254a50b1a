#include "gateway/http/http_server.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <future>
#include <vector>

#include "common/log.h"
#include "common/metrics/metrics.h"
#include "common/status_map.h"
#include "gateway/console/console.h"
#include "gateway/console/console_routes.h"
#include "gateway/core/gateway_metrics.h"
#include "gateway/core/request_trace.h"
#include "gateway/http/http_security.h"
#include "gateway/http/http_session.h"
#include "gateway/http/request_headers.h"
#include "gateway/http/stateless_exchange.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/legacy/legacy_envelope.h"
#include "gateway/mcp/protocol_version.h"

namespace labgate::gateway::http {

namespace asio = boost::asio;
namespace beast_http = boost::beast::http;
using Kind = jsonrpc::IncomingMessage::Kind;

namespace {

std::string Path(const Request& request) {
  std::string target(request.target().data(), request.target().size());
  return target.substr(0, target.find('?'));
}

std::string Error(int code, std::string_view message) {
  return HttpConnection::ErrorBody(code, message);
}

constexpr char kMcpMethods[] = "GET, POST, DELETE, OPTIONS";
// What a browser client of Streamable HTTP sends besides the CORS-safelisted headers.
constexpr char kCorsRequestHeaders[] =
    "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, "
    "Mcp-Method, Mcp-Name";

// For a request from an allowed origin: let its page read the answer and the session id.
HeaderList CorsHeaders(std::string_view origin) {
  return {{"Access-Control-Allow-Origin", std::string(origin)},
          {"Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version"},
          {"Vary", "Origin"}};
}

// HTTP methods are counted by name; anything else as "other".
bool IsHttpVerb(const std::string& verb) {
  return verb == "GET" || verb == "POST" || verb == "DELETE" || verb == "OPTIONS" ||
         verb == "HEAD" || verb == "PUT" || verb == "PATCH";
}

// The outcome label of a refusal: its status (a fixed set), or http_error.
const char* HttpOutcome(int status) {
  switch (status) {
    case 400:
      return "http_400";
    case 401:
      return "http_401";
    case 403:
      return "http_403";
    case 404:
      return "http_404";
    case 405:
      return "http_405";
    case 406:
      return "http_406";
    case 415:
      return "http_415";
    case 429:
      return "http_429";
    case 503:
      return "http_503";
    default:
      return "http_error";
  }
}

// The 2026 era: the body carries its _meta protocol version (or is server/discover), or,
// outside a stateful session, the header or a _meta says so.
bool IsStatelessPost(const RequestHeaders& headers, const jsonrpc::IncomingMessage& message) {
  if (message.kind == Kind::kInvalid) return false;
  if (stateless::ClaimsMessage(message.method, message.body)) return true;
  if (headers.session_id_given) return false;
  const std::string header(headers.protocol_version);
  if (header == stateless::kStatelessVersion) return true;
  const nlohmann::json params = message.body.value("params", nlohmann::json());
  const bool has_meta = params.is_object() && params.contains("_meta");
  if (!has_meta) return false;
  // A 2025 client's _meta (e.g. a progressToken) keeps it in its era.
  if (!header.empty() && IsSupportedProtocolVersion(header)) return false;
  return message.method != "initialize" && !header.empty();
}

}  // namespace

HttpServer::HttpServer(asio::io_context& io, const McpServer* server, HttpOptions options,
                       ReadinessProbe readiness, stateless::StatelessDialect* stateless_dialect)
    : io_(io),
      server_(server),
      options_(std::make_shared<const HttpOptions>(std::move(options))),
      readiness_(std::move(readiness)),
      stateless_(stateless_dialect),
      principals_("http:", "http", options_->clock),
      accept_strand_(asio::make_strand(io)),
      acceptor_(accept_strand_),
      sweep_timer_(accept_strand_) {}

HttpServer::~HttpServer() {
  try {
    Stop();
  } catch (const std::exception& e) {
    LG_LOG(kError) << "http: stopping the server failed: " << e.what();
  }
}

void HttpServer::SetConnectionContexts(std::vector<asio::io_context*> contexts) {
  connection_contexts_ = std::move(contexts);
}

absl::Status HttpServer::Start() {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(options_->host, ec);
  if (ec) return absl::InvalidArgumentError("bad HTTP bind address '" + options_->host + "'");
  asio::ip::tcp::endpoint endpoint(address, options_->port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError("cannot listen on " + options_->host + ":" +
                                  std::to_string(options_->port) + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint().port();
  Accept();
  ScheduleSweep();
  return absl::OkStatus();
}

void HttpServer::Stop() {
  if (stopped_.exchange(true)) return;
  alive_->store(false);
  // Close on the acceptor's strand; if the io_context no longer runs, close here.
  auto closed = std::make_shared<std::promise<void>>();
  auto done = closed->get_future();
  asio::post(accept_strand_, [this, closed] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    sweep_timer_.cancel();
    closed->set_value();
  });
  if (done.wait_for(std::chrono::seconds(2)) != std::future_status::ready) {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
  }
  std::unordered_map<std::string, std::shared_ptr<HttpSession>> sessions;
  {
    absl::MutexLock lock(&mutex_);
    sessions.swap(sessions_);
  }
  // Each session closes on its strand, ending its streams, which breaks the references between
  // it and their connections; waited for, so that an io_context stopped next leaves no cycle.
  std::vector<std::future<void>> closes;
  for (auto& [id, session] : sessions) {
    auto session_closed = std::make_shared<std::promise<void>>();
    closes.push_back(session_closed->get_future());
    asio::post(session->strand(), [session, session_closed] {
      session->Close();
      session_closed->set_value();
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (std::future<void>& close : closes) close.wait_until(deadline);
}

void HttpServer::Accept() {
  asio::io_context& context =
      connection_contexts_.empty()
          ? io_
          : *connection_contexts_[next_context_++ % connection_contexts_.size()];
  // The socket gets the context's plain executor: the connection serializes its handlers on
  // a strand of its own, and a socket on a strand too would queue each of them twice.
  acceptor_.async_accept(
      context.get_executor(),
      [this, alive = alive_, &context](boost::system::error_code ec, asio::ip::tcp::socket socket) {
        if (!alive->load() || ec == asio::error::operation_aborted) return;
        if (!ec) {
          boost::system::error_code peer_error;
          const std::string peer = socket.remote_endpoint(peer_error).address().to_string();
          // At the cap, the connection idle longest makes room: idle sockets cannot lock
          // new clients out.
          bool admitted = peers_->TryAdd(peer, options_->max_connections_per_ip);
          if (admitted && connections_->load() >= options_->max_connections) {
            if (auto idle = idle_->ChooseOldest()) {
              GatewayMetrics::Get().http_connections_closed.With({"idle_evicted"}).Increment();
              idle->Evict();
            } else {
              peers_->Remove(peer);
              admitted = false;
            }
          }
          if (!admitted) {
            // Over a cap: refuse at once rather than let a flood starve the others.
            LG_LOG(kDebug) << "http: refusing a connection from " << peer << " (connection cap)";
            GatewayMetrics::Get().http_connections_closed.With({"refused"}).Increment();
            boost::system::error_code ignored;
            socket.close(ignored);
          } else {
            auto connection = std::make_shared<HttpConnection>(
                std::move(socket), context, options_, idle_,
                [this, alive](std::shared_ptr<HttpConnection> connection, const Request& request) {
                  if (!alive->load()) {
                    return connection->Respond(
                        503, {}, Error(jsonrpc_code::kInternalError, "server shutting down"), true);
                  }
                  Route(std::move(connection), request);
                },
                [counter = connections_, peers = peers_, peer] {
                  counter->fetch_sub(1);
                  GatewayMetrics::Get().http_connections.Get().Decrement();
                  peers->Remove(peer);
                });
            // Counted once it is on the idle list, so that a count never includes a
            // connection that is neither idle nor busy.
            connection->Start();
            connections_->fetch_add(1);
            GatewayMetrics::Get().http_connections.Get().Increment();
          }
        } else {
          LG_LOG(kWarning) << "http: accept failed: " << ec.message();
        }
        Accept();
      });
}

void HttpServer::Route(std::shared_ptr<HttpConnection> connection, const Request& request) {
  // The route table. The operator routes are served on every listener; the MCP endpoint
  // only where MCP is served (not on an operator listener, --metrics-listen).
  // A request without exactly one non-empty Host is malformed, whatever its route.
  const RequestHeaders headers = ReadRequestHeaders(request);
  if (auto problem = HostHeaderProblem(headers.host_count, headers.host, request.version(),
                                       options_->allow_no_host)) {
    return Refuse(connection, request, "-", 400, {},
                  Error(jsonrpc_code::kInvalidRequest, *problem));
  }
  const std::string path = Path(request);
  if (path == "/health" || path == "/healthz") return ServeHealth(connection, request);
  if (path == "/readyz") return ServeReady(connection);
  if (path == "/metrics") return ServeMetrics(connection, request, headers);
  if (!options_->operator_only && (path == "/mcp" || path == "/")) {
    return RouteMcp(std::move(connection), request, headers);
  }
  if (console::Console* console = console_.load(); console && console::IsConsolePath(path)) {
    return console->Serve(connection, request, *options_);
  }
  connection->Respond(404, {}, Error(jsonrpc_code::kInvalidRequest, "no such endpoint: " + path));
}

void HttpServer::ServeHealth(const std::shared_ptr<HttpConnection>& connection,
                             const Request& request) {
  if (request.method() != beast_http::verb::get && request.method() != beast_http::verb::head) {
    return connection->Respond(405, {{"Allow", "GET"}}, "");
  }
  if (request.method() == beast_http::verb::head) return connection->Respond(200, {}, "");
  connection->Respond(200, {}, R"({"status":"ok"})");
}

void HttpServer::ServeReady(const std::shared_ptr<HttpConnection>& connection) {
  if (!readiness_) return connection->Respond(200, {}, R"({"status":"ready"})");
  readiness_([connection](bool ready, std::string detail) {
    nlohmann::json body = {{"status", ready ? "ready" : "unavailable"}, {"detail", detail}};
    connection->Respond(ready ? 200 : 503, {}, jsonrpc::DumpJson(body));
  });
}

void HttpServer::ServeMetrics(const std::shared_ptr<HttpConnection>& connection,
                              const Request& request, const RequestHeaders& headers) {
  if (request.method() != beast_http::verb::get && request.method() != beast_http::verb::head) {
    return Refuse(connection, request, "-", 405, {{"Allow", "GET, HEAD"}},
                  Error(jsonrpc_code::kInvalidRequest, "Method not allowed"));
  }
  // With tokens, the lab's activity is shown only to a holder of one (any principal).
  if (!options_->auth_tokens.empty() &&
      !BearerPrincipal(headers.authorization, options_->auth_tokens)) {
    return RefuseUnauthorized(connection, request, headers);
  }
  std::string body = request.method() == beast_http::verb::head ? "" : metrics::Default().Render();
  connection->Respond(200, {{"Content-Type", metrics::kContentType}}, std::move(body));
}

void HttpServer::Refuse(const std::shared_ptr<HttpConnection>& connection, const Request& request,
                        const std::string& principal, int status, HeaderList headers,
                        std::string body) {
  const std::string verb(request.method_string().data(), request.method_string().size());
  RequestTrace({"http", "http", principal, verb, IsHttpVerb(verb), ""})
      .Answered({HttpOutcome(status), 0});
  connection->Respond(status, std::move(headers), std::move(body));
}

void HttpServer::RefuseUnauthorized(const std::shared_ptr<HttpConnection>& connection,
                                    const Request& request, const RequestHeaders& headers) {
  const bool presented = !headers.authorization.empty();
  std::string challenge =
      presented ? R"(Bearer realm="labgate", error="invalid_token")" : R"(Bearer realm="labgate")";
  Refuse(connection, request, "-", 401, {{"WWW-Authenticate", challenge}},
         Error(jsonrpc_code::kInvalidRequest, "Unauthorized"));
}

void HttpServer::RouteMcp(std::shared_ptr<HttpConnection> connection, const Request& request,
                          const RequestHeaders& headers) {
  // DNS-rebinding protection first: a browser page must not reach a local server.
  const std::string_view origin = headers.origin;
  if (!OriginAllowed(origin, options_->allowed_origins)) {
    return Refuse(connection, request, "-", 403, {},
                  Error(jsonrpc_code::kInvalidRequest, "Origin not allowed"));
  }
  // A page from an allowed origin may read every answer, errors included (CORS).
  if (!origin.empty()) connection->AddResponseHeaders(CorsHeaders(origin));
  if (!HostAllowed(headers.host, options_->allowed_hosts)) {
    return Refuse(connection, request, "-", 403, {},
                  Error(jsonrpc_code::kInvalidRequest, "Host not allowed"));
  }
  // A CORS preflight carries no credentials, so it is answered before the token check.
  if (request.method() == beast_http::verb::options) {
    HeaderList allow = {{"Allow", kMcpMethods}};
    if (!origin.empty()) {
      allow.insert(allow.end(), {{"Access-Control-Allow-Methods", kMcpMethods},
                                 {"Access-Control-Allow-Headers", kCorsRequestHeaders},
                                 {"Access-Control-Max-Age", "600"}});
    }
    return connection->Respond(204, std::move(allow), "");
  }
  // Who is asking: the named token, or with no tokens the one loopback principal.
  std::string principal_name = "local";
  if (!options_->auth_tokens.empty()) {
    auto named = BearerPrincipal(headers.authorization, options_->auth_tokens);
    if (!named) return RefuseUnauthorized(connection, request, headers);
    principal_name = *named;
  }
  std::shared_ptr<Principal> principal = principals_.Get(principal_name);

  auto method = request.method();
  if (method != beast_http::verb::post && method != beast_http::verb::get &&
      method != beast_http::verb::delete_) {
    return Refuse(connection, request, principal_name, 405, {{"Allow", kMcpMethods}},
                  Error(jsonrpc_code::kInvalidRequest, "Method not allowed"));
  }

  const std::string version(headers.protocol_version);
  const std::string session_id(headers.session_id);
  std::shared_ptr<HttpSession> session;
  if (!session_id.empty()) {
    session = FindSession(session_id);
    // Another principal's session does not exist as far as this one can tell.
    if (session && session->principal() != principal) session = nullptr;
  }

  if (method == beast_http::verb::post) {
    return RoutePost(std::move(connection), request, headers, std::move(session),
                     std::move(principal));
  }
  if (!session && !session_id.empty()) {
    return Refuse(connection, request, principal_name, 404, {},
                  Error(jsonrpc_code::kSessionNotFound, "Session not found"));
  }
  if (!session) {
    // GET and DELETE belong to stateful sessions only; the 2026 era has neither.
    return Refuse(
        connection, request, principal_name, 405, {{"Allow", "POST"}},
        Error(jsonrpc_code::kInvalidRequest,
              "Method not allowed: GET and DELETE need an Mcp-Session-Id of a stateful session"));
  }
  if (!version.empty() && !IsSupportedProtocolVersion(version)) {
    return Refuse(
        connection, request, principal_name, 400, {},
        Error(jsonrpc_code::kInvalidRequest, "Unsupported MCP-Protocol-Version: " + version));
  }
  if (method == beast_http::verb::get) {
    if (!AcceptIncludes(headers.accept, "text/event-stream")) {
      return Refuse(connection, request, principal_name, 406, {},
                    Error(jsonrpc_code::kInvalidRequest,
                          "Not Acceptable: Accept must include text/event-stream"));
    }
    std::string last_event_id(headers.last_event_id);
    return asio::post(session->strand(), [session, connection, last_event_id] {
      session->OpenStream(last_event_id, connection);
    });
  }
  // DELETE: the session ends, which is worth a line of its own.
  RequestTrace({"http", "http", principal_name, "DELETE", true, ""}).Answered(RequestOutcome::Ok());
  {
    absl::MutexLock lock(&mutex_);
    sessions_.erase(session->id());
  }
  asio::post(session->strand(), [session, connection] {
    session->Close();
    connection->Respond(200, {}, "");
  });
}

void HttpServer::RoutePost(std::shared_ptr<HttpConnection> connection, const Request& request,
                           const RequestHeaders& headers, std::shared_ptr<HttpSession> session,
                           std::shared_ptr<Principal> principal) {
  const std::string_view accept = headers.accept;
  if (!AcceptIncludes(accept, "application/json") || !AcceptIncludes(accept, "text/event-stream")) {
    return Refuse(
        connection, request, principal->name(), 406, {},
        Error(jsonrpc_code::kInvalidRequest,
              "Not Acceptable: Accept must include application/json and text/event-stream"));
  }
  if (headers.content_type.rfind("application/json", 0) != 0) {
    return Refuse(
        connection, request, principal->name(), 415, {},
        Error(jsonrpc_code::kInvalidRequest, "Unsupported Media Type: use application/json"));
  }

  jsonrpc::IncomingMessage message = jsonrpc::ParseMessage(request.body());
  if (message.kind == Kind::kInvalid && legacy::IsEnvelope(message.body)) {
    return Refuse(
        connection, request, principal->name(), 400, {},
        Error(jsonrpc_code::kInvalidRequest, "legacy envelope messages are not served over HTTP"));
  }
  if (message.kind == Kind::kInvalid) {
    return Refuse(connection, request, principal->name(), 400, {},
                  jsonrpc::MakeError(message.raw_id, message.error_code, message.error_message));
  }
  principal->Touch();
  if (stateless_ != nullptr && IsStatelessPost(headers, message)) {
    // A leftover Mcp-Session-Id is ignored in this era.
    return RouteStateless(std::move(connection), request, headers, message, std::move(principal));
  }
  if (!session && !headers.session_id.empty()) {
    return Refuse(connection, request, principal->name(), 404, {},
                  Error(jsonrpc_code::kSessionNotFound, "Session not found"));
  }
  bool initialize = message.kind == Kind::kRequest && message.method == "initialize";
  const std::string version(headers.protocol_version);
  if (!initialize && !version.empty() && !IsSupportedProtocolVersion(version)) {
    return Refuse(
        connection, request, principal->name(), 400, {},
        Error(jsonrpc_code::kInvalidRequest, "Unsupported MCP-Protocol-Version: " + version));
  }
  if (!session) {
    if (!initialize) {
      return Refuse(
          connection, request, principal->name(), 400, {},
          jsonrpc::MakeError(message.kind == Kind::kRequest ? message.raw_id : "null",
                             jsonrpc_code::kInvalidRequest,
                             "Bad Request: Mcp-Session-Id header is required (send initialize "
                             "first)"));
    }
    {
      absl::MutexLock lock(&mutex_);
      if (sessions_.size() >= options_->max_sessions) {
        return Refuse(connection, request, principal->name(), 503, {{"Retry-After", "5"}},
                      Error(jsonrpc_code::kInvalidRequest, "too many sessions"));
      }
      // On its first connection's io_context: a client that keeps that connection has its
      // requests served by one thread throughout.
      session = std::make_shared<HttpSession>(NewSessionId(), server_, connection->context(),
                                              options_, principal);
      session->Start();
      sessions_[session->id()] = session;
    }
  }
  // Dispatched: on an io thread with the session idle, the request runs at once rather than
  // after another turn of the scheduler (a poll of the sockets per turn).
  asio::dispatch(session->strand(), [session, connection, message = std::move(message)]() {
    if (message.kind == Kind::kRequest) {
      session->HandleRequest(message, connection);
    } else {
      session->HandleOther(message, connection);
    }
  });
}

void HttpServer::RouteStateless(std::shared_ptr<HttpConnection> connection, const Request& request,
                                const RequestHeaders& headers,
                                const jsonrpc::IncomingMessage& message,
                                std::shared_ptr<Principal> principal) {
  if (message.kind == Kind::kResponse) {
    // This era sends no requests to clients, so there is nothing a response could answer.
    return connection->Respond(202, {}, "");
  }
  const std::string raw_id = message.kind == Kind::kRequest ? message.raw_id : "null";
  auto refuse = [&](std::string payload) {
    const int status = StatelessExchange::StatusFor(payload);
    Refuse(connection, request, principal->name(), status, {}, std::move(payload));
  };
  // The order of these checks is the era's: the header must exist, the _meta must be
  // whole, then the two versions must agree, and only then is the version judged.
  const std::string header_version(headers.protocol_version);
  if (header_version.empty()) {
    return refuse(
        jsonrpc::MakeError(raw_id, jsonrpc_code::kHeaderMismatch,
                           "Header mismatch: the MCP-Protocol-Version header is required"));
  }
  if (message.kind == Kind::kRequest) {
    stateless::RequestMeta meta;
    const nlohmann::json params = message.body.value("params", nlohmann::json::object());
    auto meta_error = stateless::ParseRequestMeta(params, &meta);
    if (meta_error && meta_error->code == jsonrpc_code::kInvalidParams) {
      return refuse(
          jsonrpc::MakeError(raw_id, meta_error->code, meta_error->message, meta_error->data));
    }
    if (header_version != meta.protocol_version) {
      return refuse(jsonrpc::MakeError(raw_id, jsonrpc_code::kHeaderMismatch,
                                       "Header mismatch: MCP-Protocol-Version header value '" +
                                           header_version + "' does not match body value '" +
                                           meta.protocol_version + "'"));
    }
    if (meta_error) {
      return refuse(
          jsonrpc::MakeError(raw_id, meta_error->code, meta_error->message, meta_error->data));
    }
    if (auto mismatch = CheckEraHeaders(request, message, *server_, header_params_)) {
      return refuse(std::move(*mismatch));
    }
  }
  auto exchange = std::make_shared<StatelessExchange>(connection->context(), connection);
  exchange->Start();
  const bool is_request = message.kind == Kind::kRequest;
  stateless_->Handle(message, Framing::kNewline, exchange, principal, exchange->calls());
  if (!is_request) connection->Respond(202, {}, "");
}

bool HttpServer::PeerCounts::TryAdd(const std::string& peer, size_t cap) {
  absl::MutexLock lock(&mutex);
  size_t& count = open[peer];
  if (cap != 0 && count >= cap) return false;
  ++count;
  return true;
}

void HttpServer::PeerCounts::Remove(const std::string& peer) {
  absl::MutexLock lock(&mutex);
  auto it = open.find(peer);
  if (it == open.end()) return;
  if (--it->second == 0) open.erase(it);
}

std::shared_ptr<HttpSession> HttpServer::FindSession(const std::string& id) const {
  absl::MutexLock lock(&mutex_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

size_t HttpServer::session_count() const {
  absl::MutexLock lock(&mutex_);
  return sessions_.size();
}

void HttpServer::ScheduleSweep() {
  auto period = std::min<std::chrono::milliseconds>({options_->session_idle_timeout / 4,
                                                     options_->port_idle_release / 4,
                                                     std::chrono::seconds(30)});
  if (period < std::chrono::milliseconds(10)) period = std::chrono::milliseconds(10);
  sweep_timer_.expires_after(period);
  sweep_timer_.async_wait([this, alive = alive_](boost::system::error_code ec) {
    if (ec || !alive->load()) return;
    Sweep();
    ScheduleSweep();
  });
}

size_t HttpServer::RevokeSessionsOf(const std::string& principal) {
  std::vector<std::shared_ptr<HttpSession>> revoked;
  {
    absl::MutexLock lock(&mutex_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (it->second->principal()->name() == principal) {
        revoked.push_back(std::move(it->second));
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& session : revoked) {
    asio::post(session->strand(), [session] { session->Close(); });
  }
  return revoked.size();
}

void HttpServer::Sweep() {
  principals_.ReleaseIdle(options_->clock() - options_->port_idle_release);
  auto cutoff = options_->clock() - options_->session_idle_timeout;
  std::vector<std::shared_ptr<HttpSession>> expired;
  {
    absl::MutexLock lock(&mutex_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (it->second->IdleSince(cutoff)) {
        expired.push_back(std::move(it->second));
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& session : expired) {
    LG_LOG(kInfo) << "http: session " << session->id().substr(0, 8) << " expired after idling";
    asio::post(session->strand(), [session] { session->Close(); });
  }
}

}  // namespace labgate::gateway::http
