#include "gateway/mcp/mcp_session.h"

#include <boost/asio/post.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/status_map.h"
#include "gateway/mcp/protocol_version.h"

namespace labgate::gateway {

using nlohmann::json;
namespace code = labgate::jsonrpc_code;

namespace {

std::string Dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The key that matches a request id with the requestId of notifications/cancelled.
std::string IdKey(const json& id) { return Dump(id); }

std::string EncodeCursor(size_t offset) {
  return absl::Base64Escape(absl::StrCat("tools:", offset));
}

bool DecodeCursor(const json& cursor, size_t* offset) {
  if (!cursor.is_string()) return false;
  std::string decoded;
  if (!absl::Base64Unescape(cursor.get<std::string>(), &decoded)) return false;
  if (!absl::StartsWith(decoded, "tools:")) return false;
  return absl::SimpleAtoi(decoded.substr(6), offset);
}

}  // namespace

json ToolResultJson(const absl::StatusOr<json>& outcome) {
  if (!outcome.ok()) {
    return {
        {"content", json::array({{{"type", "text"}, {"text", ToolErrorText(outcome.status())}}})},
        {"isError", true}};
  }
  return {{"content", json::array({{{"type", "text"}, {"text", Dump(*outcome)}}})},
          {"structuredContent", *outcome},
          {"isError", false}};
}

json ActionResultJson(const absl::StatusOr<json>& outcome) {
  if (outcome.ok()) return ToolResultJson(outcome);
  absl::StatusCode code = outcome.status().code();
  std::string text =
      code == absl::StatusCode::kInvalidArgument || code == absl::StatusCode::kNotFound
          ? std::string(outcome.status().message())
          : ToolErrorText(outcome.status());
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", true}};
}

McpSession::McpSession(const McpServer* server, boost::asio::any_io_executor strand, SendFn send,
                       std::string owner_id)
    : server_(server),
      strand_(std::move(strand)),
      send_(std::move(send)),
      owner_id_(std::move(owner_id)) {}

void McpSession::Reply::Result(const json& result) const {
  Finish(jsonrpc::MakeResult(raw_id_, result));
}

void McpSession::Reply::Error(int error_code, const std::string& message, const json& data) const {
  Finish(jsonrpc::MakeError(raw_id_, error_code, message, data));
}

void McpSession::Reply::Finish(std::string payload) const {
  auto session = session_.lock();
  if (!session) return;
  auto it = session->in_flight_.find(key_);
  if (it == session->in_flight_.end()) return;  // already answered
  bool cancelled = it->second.cancelled;
  session->in_flight_.erase(it);
  if (cancelled || session->closed_) return;
  session->send_(std::move(payload));
}

void McpSession::Handle(jsonrpc::IncomingMessage message) {
  using Kind = jsonrpc::IncomingMessage::Kind;
  switch (message.kind) {
    case Kind::kInvalid:
      send_(jsonrpc::MakeError(message.raw_id, message.error_code, message.error_message));
      return;
    case Kind::kRequest:
      HandleRequest(message);
      return;
    case Kind::kNotification:
      HandleNotification(message);
      return;
    case Kind::kResponse:
      LG_LOG(kDebug) << "ignoring a response to no request of ours: id " << message.raw_id;
      return;
    case Kind::kLegacy:
      // Connections that speak the legacy envelope are routed before they get here.
      send_(jsonrpc::MakeError("null", code::kInvalidRequest,
                               "legacy envelope messages are not served on this transport"));
      return;
  }
}

void McpSession::HandleRequest(const jsonrpc::IncomingMessage& message) {
  const json& id = message.body["id"];
  std::string key = IdKey(id);
  if (in_flight_.count(key) != 0) {
    send_(jsonrpc::MakeError(message.raw_id, code::kInvalidRequest,
                             absl::StrCat("request id ", message.raw_id, " is already in use")));
    return;
  }
  in_flight_.emplace(key, InFlight{});
  Reply reply(weak_from_this(), message.raw_id, key);

  json params = json::object();
  if (auto it = message.body.find("params"); it != message.body.end()) params = *it;

  const std::string& method = message.method;
  if (method == "ping") return reply.Result(json::object());
  if (method == "initialize") return Initialize(params, reply);
  if (!initialized_) {
    return reply.Error(code::kInvalidRequest,
                       absl::StrCat("'", method, "' before initialize: send initialize first"));
  }
  if (method == "tools/list") return ListTools(params, reply);
  if (method == "tools/call") return CallTool(params, reply);
  reply.Error(code::kMethodNotFound, absl::StrCat("Method not found: ", method));
}

void McpSession::HandleNotification(const jsonrpc::IncomingMessage& message) {
  if (message.method == "notifications/cancelled") {
    auto params = message.body.value("params", json::object());
    if (!params.is_object() || !params.contains("requestId")) return;
    auto it = in_flight_.find(IdKey(params["requestId"]));
    if (it == in_flight_.end()) return;  // finished already, or never existed
    it->second.cancelled = true;
    if (it->second.cancel) it->second.cancel();
    LG_LOG(kDebug) << "request " << Dump(params["requestId"]) << " cancelled by the client";
    return;
  }
  if (message.method == "notifications/initialized") return;
  // Other notifications need no answer and none is given.
}

void McpSession::Initialize(const json& params, const Reply& reply) {
  if (!params.is_object() || !params.contains("protocolVersion") ||
      !params["protocolVersion"].is_string()) {
    return reply.Error(code::kInvalidParams, "initialize needs params.protocolVersion (a string)");
  }
  protocol_version_ = NegotiateProtocolVersion(params["protocolVersion"].get<std::string>());
  if (params.contains("capabilities") && params["capabilities"].is_object()) {
    client_capabilities_ = params["capabilities"];
  }
  initialized_ = true;
  json result = {
      {"protocolVersion", protocol_version_},
      {"capabilities", {{"tools", {{"listChanged", true}}}}},
      {"serverInfo",
       {{"name", "labgate"},
        {"title", "labgate lab gateway"},
        {"version", server_->config.version}}},
      {"instructions", server_->config.instructions},
  };
  reply.Result(result);
}

void McpSession::ListTools(const json& params, const Reply& reply) {
  size_t offset = 0;
  if (params.is_object() && params.contains("cursor") && !params["cursor"].is_null()) {
    if (!DecodeCursor(params["cursor"], &offset) || offset > server_->catalog->tools().size()) {
      return reply.Error(code::kInvalidParams, "invalid cursor");
    }
  }
  std::vector<json> tools;
  for (const ToolBinding& tool : server_->catalog->tools()) tools.push_back(tool.ToJson());
  if (server_->actions != nullptr) {
    for (json& tool : server_->actions->ToolsJson()) tools.push_back(std::move(tool));
  }
  if (offset > tools.size()) return reply.Error(code::kInvalidParams, "invalid cursor");
  size_t page = std::max<size_t>(1, server_->config.tools_page_size);
  size_t end = std::min(tools.size(), offset + page);
  json list = json::array();
  for (size_t i = offset; i < end; ++i) list.push_back(std::move(tools[i]));
  json result = {{"tools", std::move(list)}};
  if (end < tools.size()) result["nextCursor"] = EncodeCursor(end);
  reply.Result(result);
}

void McpSession::CallTool(const json& params, const Reply& reply) {
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    return reply.Error(code::kInvalidParams, "tools/call needs params.name (a string)");
  }
  std::string name = params["name"].get<std::string>();
  json arguments = json::object();
  if (params.contains("arguments") && !params["arguments"].is_null()) {
    arguments = params["arguments"];
    if (!arguments.is_object()) {
      return reply.Error(code::kInvalidParams, "tools/call params.arguments must be an object");
    }
  }
  const ToolBinding* tool = server_->catalog->Find(name);
  if (tool == nullptr) {
    if (server_->actions != nullptr && server_->actions->Has(name)) {
      return CallAction(name, arguments, reply);
    }
    return reply.Error(code::kInvalidParams, absl::StrCat("Unknown tool: ", name));
  }
  if (!lease_ && server_->leases != nullptr && server_->leases->Covers(tool->service_name)) {
    lease_ = server_->leases->Acquire(owner_id_);
  }
  ToolInvoker::Options options;
  options.deadline = server_->config.call_deadline;
  options.owner = owner_id_;
  auto self = shared_from_this();
  auto call = server_->invoker->Call(
      *tool, arguments, options, [self, reply](absl::StatusOr<json> outcome) {
        boost::asio::post(self->strand_, [self, reply, outcome = std::move(outcome)]() {
          reply.Result(ToolResultJson(outcome));
        });
      });
  if (call) AttachCancel(reply, [call] { call->Cancel(); });
}

void McpSession::CallAction(const std::string& name, const json& arguments, const Reply& reply) {
  auto self = shared_from_this();
  auto context =
      server_->actions->Invoke(name, arguments, [self, reply](absl::StatusOr<json> outcome) {
        boost::asio::post(self->strand_, [self, reply, outcome = std::move(outcome)]() {
          reply.Result(ActionResultJson(outcome));
        });
      });
  if (context) AttachCancel(reply, [context] { context->TryCancel(); });
}

// Completions are always posted to the strand, so the entry is still here to record on.
void McpSession::AttachCancel(const Reply& reply, std::function<void()> cancel) {
  if (auto it = in_flight_.find(reply.key()); it != in_flight_.end()) {
    it->second.cancel = std::move(cancel);
  }
}

void McpSession::NotifyToolsChanged() {
  if (!initialized_ || closed_) return;
  send_(jsonrpc::MakeNotification("notifications/tools/list_changed", json::object()));
}

void McpSession::Close() {
  closed_ = true;
  if (lease_) lease_->Release();
  for (auto& [key, entry] : in_flight_) {
    (void)key;
    entry.cancelled = true;
    if (entry.cancel) entry.cancel();
  }
}

}  // namespace labgate::gateway
