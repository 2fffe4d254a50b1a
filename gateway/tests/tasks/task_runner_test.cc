// TaskRunner, the gateway's side of long calls as tasks, against labgate-session's task service
// over real gRPC on 127.0.0.1: the work runs and its result finishes the task; its progress
// becomes the task's statusMessage while it works; and a finish the service could not take (it
// was down) is sent again with the heartbeats until a restarted service takes it.
#include "gateway/tasks/task_runner.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "common/service_host.h"
#include "gateway/principals/principal.h"
#include "gateway/tests/eventually.h"
#include "gateway/tests/request_context.h"
#include "session-service/tasks/task_grpc_service.h"
#include "session-service/tests/store_test_util.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;
using session::testing::OpenStore;
using session::testing::TempDir;
using testing::Eventually;
using testing::RecordingRequest;

constexpr char kOwner[] = "http:alice";

class TaskRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStore(dir_.path());
    ASSERT_NE(store_, nullptr);
    ASSERT_NO_FATAL_FAILURE(StartService("127.0.0.1:0"));
    port_ = host_->port();
    grpc::ChannelArguments args;
    // A restarted service is found again at once rather than after gRPC's default backoff.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 50);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 100);
    channels_.Set(tasks_v1::TaskService::service_full_name(),
                  grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port_),
                                            grpc::InsecureChannelCredentials(), args));
    client_ = std::make_unique<TaskClient>(&channels_, std::chrono::seconds(2));
    TaskRunnerOptions options;
    options.heartbeat_every = std::chrono::milliseconds(100);
    options.worker = "gateway under test";
    runner_ = std::make_unique<TaskRunner>(client_.get(), options);
  }
  void TearDown() override {
    if (runner_) runner_->Stop(std::chrono::seconds(2));
    StopService();
    if (store_) store_->Shutdown();
  }

  // labgate-session's task service on `address`, restoring what the store kept.
  void StartService(const std::string& address) {
    session::TaskDeskOptions desk_options;
    desk_options.run_timer = false;
    auto desk = session::TaskDesk::Open(store_.get(), desk_options);
    ASSERT_TRUE(desk.ok()) << desk.status();
    CallerAuthOptions auth;
    auth.trust_every_caller = true;
    service_ = std::make_unique<session::TaskGrpcService>(*std::move(desk), auth);
    auto host = ServiceHost::Start(address, {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
  }
  void StopService() {
    if (service_) service_->FinishWatchStreams();
    if (host_) host_->Shutdown(std::chrono::seconds(2));
    host_.reset();
    service_.reset();
  }

  // Starts a task whose work waits for `release`, then reports `progress` and finishes.
  std::string StartTask(absl::Notification* started, absl::Notification* release,
                        const std::string& progress = "",
                        const std::shared_ptr<RecordingRequest>& asker = nullptr) {
    absl::Notification created;
    std::string id;
    runner_->Start(
        asker != nullptr ? asker : std::make_shared<RecordingRequest>(kOwner),
        "tools/call wait_for",
        [started, release, progress](const std::shared_ptr<RequestContext>& context,
                                     const ToolDone& done) {
          context->Progress(0, 1, "calling wait_for");
          started->Notify();
          release->WaitForNotification();
          if (!progress.empty()) context->Progress(1, std::nullopt, progress);
          context->Progress(1, 1, "done");
          done(ToolResult(json{{"content", json::array({{{"type", "text"}, {"text", "matched"}}})},
                               {"isError", false}}));
        },
        [&](absl::StatusOr<json> task) {
          EXPECT_TRUE(task.ok()) << task.status();
          if (task.ok()) {
            EXPECT_EQ((*task)["resultType"], "task");
            EXPECT_EQ((*task)["status"], "working");
            id = task->value("taskId", "");
          }
          created.Notify();
        });
    EXPECT_TRUE(created.WaitForNotificationWithTimeout(absl::Seconds(10)));
    return id;
  }
  json Stored(const std::string& id) {
    absl::StatusOr<session::Task> task = service_->desk().Get(id, kOwner);
    return task.ok() ? session::TaskToJson(*task) : json();
  }

  TempDir dir_;
  std::unique_ptr<session::SqliteSessionStore> store_;
  std::unique_ptr<session::TaskGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  int port_ = 0;
  BackendChannels channels_;
  std::unique_ptr<TaskClient> client_;
  std::unique_ptr<TaskRunner> runner_;
};

TEST_F(TaskRunnerTest, TheWorkFinishesItsTaskAndItsProgressIsTheStatusMessageMeanwhile) {
  absl::Notification started, release;
  const std::string id = StartTask(&started, &release, "waiting: 1st in the queue for bench-3");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(Eventually([&] {
    return Stored(id).value("statusMessage", "") == "calling wait_for";
  })) << Stored(id);
  EXPECT_EQ(runner_->running(), 1u);

  release.Notify();
  // Held back (a second after the first), then sent with a heartbeat, unless the finish is first.
  ASSERT_TRUE(Eventually([&] { return Stored(id).value("status", "") == "completed"; }))
      << Stored(id);
  const json task = Stored(id);
  EXPECT_EQ(task["result"]["content"][0]["text"], "matched");
  EXPECT_EQ(task["result"]["resultType"], "complete");
  EXPECT_FALSE(task.contains("statusMessage")) << "the last step's \"done\" is left to the result";
  EXPECT_TRUE(Eventually([&] { return runner_->running() == 0; }));
}

// An HTTP principal whose only activity is a task is not idle: its ports are not released
// under the task's work.
TEST_F(TaskRunnerTest, ATasksWorkKeepsItsPrincipalBusyUntilItEnds) {
  auto principal = std::make_shared<Principal>("dave", "http:dave", "http");
  auto asker = std::make_shared<RecordingRequest>(kOwner);
  asker->SetKeepBusy([principal] { return principal->Busy(); });
  absl::Notification started, release;
  const std::string id = StartTask(&started, &release, "", asker);
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(principal->busy()) << "the request that made the task has been answered";
  release.Notify();
  EXPECT_TRUE(Eventually([&] { return !principal->busy(); }));
  EXPECT_TRUE(Eventually([&] { return Stored(id).value("status", "") == "completed"; }));
}

TEST_F(TaskRunnerTest, ALaterProgressMessageReachesTheTaskWithTheHeartbeat) {
  absl::Notification started, release;
  absl::Notification created;
  std::string id;
  absl::Notification reported;
  runner_->Start(
      std::make_shared<RecordingRequest>(kOwner), "tools/call reserve",
      [&](const std::shared_ptr<RequestContext>& context, const ToolDone& done) {
        context->Progress(0, 1, "calling reserve");
        context->Progress(2, std::nullopt, "waiting: 2nd in the queue for bench-3");
        started.Notify();
        release.WaitForNotification();
        done(ToolResult(json{{"content", json::array()}}));
      },
      [&](absl::StatusOr<json> task) {
        if (task.ok()) id = task->value("taskId", "");
        created.Notify();
      });
  ASSERT_TRUE(created.WaitForNotificationWithTimeout(absl::Seconds(10)));
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  // The second message came within a second of the first: it is sent later, not dropped.
  EXPECT_TRUE(Eventually([&] {
    return Stored(id).value("statusMessage", "") == "waiting: 2nd in the queue for bench-3";
  })) << Stored(id);
  EXPECT_EQ(Stored(id)["status"], "working");
  release.Notify();
  EXPECT_TRUE(Eventually([&] { return Stored(id).value("status", "") == "completed"; }));
}

TEST_F(TaskRunnerTest, AFinishRefusedWhileTheServiceIsDownIsSentAgainUntilItIsTaken) {
  absl::Notification started, release;
  const std::string id = StartTask(&started, &release);
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));

  // labgate-session goes away while the work runs; the work ends meanwhile.
  StopService();
  release.Notify();
  EXPECT_TRUE(Eventually([&] { return runner_->running() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a few refused finishes
  EXPECT_EQ(runner_->running(), 1u) << "the outcome is kept while the service cannot take it";

  // Restarted on the same port from the same file, it takes the finish with a heartbeat.
  ASSERT_NO_FATAL_FAILURE(StartService("127.0.0.1:" + std::to_string(port_)));
  ASSERT_TRUE(Eventually([&] { return Stored(id).value("status", "") == "completed"; }))
      << Stored(id);
  EXPECT_EQ(Stored(id)["result"]["content"][0]["text"], "matched");
  EXPECT_TRUE(Eventually([&] { return runner_->running() == 0; }));
}

// A listener hears changes it does not know yet. The watch, resumed after labgate-session came
// back, brings each running task's state once more; a listener that came after this gateway
// had heard that state is not told it again (a client that listens right after creating a task
// would otherwise hear "working" after it had read "working").
TEST_F(TaskRunnerTest, AListenerIsNotToldAStateThisGatewayHadHeardBeforeItCame) {
  absl::Notification started, release;
  const std::string id = StartTask(&started, &release);
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  // The work's first progress is the task's state from here on, and this gateway has heard it.
  ASSERT_TRUE(Eventually([&] {
    absl::Notification got;
    std::string message;
    runner_->Get(kOwner, id, [&](absl::StatusOr<json> task) {
      if (task.ok()) message = task->value("statusMessage", "");
      got.Notify();
    });
    got.WaitForNotificationWithTimeout(absl::Seconds(5));
    return message == "calling wait_for";
  }));

  std::mutex mutex;
  std::vector<json> heard;
  std::shared_ptr<void> listening = runner_->Listen(kOwner, {id}, [&](const json& task) {
    const std::lock_guard<std::mutex> lock(mutex);
    heard.push_back(task);
  });
  StopService();
  ASSERT_NO_FATAL_FAILURE(StartService("127.0.0.1:" + std::to_string(port_)));
  // The resumed watch and its reconciling read come within a few reconnect backoffs (100 ms).
  std::this_thread::sleep_for(std::chrono::seconds(1));
  {
    const std::lock_guard<std::mutex> lock(mutex);
    EXPECT_TRUE(heard.empty()) << json(heard);
  }

  release.Notify();
  EXPECT_TRUE(Eventually([&] {
    const std::lock_guard<std::mutex> lock(mutex);
    return !heard.empty() && heard.back().value("status", "") == "completed";
  }));
  const std::lock_guard<std::mutex> lock(mutex);
  for (const json& task : heard) EXPECT_EQ(task.value("taskId", ""), id);
}

}  // namespace
}  // namespace labgate::gateway
