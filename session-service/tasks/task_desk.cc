#include "session-service/tasks/task_desk.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "common/time_format.h"
#include "session-service/store/uuid.h"
#include "session-service/tasks/task_json.h"

namespace labgate::session {
namespace {

using nlohmann::json;

// The timer looks at silent workers and expired tasks this often.
constexpr absl::Duration kTick = absl::Seconds(1);
// Expired rows are deleted from the store at most this often (memory is purged every tick).
constexpr std::chrono::seconds kStorePurgeEvery{60};

}  // namespace

absl::StatusOr<std::unique_ptr<TaskDesk>> TaskDesk::Open(SessionStore* store,
                                                         TaskDeskOptions options) {
  if (!options.clock) options.clock = [] { return std::chrono::system_clock::now(); };
  const TaskTime now = options.clock();
  absl::Notification loaded;
  absl::StatusOr<std::vector<TaskRow>> rows;
  store->LoadLiveTasks(FormatRfc3339(now), [&](absl::StatusOr<std::vector<TaskRow>> got) {
    rows = std::move(got);
    loaded.Notify();
  });
  loaded.WaitForNotification();
  if (!rows.ok()) return rows.status();
  std::unique_ptr<TaskDesk> desk(new TaskDesk(store, std::move(options)));
  absl::MutexLock lock(&desk->mu_);
  for (const TaskRow& row : *rows) {
    absl::StatusOr<Task> task = TaskFromStoredJson(row.body);
    if (!task.ok()) {
      return absl::DataLossError(
          absl::StrCat("stored task ", row.id, " cannot be read: ", task.status().message()));
    }
    if (!IsTerminal(task->status)) desk->heard_from_[task->worker] = now;
    desk->book_.Restore(*std::move(task));
  }
  desk->worker_ = std::thread([raw = desk.get()] { raw->Run(); });
  return desk;
}

TaskDesk::TaskDesk(SessionStore* store, TaskDeskOptions options)
    : store_(store), options_(std::move(options)) {}

TaskDesk::~TaskDesk() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  wake_.SignalAll();
  if (worker_.joinable()) worker_.join();
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](int64_t* saving) { return *saving == 0; }, &saving_));
}

void TaskDesk::StoreLocked(std::vector<Task> changed, std::function<void(absl::Status)> then) {
  if (changed.empty()) return then(absl::OkStatus());
  to_save_.push_back({std::move(changed), std::move(then)});
  ++saving_;
  wake_.SignalAll();
}

void TaskDesk::StoreOneLocked(absl::StatusOr<Task> changed, Done done) {
  if (!changed.ok()) return done(changed.status());
  Task task = *changed;
  StoreLocked({*std::move(changed)},
              [done = std::move(done), task = std::move(task)](const absl::Status& stored) mutable {
                if (!stored.ok()) return done(stored);
                done(std::move(task));
              });
}

void TaskDesk::Save(SaveJob job) {
  std::vector<TaskRow> rows;
  rows.reserve(job.changed.size());
  for (const Task& task : job.changed) rows.push_back(TaskToRow(task));
  store_->SaveTasks(std::move(rows),
                    [this, changed = std::move(job.changed),
                     then = std::move(job.then)](const absl::StatusOr<int64_t>& saved) {
                      if (saved.ok()) {
                        Publish(changed);
                      } else {
                        LG_LOG(kError) << "tasks not stored: " << saved.status().message();
                      }
                      then(saved.ok() ? absl::OkStatus() : saved.status());
                      absl::MutexLock lock(&mu_);
                      --saving_;  // last: the destructor may go on once this is 0
                    });
}

void TaskDesk::Publish(const std::vector<Task>& changed) {
  absl::MutexLock lock(&watch_mu_);
  for (const Task& task : changed) {
    for (const auto& [id, listener] : listeners_) listener(task);
  }
}

void TaskDesk::Create(NewTask request, Done done) {
  absl::MutexLock lock(&mu_);
  const TaskTime now = options_.clock();
  heard_from_[request.worker] = now;
  Task task =
      book_.Create(NewUuidV4(), std::move(request.owner), request.ttl, request.poll_interval, now,
                   std::move(request.worker), std::move(request.description));
  StoreOneLocked(std::move(task), std::move(done));
}

absl::StatusOr<Task> TaskDesk::Get(const std::string& id, const std::string& owner) const {
  absl::MutexLock lock(&mu_);
  return book_.Get(id, owner, options_.clock());
}

absl::StatusOr<Task> TaskDesk::Find(const std::string& id) const {
  absl::MutexLock lock(&mu_);
  return book_.Find(id, options_.clock());
}

void TaskDesk::Answer(const std::string& id, const std::string& owner, const json& responses,
                      std::function<void(absl::StatusOr<Answered>)> done) {
  absl::MutexLock lock(&mu_);
  const TaskTime now = options_.clock();
  absl::StatusOr<json> taken = book_.Answer(id, owner, responses, now);
  if (!taken.ok()) return done(taken.status());
  absl::StatusOr<Task> task = book_.Find(id, now);
  if (!task.ok()) return done(task.status());
  Answered answered{*std::move(taken), *task};
  if (answered.taken.empty()) return done(std::move(answered));  // nothing changed
  // The answered keys are gone from the stored task before the answer is acknowledged.
  StoreLocked({*std::move(task)},
              [done = std::move(done), answered = std::move(answered)](const absl::Status& stored) {
                if (!stored.ok()) return done(stored);
                done(answered);
              });
}

void TaskDesk::Cancel(const std::string& id, const std::string& owner, Done done) {
  absl::MutexLock lock(&mu_);
  const TaskTime now = options_.clock();
  absl::StatusOr<Task> before = book_.Get(id, owner, now);
  if (!before.ok()) return done(before.status());
  if (IsTerminal(before->status)) return done(std::move(before));  // nothing to store
  StoreOneLocked(book_.Cancel(id, owner, now), std::move(done));
}

void TaskDesk::AskForInput(const std::string& id, const json& requests, Done done) {
  absl::MutexLock lock(&mu_);
  StoreOneLocked(book_.AskForInput(id, requests, options_.clock()), std::move(done));
}

void TaskDesk::Report(const std::string& id, const std::string& status_message, Done done) {
  absl::StatusOr<Task> unchanged;
  {
    absl::MutexLock lock(&mu_);
    bool changed = false;
    absl::StatusOr<Task> reported = book_.Report(id, status_message, options_.clock(), &changed);
    if (!reported.ok() || changed) return StoreOneLocked(std::move(reported), std::move(done));
    unchanged = *std::move(reported);
  }
  done(*std::move(unchanged));  // nothing to store
}

void TaskDesk::Complete(const std::string& id, json result, Done done) {
  absl::MutexLock lock(&mu_);
  StoreOneLocked(book_.Complete(id, std::move(result), options_.clock()), std::move(done));
}

void TaskDesk::Fail(const std::string& id, json error, const std::string& why, Done done) {
  absl::MutexLock lock(&mu_);
  StoreOneLocked(book_.Fail(id, std::move(error), why, options_.clock()), std::move(done));
}

int TaskDesk::Heartbeat(const std::string& worker) {
  absl::MutexLock lock(&mu_);
  const TaskTime now = options_.clock();
  heard_from_[worker] = now;
  return book_.CountUnfinishedOf(worker, now);
}

std::vector<Task> TaskDesk::List(const std::string& owner, size_t limit) const {
  absl::MutexLock lock(&mu_);
  return book_.List(owner, limit, options_.clock());
}

size_t TaskDesk::size() const {
  absl::MutexLock lock(&mu_);
  return book_.size();
}

void TaskDesk::Advance() {
  absl::MutexLock lock(&mu_);
  AdvanceLocked();
}

void TaskDesk::AdvanceLocked() {
  const TaskTime now = options_.clock();
  std::vector<Task> failed;
  for (const std::string& worker : book_.BusyWorkers(now)) {
    auto heard = heard_from_.find(worker);
    const TaskTime last = heard == heard_from_.end() ? TaskTime() : heard->second;
    if (now - last <= options_.worker_silent_after) continue;
    const std::string why =
        absl::StrCat("the worker running this task (", worker.empty() ? "unnamed" : worker,
                     ") stopped reporting at ", FormatRfc3339(last),
                     "; what its work did after that is unknown");
    LG_LOG(kWarning) << "tasks: " << why;
    for (Task& task : book_.FailUnfinishedOf(worker, why, now)) failed.push_back(std::move(task));
  }
  book_.Purge(now);
  for (auto it = heard_from_.begin(); it != heard_from_.end();) {
    it = now - it->second > options_.worker_silent_after * 6 ? heard_from_.erase(it) : ++it;
  }
  StoreLocked(std::move(failed), [](const absl::Status&) {});
}

uint64_t TaskDesk::Watch(Listener listener) {
  absl::MutexLock lock(&watch_mu_);
  const uint64_t id = next_listener_++;
  listeners_[id] = std::move(listener);
  return id;
}

void TaskDesk::Unwatch(uint64_t id) {
  absl::MutexLock lock(&watch_mu_);
  listeners_.erase(id);
}

void TaskDesk::Run() {
  TaskTime advanced_at = options_.clock();
  TaskTime store_purged_at = advanced_at;
  while (true) {
    std::optional<SaveJob> job;
    bool purge_store = false;
    {
      absl::MutexLock lock(&mu_);
      if (to_save_.empty() && !stop_) wake_.WaitWithTimeout(&mu_, kTick);
      const TaskTime now = options_.clock();
      if (options_.run_timer && now - advanced_at >= absl::ToChronoMilliseconds(kTick)) {
        advanced_at = now;
        AdvanceLocked();
        purge_store = now - store_purged_at > kStorePurgeEvery;
        if (purge_store) store_purged_at = now;
      }
      if (!to_save_.empty()) {
        job = std::move(to_save_.front());
        to_save_.pop_front();
      } else if (stop_) {
        return;  // stopped, and everything is handed to the store
      }
    }
    if (purge_store) {
      store_->DeleteExpiredTasks(FormatRfc3339(store_purged_at),
                                 [](const absl::StatusOr<int64_t>&) {});
    }
    // Outside the lock: the store may answer at once, on this thread.
    if (job) Save(*std::move(job));
  }
}

}  // namespace labgate::session
