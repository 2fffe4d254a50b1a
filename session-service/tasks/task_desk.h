// The task service's state (issue 34): the book of tasks and the session store that keeps it
// through restarts. Thread-safe: the RPCs, the workers' heartbeats and the timer all come
// through here.
//
// Every change is stored before it is answered, so a task a client was told of is there for any
// gateway replica, and after a restart; listeners hear of changes in the order they were stored.
// A worker (the process doing a task's work) that is not heard from for worker_silent_after has
// its unfinished tasks failed, with a message that says so: a task is never stuck in working.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "session-service/store/session_store.h"
#include "session-service/tasks/task_book.h"

namespace labgate::session {

struct TaskDeskOptions {
  // Now; the system clock when null (tests pass their own).
  std::function<TaskTime()> clock;
  // Fails silent workers' tasks and forgets expired ones on time. Tests turn it off and call
  // Advance.
  bool run_timer = true;
  // Workers report every 2 s; one silent this long is taken for dead.
  std::chrono::milliseconds worker_silent_after{10000};
};

struct NewTask {
  std::string owner;
  std::optional<std::chrono::milliseconds> ttl;
  std::optional<std::chrono::milliseconds> poll_interval;
  std::string worker;
  std::string description;
};

class TaskDesk {
 public:
  // Restores the live tasks `store` kept. Their workers count as heard from now, so a worker
  // that outlived labgate-session's restart keeps its tasks by reporting again.
  static absl::StatusOr<std::unique_ptr<TaskDesk>> Open(SessionStore* store,
                                                        TaskDeskOptions options);
  ~TaskDesk();
  TaskDesk(const TaskDesk&) = delete;
  TaskDesk& operator=(const TaskDesk&) = delete;

  using Done = std::function<void(absl::StatusOr<Task>)>;
  // A working task with a new id (122 random bits: a bearer handle).
  void Create(NewTask request, Done done) ABSL_LOCKS_EXCLUDED(mu_);
  // The owner's task (NOT_FOUND for another's, as for none).
  absl::StatusOr<Task> Get(const std::string& id, const std::string& owner) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // The task whoever owns it: for its worker.
  absl::StatusOr<Task> Find(const std::string& id) const ABSL_LOCKS_EXCLUDED(mu_);
  // The owner's answers: `done` gets those taken (outstanding keys only) and the task after.
  struct Answered {
    nlohmann::json taken;
    Task task;
  };
  void Answer(const std::string& id, const std::string& owner, const nlohmann::json& responses,
              std::function<void(absl::StatusOr<Answered>)> done) ABSL_LOCKS_EXCLUDED(mu_);
  void Cancel(const std::string& id, const std::string& owner, Done done) ABSL_LOCKS_EXCLUDED(mu_);

  // The worker's side.
  void AskForInput(const std::string& id, const nlohmann::json& requests, Done done)
      ABSL_LOCKS_EXCLUDED(mu_);
  // A message that changes nothing is answered without storing anything.
  void Report(const std::string& id, const std::string& status_message, Done done)
      ABSL_LOCKS_EXCLUDED(mu_);
  void Complete(const std::string& id, nlohmann::json result, Done done) ABSL_LOCKS_EXCLUDED(mu_);
  void Fail(const std::string& id, nlohmann::json error, const std::string& why, Done done)
      ABSL_LOCKS_EXCLUDED(mu_);
  // `worker` is alive; returns how many unfinished tasks it has.
  int Heartbeat(const std::string& worker) ABSL_LOCKS_EXCLUDED(mu_);

  // Live tasks, newest first; only `owner`'s unless it is empty.
  std::vector<Task> List(const std::string& owner, size_t limit) const ABSL_LOCKS_EXCLUDED(mu_);

  // Fails the tasks of silent workers and forgets expired tasks, at the clock's now.
  void Advance() ABSL_LOCKS_EXCLUDED(mu_);

  // `listener` gets each stored change, in order, under the desk's watch lock: it must be quick
  // and not call the desk.
  using Listener = std::function<void(const Task& changed)>;
  uint64_t Watch(Listener listener) ABSL_LOCKS_EXCLUDED(watch_mu_);
  void Unwatch(uint64_t id) ABSL_LOCKS_EXCLUDED(watch_mu_);

  size_t size() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  TaskDesk(SessionStore* store, TaskDeskOptions options);
  struct SaveJob {
    std::vector<Task> changed;
    std::function<void(absl::Status)> then;
  };
  // Queues `changed` to be stored in order; then listeners hear of it and `then` is answered.
  void StoreLocked(std::vector<Task> changed, std::function<void(absl::Status)> then)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Stores one changed task (or answers the refusal), then answers `done` with it.
  void StoreOneLocked(absl::StatusOr<Task> changed, Done done) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Save(SaveJob job) ABSL_LOCKS_EXCLUDED(mu_);
  void Publish(const std::vector<Task>& changed) ABSL_LOCKS_EXCLUDED(watch_mu_);
  void AdvanceLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hands the saves to the store in order, and runs Advance every second.
  void Run() ABSL_LOCKS_EXCLUDED(mu_);

  SessionStore* const store_;
  const TaskDeskOptions options_;
  mutable absl::Mutex mu_;
  absl::CondVar wake_;
  TaskBook book_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, TaskTime> heard_from_ ABSL_GUARDED_BY(mu_);  // by worker
  absl::Mutex watch_mu_ ABSL_ACQUIRED_AFTER(mu_);
  std::map<uint64_t, Listener> listeners_ ABSL_GUARDED_BY(watch_mu_);
  uint64_t next_listener_ ABSL_GUARDED_BY(watch_mu_) = 1;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int64_t saving_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<SaveJob> to_save_ ABSL_GUARDED_BY(mu_);
  std::thread worker_;
};

}  // namespace labgate::session
