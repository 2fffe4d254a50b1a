// One MCP client connection's state and request handling, independent of transport.
// Every method runs on the connection's strand; provider callbacks are posted back to it.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gateway/jsonrpc/message.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/mcp/outbound.h"

namespace labgate::gateway {

class McpSession : public std::enable_shared_from_this<McpSession> {
 public:
  // `strand` serialises this session's work; `send` delivers one protocol message
  // (called on the strand). Call Register() once the shared_ptr exists.
  McpSession(const McpServer* server, boost::asio::any_io_executor strand, OutboundFn send,
             std::string owner_id);
  ~McpSession();

  // Joins the server's hub, so list-changed notices reach this session.
  void Register();

  // Handles one incoming message. Call on the strand.
  void Handle(jsonrpc::IncomingMessage message);

  // Cancels what is in flight (replies are suppressed), ends subscriptions and
  // releases what the connection held (e.g. its serial port lease). Call on the strand.
  void Close();

  // Sends notifications/<kind>/list_changed if the client has initialized.
  void NotifyListChanged(ListKind kind);

  size_t in_flight() const { return in_flight_.size(); }
  // The same count, readable from any thread (a hint: it may change at once).
  size_t requests_in_flight() const { return in_flight_count_.load(std::memory_order_relaxed); }
  bool initialized() const { return initialized_; }
  bool closed() const { return closed_; }
  const std::string& protocol_version() const { return protocol_version_; }
  const std::string& owner_id() const { return owner_id_; }
  const boost::asio::any_io_executor& strand() const { return strand_; }

 private:
  class Context;

  // Guarantees one reply per request: the first Result/Error wins, later ones are
  // dropped, and a reply to a cancelled request is suppressed.
  class Reply {
   public:
    Reply(std::weak_ptr<McpSession> session, std::string raw_id, std::string key)
        : session_(std::move(session)), raw_id_(std::move(raw_id)), key_(std::move(key)) {}
    void Result(const nlohmann::json& result) const;
    void Error(int code, const std::string& message, const nlohmann::json& data = nullptr) const;
    // Error for a failed status, coded through the status map.
    void Fail(const absl::Status& status) const;
    // The serialized reply for `outcome`; pure, so it can be built on any thread.
    std::string Serialize(const absl::StatusOr<nlohmann::json>& outcome) const;
    // Sends a result whose JSON text is already serialized.
    void SendResultText(const std::string& result_text) const;
    // Sends a reply built by Serialize(). On the strand.
    void Send(std::string payload) const { Finish(std::move(payload)); }
    const std::string& key() const { return key_; }

   private:
    void Finish(std::string payload) const;
    std::weak_ptr<McpSession> session_;
    std::string raw_id_;
    std::string key_;
  };

  struct InFlight {
    std::shared_ptr<Context> context;
    bool cancelled = false;
  };

  struct ClientRequest {
    JsonDone done;
    std::unique_ptr<boost::asio::steady_timer> timer;
  };

  void HandleRequest(const jsonrpc::IncomingMessage& message);
  void HandleNotification(const jsonrpc::IncomingMessage& message);
  void HandleResponse(const jsonrpc::IncomingMessage& message);

  void Initialize(const nlohmann::json& params, const Reply& reply);
  void ListTools(const nlohmann::json& params, const Reply& reply);
  void CallTool(const nlohmann::json& params, const Reply& reply, std::shared_ptr<Context> context);
  void ListResources(const nlohmann::json& params, const Reply& reply);
  void ListResourceTemplates(const nlohmann::json& params, const Reply& reply);
  void ReadResource(const nlohmann::json& params, const Reply& reply,
                    std::shared_ptr<Context> context);
  void Subscribe(const nlohmann::json& params, const Reply& reply);
  void Unsubscribe(const nlohmann::json& params, const Reply& reply);
  void ListPrompts(const nlohmann::json& params, const Reply& reply);
  void GetPrompt(const nlohmann::json& params, const Reply& reply,
                 std::shared_ptr<Context> context);
  void SetLogLevel(const nlohmann::json& params, const Reply& reply);
  void Complete(const nlohmann::json& params, const Reply& reply);

  // Posts a provider's completion back onto the strand and answers with it.
  JsonDone ReplyOnStrand(const Reply& reply);
  ResourceProvider* FindResourceProvider(const std::string& uri) const;

  void SendNotification(const std::string& method, const nlohmann::json& params,
                        const std::string& related_request = "");
  void SendLog(McpLogLevel level, const std::string& logger, const nlohmann::json& data,
               const std::string& related_request);
  void SendClientRequest(const std::string& method, const nlohmann::json& params,
                         const std::string& related_request, std::chrono::milliseconds timeout,
                         JsonDone done);
  bool IsInFlight(const std::string& key) const { return in_flight_.count(key) != 0; }

  const McpServer* server_;
  boost::asio::any_io_executor strand_;
  OutboundFn send_;
  std::string owner_id_;
  bool initialized_ = false;
  bool closed_ = false;
  std::string protocol_version_;
  nlohmann::json client_capabilities_ = nlohmann::json::object();
  McpLogLevel log_level_ = McpLogLevel::kInfo;
  // Keyed by RequestKey(id).
  std::map<std::string, InFlight> in_flight_;
  std::atomic<size_t> in_flight_count_{0};  // in_flight_.size()
  std::map<std::string, ClientRequest> client_requests_;
  uint64_t next_client_request_ = 1;
  std::map<std::string, std::shared_ptr<void>> subscriptions_;  // by URI
  std::map<std::string, std::shared_ptr<void>> held_;           // HoldForConnection
};

}  // namespace labgate::gateway
