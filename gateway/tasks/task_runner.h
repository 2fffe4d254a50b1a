// The gateway's TaskHost: long tool calls become tasks kept by labgate-session's task service,
// and their work runs here, as the task's worker. It hears of every task change on the
// service's Watch stream: a cancel or an answer given through any gateway replica reaches the
// work, and changes reach subscribers (notifications/tasks). It reports every 2 s that it is
// alive; if it dies, the service fails its unfinished tasks with a message that says so.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gateway/backends/resuming_watch.h"
#include "gateway/mcp/task_host.h"
#include "gateway/tasks/task_client.h"
#include "gateway/tasks/task_context.h"

namespace labgate::gateway {

struct TaskRunnerOptions {
  // How long a task is kept from its creation (ttlMs): its work and then its result.
  std::chrono::milliseconds ttl{std::chrono::hours(24)};
  std::chrono::milliseconds poll_interval{500};  // suggested to clients (pollIntervalMs)
  std::chrono::milliseconds heartbeat_every{2000};
  std::string worker;  // this gateway's name as a worker; made up when empty
};

class TaskRunner final : public TaskHost {
 public:
  // `client` must outlive this; Stop before the backends go.
  TaskRunner(TaskClient* client, TaskRunnerOptions options);
  ~TaskRunner() override;
  TaskRunner(const TaskRunner&) = delete;
  TaskRunner& operator=(const TaskRunner&) = delete;

  // Fails the tasks still running here (the gateway is going), waits up to `grace` for the
  // service to take that, and stops the watch and the heartbeat.
  void Stop(std::chrono::milliseconds grace) ABSL_LOCKS_EXCLUDED(mu_);

  void Start(std::shared_ptr<RequestContext> asker, const std::string& description, Work work,
             JsonDone created) override ABSL_LOCKS_EXCLUDED(mu_);
  void Get(const std::string& owner, const std::string& id, JsonDone done) override;
  void Update(const std::string& owner, const std::string& id, const nlohmann::json& responses,
              JsonDone done) override ABSL_LOCKS_EXCLUDED(mu_);
  void Cancel(const std::string& owner, const std::string& id, JsonDone done) override
      ABSL_LOCKS_EXCLUDED(mu_);
  std::shared_ptr<void> Listen(const std::string& owner, std::vector<std::string> ids,
                               std::function<void(const nlohmann::json& task)> changed) override
      ABSL_LOCKS_EXCLUDED(mu_);

  const std::string& worker() const { return options_.worker; }
  size_t running() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Listener {
    std::string owner;
    std::vector<std::string> ids;
    std::function<void(const nlohmann::json&)> changed;
    // The revision of each task this gateway already knew when the listener came: the watch
    // may still bring that change (the creation, say) late, and it is no news to the client.
    std::map<std::string, int64_t> known_revisions;
  };
  // A task as this gateway last heard of it: answered for tasks/get without a trip to the
  // service while the Watch stream is up (it carries every change, in order).
  struct Cached {
    std::string owner;
    int64_t revision = 0;
    nlohmann::json task;  // the DetailedTask
    absl::Time expires = absl::InfiniteFuture();
  };
  // Keeps `state` unless a later revision is kept already.
  void Remember(const tasks_v1::TaskState& state) ABSL_LOCKS_EXCLUDED(mu_);
  // A change the watch (or a reconciling Get) brought.
  void Apply(const tasks_v1::TaskState& state) ABSL_LOCKS_EXCLUDED(mu_);
  // After the watch (re)starts: what it may have missed, for the tasks running here.
  void Reconcile() ABSL_LOCKS_EXCLUDED(mu_);
  // The work ended: the task is finished with its outcome (sent again with each heartbeat
  // until the service takes it).
  void Finish(const std::shared_ptr<TaskContext>& context, absl::StatusOr<ToolResult> outcome);
  void SendFinish(const tasks_v1::FinishTaskRequest& request, int attempt) ABSL_LOCKS_EXCLUDED(mu_);
  // Runs queued jobs (work starting, finishing) off the threads that answer calls.
  void Post(std::function<void()> job) ABSL_LOCKS_EXCLUDED(jobs_mu_);
  void RunJobs() ABSL_LOCKS_EXCLUDED(jobs_mu_);
  // Reports this worker alive every heartbeat_every, and sends the unfinished finishes again.
  void Beat() ABSL_LOCKS_EXCLUDED(jobs_mu_);

  TaskClient* const client_;
  TaskRunnerOptions options_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<TaskContext>> running_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, std::shared_ptr<Listener>> listeners_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Cached> cache_ ABSL_GUARDED_BY(mu_);
  bool watching_ ABSL_GUARDED_BY(mu_) = false;  // the cache is current only while it is
  // The latest revision heard of each unfinished task, from any answer, watched or not: what a
  // new listener already knows.
  std::map<std::string, int64_t> heard_revisions_ ABSL_GUARDED_BY(mu_);
  uint64_t next_listener_ ABSL_GUARDED_BY(mu_) = 1;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<ResumingWatch<tasks_v1::TaskState>> watch_;
  absl::Mutex jobs_mu_;
  absl::CondVar jobs_changed_;  // the jobs thread waits on it
  absl::CondVar stopped_;       // the heartbeat waits on it
  std::deque<std::function<void()>> jobs_ ABSL_GUARDED_BY(jobs_mu_);
  bool jobs_stop_ ABSL_GUARDED_BY(jobs_mu_) = false;
  // Finishes the service did not take yet (request, attempt), sent again with each heartbeat.
  std::vector<std::pair<tasks_v1::FinishTaskRequest, int>> unfinished_ ABSL_GUARDED_BY(jobs_mu_);
  std::thread jobs_thread_;
  std::thread heartbeat_thread_;
};

}  // namespace labgate::gateway
