#include "gateway/server/stdio_connection.h"

#include <boost/asio/defer.hpp>
#include <boost/asio/post.hpp>
#include <future>
#include <thread>

#include "common/log.h"
#include "common/status_map.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/legacy/legacy_envelope.h"

namespace labgate::gateway {

StdioConnection::StdioConnection(const McpServer* server, ActionTools* legacy_actions,
                                 boost::asio::io_context& io, StdioTransport::Options options)
    : strand_(io), legacy_actions_(legacy_actions) {
  session_ = std::make_shared<McpSession>(
      server, strand_,
      [this](Outbound message) {
        if (message.close_stream) return;  // stdio has one stream, which stays open
        Send(std::move(message.payload), Idle());
      },
      NewOwnerId("stdio"));
  session_->Register();
  StdioTransport::Callbacks callbacks;
  callbacks.on_frame = [this](Frame frame) { OnFrame(std::move(frame)); };
  callbacks.on_error = [this](FrameError error) { OnFrameError(error); };
  callbacks.on_eof = [this]() { Interrupt(); };
  transport_ = std::make_unique<StdioTransport>(options, std::move(callbacks));
}

StdioConnection::~StdioConnection() { transport_->Stop(); }

void StdioConnection::Start() { transport_->Start(); }

void StdioConnection::OnFrame(Frame frame) {
  reply_framing_.store(frame.framing);
  // Parsing happens here on the reader thread; the session runs on its strand, which is
  // this thread too when the strand is idle.
  jsonrpc::IncomingMessage message = jsonrpc::ParseMessage(frame.payload);
  using Kind = jsonrpc::IncomingMessage::Kind;
  if (message.kind == Kind::kLegacy) return HandleLegacy(frame, message.body);
  // ping touches no session state; answering it here saves two thread hand-offs.
  if (message.kind == Kind::kRequest && message.method == "ping") {
    return Send(jsonrpc::MakeResult(message.raw_id, nlohmann::json::object()), Idle());
  }
  if (message.kind == Kind::kInvalid && message.error_code == jsonrpc_code::kParseError &&
      spoke_legacy_.load()) {
    return Send(
        legacy::ErrorReply(frame.payload.size() > legacy::kMaxLineBytes ? legacy::kTooLarge
                                                                        : legacy::kMalformedJson),
        Idle());
  }
  auto handle = [session = session_, message = std::move(message)]() mutable {
    session->Handle(std::move(message));
  };
  // A client that waits for each answer gets its request handled right here (the strand
  // runs it on this thread when idle). While other requests are in flight the client is
  // pipelining: then the reader hands the work on and goes back to reading.
  if (Idle()) {
    boost::asio::post(strand_, std::move(handle));
  } else {
    boost::asio::defer(strand_, std::move(handle));
  }
}

void StdioConnection::HandleLegacy(const Frame& frame, const nlohmann::json& envelope) {
  spoke_legacy_.store(true);
  if (frame.payload.size() > legacy::kMaxLineBytes) {
    return Send(legacy::ErrorReply(legacy::kTooLarge), Idle());
  }
  legacy_in_flight_++;
  legacy::HandleEnvelope(envelope, legacy_actions_, [this](std::string reply) {
    // Counted until sent, so that Drain() waits for it; this one is not "other work".
    Send(std::move(reply), legacy_in_flight_.load() <= 1 && session_->requests_in_flight() == 0);
    legacy_in_flight_--;
  });
}

void StdioConnection::OnFrameError(const FrameError& error) {
  reply_framing_.store(error.framing);
  LG_LOG(kWarning) << "stdio: " << error.message;
  if (spoke_legacy_.load()) {
    return Send(
        legacy::ErrorReply(error.kind == FrameError::Kind::kTooLarge ? legacy::kTooLarge
                                                                     : legacy::kMalformedJson),
        Idle());
  }
  int error_code = error.kind == FrameError::Kind::kTooLarge ? jsonrpc_code::kInvalidRequest
                                                             : jsonrpc_code::kParseError;
  Send(jsonrpc::MakeError("null", error_code, error.message), Idle());
}

bool StdioConnection::Idle() const {
  return session_->requests_in_flight() == 0 && legacy_in_flight_.load() == 0;
}

void StdioConnection::Send(std::string payload, bool client_waiting) {
  if (client_waiting) {
    transport_->SendDirect(reply_framing_.load(), std::move(payload));
  } else {
    transport_->Send(reply_framing_.load(), std::move(payload));
  }
}

void StdioConnection::WaitForEndOfInput() {
  std::unique_lock<std::mutex> lock(mutex_);
  ended_.wait(lock, [this] { return input_ended_; });
}

void StdioConnection::Interrupt() {
  std::lock_guard<std::mutex> lock(mutex_);
  input_ended_ = true;
  ended_.notify_all();
}

size_t StdioConnection::InFlightOnStrand() {
  std::promise<size_t> count;
  auto future = count.get_future();
  boost::asio::post(strand_,
                    [&count, session = session_]() { count.set_value(session->in_flight()); });
  return future.get();
}

void StdioConnection::Drain(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while ((InFlightOnStrand() > 0 || legacy_in_flight_.load() > 0) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  boost::asio::post(strand_, [session = session_]() { session->Close(); });
  transport_->Flush(timeout);
}

}  // namespace labgate::gateway
