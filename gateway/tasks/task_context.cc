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
      client_(client),
      busy_(asker_->KeepPrincipalBusy()) {}

void TaskContext::WorkEnded() {
  std::shared_ptr<void> busy;
  {
    absl::MutexLock lock(&mu_);
    busy.swap(busy_);
  }
}

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

namespace {

// labgate-session keeps at most this much of a status message.
constexpr size_t kMaxStatusMessageBytes = 512;
constexpr absl::Duration kReportEvery = absl::Seconds(1);

// At most `limit` bytes, cut before a UTF-8 continuation byte rather than inside a character.
std::string Shortened(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

void TaskContext::Progress(double progress, std::optional<double> total,
                           const std::string& message) {
  if (message.empty() || (total.has_value() && progress >= *total)) return;
  {
    absl::MutexLock lock(&mu_);
    wanted_message_ = Shortened(message, kMaxStatusMessageBytes);
    if (absl::Now() - last_report_ < kReportEvery) return;  // FlushReport sends it later
  }
  SendReport();
}

void TaskContext::FlushReport() { SendReport(); }

void TaskContext::SendReport() {
  std::string message;
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_ || reporting_ || wanted_message_ == reported_message_) return;
    reporting_ = true;
    message = wanted_message_;
    last_report_ = absl::Now();
  }
  client_->Report(id_, message,
                  [self = weak_from_this(), message](const absl::StatusOr<tasks_v1::TaskState>&) {
                    // Refused only once the task is over; either way this message is done with.
                    auto context = self.lock();
                    if (!context) return;
                    absl::MutexLock lock(&context->mu_);
                    context->reporting_ = false;
                    context->reported_message_ = message;
                  });
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
