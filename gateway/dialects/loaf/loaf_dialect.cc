#include "gateway/dialects/loaf/loaf_dialect.h"

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/status_map.h"
#include "gateway/backends/async_calls.h"
#include "gateway/catalog/json_proto.h"
#include "gateway/dialects/loaf/loaf_protocol.h"
#include "gateway/dialects/loaf/session_watch.h"

namespace labgate::gateway::loaf {

namespace pb = labgate::session::v1;
using nlohmann::json;

LoafDialect::LoafDialect(std::shared_ptr<grpc::Channel> session_channel,
                         std::chrono::milliseconds deadline)
    : stub_(pb::SessionService::NewStub(std::move(session_channel))), deadline_(deadline) {}

void LoafDialect::OnShutdown(std::function<void(const std::string&)> handler) {
  absl::MutexLock lock(&mutex_);
  on_shutdown_ = std::move(handler);
}

void LoafDialect::RequestShutdown(const std::string& reason) const {
  std::function<void(const std::string&)> handler;
  {
    absl::MutexLock lock(&mutex_);
    handler = on_shutdown_;
  }
  if (handler) handler(reason);
}

std::shared_ptr<LoafConnection> LoafConnection::Create(const LoafDialect* dialect,
                                                       std::shared_ptr<Outbound> outbound,
                                                       MayCall may_call) {
  return std::shared_ptr<LoafConnection>(
      new LoafConnection(dialect, std::move(outbound), std::move(may_call)));
}

namespace {

void BadParams(ReplyOnce& reply, const ParamError& error) {
  reply.Error(jsonrpc_code::kInvalidParams, absl::StrCat("Invalid params: ", error.reason),
              ErrorData(error));
}

// A session that does not exist is a bad session_id to a loaf client; other failures keep
// the codes every dialect uses.
void FailCall(ReplyOnce& reply, const absl::Status& status, const std::string& field) {
  if (absl::IsNotFound(status) || absl::IsInvalidArgument(status)) {
    return BadParams(reply, ParamError{std::string(status.message()), field});
  }
  reply.Fail(status);
}

json SessionJson(const pb::Session& session) {
  json value = ProtoToJson(session);
  value["session_id"] = session.id();  // the name loaf clients look for
  return value;
}

}  // namespace

void LoafConnection::Handle(const jsonrpc::IncomingMessage& message, Framing framing,
                            ReplyOnce reply) {
  const json& body = message.body;
  // An id of null is a request, answered with null.
  if (const json& id = body.value("id", json());
      !id.is_null() && !id.is_string() && !id.is_number()) {
    return reply.Error(jsonrpc_code::kInvalidRequest,
                       "Invalid request: \"id\" must be a string, a number or null");
  }
  {
    absl::MutexLock lock(&mutex_);
    framing_ = framing;
  }
  const std::string method = body["method"].get<std::string>();
  if (!KnowsMethod(method)) {
    return reply.Error(jsonrpc_code::kMethodNotFound, absl::StrCat("Method not found: ", method));
  }
  if (may_call_) {
    if (absl::Status allowed = may_call_(method); !allowed.ok()) return reply.Fail(allowed);
  }
  json params;
  if (auto error = ParamsObject(body, &params)) return BadParams(reply, *error);
  if (method == "rpc.handshake") {
    HandshakeOutcome outcome = Handshake(params);
    if (outcome.error) return BadParams(reply, *outcome.error);
    return reply.Result(std::move(outcome.result));
  }
  if (method == "system.ping") return reply.Result(Ping());
  if (method == "system.shutdown") {
    std::string reason;
    if (auto error = StringParam(params, "reason", false, &reason)) return BadParams(reply, *error);
    reply.Result({{"accepted", true}});
    return dialect_->RequestShutdown(reason);
  }
  if (method == "session.create") return Create(params, std::move(reply));
  if (method == "session.get") return Get(params, std::move(reply));
  Send(params, std::move(reply));  // session.send, the last known method
}

void LoafConnection::Create(const json& params, ReplyOnce reply) {
  pb::CreateSessionRequest request;
  std::string device_id = "unassigned";
  std::string port_name;
  for (auto [field, value] : {std::pair{"device_id", &device_id}, {"port_name", &port_name}}) {
    if (auto error = StringParam(params, field, false, value)) return BadParams(reply, *error);
  }
  if (device_id.empty()) device_id = "unassigned";  // the store keeps a device per session
  request.set_device_id(device_id);
  if (!port_name.empty()) request.set_port_name(port_name);
  auto* stub = dialect_->stub();
  auto shared = Share(std::move(reply));
  Unary<pb::CreateSessionResponse>(
      request, dialect_->deadline(),
      [stub](grpc::ClientContext* context, const pb::CreateSessionRequest* req,
             pb::CreateSessionResponse* resp, std::function<void(grpc::Status)> done) {
        stub->async()->CreateSession(context, req, resp, std::move(done));
      },
      [self = shared_from_this(), shared](absl::StatusOr<pb::CreateSessionResponse> response) {
        if (!response.ok()) return FailCall(*shared, response.status(), "device_id");
        const pb::Session session = response->session();
        // Subscribed before the client learns the id, so no append can slip past.
        self->EnsureWatched(session.id(), [self, shared, session] {
          shared->Result({{"session_id", session.id()}, {"session", SessionJson(session)}});
          self->Emit("session.status", {{"session_id", session.id()},
                                        {"status", "created"},
                                        {"session", SessionJson(session)}});
        });
      });
}

void LoafConnection::Get(const json& params, ReplyOnce reply) {
  pb::GetSessionRequest request;
  std::string session_id;
  if (auto error = StringParam(params, "session_id", true, &session_id)) {
    return BadParams(reply, *error);
  }
  request.set_session_id(session_id);
  auto* stub = dialect_->stub();
  auto shared = Share(std::move(reply));
  Unary<pb::GetSessionResponse>(
      request, dialect_->deadline(),
      [stub](grpc::ClientContext* context, const pb::GetSessionRequest* req,
             pb::GetSessionResponse* resp, std::function<void(grpc::Status)> done) {
        stub->async()->GetSession(context, req, resp, std::move(done));
      },
      [self = shared_from_this(), shared](absl::StatusOr<pb::GetSessionResponse> response) {
        if (!response.ok()) return FailCall(*shared, response.status(), "session_id");
        const pb::Session session = response->session();
        self->EnsureWatched(session.id(),
                            [shared, session] { shared->Result(SessionJson(session)); });
      });
}

void LoafConnection::Send(const json& params, ReplyOnce reply) {
  pb::AppendMessageRequest request;
  std::string session_id;
  std::string text;
  if (auto error = StringParam(params, "session_id", true, &session_id)) {
    return BadParams(reply, *error);
  }
  if (auto it = params.find("text"); it == params.end() || !it->is_string()) {
    return BadParams(
        reply,
        ParamError{it == params.end() ? "text is required" : "text must be a string", "text"});
  } else {
    text = it->get<std::string>();
  }
  request.set_session_id(session_id);
  request.set_content(text);
  request.set_role("user");
  auto* stub = dialect_->stub();
  auto shared = Share(std::move(reply));
  // Watched first, so the client's own append comes back as an event too.
  EnsureWatched(session_id, [self = shared_from_this(), stub, shared, request] {
    Unary<pb::AppendMessageResponse>(
        request, self->dialect_->deadline(),
        [stub](grpc::ClientContext* context, const pb::AppendMessageRequest* req,
               pb::AppendMessageResponse* resp, std::function<void(grpc::Status)> done) {
          stub->async()->AppendMessage(context, req, resp, std::move(done));
        },
        [shared](absl::StatusOr<pb::AppendMessageResponse> response) {
          if (!response.ok()) {
            return FailCall(*shared, response.status(),
                            absl::IsNotFound(response.status()) ? "session_id" : "text");
          }
          shared->Result({{"accepted", true}, {"message_id", response->message_id()}});
        });
  });
}

void LoafConnection::EnsureWatched(const std::string& session_id, std::function<void()> then) {
  {
    absl::MutexLock lock(&mutex_);
    if (!closed_) {
      auto [it, inserted] = watches_.try_emplace(session_id);
      if (!inserted && !it->second.ready) {
        it->second.waiting.push_back(std::move(then));
        return;
      }
      if (inserted) {
        it->second.waiting.push_back(std::move(then));
        std::weak_ptr<LoafConnection> weak = weak_from_this();
        SessionWatchCallbacks callbacks;
        callbacks.on_ready = [weak, session_id](bool subscribed) {
          if (auto self = weak.lock()) self->OnWatchReady(session_id, subscribed);
        };
        callbacks.on_event = [weak](const pb::SessionEvent& event) {
          if (auto self = weak.lock()) self->OnEvent(event);
        };
        // gRPC calls back on its own threads, never inside this call, so holding the lock
        // here is safe.
        it->second.handle = WatchSession(dialect_->stub(), session_id, std::move(callbacks));
        return;
      }
    }
  }
  then();  // already watched, or the connection is closing
}

void LoafConnection::OnWatchReady(const std::string& session_id, bool subscribed) {
  std::vector<std::function<void()>> waiting;
  {
    absl::MutexLock lock(&mutex_);
    auto it = watches_.find(session_id);
    if (it == watches_.end()) return;
    waiting = std::move(it->second.waiting);
    if (subscribed) {
      it->second.ready = true;
    } else {
      // e.g. an unknown session: the call itself reports it, and a later one may retry.
      LG_LOG(kDebug) << "loaf: no watch on session " << session_id;
      watches_.erase(it);
    }
  }
  for (auto& then : waiting) then();
}

void LoafConnection::OnEvent(const pb::SessionEvent& event) {
  const std::string session_id = event.session().id();
  switch (event.type()) {
    case pb::SessionEvent::TYPE_APPENDED: {
      json message = ProtoToJson(event.message());
      const std::string id = session_id.empty() ? event.message().session_id() : session_id;
      return Emit("session.message.appended", {{"session_id", id}, {"message", message}});
    }
    case pb::SessionEvent::TYPE_CREATED:
    case pb::SessionEvent::TYPE_CLOSED:
      return Emit("session.status",
                  {{"session_id", session_id},
                   {"status", event.type() == pb::SessionEvent::TYPE_CLOSED ? "closed" : "created"},
                   {"session", SessionJson(event.session())}});
    default:
      return;
  }
}

void LoafConnection::Emit(std::string_view type, json payload) {
  absl::MutexLock lock(&mutex_);
  if (closed_) return;
  OutboundMessage message;
  message.payload = Event(type, std::move(payload));
  message.framing = framing_;
  outbound_->Send(std::move(message));  // never blocks on I/O
}

void LoafConnection::Close() {
  std::map<std::string, Watch> watches;
  {
    absl::MutexLock lock(&mutex_);
    closed_ = true;
    watches.swap(watches_);
  }
  // Released outside the lock: cancelling may call back into OnWatchReady.
  watches.clear();
}

}  // namespace labgate::gateway::loaf
