#include "gateway/tasks/task_runner.h"

#include <unistd.h>

#include <algorithm>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "common/status_map.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;

// Finishing is retried with each heartbeat (every 2 s) while labgate-session does not take it.
constexpr int kFinishAttempts = 30;

std::string MakeWorkerName() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  return absl::StrFormat("gateway %s pid %d #%04x", host, ::getpid(), random() & 0xffff);
}

json ParseTask(const std::string& text) {
  json task = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return task.is_object() ? task : json::object();
}

std::string Dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool Terminal(const std::string& status) {
  return status == "completed" || status == "failed" || status == "cancelled";
}

}  // namespace

TaskRunner::TaskRunner(TaskClient* client, TaskRunnerOptions options)
    : client_(client), options_(std::move(options)) {
  if (options_.worker.empty()) options_.worker = MakeWorkerName();
  jobs_thread_ = std::thread([this] { RunJobs(); });
  heartbeat_thread_ = std::thread([this] { Beat(); });
  if (client_->stub() != nullptr) {
    tasks_v1::TaskService::Stub* stub = client_->stub();
    watch_ = ResumingWatch<tasks_v1::TaskState>::Start(
        [stub, request = tasks_v1::WatchTasksRequest()](
            grpc::ClientContext* context, grpc::ClientReadReactor<tasks_v1::TaskState>* reactor) {
          stub->async()->Watch(context, &request, reactor);
        },
        {[this](const tasks_v1::TaskState& state) { Apply(state); }, [this] { Reconcile(); },
         [this] {
           // What changes until the next stream is not heard of: the service answers reads.
           absl::MutexLock lock(&mu_);
           watching_ = false;
           cache_.clear();
         }},
        std::chrono::seconds(1));
  }
}

TaskRunner::~TaskRunner() { Stop(std::chrono::milliseconds(0)); }

void TaskRunner::Stop(std::chrono::milliseconds grace) {
  std::map<std::string, std::shared_ptr<TaskContext>> running;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    running = running_;
  }
  // What runs here stops with this gateway: say so at once rather than after the silence.
  auto pending = std::make_shared<std::atomic<size_t>>(running.size());
  auto all_told = std::make_shared<absl::Notification>();
  if (running.empty()) all_told->Notify();
  for (const auto& [id, context] : running) {
    context->Cancel();
    tasks_v1::FinishTaskRequest request;
    request.set_id(id);
    const std::string why = "the gateway running this task shut down before the task finished";
    request.set_error_json(Dump({{"code", jsonrpc_code::kInternalError}, {"message", why}}));
    request.set_status_message(why);
    client_->Finish(request, [pending, all_told](const absl::StatusOr<tasks_v1::TaskState>&) {
      if (--*pending == 0) all_told->Notify();
    });
  }
  all_told->WaitForNotificationWithTimeout(absl::FromChrono(grace));
  if (watch_) watch_->Stop();
  {
    absl::MutexLock lock(&jobs_mu_);
    jobs_stop_ = true;
    jobs_changed_.SignalAll();
    stopped_.SignalAll();
  }
  if (jobs_thread_.joinable()) jobs_thread_.join();
  if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
}

size_t TaskRunner::running() const {
  absl::MutexLock lock(&mu_);
  return running_.size();
}

void TaskRunner::Post(std::function<void()> job) {
  absl::MutexLock lock(&jobs_mu_);
  jobs_.push_back(std::move(job));
  jobs_changed_.Signal();
}

void TaskRunner::RunJobs() {
  while (true) {
    std::function<void()> job;
    {
      absl::MutexLock lock(&jobs_mu_);
      while (jobs_.empty() && !jobs_stop_) jobs_changed_.Wait(&jobs_mu_);
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

void TaskRunner::Beat() {
  while (true) {
    std::vector<std::pair<tasks_v1::FinishTaskRequest, int>> unfinished;
    {
      absl::MutexLock lock(&jobs_mu_);
      if (jobs_stop_) return;
      stopped_.WaitWithTimeout(&jobs_mu_, absl::FromChrono(options_.heartbeat_every));
      if (jobs_stop_) return;
      unfinished.swap(unfinished_);
    }
    for (const auto& [request, attempt] : unfinished) SendFinish(request, attempt);
    std::vector<std::shared_ptr<TaskContext>> running;
    {
      absl::MutexLock lock(&mu_);
      for (const auto& [id, context] : running_) running.push_back(context);
    }
    for (const auto& context : running) context->FlushReport();
    client_->Heartbeat(
        options_.worker, [](const absl::StatusOr<tasks_v1::HeartbeatResponse>& beat) {
          if (!beat.ok()) {
            LG_LOG(kWarning) << "tasks: the task service did not take this gateway's heartbeat: "
                             << beat.status().message();
          }
        });
  }
}

void TaskRunner::Start(std::shared_ptr<RequestContext> asker, const std::string& description,
                       Work work, JsonDone created) {
  tasks_v1::CreateTaskRequest request;
  request.set_ttl_ms(options_.ttl.count());
  request.set_poll_interval_ms(options_.poll_interval.count());
  request.set_worker(options_.worker);
  request.set_description(description);
  const std::string owner = asker->owner();
  client_->Create(owner, request,
                  [this, asker = std::move(asker), work = std::move(work),
                   created = std::move(created)](absl::StatusOr<tasks_v1::TaskState> state) {
                    if (!state.ok()) return created(state.status());
                    Remember(*state);
                    json task = ParseTask(state->task_json());
                    const std::string id = task.value("taskId", "");
                    auto context = std::make_shared<TaskContext>(id, asker, client_);
                    {
                      absl::MutexLock lock(&mu_);
                      running_[id] = context;
                    }
                    task["resultType"] = "task";
                    created(std::move(task));
                    // The work starts off the thread that stored the task (the store's own).
                    Post([this, context, work] {
                      work(context, [this, context](absl::StatusOr<ToolResult> outcome) {
                        Finish(context, std::move(outcome));
                      });
                    });
                  });
}

void TaskRunner::Finish(const std::shared_ptr<TaskContext>& context,
                        absl::StatusOr<ToolResult> outcome) {
  context->WorkEnded();
  tasks_v1::FinishTaskRequest request;
  request.set_id(context->id());
  if (outcome.ok()) {
    // A CallToolResult carries its own resultType in the 2026-07-28 schema, inside a task too
    // (the tasks extension's client parses it as one).
    json result = outcome->AsJson();
    result["resultType"] = "complete";
    request.set_result_json(Dump(result));
  } else {
    const absl::Status& status = outcome.status();
    const std::string message(status.message());
    request.set_error_json(
        Dump({{"code", MappingFor(status.code()).jsonrpc_code}, {"message", message}}));
    request.set_status_message(message);
  }
  SendFinish(request, 1);
}

void TaskRunner::SendFinish(const tasks_v1::FinishTaskRequest& request, int attempt) {
  const std::string& id = request.id();
  client_->Finish(request, [this, request, attempt, id](absl::StatusOr<tasks_v1::TaskState> done) {
    if (done.ok()) Remember(*done);
    const bool retry = !done.ok() && done.status().code() != absl::StatusCode::kNotFound &&
                       attempt < kFinishAttempts;
    if (!done.ok()) {
      LG_LOG(kWarning) << "tasks: task " << id << " could not be finished (attempt " << attempt
                       << "): " << done.status().message();
    }
    if (retry) {
      // Sent again with the next heartbeat: the outcome is kept until the service takes it, and
      // no thread waits for that.
      absl::MutexLock lock(&jobs_mu_);
      unfinished_.push_back({request, attempt + 1});
      return;
    }
    absl::MutexLock lock(&mu_);
    running_.erase(id);
  });
}

void TaskRunner::Remember(const tasks_v1::TaskState& state) {
  json task = ParseTask(state.task_json());
  const std::string id = task.value("taskId", "");
  if (id.empty()) return;
  absl::Time expires = absl::InfiniteFuture();
  absl::Time created;
  std::string parse_error;
  if (task.contains("ttlMs") && task["ttlMs"].is_number_integer() &&
      absl::ParseTime(absl::RFC3339_full, task.value("createdAt", ""), &created, &parse_error)) {
    expires = created + absl::Milliseconds(task["ttlMs"].get<int64_t>());
  }
  absl::MutexLock lock(&mu_);
  if (!Terminal(task.value("status", ""))) {
    int64_t& heard = heard_revisions_[id];
    heard = std::max(heard, state.revision());
  } else {
    heard_revisions_.erase(id);
  }
  if (!watching_) return;
  Cached& cached = cache_[id];
  if (cached.revision >= state.revision()) return;
  cached = Cached{state.owner(), state.revision(), std::move(task), expires};
}

void TaskRunner::Apply(const tasks_v1::TaskState& state) {
  Remember(state);
  const json task = ParseTask(state.task_json());
  const std::string id = task.value("taskId", "");
  const std::string status = task.value("status", "");
  std::shared_ptr<TaskContext> context;
  std::vector<std::shared_ptr<Listener>> listeners;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = running_.find(id); it != running_.end()) context = it->second;
    for (const auto& [key, listener] : listeners_) {
      if (listener->owner != state.owner()) continue;
      auto known = listener->known_revisions.find(id);
      if (known != listener->known_revisions.end() && state.revision() <= known->second) continue;
      for (const std::string& wanted : listener->ids) {
        if (wanted == id) listeners.push_back(listener);
      }
    }
  }
  if (context) {
    if (Terminal(status)) {
      context->Cancel();  // cancelled, or ended by the service (its worker taken for dead)
    } else if (!state.responses_json().empty()) {
      context->Deliver(ParseTask(state.responses_json()));
    }
  }
  for (const auto& listener : listeners) listener->changed(task);
}

void TaskRunner::Reconcile() {
  std::vector<std::shared_ptr<TaskContext>> running;
  {
    absl::MutexLock lock(&mu_);
    // From here on every change is heard, in order; what came before is read from the service.
    cache_.clear();
    watching_ = true;
    for (const auto& [id, context] : running_) running.push_back(context);
  }
  for (const auto& context : running) {
    client_->Get(context->owner(), context->id(),
                 [this](absl::StatusOr<tasks_v1::TaskState> state) {
                   if (state.ok()) Apply(*state);
                 });
  }
}

void TaskRunner::Get(const std::string& owner, const std::string& id, JsonDone done) {
  {
    absl::MutexLock lock(&mu_);
    auto cached = cache_.find(id);
    if (cached != cache_.end() && absl::Now() >= cached->second.expires) {
      cache_.erase(cached);
      cached = cache_.end();
    }
    if (cached != cache_.end()) {
      // Another's task reads as none, in the service's words.
      if (cached->second.owner != owner) return done(absl::NotFoundError("no task " + id));
      json task = cached->second.task;
      task["resultType"] = "complete";
      return done(std::move(task));
    }
  }
  client_->Get(owner, id,
               [this, done = std::move(done)](absl::StatusOr<tasks_v1::TaskState> state) {
                 if (!state.ok()) return done(state.status());
                 Remember(*state);
                 json task = ParseTask(state->task_json());
                 task["resultType"] = "complete";
                 done(std::move(task));
               });
}

void TaskRunner::Update(const std::string& owner, const std::string& id, const json& responses,
                        JsonDone done) {
  client_->Update(
      owner, id, Dump(responses),
      [this, id, done = std::move(done)](absl::StatusOr<tasks_v1::UpdateTaskResponse> taken) {
        if (!taken.ok()) return done(taken.status());
        // Read after this acknowledgement, the task shows the answers taken.
        if (taken->has_task()) Remember(taken->task());
        std::shared_ptr<TaskContext> context;
        {
          absl::MutexLock lock(&mu_);
          if (auto it = running_.find(id); it != running_.end()) context = it->second;
        }
        // Running here: the answers need not wait for the watch.
        if (context) {
          const json answers = ParseTask(taken->taken_json());
          Post([context, answers] { context->Deliver(answers); });
        }
        done(json{{"resultType", "complete"}});
      });
}

void TaskRunner::Cancel(const std::string& owner, const std::string& id, JsonDone done) {
  client_->Cancel(owner, id,
                  [this, id, done = std::move(done)](absl::StatusOr<tasks_v1::TaskState> state) {
                    if (!state.ok()) return done(state.status());
                    Remember(*state);
                    std::shared_ptr<TaskContext> context;
                    {
                      absl::MutexLock lock(&mu_);
                      if (auto it = running_.find(id); it != running_.end()) context = it->second;
                    }
                    if (context) Post([context] { context->Cancel(); });
                    done(json{{"resultType", "complete"}});
                  });
}

std::shared_ptr<void> TaskRunner::Listen(const std::string& owner, std::vector<std::string> ids,
                                         std::function<void(const json&)> changed) {
  auto listener = std::make_shared<Listener>();
  listener->owner = owner;
  listener->ids = std::move(ids);
  listener->changed = std::move(changed);
  uint64_t key = 0;
  {
    absl::MutexLock lock(&mu_);
    for (const std::string& id : listener->ids) {
      if (auto it = heard_revisions_.find(id); it != heard_revisions_.end()) {
        listener->known_revisions[id] = it->second;
      }
    }
    key = next_listener_++;
    listeners_[key] = listener;
  }
  return std::shared_ptr<void>(new char(0), [this, key](void* token) {
    delete static_cast<char*>(token);
    absl::MutexLock lock(&mu_);
    listeners_.erase(key);
  });
}

}  // namespace labgate::gateway
