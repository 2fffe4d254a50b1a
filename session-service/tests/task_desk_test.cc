// The task service's state over a real SQLite store: every change stored before it is
// answered and heard by listeners in order, answers kept for the worker, a restart that keeps
// the live tasks, and a worker that falls silent failing its unfinished tasks.
#include "session-service/tasks/task_desk.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "common/time_format.h"
#include "session-service/tasks/task_json.h"
#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::Await;
using testing::OpenStore;
using testing::TempDir;

NewTask Owned(const std::string& owner, const std::string& worker = "gateway A") {
  NewTask task;
  task.owner = owner;
  task.ttl = milliseconds(600000);
  task.poll_interval = milliseconds(500);
  task.worker = worker;
  task.description = "tools/call wait_for";
  return task;
}

class TaskDeskTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(); }
  void TearDown() override {
    desk_.reset();
    if (store_) store_->Shutdown();
  }
  void Start() {
    store_ = OpenStore(dir_.path());
    ASSERT_NE(store_, nullptr);
    TaskDeskOptions options;
    options.run_timer = false;
    options.clock = [this] { return now_.load(); };
    options.worker_silent_after = seconds(10);
    absl::StatusOr<std::unique_ptr<TaskDesk>> desk = TaskDesk::Open(store_.get(), options);
    ASSERT_TRUE(desk.ok()) << desk.status();
    desk_ = std::move(*desk);
  }
  void Restart() {
    desk_.reset();
    store_->Shutdown();
    store_.reset();
    Start();
  }
  absl::StatusOr<Task> Create(NewTask task) {
    return Await<Task>([&](auto done) { desk_->Create(std::move(task), std::move(done)); });
  }
  absl::StatusOr<Task> Stored(const std::string& id) {
    absl::StatusOr<TaskRow> row = Await<TaskRow>(
        [&](auto done) { store_->GetTask(id, FormatRfc3339(now_.load()), std::move(done)); });
    if (!row.ok()) return row.status();
    return TaskFromStoredJson(row->body);
  }

  TempDir dir_;
  std::atomic<TaskTime> now_{TaskTime() + std::chrono::hours(500000)};
  std::unique_ptr<SqliteSessionStore> store_;
  std::unique_ptr<TaskDesk> desk_;
};

TEST_F(TaskDeskTest, EveryChangeIsStoredBeforeItIsAnsweredAndHeardInOrder) {
  std::vector<std::string> heard;
  desk_->Watch([&heard](const Task& task) {
    heard.push_back(std::string(TaskStatusName(task.status)) + " " + task.input_requests.dump());
  });
  absl::StatusOr<Task> task = Create(Owned("http:alice"));
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->id.size(), 36u) << "a UUID: 122 random bits";
  ASSERT_TRUE(Stored(task->id).ok()) << "stored before it was answered";

  const json ask = {{"confirm", {{"method", "elicitation/create"}, {"params", json::object()}}}};
  ASSERT_TRUE(Await<Task>([&](auto done) { desk_->AskForInput(task->id, ask, done); }).ok());
  EXPECT_EQ(Stored(task->id)->status, TaskStatus::kInputRequired);

  // Another principal answers nothing and learns nothing.
  absl::StatusOr<TaskDesk::Answered> stranger = Await<TaskDesk::Answered>([&](auto done) {
    desk_->Answer(task->id, "http:mallory", {{"confirm", true}}, done);
  });
  EXPECT_EQ(stranger.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(desk_->Get(task->id, "http:mallory").status().code(), absl::StatusCode::kNotFound);

  absl::StatusOr<TaskDesk::Answered> taken = Await<TaskDesk::Answered>([&](auto done) {
    desk_->Answer(task->id, "http:alice", {{"confirm", {{"action", "accept"}}}, {"other", 1}},
                  done);
  });
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->taken, json({{"confirm", {{"action", "accept"}}}}))
      << "the unknown key is ignored";
  EXPECT_EQ(taken->task.status, TaskStatus::kWorking);
  EXPECT_EQ(taken->task.revision, 3) << "created, asked, answered";
  absl::StatusOr<Task> answered = Stored(task->id);
  ASSERT_TRUE(answered.ok());
  EXPECT_EQ(answered->status, TaskStatus::kWorking) << "stored before the answer was acknowledged";
  EXPECT_EQ(answered->responses, json({{"confirm", {{"action", "accept"}}}}))
      << "kept for the worker";

  ASSERT_TRUE(Await<Task>([&](auto done) {
                desk_->Complete(task->id, {{"content", json::array()}}, done);
              }).ok());
  EXPECT_EQ(heard, (std::vector<std::string>{"working {}", "input_required " + ask.dump(),
                                             "working {}", "completed {}"}));
}

TEST_F(TaskDeskTest, ACancelEndsTheTaskOnceAndIsAcknowledgedAfterItsEnd) {
  absl::StatusOr<Task> task = Create(Owned("http:alice"));
  ASSERT_TRUE(task.ok());
  absl::StatusOr<Task> cancelled =
      Await<Task>([&](auto done) { desk_->Cancel(task->id, "http:alice", done); });
  ASSERT_TRUE(cancelled.ok());
  EXPECT_EQ(cancelled->status, TaskStatus::kCancelled);
  absl::StatusOr<Task> finished = Await<Task>([&](auto done) {
    desk_->Complete(task->id, {{"content", json::array()}}, done);
  });
  ASSERT_TRUE(finished.ok());
  EXPECT_EQ(finished->status, TaskStatus::kCancelled) << "a finished task stays as it was";
  EXPECT_TRUE(Await<Task>([&](auto done) { desk_->Cancel(task->id, "http:alice", done); }).ok());
  EXPECT_EQ(Stored(task->id)->status, TaskStatus::kCancelled);
}

TEST_F(TaskDeskTest, ARestartKeepsLiveTasksAndTheirWorkersGetAGracePeriod) {
  absl::StatusOr<Task> running = Create(Owned("http:alice", "gateway A"));
  absl::StatusOr<Task> done = Create(Owned("http:bob", "gateway A"));
  ASSERT_TRUE(running.ok() && done.ok());
  ASSERT_TRUE(Await<Task>([&](auto then) {
                desk_->Fail(done->id, {{"code", -32603}, {"message", "broke"}}, "broke", then);
              }).ok());
  now_ = now_.load() + seconds(30);  // longer than a worker may be silent, while the desk is down
  Restart();
  absl::StatusOr<Task> kept = desk_->Get(running->id, "http:alice");
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->status, TaskStatus::kWorking);
  EXPECT_EQ(kept->worker, "gateway A");
  EXPECT_EQ(desk_->Get(done->id, "http:bob")->status, TaskStatus::kFailed);
  desk_->Advance();
  EXPECT_EQ(desk_->Get(running->id, "http:alice")->status, TaskStatus::kWorking)
      << "its worker is heard from again now, not failed for the restart's gap";
}

TEST_F(TaskDeskTest, ASilentWorkerHasItsUnfinishedTasksFailedWithAMessageThatSaysSo) {
  absl::StatusOr<Task> a = Create(Owned("http:alice", "gateway A"));
  absl::StatusOr<Task> b = Create(Owned("http:alice", "gateway B"));
  ASSERT_TRUE(a.ok() && b.ok());
  now_ = now_.load() + seconds(8);
  EXPECT_EQ(desk_->Heartbeat("gateway B"), 1);
  now_ = now_.load() + seconds(8);  // A silent for 16 s, B for 8 s
  desk_->Advance();
  absl::StatusOr<Task> failed = desk_->Get(a->id, "http:alice");
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->status, TaskStatus::kFailed);
  EXPECT_NE(failed->status_message.find("(gateway A) stopped reporting"), std::string::npos)
      << failed->status_message;
  ASSERT_TRUE(failed->error.has_value());
  EXPECT_EQ((*failed->error)["code"], -32603);
  EXPECT_EQ(desk_->Get(b->id, "http:alice")->status, TaskStatus::kWorking);
  // Changes are stored in order: once a later one is answered, the failure is stored too.
  ASSERT_TRUE(Create(Owned("http:carol")).ok());
  EXPECT_EQ(Stored(a->id)->status, TaskStatus::kFailed);
}

TEST_F(TaskDeskTest, ExpiredTasksAreForgottenAndListsShowTheOwnersNewestFirst) {
  NewTask short_lived = Owned("http:alice");
  short_lived.ttl = milliseconds(1000);
  absl::StatusOr<Task> first = Create(short_lived);
  now_ = now_.load() + milliseconds(10);
  absl::StatusOr<Task> second = Create(Owned("http:alice"));
  absl::StatusOr<Task> bobs = Create(Owned("http:bob"));
  ASSERT_TRUE(first.ok() && second.ok() && bobs.ok());
  std::vector<Task> alices = desk_->List("http:alice", 10);
  ASSERT_EQ(alices.size(), 2u);
  EXPECT_EQ(alices[0].id, second->id);
  EXPECT_EQ(desk_->List("", 10).size(), 3u);
  now_ = now_.load() + seconds(2);
  EXPECT_EQ(desk_->Get(first->id, "http:alice").status().code(), absl::StatusCode::kNotFound);
  desk_->Advance();
  EXPECT_EQ(desk_->size(), 2u);
}

}  // namespace
}  // namespace labgate::session
