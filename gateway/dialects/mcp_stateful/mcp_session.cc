#include "gateway/dialects/mcp_stateful/mcp_session.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "common/dcheck.h"
#include "common/log.h"
#include "common/status_map.h"
#include "gateway/core/cancel_signal.h"
#include "gateway/core/gateway_metrics.h"
#include "gateway/core/strand_check.h"
#include "gateway/mcp/invalid_params.h"
#include "gateway/mcp/list_changed.h"
#include "gateway/mcp/protocol_version.h"
#include "gateway/mcp/resource_access.h"

namespace labgate::gateway {

using nlohmann::json;
namespace code = labgate::jsonrpc_code;

// The RequestContext handed to providers for one client request. It holds nothing of the
// session's strand: a call's last reference to it often goes on a gRPC thread after the
// reply, when the connection's io_context may be going too, and a strand must not outlive
// its io_context.
class McpSession::Context final : public RequestContext {
 public:
  Context(std::weak_ptr<McpSession> session, std::string key, json progress_token,
          std::shared_ptr<Principal> principal, json capabilities)
      : session_(std::move(session)),
        key_(std::move(key)),
        progress_token_(std::move(progress_token)),
        principal_(std::move(principal)),
        capabilities_(std::move(capabilities)) {}

  const std::string& owner() const override { return principal_->owner_id(); }
  const std::string& principal_name() const override { return principal_->name(); }
  const json& client_capabilities() const override { return capabilities_; }
  bool cancelled() const override { return cancel_.cancelled(); }
  void OnCancel(std::function<void()> handler) override { cancel_.OnCancel(std::move(handler)); }
  void Cancel() { cancel_.Cancel(); }

  void Progress(double progress, std::optional<double> total, const std::string& message) override {
    if (progress_token_.is_null()) return;
    json params = {{"progressToken", progress_token_}, {"progress", progress}};
    if (total) params["total"] = *total;
    if (!message.empty()) params["message"] = message;
    OnSend([key = key_, params = std::move(params)](McpSession& session) {
      if (session.IsInFlight(key)) session.SendNotification("notifications/progress", params, key);
    });
  }

  bool WouldLog(McpLogLevel level) const override {
    auto session = session_.lock();
    return session && level >= session->log_level_.load();
  }

  void Log(McpLogLevel level, const std::string& logger, const json& data) override {
    auto session = session_.lock();
    // Below the client's level a log goes nowhere: it is dropped here, before any hand-off.
    if (!session || level < session->log_level_.load()) return;
    session->OnSend([key = key_, level, logger, data](McpSession& session) {
      session.SendLog(level, logger, data, session.IsInFlight(key) ? key : "");
    });
  }

  LogSink LaterLog() override {
    return [weak = session_](McpLogLevel level, const std::string& logger, const json& data) {
      auto session = weak.lock();
      if (!session || level < session->log_level_.load()) return;
      session->OnSend(
          [level, logger, data](McpSession& session) { session.SendLog(level, logger, data, ""); });
    };
  }

  NotifySink LaterNotify() override {
    return [weak = session_](const std::string& method, const json& params) {
      if (auto session = weak.lock()) {
        session->OnSend([method, params](McpSession& session) {
          session.SendNotification(method, params, "");
        });
      }
    };
  }

  void CloseStream() override {
    OnSend([key = key_](McpSession& session) {
      if (!session.IsInFlight(key)) return;
      OutboundMessage close;
      close.related_request = key;
      close.framing = session.FramingOf(key);
      close.close_stream = true;
      session.outbound_->Send(std::move(close));
    });
  }

  void RequestClient(const std::string& method, const json& params,
                     std::chrono::milliseconds timeout, JsonDone done) override {
    auto session = session_.lock();
    if (!session) return done(absl::CancelledError("the connection is closed"));
    session->run_on_strand_(
        [session, key = key_, method, params, timeout, done = std::move(done)]() mutable {
          session->SendClientRequest(method, params, key, timeout, std::move(done));
        });
  }

  void WithdrawQuestions(const std::string& reason) override {
    auto session = session_.lock();
    if (!session) return;
    session->run_on_strand_(
        [session, key = key_, reason] { session->WithdrawClientRequests(key, reason); });
  }

  std::shared_ptr<void> HoldForPrincipal(
      const std::string& key, const std::function<std::shared_ptr<void>()>& make) override {
    return principal_->Hold(key, make);
  }
  std::shared_ptr<void> KeepPrincipalBusy() override { return principal_->Busy(); }

 private:
  void OnSend(std::function<void(McpSession&)> fn) {
    if (auto session = session_.lock()) session->OnSend(std::move(fn));
  }

  std::weak_ptr<McpSession> session_;
  std::string key_;
  json progress_token_;
  std::shared_ptr<Principal> principal_;
  json capabilities_;
  CancelSignal cancel_;
};

McpSession::McpSession(const McpServer* server, boost::asio::any_io_executor strand,
                       RunOnStrand run_on_strand, std::shared_ptr<Outbound> outbound,
                       std::shared_ptr<Principal> principal,
                       std::shared_ptr<InFlightCounter> in_flight, RunOnStrand run_send)
    : server_(server),
      engine_(server),
      strand_(std::move(strand)),
      run_on_strand_(std::move(run_on_strand)),
      sends_anywhere_(run_send != nullptr),
      run_send_(run_send ? std::move(run_send) : run_on_strand_),
      outbound_(std::move(outbound)),
      principal_(std::move(principal)),
      in_flight_count_(in_flight ? std::move(in_flight) : InFlightCounter::Create()) {}

McpSession::~McpSession() {
  if (counted_) GatewayMetrics::Get().mcp_sessions.With({principal_->transport()}).Decrement();
}

SharedTrace McpSession::Trace(const std::string& method, const json& params) const {
  return RequestTrace::Start({"mcp", principal_->transport(), principal_->name(), method,
                              IsMcpMethod(method), TracedTool(method, params)});
}

void McpSession::Register() {
  list_listener_ = server_->hub->Listen([weak = weak_from_this()](ListKind kind) {
    auto session = weak.lock();
    if (!session) return;
    session->run_send_([session, kind] { session->NotifyListChanged(kind); });
  });
}

void McpSession::OnSend(std::function<void(McpSession&)> fn) {
  run_send_([self = shared_from_this(), fn = std::move(fn)]() {
    if (!self->closed_) fn(*self);
  });
}

ReplyOnce McpSession::MakeReply(const std::string& raw_id, const std::string& key,
                                std::shared_ptr<void> busy) {
  // The reply is serialized on the answering thread, and sent through run_send. `busy` ends
  // before the answer goes (or with an unanswered handle), so a client that has its answer
  // finds its principal's idle time counting.
  return ReplyOnce(
      raw_id, [weak = weak_from_this(), key, busy = std::move(busy)](MessageText payload) mutable {
        busy.reset();
        auto session = weak.lock();
        if (!session) return;
        session->run_send_([session, key, payload = std::move(payload)]() mutable {
          session->Deliver(key, std::move(payload));
        });
      });
}

void McpSession::AssertOnStrand() const {
  LG_DCHECK(RunningOnStrand(strand_), "McpSession runs on its strand");
}

void McpSession::AssertMaySend() const {
  // With a run_send of its own, sending may happen on any thread; otherwise on the strand.
  if (!sends_anywhere_) AssertOnStrand();
}

void McpSession::Deliver(const std::string& key, MessageText payload) {
  AssertMaySend();
  bool cancelled;
  Framing framing;
  InFlightCounter::Token token;
  SharedTrace trace;
  std::shared_ptr<Context> context;  // let go of outside the lock
  {
    absl::MutexLock lock(&mutex_);
    auto it = in_flight_.find(key);
    if (it == in_flight_.end()) return;
    cancelled = it->second.cancelled;
    framing = it->second.framing;
    token = std::move(it->second.token);
    trace = std::move(it->second.trace);
    context = std::move(it->second.context);
    in_flight_.erase(it);
  }
  if ((cancelled || closed_) && trace) trace->Override(RequestOutcome::Cancelled());
  // Counted until sent, so that a drain waits for the write too.
  if (!cancelled && !closed_) {
    OutboundMessage message;
    if (outbound_->TakesPieces()) {
      message.pieces = std::move(payload);
    } else {
      message.payload = std::move(payload).Join();
    }
    message.related_request = key;
    message.is_response = true;
    message.framing = framing;
    outbound_->Send(std::move(message));
  }
}

Framing McpSession::FramingOf(const std::string& key) const {
  absl::MutexLock lock(&mutex_);
  auto it = in_flight_.find(key);
  return it == in_flight_.end() ? last_framing_ : it->second.framing;
}

void McpSession::Send(std::string payload, const std::string& related_request, bool is_response) {
  AssertMaySend();
  OutboundMessage message;
  message.payload = std::move(payload);
  message.related_request = related_request;
  message.is_response = is_response;
  message.framing = FramingOf(related_request);
  outbound_->Send(std::move(message));
}

void McpSession::Handle(const jsonrpc::IncomingMessage& message, Framing framing) {
  AssertOnStrand();
  if (closed_) return;
  {
    absl::MutexLock lock(&mutex_);
    last_framing_ = framing;
  }
  using Kind = jsonrpc::IncomingMessage::Kind;
  switch (message.kind) {
    case Kind::kInvalid: {
      // Answered at once; its trace (method unknown) is written as it goes.
      Trace(message.method, json())->Answered(RequestOutcome::Error(message.error_code));
      return Send(jsonrpc::MakeError(message.raw_id, message.error_code, message.error_message), "",
                  true);
    }
    case Kind::kRequest:
      return HandleRequest(message, framing);
    case Kind::kNotification:
      return HandleNotification(message);
    case Kind::kResponse:
      return HandleResponse(message);
  }
}

void McpSession::HandleRequest(const jsonrpc::IncomingMessage& message, Framing framing) {
  std::string key = RequestKey(message.body["id"]);
  const std::string& method = message.method;
  const json* params_ptr = nullptr;
  if (auto it = message.body.find("params"); it != message.body.end()) params_ptr = &*it;
  static const json kNoParams = json::object();
  const json& params = params_ptr != nullptr ? *params_ptr : kNoParams;
  SharedTrace trace = Trace(method, params);
  bool taken;
  {
    absl::MutexLock lock(&mutex_);
    taken = in_flight_.contains(key);
    if (!taken) {
      InFlight& entry = in_flight_[key];
      entry.framing = framing;
      entry.token = InFlightCounter::Enter(in_flight_count_);
      entry.trace = trace;
    }
  }
  if (taken) {
    // Not entered in flight: answered here, in the framing it came in.
    trace->Answered(RequestOutcome::Error(code::kInvalidRequest));
    OutboundMessage busy;
    busy.payload =
        jsonrpc::MakeError(message.raw_id, code::kInvalidRequest,
                           absl::StrCat("request id ", message.raw_id, " is already in use"));
    busy.framing = framing;
    return outbound_->Send(std::move(busy));
  }
  ReplyOnce reply = MakeReply(message.raw_id, key, principal_->Busy());
  reply.SetTrace(std::move(trace));
  // Only handlers that run provider code get a context (it copies per-request state).
  auto make_context = [&]() -> std::shared_ptr<RequestContext> {
    json progress_token;
    if (params.is_object() && params.contains("_meta") && params["_meta"].is_object()) {
      progress_token = params["_meta"].value("progressToken", json());
    }
    auto context = std::make_shared<Context>(weak_from_this(), key, progress_token, principal_,
                                             client_capabilities_);
    absl::MutexLock lock(&mutex_);
    if (auto it = in_flight_.find(key); it != in_flight_.end()) it->second.context = context;
    return context;
  };

  if (method == "ping") return reply.Result(json::object());
  if (method == "initialize") return Initialize(params, std::move(reply));
  if (!initialized_) {
    return reply.Error(code::kInvalidRequest,
                       absl::StrCat("'", method, "' before initialize: send initialize first"));
  }
  if (engine_.Handle(method, params, reply, make_context, EraRules{})) return;
  if (method == "resources/subscribe") return Subscribe(params, std::move(reply));
  if (method == "resources/unsubscribe") return Unsubscribe(params, std::move(reply));
  if (method == "logging/setLevel") return SetLogLevel(params, std::move(reply));
  reply.Error(code::kMethodNotFound, absl::StrCat("Method not found: ", method));
}

void McpSession::HandleNotification(const jsonrpc::IncomingMessage& message) {
  if (message.method == "notifications/cancelled") {
    auto params = message.body.value("params", json::object());
    if (!params.is_object() || !params.contains("requestId")) return;
    const std::string key = RequestKey(params["requestId"]);
    std::shared_ptr<Context> context;
    {
      absl::MutexLock lock(&mutex_);
      auto it = in_flight_.find(key);
      if (it == in_flight_.end()) return;  // finished already, or never existed
      it->second.cancelled = true;
      context = it->second.context;
    }
    LG_LOG(kDebug) << "request " << key << " cancelled by the client";
    if (context) context->Cancel();
    return;
  }
  // notifications/initialized, roots/list_changed, progress: nothing to answer.
}

void McpSession::HandleResponse(const jsonrpc::IncomingMessage& message) {
  auto it = client_requests_.find(RequestKey(message.body["id"]));
  if (it == client_requests_.end()) {
    LG_LOG(kDebug) << "ignoring a response to no request of ours: id " << message.raw_id;
    return;
  }
  ClientRequest request = std::move(it->second);
  client_requests_.erase(it);
  if (request.timer) request.timer->cancel();
  if (message.body.contains("error")) {
    const json& error = message.body["error"];
    std::string text = error.is_object() ? error.value("message", std::string("error")) : "error";
    int error_code = error.is_object() ? error.value("code", 0) : 0;
    return request.done(
        absl::AbortedError(absl::StrCat("the client answered error ", error_code, ": ", text)));
  }
  request.done(message.body.value("result", json::object()));
}

void McpSession::Initialize(const json& params, ReplyOnce reply) {
  if (!params.is_object() || !params.contains("protocolVersion") ||
      !params["protocolVersion"].is_string()) {
    return InvalidParams(reply, "protocolVersion",
                         "initialize needs params.protocolVersion (a string)");
  }
  protocol_version_ = NegotiateProtocolVersion(params["protocolVersion"].get<std::string>());
  if (params.contains("capabilities") && params["capabilities"].is_object()) {
    client_capabilities_ = params["capabilities"];
  }
  initialized_ = true;
  if (!counted_) {
    counted_ = true;
    GatewayMetrics::Get().mcp_sessions.With({principal_->transport()}).Increment();
  }
  reply.Result({
      {"protocolVersion", protocol_version_},
      {"capabilities", engine_.ServerCapabilities()},
      {"serverInfo", engine_.ServerInfo()},
      {"instructions", server_->config.instructions},
  });
}

void McpSession::Subscribe(const json& params, ReplyOnce reply) {
  std::string uri = StringParam(params, "uri");
  if (uri.empty()) return InvalidParams(reply, "uri", "resources/subscribe needs params.uri");
  if (absl::Status may = MayReadResource(engine_.server(), principal_->name(), uri); !may.ok()) {
    return reply.Fail(may);
  }
  ResourceProvider* provider = engine_.FindResourceProvider(uri);
  if (provider == nullptr) {
    return reply.Error(code::kResourceNotFound, absl::StrCat("Resource not found: ", uri),
                       {{"uri", uri}});
  }
  if (subscriptions_.contains(uri)) return reply.Result(json::object());
  std::weak_ptr<McpSession> weak = weak_from_this();
  // Acknowledged once the provider reports every later change, so that a change the
  // client makes after the acknowledgement is never missed.
  auto acknowledge = std::make_shared<ReplyOnce>(std::move(reply));
  auto handle = provider->SubscribeResourceWhenReady(
      uri,
      [weak, uri]() {
        auto session = weak.lock();
        if (!session) return;
        session->run_on_strand_([session, uri]() {
          if (session->closed_ || !session->subscriptions_.contains(uri)) return;
          session->SendNotification("notifications/resources/updated", {{"uri", uri}});
        });
      },
      [acknowledge] { acknowledge->Result(json::object()); });
  if (!handle) {
    return InvalidParams(*acknowledge, "uri",
                         absl::StrCat("Resource cannot be subscribed to: ", uri));
  }
  subscriptions_[uri] = std::move(handle);
}

void McpSession::Unsubscribe(const json& params, ReplyOnce reply) {
  std::string uri = StringParam(params, "uri");
  if (uri.empty()) return InvalidParams(reply, "uri", "resources/unsubscribe needs params.uri");
  subscriptions_.erase(uri);
  reply.Result(json::object());
}

void McpSession::SetLogLevel(const json& params, ReplyOnce reply) {
  McpLogLevel level;
  if (!ParseMcpLogLevel(StringParam(params, "level"), &level)) {
    return InvalidParams(reply, "level",
                         "logging/setLevel needs params.level: one of debug, info, notice, "
                         "warning, error, critical, alert, emergency");
  }
  log_level_ = level;
  reply.Result(json::object());
}

void McpSession::SendNotification(const std::string& method, const json& params,
                                  const std::string& related_request) {
  if (closed_) return;
  Send(jsonrpc::MakeNotification(method, params), related_request, false);
}

void McpSession::SendLog(McpLogLevel level, const std::string& logger, const json& data,
                         const std::string& related_request) {
  if (level < log_level_.load()) return;
  json params = {{"level", McpLogLevelName(level)}, {"data", data}};
  if (!logger.empty()) params["logger"] = logger;
  SendNotification("notifications/message", params, related_request);
}

void McpSession::SendClientRequest(const std::string& method, const json& params,
                                   const std::string& related_request,
                                   std::chrono::milliseconds timeout, JsonDone done) {
  AssertOnStrand();
  if (closed_) return done(absl::CancelledError("the connection is closed"));
  static const std::map<std::string, std::string> kCapabilityFor = {
      {"sampling/createMessage", "sampling"},
      {"elicitation/create", "elicitation"},
      {"roots/list", "roots"}};
  if (auto it = kCapabilityFor.find(method);
      it != kCapabilityFor.end() && !client_capabilities_.contains(it->second)) {
    return done(absl::FailedPreconditionError(
        absl::StrCat("the client did not declare the '", it->second, "' capability")));
  }
  std::string raw_id = absl::StrCat("\"labgate-", next_client_request_++, "\"");
  std::string key = RequestKey(json::parse(raw_id));
  ClientRequest request;
  request.done = std::move(done);
  request.raw_id = raw_id;
  request.related_request = related_request;
  request.timer = std::make_unique<boost::asio::steady_timer>(strand_, timeout);
  request.timer->async_wait([weak = weak_from_this(), key, method](boost::system::error_code ec) {
    if (ec) return;
    auto session = weak.lock();
    if (!session) return;
    auto it = session->client_requests_.find(key);
    if (it == session->client_requests_.end()) return;
    JsonDone expired = std::move(it->second.done);
    session->client_requests_.erase(it);
    expired(absl::DeadlineExceededError(absl::StrCat("the client did not answer ", method)));
  });
  client_requests_.emplace(key, std::move(request));
  Send(jsonrpc::MakeRequest(raw_id, method, params), related_request, false);
}

void McpSession::WithdrawClientRequests(const std::string& related_request,
                                        const std::string& reason) {
  AssertOnStrand();
  std::vector<ClientRequest> withdrawn;
  for (auto it = client_requests_.begin(); it != client_requests_.end();) {
    if (it->second.related_request != related_request) {
      ++it;
      continue;
    }
    withdrawn.push_back(std::move(it->second));
    it = client_requests_.erase(it);
  }
  for (ClientRequest& request : withdrawn) {
    if (request.timer) request.timer->cancel();
    if (!closed_) {
      SendNotification("notifications/cancelled",
                       {{"requestId", json::parse(request.raw_id)}, {"reason", reason}},
                       related_request);
    }
    request.done(absl::CancelledError(reason));
  }
}

void McpSession::NotifyListChanged(ListKind kind) {
  AssertMaySend();
  if (!initialized_ || closed_) return;
  SendNotification(ListChangedMethod(kind), json::object());
}

void McpSession::Close() {
  AssertOnStrand();
  if (closed_.exchange(true)) return;
  if (counted_) {
    counted_ = false;
    GatewayMetrics::Get().mcp_sessions.With({principal_->transport()}).Decrement();
  }
  std::vector<std::shared_ptr<Context>> contexts;
  {
    absl::MutexLock lock(&mutex_);
    for (auto& [key, entry] : in_flight_) {
      (void)key;
      entry.cancelled = true;
      if (entry.context) contexts.push_back(entry.context);
    }
  }
  for (const auto& context : contexts) context->Cancel();
  for (auto& [key, request] : client_requests_) {
    (void)key;
    if (request.timer) request.timer->cancel();
    request.done(absl::CancelledError("the connection closed"));
  }
  client_requests_.clear();
  subscriptions_.clear();
  list_listener_.reset();
}

}  // namespace labgate::gateway
