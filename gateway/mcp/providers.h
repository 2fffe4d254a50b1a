// Extension points of the MCP server. Everything a client can list, call, read or get
// comes from a provider: the proto-derived tools, the action tools, labgate's own
// resources and prompts, and (only with --conformance-fixtures) the conformance fixtures.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace labgate::gateway {

// MCP logging levels (RFC 5424 order).
enum class McpLogLevel { kDebug, kInfo, kNotice, kWarning, kError, kCritical, kAlert, kEmergency };
bool ParseMcpLogLevel(const std::string& text, McpLogLevel* level);
const char* McpLogLevelName(McpLogLevel level);

using JsonDone = std::function<void(absl::StatusOr<nlohmann::json>)>;
using StringsDone = std::function<void(std::vector<std::string>)>;
using JsonListDone = std::function<void(std::vector<nlohmann::json>)>;

// What a handler may do while it serves one client request. Thread-safe unless noted;
// calls made after the request has finished are dropped.
class RequestContext {
 public:
  virtual ~RequestContext() = default;

  // The connection's owner id (serial port ownership).
  virtual const std::string& owner() const = 0;
  // The client's capabilities from initialize.
  virtual const nlohmann::json& client_capabilities() const = 0;
  // True once the client cancelled the request.
  virtual bool cancelled() const = 0;
  // Runs `handler` (at most once, on any thread) when the client cancels.
  virtual void OnCancel(std::function<void()> handler) = 0;

  // notifications/progress, sent only if the request carried a progressToken.
  virtual void Progress(double progress, std::optional<double> total,
                        const std::string& message) = 0;
  // notifications/message, sent only if `level` passes the client's logging level.
  virtual void Log(McpLogLevel level, const std::string& logger, const nlohmann::json& data) = 0;
  // A request to the client (sampling/createMessage, elicitation/create, roots/list),
  // sent on this request's stream. `done` gets the client's result, its error, or
  // DeadlineExceeded after `timeout`.
  virtual void RequestClient(const std::string& method, const nlohmann::json& params,
                             std::chrono::milliseconds timeout, JsonDone done) = 0;

  // Ends this request's own stream now while the request goes on, so that the client polls
  // for the rest (Streamable HTTP, SEP-1699): the POST turns into an SSE stream if it was
  // not one, gets its priming event and is closed; what follows, the result included, waits
  // in that stream's replay buffer for a GET with Last-Event-ID. No-op where a request has
  // no stream of its own (stdio).
  virtual void CloseStream() {}

  // Keeps `make()`'s result alive until the connection closes, created once per `key`.
  // Only from the synchronous part of a handler (it runs on the session's strand).
  virtual void HoldForConnection(const std::string& key,
                                 const std::function<std::shared_ptr<void>()>& make) = 0;
};

class ToolProvider {
 public:
  virtual ~ToolProvider() = default;
  // tools/list entries.
  virtual std::vector<nlohmann::json> ListTools() const = 0;
  virtual bool HasTool(const std::string& name) const = 0;
  // `done` gets a CallToolResult (tool failures inside it, isError:true); a non-OK
  // status is a protocol error, mapped through common/status_map.h.
  virtual void CallTool(const std::string& name, const nlohmann::json& arguments,
                        std::shared_ptr<RequestContext> context, JsonDone done) = 0;
};

class ResourceProvider {
 public:
  virtual ~ResourceProvider() = default;
  virtual void ListResources(JsonListDone done) = 0;
  virtual std::vector<nlohmann::json> ListResourceTemplates() const = 0;
  virtual bool HandlesUri(const std::string& uri) const = 0;
  // `done` gets a ReadResourceResult ({contents:[...]}); NotFound becomes -32002.
  virtual void ReadResource(const std::string& uri, std::shared_ptr<RequestContext> context,
                            JsonDone done) = 0;
  // Calls `updated` (any thread) whenever the resource changes, until the returned
  // handle is released. nullptr: the resource cannot be subscribed to.
  virtual std::shared_ptr<void> SubscribeResource(const std::string& uri,
                                                  std::function<void()> updated) = 0;
  // completion/complete for a template variable; `done` gets candidate values.
  virtual void CompleteResourceArgument(const std::string& template_uri,
                                        const std::string& argument, const std::string& value,
                                        const nlohmann::json& context_arguments, StringsDone done) {
    (void)template_uri, (void)argument, (void)value, (void)context_arguments;
    done({});
  }
};

class PromptProvider {
 public:
  virtual ~PromptProvider() = default;
  virtual std::vector<nlohmann::json> ListPrompts() const = 0;
  virtual bool HasPrompt(const std::string& name) const = 0;
  // `done` gets a GetPromptResult; InvalidArgument (a missing or bad argument) is -32602.
  virtual void GetPrompt(const std::string& name, const nlohmann::json& arguments,
                         std::shared_ptr<RequestContext> context, JsonDone done) = 0;
  virtual void CompletePromptArgument(const std::string& prompt, const std::string& argument,
                                      const std::string& value,
                                      const nlohmann::json& context_arguments, StringsDone done) {
    (void)prompt, (void)argument, (void)value, (void)context_arguments;
    done({});
  }
};

// What changed, for notifications/{tools,resources,prompts}/list_changed.
enum class ListKind { kTools, kResources, kPrompts };

}  // namespace labgate::gateway
