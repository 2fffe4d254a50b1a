#include "gateway/server/stdio_connection.h"

#include <boost/asio/post.hpp>
#include <future>

#include "common/log.h"
#include "common/status_map.h"
#include "gateway/core/request_trace.h"
#include "gateway/dialects/loaf/loaf_protocol.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/legacy/legacy_envelope.h"

namespace labgate::gateway {

// stdio's side of the outbound seam: every message goes to stdout in its request's framing.
class StdioConnection::StdioOutbound final : public Outbound {
 public:
  explicit StdioOutbound(StdioConnection* connection) : connection_(connection) {}
  void Send(OutboundMessage message) override {
    if (message.close_stream) return;  // stdio has one stream, which stays open
    connection_->Write(message.framing, std::move(message.payload),
                       connection_->Idle(message.is_response));
  }

 private:
  StdioConnection* connection_;
};

StdioConnection::StdioConnection(StdioDialects dialects, boost::asio::io_context& io,
                                 StdioTransport::Options options)
    : dialects_(dialects),
      strand_(io),
      principal_(std::make_shared<Principal>("stdio", NewOwnerId("stdio"))),
      outbound_(std::make_shared<StdioOutbound>(this)) {
  RunOrQueueStrand strand = strand_;
  session_ = std::make_shared<McpSession>(
      dialects_.server, strand_,
      [strand](absl::AnyInvocable<void()> work) { strand.RunOrQueue(std::move(work)); }, outbound_,
      principal_, in_flight_,
      // stdout takes messages from any thread: a reply or notice goes out from the thread
      // that produced it, never waiting for the strand (which the reader keeps busy while
      // a client pipelines).
      [](absl::AnyInvocable<void()> send) { send(); });
  session_->Register();
  if (dialects_.loaf != nullptr) {
    loaf::LoafConnection::MayCall may_call;
    if (dialects_.server != nullptr && dialects_.server->access != nullptr &&
        dialects_.server->access->enabled()) {
      // The access file binds loaf's session methods as it binds the tools that do the same
      // work; system.shutdown (it stops labgate) needs the operator or admin role.
      may_call = [server = dialects_.server, principal = principal_](const std::string& method) {
        if (method == "system.shutdown") {
          return server->access->control().MayAct(principal->name());
        }
        const std::string tool = loaf::ToolForMethod(method);
        if (tool.empty()) return absl::OkStatus();
        return server->access->MayCall(*server, principal->name(), tool);
      };
    }
    loaf_ = loaf::LoafConnection::Create(dialects_.loaf, outbound_, std::move(may_call));
  }
  StdioTransport::Callbacks callbacks;
  callbacks.on_frame = [this](Frame frame) { OnFrame(std::move(frame)); };
  callbacks.on_error = [this](FrameError error) { OnFrameError(error); };
  callbacks.on_eof = [this]() { Interrupt(); };
  transport_ = std::make_unique<StdioTransport>(options, std::move(callbacks));
}

StdioConnection::~StdioConnection() {
  transport_->Stop();
  if (loaf_) loaf_->Close();
  stateless_calls_->CancelAll();
}

void StdioConnection::Start() { transport_->Start(); }

void StdioConnection::SendHeartbeat() {
  Write(Framing::kNewline, jsonrpc::MakeNotification("_heartbeat", nlohmann::json::object()),
        /*client_waiting=*/false);
}

void StdioConnection::OnFrame(Frame frame) {
  // Parsing happens here on the reader thread.
  jsonrpc::IncomingMessage message = jsonrpc::ParseMessage(frame.payload);
  using Kind = jsonrpc::IncomingMessage::Kind;
  const Framing framing = frame.framing;
  if (message.kind == Kind::kInvalid && legacy::IsEnvelope(message.body)) {
    return HandleLegacy(frame, message.body);
  }
  // loaf rpc claims its methods before MCP looks (an id of null, which JSON-RPC parsing
  // refuses, is a loaf request answered with null).
  if (loaf_ && loaf::ClaimsMessage(message.body)) {
    return HandleLoaf(message, framing);
  }
  if (message.kind == Kind::kInvalid && message.error_code == jsonrpc_code::kParseError &&
      spoke_legacy_.load()) {
    RequestTrace({"envelope", "stdio", principal_->name(), "", false, ""})
        .Answered(RequestOutcome::Error(0));
    return Write(
        framing,
        legacy::ErrorReply(frame.payload.size() > legacy::kMaxLineBytes ? legacy::kTooLarge
                                                                        : legacy::kMalformedJson),
        Idle(false));
  }
  if (dialects_.stateless != nullptr && message.kind != Kind::kInvalid &&
      (stateless::ClaimsMessage(message.method, message.body) ||
       (message.kind == Kind::kNotification && stateless_calls_->size() > 0 &&
        message.method == "notifications/cancelled"))) {
    // Stateless requests share nothing with each other: no strand, no session.
    dialects_.stateless->Handle(message, framing, outbound_, principal_, stateless_calls_,
                                in_flight_);
    if (message.kind != Kind::kNotification) return;
    // A cancel may name a stateful request too; the session ignores unknown ids.
  }
  // A stateful ping touches no session state; answering it here saves two hand-offs. (With
  // nothing in flight its id cannot clash with a request's.)
  if (message.kind == Kind::kRequest && message.method == "ping" && Idle(false)) {
    RequestTrace trace({"mcp", "stdio", principal_->name(), "ping", true, ""});
    Write(framing, jsonrpc::MakeResult(message.raw_id, nlohmann::json::object()), Idle(false));
    trace.Answered(RequestOutcome::Ok());
    return;
  }
  auto handle = [session = session_, message = std::move(message), framing]() mutable {
    session->Handle(std::move(message), framing);
  };
  // A client that waits for each answer gets its request handled right here (the strand
  // runs it on this thread when idle). While other requests are in flight the client is
  // pipelining: then the reader hands the work on and goes back to reading.
  if (Idle(false)) {
    strand_.RunOrQueue(std::move(handle));
  } else {
    boost::asio::post(strand_, std::move(handle));
  }
}

void StdioConnection::HandleLegacy(const Frame& frame, const nlohmann::json& envelope) {
  spoke_legacy_.store(true);
  const Framing framing = frame.framing;
  if (frame.payload.size() > legacy::kMaxLineBytes) {
    RequestTrace({"envelope", "stdio", principal_->name(), "", false, ""})
        .Answered(RequestOutcome::Error(0));
    return Write(framing, legacy::ErrorReply(legacy::kTooLarge), Idle(false));
  }
  auto token = std::make_shared<InFlightCounter::Token>(InFlightCounter::Enter(in_flight_));
  const std::string type = envelope.value("type", nlohmann::json()).is_string()
                               ? envelope["type"].get<std::string>()
                               : std::string();
  std::string action;
  if (type == "invoke" && envelope.contains("payload") && envelope["payload"].is_object() &&
      envelope["payload"].value("action", nlohmann::json()).is_string()) {
    action = envelope["payload"]["action"].get<std::string>();
  }
  auto trace = RequestTrace::Start({"envelope", "stdio", principal_->name(), type,
                                    type == "list_actions" || type == "invoke", action});
  legacy::MayInvoke may_invoke;
  if (dialects_.server != nullptr && dialects_.server->access != nullptr &&
      dialects_.server->access->enabled()) {
    // The access file binds the envelope's actions as it binds their MCP tools.
    may_invoke = [server = dialects_.server, principal = principal_](const std::string& action) {
      return server->access->MayCall(*server, principal->name(), action);
    };
  }
  legacy::HandleEnvelope(
      envelope, dialects_.legacy_actions,
      [this, token, framing, trace](std::string reply) {
        trace->Answered(legacy::ReplyIsOk(reply) ? RequestOutcome::Ok() : RequestOutcome::Error(0));
        Write(framing, std::move(reply), Idle(/*answering=*/true));
        token->Release();
      },
      std::move(may_invoke));
}

void StdioConnection::HandleLoaf(const jsonrpc::IncomingMessage& message, Framing framing) {
  if (!message.body.contains("id")) return;  // incoming notifications are ignored
  auto token = std::make_shared<InFlightCounter::Token>(InFlightCounter::Enter(in_flight_));
  ReplyOnce reply(message.raw_id, [this, token, framing](MessageText payload) {
    Write(framing, std::move(payload).Join(), Idle(/*answering=*/true));
    token->Release();
  });
  const nlohmann::json method = message.body.value("method", nlohmann::json());
  const std::string name = method.is_string() ? method.get<std::string>() : std::string();
  reply.SetTrace(RequestTrace::Start(
      {"loaf", "stdio", principal_->name(), name, loaf::KnowsMethod(name), ""}));
  loaf_->Handle(message, framing, std::move(reply));
}

void StdioConnection::OnFrameError(const FrameError& error) {
  LG_LOG(kWarning) << "stdio: " << error.message;
  // A frame that could not be read is answered like a request, and traced like one.
  RequestTrace trace(
      {spoke_legacy_.load() ? "envelope" : "mcp", "stdio", principal_->name(), "", false, ""});
  trace.Answered(spoke_legacy_.load() ? RequestOutcome::Error(0)
                 : error.kind == FrameError::Kind::kTooLarge
                     ? RequestOutcome::Error(jsonrpc_code::kInvalidRequest)
                     : RequestOutcome::Error(jsonrpc_code::kParseError));
  if (spoke_legacy_.load()) {
    return Write(
        error.framing,
        legacy::ErrorReply(error.kind == FrameError::Kind::kTooLarge ? legacy::kTooLarge
                                                                     : legacy::kMalformedJson),
        Idle(false));
  }
  int error_code = error.kind == FrameError::Kind::kTooLarge ? jsonrpc_code::kInvalidRequest
                                                             : jsonrpc_code::kParseError;
  Write(error.framing, jsonrpc::MakeError("null", error_code, error.message), Idle(false));
}

bool StdioConnection::Idle(bool answering) const {
  return in_flight_->count() <= (answering ? 1u : 0u);
}

void StdioConnection::Write(Framing framing, std::string payload, bool client_waiting) {
  if (client_waiting) {
    transport_->SendDirect(framing, std::move(payload));
  } else {
    transport_->Send(framing, std::move(payload));
  }
}

void StdioConnection::WaitForEndOfInput() {
  absl::MutexLock lock(&mutex_);
  while (!input_ended_) ended_.Wait(&mutex_);
}

void StdioConnection::Interrupt() {
  absl::MutexLock lock(&mutex_);
  input_ended_ = true;
  ended_.SignalAll();
}

bool StdioConnection::WaitUntilQuiet(std::chrono::milliseconds timeout) {
  // A request the reader queued on the strand is counted only once the session takes it.
  // So idle means: nothing counted, and nothing left in the strand's queue either.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !in_flight_->WaitUntilIdle(left)) return false;
    auto reached = std::make_shared<std::promise<void>>();
    auto barrier = reached->get_future();
    boost::asio::post(strand_, [reached] { reached->set_value(); });
    if (barrier.wait_until(deadline) != std::future_status::ready) return false;
    if (in_flight_->count() == 0) return true;
  }
}

void StdioConnection::Drain(std::chrono::milliseconds timeout) {
  if (!WaitUntilQuiet(timeout)) {
    LG_LOG(kWarning) << "stdio: " << in_flight_->count()
                     << " request(s) still in flight at shutdown; not waiting longer";
  }
  stateless_calls_->CancelAll();
  if (loaf_) loaf_->Close();
  std::promise<void> closed;
  auto done = closed.get_future();
  boost::asio::post(strand_, [&closed, session = session_]() {
    session->Close();
    closed.set_value();
  });
  done.wait_for(std::chrono::seconds(2));
  principal_->Release();
  transport_->Flush(timeout);
}

}  // namespace labgate::gateway
