#include "session-service/tasks/task_book.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/time_format.h"

namespace labgate::session {

using json = nlohmann::json;

const char* TaskStatusName(TaskStatus status) {
  switch (status) {
    case TaskStatus::kWorking:
      return "working";
    case TaskStatus::kInputRequired:
      return "input_required";
    case TaskStatus::kCompleted:
      return "completed";
    case TaskStatus::kFailed:
      return "failed";
    case TaskStatus::kCancelled:
      return "cancelled";
  }
  return "working";
}

bool IsTerminal(TaskStatus status) {
  return status == TaskStatus::kCompleted || status == TaskStatus::kFailed ||
         status == TaskStatus::kCancelled;
}

namespace {

bool Expired(const Task& task, TaskTime now) {
  return task.ttl.has_value() && now >= task.created_at + *task.ttl;
}

absl::Status NoTask(const std::string& id) {
  return absl::NotFoundError(absl::StrCat("no task ", id));
}

}  // namespace

Task TaskBook::Create(std::string id, std::string owner,
                      std::optional<std::chrono::milliseconds> ttl,
                      std::optional<std::chrono::milliseconds> poll_interval, TaskTime now,
                      std::string worker, std::string description) {
  Task task;
  task.worker = std::move(worker);
  task.description = std::move(description);
  task.id = std::move(id);
  task.owner = std::move(owner);
  task.created_at = now;
  task.updated_at = now;
  task.ttl = ttl;
  task.poll_interval = poll_interval;
  return tasks_[task.id] = task;
}

Task* TaskBook::Live(const std::string& id, TaskTime now) {
  auto it = tasks_.find(id);
  if (it == tasks_.end() || Expired(it->second, now)) return nullptr;
  return &it->second;
}

absl::StatusOr<Task> TaskBook::Get(const std::string& id, const std::string& owner,
                                   TaskTime now) const {
  auto it = tasks_.find(id);
  // Another's task is answered as none: the error tells nothing of its existence.
  if (it == tasks_.end() || it->second.owner != owner || Expired(it->second, now)) {
    return NoTask(id);
  }
  return it->second;
}

absl::StatusOr<Task> TaskBook::AskForInput(const std::string& id, const json& requests,
                                           TaskTime now) {
  Task* task = Live(id, now);
  if (task == nullptr) return NoTask(id);
  if (IsTerminal(task->status)) {
    return absl::FailedPreconditionError(
        absl::StrCat("task ", id, " is ", TaskStatusName(task->status), ": it asks for nothing"));
  }
  if (!requests.is_object() || requests.empty()) {
    return absl::InvalidArgumentError("input requests are an object of key -> {method, params}");
  }
  for (const auto& [key, request] : requests.items()) {
    if (task->used_keys.contains(key)) {
      return absl::FailedPreconditionError(
          absl::StrCat("input key '", key, "' was used before in task ", id));
    }
  }
  for (const auto& [key, request] : requests.items()) {
    task->used_keys.insert(key);
    task->input_requests[key] = request;
  }
  task->status = TaskStatus::kInputRequired;
  task->updated_at = now;
  ++task->revision;
  return *task;
}

absl::StatusOr<json> TaskBook::Answer(const std::string& id, const std::string& owner,
                                      const json& responses, TaskTime now) {
  Task* task = Live(id, now);
  if (task == nullptr || task->owner != owner) return NoTask(id);
  if (!responses.is_object()) {
    return absl::InvalidArgumentError("inputResponses is an object of key -> response");
  }
  json taken = json::object();
  for (const auto& [key, response] : responses.items()) {
    if (!task->input_requests.contains(key)) continue;  // not outstanding: ignored
    taken[key] = response;
    task->responses[key] = response;
    task->input_requests.erase(key);
  }
  if (!taken.empty()) {
    if (task->input_requests.empty() && task->status == TaskStatus::kInputRequired) {
      task->status = TaskStatus::kWorking;
    }
    task->updated_at = now;
    ++task->revision;
  }
  return taken;
}

absl::StatusOr<Task> TaskBook::Report(const std::string& id, const std::string& status_message,
                                      TaskTime now, bool* changed) {
  if (changed != nullptr) *changed = false;
  Task* task = Live(id, now);
  if (task == nullptr) return NoTask(id);
  if (IsTerminal(task->status)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "task ", id, " is ", TaskStatusName(task->status), ": it reports nothing more"));
  }
  if (task->status_message == status_message) return *task;
  if (changed != nullptr) *changed = true;
  task->status_message = status_message;
  task->updated_at = now;
  ++task->revision;
  return *task;
}

absl::StatusOr<Task> TaskBook::Complete(const std::string& id, json result, TaskTime now) {
  Task* task = Live(id, now);
  if (task == nullptr) return NoTask(id);
  if (IsTerminal(task->status)) return *task;
  task->status = TaskStatus::kCompleted;
  task->status_message.clear();  // what it was doing is over; its result says how it went
  task->result = std::move(result);
  task->input_requests = json::object();
  task->updated_at = now;
  ++task->revision;
  return *task;
}

absl::StatusOr<Task> TaskBook::Fail(const std::string& id, json error, const std::string& why,
                                    TaskTime now) {
  Task* task = Live(id, now);
  if (task == nullptr) return NoTask(id);
  if (IsTerminal(task->status)) return *task;
  task->status = TaskStatus::kFailed;
  task->status_message = why;
  task->error = std::move(error);
  task->input_requests = json::object();
  task->updated_at = now;
  ++task->revision;
  return *task;
}

absl::StatusOr<Task> TaskBook::Cancel(const std::string& id, const std::string& owner,
                                      TaskTime now) {
  Task* task = Live(id, now);
  if (task == nullptr || task->owner != owner) return NoTask(id);
  if (IsTerminal(task->status)) return *task;
  task->status = TaskStatus::kCancelled;
  task->status_message = "cancelled by its owner";
  task->input_requests = json::object();
  task->updated_at = now;
  ++task->revision;
  return *task;
}

std::vector<Task> TaskBook::FailUnfinishedOf(const std::string& worker, const std::string& why,
                                             TaskTime now) {
  std::vector<Task> failed;
  for (auto& [id, task] : tasks_) {
    if (task.worker != worker || IsTerminal(task.status) || Expired(task, now)) continue;
    task.status = TaskStatus::kFailed;
    task.status_message = why;
    task.error = json{{"code", -32603}, {"message", why}};
    task.input_requests = json::object();
    task.updated_at = now;
    ++task.revision;
    failed.push_back(task);
  }
  return failed;
}

int TaskBook::CountUnfinishedOf(const std::string& worker, TaskTime now) const {
  int unfinished = 0;
  for (const auto& [id, task] : tasks_) {
    if (task.worker == worker && !IsTerminal(task.status) && !Expired(task, now)) ++unfinished;
  }
  return unfinished;
}

std::set<std::string> TaskBook::BusyWorkers(TaskTime now) const {
  std::set<std::string> workers;
  for (const auto& [id, task] : tasks_) {
    if (!IsTerminal(task.status) && !Expired(task, now)) workers.insert(task.worker);
  }
  return workers;
}

std::vector<Task> TaskBook::List(const std::string& owner, size_t limit, TaskTime now) const {
  std::vector<const Task*> live;
  for (const auto& [id, task] : tasks_) {
    if ((owner.empty() || task.owner == owner) && !Expired(task, now)) live.push_back(&task);
  }
  std::sort(live.begin(), live.end(), [](const Task* a, const Task* b) {
    return a->created_at != b->created_at ? a->created_at > b->created_at : a->id < b->id;
  });
  std::vector<Task> listed;
  listed.reserve(std::min(limit, live.size()));
  for (size_t i = 0; i < live.size() && i < limit; ++i) listed.push_back(*live[i]);
  return listed;
}

absl::StatusOr<Task> TaskBook::Find(const std::string& id, TaskTime now) const {
  auto it = tasks_.find(id);
  if (it == tasks_.end() || Expired(it->second, now)) return NoTask(id);
  return it->second;
}

void TaskBook::Restore(Task task) {
  std::string id = task.id;
  tasks_[id] = std::move(task);
}

int TaskBook::Purge(TaskTime now) {
  int purged = 0;
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    if (Expired(it->second, now)) {
      it = tasks_.erase(it);
      ++purged;
    } else {
      ++it;
    }
  }
  return purged;
}

json TaskToJson(const Task& task) {
  json out = {{"taskId", task.id},
              {"status", TaskStatusName(task.status)},
              {"createdAt", FormatRfc3339(task.created_at)},
              {"lastUpdatedAt", FormatRfc3339(task.updated_at)},
              {"ttlMs", task.ttl.has_value() ? json(task.ttl->count()) : json(nullptr)}};
  if (task.poll_interval.has_value()) out["pollIntervalMs"] = task.poll_interval->count();
  if (!task.status_message.empty()) out["statusMessage"] = task.status_message;
  switch (task.status) {
    case TaskStatus::kInputRequired:
      out["inputRequests"] = task.input_requests;
      break;
    case TaskStatus::kCompleted:
      out["result"] = task.result.value_or(json::object());
      break;
    case TaskStatus::kFailed:
      out["error"] = task.error.value_or(json{{"code", -32603}, {"message", task.status_message}});
      break;
    case TaskStatus::kWorking:
    case TaskStatus::kCancelled:
      break;
  }
  return out;
}

}  // namespace labgate::session
