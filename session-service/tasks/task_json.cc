#include "session-service/tasks/task_json.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/time_format.h"

namespace labgate::session {
namespace {

using nlohmann::json;

int64_t Ms(TaskTime time) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

TaskTime FromMs(int64_t ms) { return TaskTime(std::chrono::milliseconds(ms)); }

absl::StatusOr<TaskStatus> StatusFromName(const std::string& name) {
  for (TaskStatus status : {TaskStatus::kWorking, TaskStatus::kInputRequired,
                            TaskStatus::kCompleted, TaskStatus::kFailed, TaskStatus::kCancelled}) {
    if (name == TaskStatusName(status)) return status;
  }
  return absl::InvalidArgumentError(absl::StrCat("'", name, "' is no task status"));
}

// `key` of `in` as milliseconds, when it is an integer.
std::optional<std::chrono::milliseconds> OptionalMs(const json& in, const char* key) {
  auto it = in.find(key);
  if (it == in.end() || !it->is_number_integer()) return std::nullopt;
  return std::chrono::milliseconds(it->get<int64_t>());
}

// `key` of `in` when it is there.
std::optional<json> OptionalJson(const json& in, const char* key) {
  auto it = in.find(key);
  if (it == in.end()) return std::nullopt;
  return *it;
}

std::set<std::string> StringSet(const json& in, const char* key) {
  std::set<std::string> strings;
  auto it = in.find(key);
  if (it == in.end() || !it->is_array()) return strings;
  for (const json& value : *it) {
    if (value.is_string()) strings.insert(value.get<std::string>());
  }
  return strings;
}

// A task without a time to live is kept until the far future (year 9999) in the store's index.
constexpr char kNeverExpires[] = "9999-12-31T23:59:59.999Z";

}  // namespace

std::string TaskToStoredJson(const Task& task) {
  json out = {{"id", task.id},
              {"owner", task.owner},
              {"status", TaskStatusName(task.status)},
              {"status_message", task.status_message},
              {"created_ms", Ms(task.created_at)},
              {"updated_ms", Ms(task.updated_at)},
              {"input_requests", task.input_requests},
              {"used_keys", task.used_keys},
              {"worker", task.worker},
              {"description", task.description},
              {"responses", task.responses},
              {"revision", task.revision}};
  if (task.ttl.has_value()) out["ttl_ms"] = task.ttl->count();
  if (task.poll_interval.has_value()) out["poll_interval_ms"] = task.poll_interval->count();
  if (task.result.has_value()) out["result"] = *task.result;
  if (task.error.has_value()) out["error"] = *task.error;
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

absl::StatusOr<Task> TaskFromStoredJson(const std::string& text) {
  const json in = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!in.is_object()) return absl::InvalidArgumentError("a stored task is a JSON object");
  for (const char* key : {"id", "owner", "status"}) {
    if (!in.contains(key) || !in[key].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat("a stored task needs a string ", key));
    }
  }
  for (const char* key : {"created_ms", "updated_ms"}) {
    if (!in.contains(key) || !in[key].is_number_integer()) {
      return absl::InvalidArgumentError(absl::StrCat("a stored task needs an integer ", key));
    }
  }
  absl::StatusOr<TaskStatus> status = StatusFromName(in["status"].get<std::string>());
  if (!status.ok()) return status.status();
  Task task;
  task.id = in["id"].get<std::string>();
  task.owner = in["owner"].get<std::string>();
  task.status = *status;
  task.status_message = in.value("status_message", "");
  task.created_at = FromMs(in["created_ms"].get<int64_t>());
  task.updated_at = FromMs(in["updated_ms"].get<int64_t>());
  task.ttl = OptionalMs(in, "ttl_ms");
  task.poll_interval = OptionalMs(in, "poll_interval_ms");
  const json requests = OptionalJson(in, "input_requests").value_or(json::object());
  if (requests.is_object()) task.input_requests = requests;
  task.used_keys = StringSet(in, "used_keys");
  task.revision = in.value("revision", int64_t{1});
  task.worker = in.value("worker", "");
  task.description = in.value("description", "");
  const json responses = OptionalJson(in, "responses").value_or(json::object());
  if (responses.is_object()) task.responses = responses;
  task.result = OptionalJson(in, "result");
  task.error = OptionalJson(in, "error");
  return task;
}

TaskRow TaskToRow(const Task& task) {
  return {task.id, task.owner, TaskStatusName(task.status), TaskToStoredJson(task),
          task.ttl.has_value() ? FormatRfc3339(task.created_at + *task.ttl) : kNeverExpires};
}

}  // namespace labgate::session
