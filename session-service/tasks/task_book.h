// The rules of long operations as MCP tasks (issue 34), apart from storage and RPCs: who may see a
// task, how its status may move, which input it waits for, and when it is forgotten. Time is
// passed in, so tests drive it; the caller serializes calls (one book behind its lock).
//
// Status: working <-> input_required, then one of completed, failed or cancelled, after which
// nothing changes it again (a cancel of a finished task is a no-op). A task is its owner's alone:
// to anyone else, as after its time to live, it does not exist. Input a task waits for is a set of
// requests under keys that are never used twice in its life; an answer to a key that is not
// outstanding is ignored, and the task works again once every key is answered.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace labgate::session {

enum class TaskStatus { kWorking, kInputRequired, kCompleted, kFailed, kCancelled };
// "working", "input_required", "completed", "failed", "cancelled".
const char* TaskStatusName(TaskStatus status);
bool IsTerminal(TaskStatus status);

using TaskTime = std::chrono::system_clock::time_point;

struct Task {
  std::string id;     // a bearer handle: whoever knows it and is the owner may use it
  std::string owner;  // the principal that created it
  TaskStatus status = TaskStatus::kWorking;
  std::string status_message;
  TaskTime created_at, updated_at;
  std::optional<std::chrono::milliseconds> ttl;  // from creation; none: kept until purged
  std::optional<std::chrono::milliseconds> poll_interval;
  nlohmann::json input_requests = nlohmann::json::object();  // outstanding, by key
  std::set<std::string> used_keys;                           // every key ever issued
  std::optional<nlohmann::json> result;                      // completed: the CallToolResult
  std::optional<nlohmann::json> error;                       // failed: a JSON-RPC error object
  std::string worker;       // the process doing the work; its silence fails the task
  std::string description;  // what the work is, for people ("tools/call wait_for")
  nlohmann::json responses = nlohmann::json::object();  // every answer taken, by key
  // 1 at creation, one more at each change: a reader keeps the state with the highest.
  int64_t revision = 1;
};

class TaskBook {
 public:
  // A new working task of `owner`, called `id` (the caller makes ids with enough entropy).
  Task Create(std::string id, std::string owner, std::optional<std::chrono::milliseconds> ttl,
              std::optional<std::chrono::milliseconds> poll_interval, TaskTime now,
              std::string worker = "", std::string description = "");
  // The owner's task; NOT_FOUND (`no task ID`) for an unknown id, another's or an expired one.
  absl::StatusOr<Task> Get(const std::string& id, const std::string& owner, TaskTime now) const;

  // The work asks for input: `requests` (key -> {method, params}) join the outstanding ones.
  // FAILED_PRECONDITION for a key used before in the task's life, or a finished task.
  absl::StatusOr<Task> AskForInput(const std::string& id, const nlohmann::json& requests,
                                   TaskTime now);
  // The work says what it is doing now (the task's statusMessage); FAILED_PRECONDITION for a
  // finished task. The same message again changes nothing (`changed`, when given, says which).
  absl::StatusOr<Task> Report(const std::string& id, const std::string& status_message,
                              TaskTime now, bool* changed = nullptr);
  // The owner answers (tasks/update): answers to outstanding keys are taken and returned, the
  // rest ignored; with nothing outstanding left the task works again.
  absl::StatusOr<nlohmann::json> Answer(const std::string& id, const std::string& owner,
                                        const nlohmann::json& responses, TaskTime now);
  // The work ends: a tool's result (an error result too) completes it; a protocol error fails it.
  // A finished task stays as it was.
  absl::StatusOr<Task> Complete(const std::string& id, nlohmann::json result, TaskTime now);
  absl::StatusOr<Task> Fail(const std::string& id, nlohmann::json error, const std::string& why,
                            TaskTime now);
  // The owner cancels; a finished task stays as it was (and the cancel is still acknowledged).
  absl::StatusOr<Task> Cancel(const std::string& id, const std::string& owner, TaskTime now);

  // Fails every unfinished task of `worker` with `why` (its worker is gone); returns them.
  std::vector<Task> FailUnfinishedOf(const std::string& worker, const std::string& why,
                                     TaskTime now);
  int CountUnfinishedOf(const std::string& worker, TaskTime now) const;
  size_t size() const { return tasks_.size(); }
  // The workers with unfinished tasks.
  std::set<std::string> BusyWorkers(TaskTime now) const;
  // Live tasks, newest first, at most `limit`; only `owner`'s unless it is empty.
  std::vector<Task> List(const std::string& owner, size_t limit, TaskTime now) const;
  // The task whatever its owner (for its worker); NOT_FOUND as Get.
  absl::StatusOr<Task> Find(const std::string& id, TaskTime now) const;
  // Puts back a task as it was stored (after a restart).
  void Restore(Task task);

  // Forgets the tasks whose time to live is over; returns how many.
  int Purge(TaskTime now);

 private:
  Task* Live(const std::string& id, TaskTime now);
  std::map<std::string, Task> tasks_;
};

// The task as tasks/get shows it (a DetailedTask, without resultType): ttlMs is always there
// (null: no limit), pollIntervalMs only when set, and each status's own part.
nlohmann::json TaskToJson(const Task& task);

}  // namespace labgate::session
