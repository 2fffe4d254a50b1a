#include "gateway/tasks/task_context.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace labgate::gateway {

using nlohmann::json;

TaskContext::TaskContext(std::string id, std::shared_ptr<RequestContext> asker, TaskClient* client)
    : id_(std::move(id)),
      asker_(std::move(asker)),
      owner_(asker_->owner()),
      principal_name_(asker_->principal_name()),
      capabilities_(asker_->client_capabilities()),
      client_(client) {}

bool TaskContext::cancelled() const {
  absl::MutexLock lock(&mu_);
  return cancelled_;
}

void TaskContext::OnCancel(std::function<void()> handler) {
  {
    absl::MutexLock lock(&mu_);
    if (!cancelled_) {
      on_cancel_.push_back(std::move(handler));
      return;
    }
  }
  handler();
}

void TaskContext::RequestClient(const std::string& method, const json& params,
                                std::chrono::milliseconds timeout, JsonDone done) {
  std::string key;
  {
    absl::MutexLock lock(&mu_);
    key = absl::StrCat(method.substr(0, method.find('/')), "-", next_key_++);
  }
  AskClient(key, method, params, timeout, std::move(done));
}

void TaskContext::AskClient(const std::string& key, const std::string& method, const json& params,
                            std::chrono::milliseconds /*timeout*/, JsonDone done) {
  const std::string capability = ClientCapabilityFor(method);
  if (capability.empty()) {
    return done(absl::InvalidArgumentError(absl::StrCat("cannot ask the client ", method)));
  }
  if (!capabilities_.is_object() || !capabilities_.contains(capability)) {
    return done(absl::FailedPreconditionError(
        absl::StrCat("the client did not declare the '", capability, "' capability")));
  }
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_) return done(absl::CancelledError("the task was cancelled"));
    awaited_[key] = std::move(done);
  }
  json request = {{"method", method}};
  if (!params.is_null()) request["params"] = params;
  const json requests = {{key, std::move(request)}};
  client_->AskForInput(
      id_, requests.dump(-1, ' ', false, json::error_handler_t::replace),
      [self = weak_from_this(), key](const absl::StatusOr<tasks_v1::TaskState>& asked) {
        if (asked.ok()) return;
        if (auto context = self.lock()) context->Forget(key, asked.status());
      });
}

void TaskContext::Forget(const std::string& key, const absl::Status& why) {
  JsonDone failed;
  {
    absl::MutexLock lock(&mu_);
    auto it = awaited_.find(key);
    if (it == awaited_.end()) return;
    failed = std::move(it->second);
    awaited_.erase(it);
  }
  failed(why);
}

void TaskContext::WithdrawQuestions(const std::string& reason) {
  std::map<std::string, JsonDone> awaited;
  {
    absl::MutexLock lock(&mu_);
    awaited.swap(awaited_);
  }
  for (auto& [key, done] : awaited) done(absl::CancelledError(reason));
}

void TaskContext::Deliver(const json& responses) {
  if (!responses.is_object()) return;
  std::vector<std::pair<JsonDone, json>> answered;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = awaited_.begin(); it != awaited_.end();) {
      auto response = responses.find(it->first);
      if (response == responses.end()) {
        ++it;
        continue;
      }
      answered.emplace_back(std::move(it->second), *response);
      it = awaited_.erase(it);
    }
  }
  for (auto& [done, response] : answered) done(std::move(response));
}

void TaskContext::Cancel() {
  std::vector<std::function<void()>> handlers;
  std::map<std::string, JsonDone> awaited;
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_) return;
    cancelled_ = true;
    handlers.swap(on_cancel_);
    awaited.swap(awaited_);
  }
  for (auto& handler : handlers) handler();
  for (auto& [key, done] : awaited) done(absl::CancelledError("the task was cancelled"));
}

}  // namespace labgate::gateway
