// The MCP methods both eras serve, answered from the providers in McpServer. The engine
// keeps no per-client state and knows no transport and no era: the dialect hands each call
// its reply handle, its request context and the rules of its era.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/status_map.h"
#include "gateway/core/reply_once.h"
#include "gateway/mcp/mcp_server.h"

namespace labgate::gateway {

// What differs between eras in the shared methods.
struct EraRules {
  int resource_not_found_code = jsonrpc_code::kResourceNotFound;  // kInvalidParams from 2026-07-28
};

class McpEngine {
 public:
  explicit McpEngine(const McpServer* server) : server_(server) {}

  // Answers `method` if it is one of the shared methods; false (reply untouched) if not.
  bool Handle(const std::string& method, const nlohmann::json& params, ReplyOnce& reply,
              const std::function<std::shared_ptr<RequestContext>()>& make_context,
              const EraRules& rules) const;

  void ListTools(const nlohmann::json& params, ReplyOnce reply) const;
  // tools/list under an access file: only the tools `principal` may call.
  void ListToolsFor(const nlohmann::json& params, ReplyOnce reply,
                    const std::string& principal) const;
  void CallTool(const nlohmann::json& params, ReplyOnce reply,
                std::shared_ptr<RequestContext> context) const;
  // `principal`: list only what it may read (with an access file); nullopt: everything.
  void ListResources(const nlohmann::json& params, ReplyOnce reply,
                     const std::optional<std::string>& principal = std::nullopt) const;
  void ListResourceTemplates(const nlohmann::json& params, ReplyOnce reply) const;
  void ReadResource(const nlohmann::json& params, ReplyOnce reply,
                    std::shared_ptr<RequestContext> context, const EraRules& rules) const;
  void ListPrompts(const nlohmann::json& params, ReplyOnce reply) const;
  void GetPrompt(const nlohmann::json& params, ReplyOnce reply,
                 std::shared_ptr<RequestContext> context) const;
  void Complete(const nlohmann::json& params, ReplyOnce reply) const;

  // tasks/get, tasks/update, tasks/cancel: only for a request that declares the extension.
  void TaskMethod(const std::string& method, const nlohmann::json& params, ReplyOnce reply,
                  const std::shared_ptr<RequestContext>& context) const;

  ResourceProvider* FindResourceProvider(const std::string& uri) const;
  const McpServer& server() const { return *server_; }

  // The capabilities labgate declares (both eras): the tasks extension among them when a
  // TaskHost runs tasks.
  nlohmann::json ServerCapabilities() const;
  // {name, title, version}
  nlohmann::json ServerInfo() const;

 private:
  // The call as a task: BeforeTask, then the task is created and its work started.
  void CallAsTask(ToolProvider* provider, const std::string& name, const nlohmann::json& arguments,
                  ReplyOnce reply, const std::shared_ptr<RequestContext>& context) const;
  const McpServer* server_;
};

// params[name] when it is a string, else "".
std::string StringParam(const nlohmann::json& params, const char* name);

// For request traces: whether `method` is one labgate answers in either MCP era (others are
// counted as "other"), and the tool a tools/call names ("" for other methods).
bool IsMcpMethod(std::string_view method);
std::string TracedTool(const std::string& method, const nlohmann::json& params);

}  // namespace labgate::gateway
