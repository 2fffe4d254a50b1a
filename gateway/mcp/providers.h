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
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gateway/mcp/tool_result.h"

namespace labgate::gateway {

// MCP logging levels (RFC 5424 order).
enum class McpLogLevel { kDebug, kInfo, kNotice, kWarning, kError, kCritical, kAlert, kEmergency };
bool ParseMcpLogLevel(const std::string& text, McpLogLevel* level);
const char* McpLogLevelName(McpLogLevel level);

using JsonDone = std::function<void(absl::StatusOr<nlohmann::json>)>;

// The status RequestClient's `done` gets when the 2026 era must ask the client first.
inline constexpr char kInputRequiredMessage[] = "input required: the client is asked first";
inline bool IsInputRequired(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable &&
         status.message() == kInputRequiredMessage;
}
using StringsDone = std::function<void(std::vector<std::string>)>;

// The client capability a request to the client needs ("sampling", "elicitation", "roots"), or
// "" for a method that is not one.
std::string ClientCapabilityFor(const std::string& method);
using JsonListDone = std::function<void(std::vector<nlohmann::json>)>;

// What a handler may do while it serves one client request. Thread-safe unless noted;
// calls made after the request has finished are dropped.
class RequestContext {
 public:
  virtual ~RequestContext() = default;

  // The owner id of the principal asking (serial port ownership).
  virtual const std::string& owner() const = 0;
  // The principal's name as the access file names it ("alice", "local", "stdio").
  virtual const std::string& principal_name() const { return owner(); }
  // The client's capabilities: from initialize (stateful era) or from this request's _meta.
  virtual const nlohmann::json& client_capabilities() const = 0;
  // True once the client cancelled the request.
  virtual bool cancelled() const = 0;
  // Runs `handler` (at most once, on any thread) when the client cancels.
  virtual void OnCancel(std::function<void()> handler) = 0;

  // notifications/progress, sent only if the request carried a progressToken.
  virtual void Progress(double progress, std::optional<double> total,
                        const std::string& message) = 0;
  // notifications/message, sent only if `level` passes the client's logging level (set by
  // logging/setLevel, or per request by _meta logLevel; none without one in the 2026 era).
  virtual void Log(McpLogLevel level, const std::string& logger, const nlohmann::json& data) = 0;
  // Whether a Log at `level` would reach the client, so that a caller can skip building
  // what would be dropped.
  virtual bool WouldLog(McpLogLevel level) const {
    (void)level;
    return true;
  }
  // A request to the client (sampling/createMessage, elicitation/create, roots/list). In the
  // stateful era it is sent on this request's stream, and `done` gets the client's result,
  // its error, or DeadlineExceeded after `timeout`. In the 2026 era the answer comes with a
  // retry of the whole request: the first time, `done` gets kInputRequired (below) and the
  // request ends as input_required; the retry runs the handler again and `done` gets the
  // answer at once. A handler asks the same questions in the same order each time.
  virtual void RequestClient(const std::string& method, const nlohmann::json& params,
                             std::chrono::milliseconds timeout, JsonDone done) = 0;

  // RequestClient, with the key the client's answer comes back under in the 2026 era (an
  // inputRequests key, unique within the request). The stateful era ignores the key.
  virtual void AskClient(const std::string& key, const std::string& method,
                         const nlohmann::json& params, std::chrono::milliseconds timeout,
                         JsonDone done) {
    (void)key;
    RequestClient(method, params, timeout, std::move(done));
  }
  // Withdraws this request's questions to the client that are still unanswered, because
  // someone else answered (an approval in the console): each gets notifications/cancelled with
  // `reason`, and its `done` hears CANCELLED. No-op where an answer comes with a retry.
  virtual void WithdrawQuestions(const std::string& reason) { (void)reason; }
  // Logs to this request's client after the request has ended, as Log does (same level
  // rules), for as long as the client's connection lasts; holds nothing of the client
  // alive. Null where nothing can reach the client after its request (the 2026 era).
  using LogSink =
      std::function<void(McpLogLevel, const std::string& logger, const nlohmann::json& data)>;
  virtual LogSink LaterLog() { return nullptr; }
  // Sends notifications to this request's client after the request has ended, for as long as
  // its connection lasts (a task's changes in the stateful era). Null where nothing can reach
  // the client after its request (the 2026 era listens with subscriptions/listen instead).
  using NotifySink = std::function<void(const std::string& method, const nlohmann::json& params)>;
  virtual NotifySink LaterNotify() { return nullptr; }

  // True when the request is served in the stateless 2026 era.
  virtual bool stateless() const { return false; }
  // True inside an MCP task's work (a task never starts another).
  virtual bool in_task() const { return false; }

  // Ends this request's own stream now while the request goes on, so that the client polls
  // for the rest (Streamable HTTP, SEP-1699): the POST turns into an SSE stream if it was
  // not one, gets its priming event and is closed; what follows, the result included, waits
  // in that stream's replay buffer for a GET with Last-Event-ID. No-op where a request has
  // no stream of its own (stdio).
  virtual void CloseStream() {}

  // Keeps `make()`'s result alive as long as the principal keeps what it owns (a stdio
  // connection's life; over HTTP until the principal idles out), created once per `key`.
  // Returns what is held under `key`.
  virtual std::shared_ptr<void> HoldForPrincipal(
      const std::string& key, const std::function<std::shared_ptr<void>()>& make) = 0;
  // Marks the principal busy (never idle-released) until the handle goes: a task's work
  // outlives the request that started it. Null where nothing idles out.
  virtual std::shared_ptr<void> KeepPrincipalBusy() { return nullptr; }
};

// Whether a tool may run as an MCP task (tools/list's execution.taskSupport).
enum class TaskSupport { kForbidden, kOptional, kRequired };
const char* TaskSupportName(TaskSupport support);

class ToolProvider {
 public:
  virtual ~ToolProvider() = default;
  // Whether `name` may run as a task: required tools always do (and need the client to declare
  // the tasks extension); optional ones when RunsLong says this call is long.
  virtual TaskSupport TaskSupportOf(const std::string& name) const {
    (void)name;
    return TaskSupport::kForbidden;
  }
  // Whether this call of an optional tool is expected to take long enough to be a task.
  virtual bool RunsLong(const std::string& name, const nlohmann::json& arguments) const {
    (void)name, (void)arguments;
    return false;
  }
  // Runs in the request before a task is created (it may ask the client, in the request's own
  // way) and gives the arguments the task's work runs with.
  virtual void BeforeTask(const std::string& name, const nlohmann::json& arguments,
                          const std::shared_ptr<RequestContext>& context, const JsonDone& done) {
    (void)name, (void)context;
    done(arguments);
  }
  // tools/list entries.
  virtual std::vector<nlohmann::json> ListTools() const = 0;
  virtual bool HasTool(const std::string& name) const = 0;
  // `done` gets a CallToolResult (tool failures inside it, isError:true); a non-OK
  // status is a protocol error, mapped through common/status_map.h.
  virtual void CallTool(const std::string& name, const nlohmann::json& arguments,
                        std::shared_ptr<RequestContext> context, ToolDone done) = 0;
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
  // As SubscribeResource; with a handle, `ready` then runs once (maybe at once, maybe on
  // another thread) when every later change will be reported, which is when the
  // subscription may be acknowledged. Without a handle `ready` never runs.
  virtual std::shared_ptr<void> SubscribeResourceWhenReady(const std::string& uri,
                                                           std::function<void()> updated,
                                                           std::function<void()> ready) {
    std::shared_ptr<void> handle = SubscribeResource(uri, std::move(updated));
    if (handle) std::exchange(ready, nullptr)();
    return handle;
  }
  // completion/complete for a template variable; `done` gets candidate values.
  virtual void CompleteResourceArgument(const std::string& template_uri,
                                        const std::string& argument, const std::string& value,
                                        const nlohmann::json& context_arguments, StringsDone done) {
    (void)template_uri, (void)argument, (void)value, (void)context_arguments;
    std::exchange(done, nullptr)({});
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
    std::exchange(done, nullptr)({});
  }
};

// What changed, for notifications/{tools,resources,prompts}/list_changed.
enum class ListKind { kTools, kResources, kPrompts };

}  // namespace labgate::gateway
