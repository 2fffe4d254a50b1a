// What a task's work sees as its request (a RequestContext of its own): the task's owner and
// its client's capabilities; a cancel of the task (tasks/cancel, from any gateway replica);
// and questions to the person, which become the task's input requests and are answered by
// tasks/update. It outlives the request that created the task.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gateway/mcp/providers.h"
#include "gateway/tasks/task_client.h"

namespace labgate::gateway {

class TaskContext final : public RequestContext, public std::enable_shared_from_this<TaskContext> {
 public:
  // `asker` is the request that created the task; `client` must outlive this.
  TaskContext(std::string id, std::shared_ptr<RequestContext> asker, TaskClient* client);

  const std::string& id() const { return id_; }
  bool in_task() const override { return true; }
  const std::string& owner() const override { return owner_; }
  const std::string& principal_name() const override { return principal_name_; }
  const nlohmann::json& client_capabilities() const override { return capabilities_; }
  bool cancelled() const override ABSL_LOCKS_EXCLUDED(mu_);
  void OnCancel(std::function<void()> handler) override ABSL_LOCKS_EXCLUDED(mu_);
  // A task has no progress token: its progress messages become its statusMessage, the first
  // at once and later ones at most once a second (the latest wins; FlushReport sends one held
  // back). The call's last step ("done") is left to its result.
  void Progress(double progress, std::optional<double> total, const std::string& message) override
      ABSL_LOCKS_EXCLUDED(mu_);
  void FlushReport() ABSL_LOCKS_EXCLUDED(mu_);
  // A task has no log level either: the client reads its state instead.
  void Log(McpLogLevel, const std::string&, const nlohmann::json&) override {}
  bool WouldLog(McpLogLevel) const override { return false; }
  // Asks through the task's input requests and waits for the answer however long it takes
  // (`timeout` does not apply: the person answers when they can, or the task is cancelled).
  void RequestClient(const std::string& method, const nlohmann::json& params,
                     std::chrono::milliseconds timeout, JsonDone done) override;
  void AskClient(const std::string& key, const std::string& method, const nlohmann::json& params,
                 std::chrono::milliseconds timeout, JsonDone done) override
      ABSL_LOCKS_EXCLUDED(mu_);
  // Questions someone else answered: the task's work stops waiting for them (the client's
  // late answers are ignored).
  void WithdrawQuestions(const std::string& reason) override ABSL_LOCKS_EXCLUDED(mu_);
  std::shared_ptr<void> HoldForPrincipal(
      const std::string& key, const std::function<std::shared_ptr<void>()>& make) override {
    return asker_->HoldForPrincipal(key, make);
  }
  std::shared_ptr<void> KeepPrincipalBusy() override { return asker_->KeepPrincipalBusy(); }
  // The task's work ended: its principal is no longer kept busy by it.
  void WorkEnded() ABSL_LOCKS_EXCLUDED(mu_);

  // The task's answers so far (key -> response): those awaited are handed over.
  void Deliver(const nlohmann::json& responses) ABSL_LOCKS_EXCLUDED(mu_);
  // The task was cancelled (or ended elsewhere): handlers run, questions are let go.
  void Cancel() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Sends the latest progress message unless one is under way or it was sent already.
  void SendReport() ABSL_LOCKS_EXCLUDED(mu_);
  // A question that could not be asked: its asker hears why.
  void Forget(const std::string& key, const absl::Status& why) ABSL_LOCKS_EXCLUDED(mu_);

  const std::string id_;
  const std::shared_ptr<RequestContext> asker_;
  const std::string owner_;
  const std::string principal_name_;
  const nlohmann::json capabilities_;
  TaskClient* const client_;
  mutable absl::Mutex mu_;
  std::shared_ptr<void> busy_ ABSL_GUARDED_BY(mu_);  // while the work runs
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::function<void()>> on_cancel_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, JsonDone> awaited_ ABSL_GUARDED_BY(mu_);  // by input key
  int next_key_ ABSL_GUARDED_BY(mu_) = 1;
  std::string wanted_message_ ABSL_GUARDED_BY(mu_);    // the latest progress message
  std::string reported_message_ ABSL_GUARDED_BY(mu_);  // the last one sent
  absl::Time last_report_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  bool reporting_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace labgate::gateway
