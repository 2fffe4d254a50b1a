// One MCP client connection's state and request handling, independent of transport.
// Every method runs on the connection's strand; gRPC completions are posted back to it.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gateway/backends/tool_invoker.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/mcp/mcp_server.h"

namespace labgate::gateway {

class McpSession : public std::enable_shared_from_this<McpSession> {
 public:
  using SendFn = std::function<void(std::string payload)>;

  // `strand` serialises this session's work; `send` delivers one protocol message.
  McpSession(const McpServer* server, boost::asio::any_io_executor strand, SendFn send,
             std::string owner_id);

  // Handles one incoming message. Call on the strand.
  void Handle(jsonrpc::IncomingMessage message);

  // Cancels what is in flight; replies to cancelled requests are suppressed.
  void Close();

  // Sends notifications/tools/list_changed if the client has initialized.
  void NotifyToolsChanged();

  size_t in_flight() const { return in_flight_.size(); }
  bool initialized() const { return initialized_; }
  const std::string& protocol_version() const { return protocol_version_; }
  const std::string& owner_id() const { return owner_id_; }

 private:
  // Guarantees one reply per request: the first Result/Error wins, later ones are
  // dropped, and a reply for a cancelled request is suppressed.
  class Reply {
   public:
    Reply(std::weak_ptr<McpSession> session, std::string raw_id, std::string key)
        : session_(std::move(session)), raw_id_(std::move(raw_id)), key_(std::move(key)) {}
    void Result(const nlohmann::json& result) const;
    void Error(int code, const std::string& message, const nlohmann::json& data = nullptr) const;
    const std::string& key() const { return key_; }

   private:
    void Finish(std::string payload) const;
    std::weak_ptr<McpSession> session_;
    std::string raw_id_;
    std::string key_;
  };

  struct InFlight {
    std::function<void()> cancel;  // abandons the backend call, when there is one
    bool cancelled = false;
  };

  void HandleRequest(const jsonrpc::IncomingMessage& message);
  void HandleNotification(const jsonrpc::IncomingMessage& message);

  void Initialize(const nlohmann::json& params, const Reply& reply);
  void ListTools(const nlohmann::json& params, const Reply& reply);
  void CallTool(const nlohmann::json& params, const Reply& reply);
  void CallAction(const std::string& name, const nlohmann::json& arguments, const Reply& reply);
  void AttachCancel(const Reply& reply, std::function<void()> cancel);

  const McpServer* server_;
  boost::asio::any_io_executor strand_;
  SendFn send_;
  std::string owner_id_;
  bool initialized_ = false;
  bool closed_ = false;
  std::string protocol_version_;
  nlohmann::json client_capabilities_ = nlohmann::json::object();
  // Keyed by the request id's canonical JSON text.
  std::map<std::string, InFlight> in_flight_;
  // Held from the first serial tool call until Close(); its end closes our ports.
  std::shared_ptr<OwnerLease> lease_;
};

// The MCP CallToolResult for a finished call.
nlohmann::json ToolResultJson(const absl::StatusOr<nlohmann::json>& outcome);
// Same, for an action: a failure's text is the actions service's own message (the seed's
// exact validation and unknown-action texts).
nlohmann::json ActionResultJson(const absl::StatusOr<nlohmann::json>& outcome);

}  // namespace labgate::gateway
