// Where long tool calls run as MCP tasks (the io.modelcontextprotocol/tasks extension, issue
// 34). The engine decides which calls become tasks and answers the tasks methods through a
// TaskHost; the host keeps each task in the task service (labgate-session), so any gateway
// replica can answer for it, and runs the work.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gateway/mcp/providers.h"
#include "gateway/mcp/tool_result.h"

namespace labgate::gateway {

inline constexpr char kTasksExtension[] = "io.modelcontextprotocol/tasks";

// Whether `capabilities` (a client's) declare the tasks extension.
bool DeclaresTasks(const nlohmann::json& capabilities);

class TaskHost;

// In the stateful era the client hears of each change of task `id`, which it created, on its own
// stream (notifications/tasks) until the task ends; nothing where it listens another way.
void FollowTask(TaskHost* tasks, RequestContext& context, const std::string& id);

class TaskHost {
 public:
  virtual ~TaskHost() = default;
  // The work of a task: it runs with a context of the task's own (its cancel is the task's,
  // its questions to the person become the task's input requests) and ends through `done`.
  using Work = std::function<void(std::shared_ptr<RequestContext> context, ToolDone done)>;
  // Creates a task of `asker`'s principal, then starts `work`; `created` gets the
  // CreateTaskResult (resultType "task") once the task is stored, or why it could not be. The
  // task keeps `asker` for what its principal holds (HoldForPrincipal), not for its cancel.
  virtual void Start(std::shared_ptr<RequestContext> asker, const std::string& description,
                     Work work, JsonDone created) = 0;
  // tasks/get: the DetailedTask (with resultType); NOT_FOUND for an unknown, expired or
  // another principal's id.
  virtual void Get(const std::string& owner, const std::string& id, JsonDone done) = 0;
  // tasks/update: answers to outstanding input requests; others are ignored.
  virtual void Update(const std::string& owner, const std::string& id,
                      const nlohmann::json& responses, JsonDone done) = 0;
  // tasks/cancel: acknowledged for a finished task too.
  virtual void Cancel(const std::string& owner, const std::string& id, JsonDone done) = 0;
  // Calls `changed` with each change of the owner's tasks named in `ids` (a DetailedTask),
  // until the handle is released; for notifications/tasks.
  virtual std::shared_ptr<void> Listen(const std::string& owner, std::vector<std::string> ids,
                                       std::function<void(const nlohmann::json& task)> changed) = 0;
};

}  // namespace labgate::gateway
