// The stateful MCP dialect (2025-11-25 and older): one client's session, begun by
// initialize. It alone keeps per-client protocol state: the negotiated version, the client's
// capabilities, its log level, resource subscriptions, requests sent to the client, and the
// requests in flight (for cancellation). The methods both eras share are the McpEngine's.
// Every method runs on the session's strand, except what only sends to the client (replies,
// progress, logs, list changes): that runs wherever `run_send` puts it, and touches only the
// requests in flight (under a mutex) and atomics.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"
#include "gateway/core/in_flight.h"
#include "gateway/core/outbound.h"
#include "gateway/core/reply_once.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/mcp/mcp_engine.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/principals/principal.h"

namespace labgate::gateway {

// Runs work on a session's strand: at once on the calling thread when the transport allows
// it and the strand is idle, else queued.
using RunOnStrand = std::function<void(absl::AnyInvocable<void()>)>;

class McpSession : public std::enable_shared_from_this<McpSession> {
 public:
  // `strand` serialises this session's work (timers run on it); `run_on_strand` submits to
  // it; `outbound` gets every message, called from `run_send` (null: `run_on_strand`): an
  // outbound that any thread may call lets replies and notices go out from the thread that
  // produced them (stdio), one that needs the strand keeps them on it (HTTP). Call
  // Register() once the shared_ptr exists. `in_flight` counts its requests until answered
  // (a connection may share one counter among its dialects); null: a counter of its own.
  McpSession(const McpServer* server, boost::asio::any_io_executor strand,
             RunOnStrand run_on_strand, std::shared_ptr<Outbound> outbound,
             std::shared_ptr<Principal> principal,
             std::shared_ptr<InFlightCounter> in_flight = nullptr, RunOnStrand run_send = nullptr);
  ~McpSession();

  // Joins the server's hub, so list-changed notices reach this session.
  void Register();

  // Handles one incoming message, which came in `framing`. Call on the strand.
  void Handle(const jsonrpc::IncomingMessage& message, Framing framing = Framing::kNewline);

  // Cancels what is in flight (replies are suppressed), ends subscriptions and requests to
  // the client. What the principal owns stays with it. Call on the strand.
  void Close();

  // Sends notifications/<kind>/list_changed if the client has initialized. Call through
  // run_send.
  void NotifyListChanged(ListKind kind);

  size_t in_flight() const {
    absl::MutexLock lock(&mutex_);
    return in_flight_.size();
  }
  // Requests taken and not yet answered, readable from any thread; drain waits on it.
  const std::shared_ptr<InFlightCounter>& in_flight_counter() const { return in_flight_count_; }
  size_t requests_in_flight() const { return in_flight_count_->count(); }
  bool initialized() const { return initialized_.load(); }
  bool closed() const { return closed_.load(); }
  const std::string& protocol_version() const { return protocol_version_; }
  const std::string& owner_id() const { return principal_->owner_id(); }
  const std::shared_ptr<Principal>& principal() const { return principal_; }
  const boost::asio::any_io_executor& strand() const { return strand_; }

 private:
  class Context;

  struct InFlight {
    std::shared_ptr<Context> context;
    bool cancelled = false;
    Framing framing = Framing::kNewline;
    InFlightCounter::Token token;
    SharedTrace trace;  // told when the reply is suppressed
  };

  struct ClientRequest {
    JsonDone done;
    std::unique_ptr<boost::asio::steady_timer> timer;
    std::string raw_id;           // as sent
    std::string related_request;  // the key of the request it was asked for
  };

  // Debug builds check that the caller runs on the strand (AssertMaySend: or anywhere, when
  // the session was given a run_send of its own).
  void AssertOnStrand() const;
  void AssertMaySend() const;

  void HandleRequest(const jsonrpc::IncomingMessage& message, Framing framing);
  void HandleNotification(const jsonrpc::IncomingMessage& message);
  void HandleResponse(const jsonrpc::IncomingMessage& message);

  // The reply handle of request `key`: delivered through run_send, once, unless cancelled.
  ReplyOnce MakeReply(const std::string& raw_id, const std::string& key,
                      std::shared_ptr<void> busy);
  // The trace of a request with `method`; "mcp" dialect, on the principal's transport.
  SharedTrace Trace(const std::string& method, const nlohmann::json& params) const;
  void Deliver(const std::string& key, MessageText payload);
  // Runs `fn` through run_send while the session lives and is open.
  void OnSend(std::function<void(McpSession&)> fn);

  void Initialize(const nlohmann::json& params, ReplyOnce reply);
  void Subscribe(const nlohmann::json& params, ReplyOnce reply);
  void Unsubscribe(const nlohmann::json& params, ReplyOnce reply);
  void SetLogLevel(const nlohmann::json& params, ReplyOnce reply);

  void Send(std::string payload, const std::string& related_request, bool is_response);
  void SendNotification(const std::string& method, const nlohmann::json& params,
                        const std::string& related_request = "");
  void SendLog(McpLogLevel level, const std::string& logger, const nlohmann::json& data,
               const std::string& related_request);
  void SendClientRequest(const std::string& method, const nlohmann::json& params,
                         const std::string& related_request, std::chrono::milliseconds timeout,
                         JsonDone done);
  // Withdraws the unanswered requests to the client made for request `related_request`.
  void WithdrawClientRequests(const std::string& related_request, const std::string& reason);
  bool IsInFlight(const std::string& key) const {
    absl::MutexLock lock(&mutex_);
    return in_flight_.contains(key);
  }
  Framing FramingOf(const std::string& key) const;

  const McpServer* server_;
  McpEngine engine_;
  boost::asio::any_io_executor strand_;
  RunOnStrand run_on_strand_;
  bool sends_anywhere_;
  RunOnStrand run_send_;
  std::shared_ptr<Outbound> outbound_;
  std::shared_ptr<Principal> principal_;
  std::atomic<bool> initialized_{false};
  bool counted_ = false;  // in labgate_mcp_sessions (strand only)
  std::atomic<bool> closed_{false};
  std::string protocol_version_;
  nlohmann::json client_capabilities_ = nlohmann::json::object();
  std::atomic<McpLogLevel> log_level_{McpLogLevel::kInfo};
  mutable absl::Mutex mutex_;
  Framing last_framing_ ABSL_GUARDED_BY(mutex_) = Framing::kNewline;
  // Keyed by RequestKey(id).
  std::map<std::string, InFlight> in_flight_ ABSL_GUARDED_BY(mutex_);
  std::shared_ptr<InFlightCounter> in_flight_count_;
  std::map<std::string, ClientRequest> client_requests_;
  uint64_t next_client_request_ = 1;
  std::map<std::string, std::shared_ptr<void>> subscriptions_;  // by URI
  std::shared_ptr<void> list_listener_;                         // in the server's hub
};

}  // namespace labgate::gateway
