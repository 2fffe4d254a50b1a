// The tasks API over real gRPC on 127.0.0.1, with the callers labgate-session authenticates: a
// gateway by the gateway token, acting for the principal it names, and a named client by its
// token. Only labgate's own processes create, ask, finish, beat and watch; an owner reads,
// answers and cancels only its own tasks; malformed JSON is refused by field.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/caller_metadata.h"
#include "common/service_host.h"
#include "session-service/tasks/task_grpc_service.h"
#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

namespace pb = ::labgate::tasks::v1;
using nlohmann::json;
using testing::OpenStore;
using testing::TempDir;

constexpr char kGatewayToken[] = "gateway-secret-0123456789";

class TaskGrpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStore(dir_.path());
    ASSERT_NE(store_, nullptr);
    TaskDeskOptions desk_options;
    desk_options.run_timer = false;
    auto desk = TaskDesk::Open(store_.get(), desk_options);
    ASSERT_TRUE(desk.ok()) << desk.status();
    CallerAuthOptions auth;
    auth.gateway_token = kGatewayToken;
    auth.client_tokens = {{"alice", "token-of-alice"}};
    service_ = std::make_unique<TaskGrpcService>(*std::move(desk), auth);
    auto host = ServiceHost::Start("127.0.0.1:0", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    stub_ = pb::TaskService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(host_->port()), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    if (host_) host_->Shutdown(std::chrono::seconds(2));
    service_.reset();
    if (store_) store_->Shutdown();
  }

  static std::unique_ptr<grpc::ClientContext> As(const std::string& token,
                                                 const std::string& owner = "") {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
    if (!owner.empty()) context->AddMetadata(kOwnerMetadataKey, owner);
    return context;
  }

  // A task of `owner`, created by the gateway.
  pb::TaskState Create(const std::string& owner) {
    pb::CreateTaskRequest request;
    request.set_ttl_ms(600000);
    request.set_worker("gateway A");
    request.set_description("tools/call wait_for");
    pb::TaskState state;
    grpc::Status status = stub_->Create(As(kGatewayToken, owner).get(), request, &state);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return state;
  }
  static std::string IdOf(const pb::TaskState& state) {
    return json::parse(state.task_json()).value("taskId", "");
  }

  TempDir dir_;
  std::unique_ptr<SqliteSessionStore> store_;
  std::unique_ptr<TaskGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<pb::TaskService::Stub> stub_;
};

TEST_F(TaskGrpcTest, OnlyLabgateItselfCreatesAsksFinishesBeatsAndWatches) {
  pb::CreateTaskRequest create;
  pb::TaskState state;
  EXPECT_EQ(stub_->Create(As("token-of-alice").get(), create, &state).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  const std::string id = IdOf(Create("http:alice"));
  ASSERT_FALSE(id.empty());

  pb::AskForInputRequest ask;
  ask.set_id(id);
  ask.set_input_requests_json(R"({"confirm":{"method":"elicitation/create"}})");
  EXPECT_EQ(stub_->AskForInput(As("token-of-alice").get(), ask, &state).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  pb::FinishTaskRequest finish;
  finish.set_id(id);
  finish.set_result_json(R"({"content":[]})");
  EXPECT_EQ(stub_->Finish(As("token-of-alice").get(), finish, &state).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  pb::HeartbeatRequest beat;
  pb::HeartbeatResponse beaten;
  EXPECT_EQ(stub_->Heartbeat(As("token-of-alice").get(), beat, &beaten).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  auto watching = As("token-of-alice");
  auto reader = stub_->Watch(watching.get(), pb::WatchTasksRequest());
  pb::TaskState change;
  EXPECT_FALSE(reader->Read(&change));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::PERMISSION_DENIED);

  // The refused calls changed nothing; the gateway, as the worker, may finish the task.
  EXPECT_TRUE(stub_->Finish(As(kGatewayToken).get(), finish, &state).ok());
  EXPECT_EQ(json::parse(state.task_json())["status"], "completed");
  beat.set_worker("gateway A");
  EXPECT_TRUE(stub_->Heartbeat(As(kGatewayToken).get(), beat, &beaten).ok());
  EXPECT_EQ(beaten.tasks(), 0);
}

TEST_F(TaskGrpcTest, AnOwnerSeesOnlyItsOwnTasksAndAnotherTaskReadsAsNone) {
  const std::string id = IdOf(Create("alice"));
  pb::GetTaskRequest get;
  get.set_id(id);
  pb::TaskState state;
  // alice by her own token reads her task, without the worker's answers.
  ASSERT_TRUE(stub_->Get(As("token-of-alice").get(), get, &state).ok());
  EXPECT_EQ(state.owner(), "alice");
  EXPECT_EQ(state.responses_json(), "");
  // Another principal, through the gateway: the same error as an unknown id.
  grpc::Status theirs = stub_->Get(As(kGatewayToken, "http:bob").get(), get, &state);
  get.set_id("no-such-task");
  grpc::Status none = stub_->Get(As(kGatewayToken, "http:bob").get(), get, &state);
  EXPECT_EQ(theirs.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(none.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(theirs.error_message(), "no task " + id);
  pb::CancelTaskRequest cancel;
  cancel.set_id(id);
  EXPECT_EQ(stub_->Cancel(As(kGatewayToken, "http:bob").get(), cancel, &state).error_code(),
            grpc::StatusCode::NOT_FOUND);
  pb::ListTasksResponse listed;
  ASSERT_TRUE(stub_->List(As(kGatewayToken, "http:bob").get(), {}, &listed).ok());
  EXPECT_EQ(listed.tasks_size(), 0);
  ASSERT_TRUE(stub_->List(As(kGatewayToken).get(), {}, &listed).ok());
  EXPECT_EQ(listed.tasks_size(), 1) << "the gateway speaking for no one lists everyone's";
  EXPECT_TRUE(stub_->Cancel(As("token-of-alice").get(), cancel, &state).ok());
  EXPECT_EQ(json::parse(state.task_json())["status"], "cancelled");
}

TEST_F(TaskGrpcTest, MalformedJsonAndBadValuesAreRefusedByName) {
  const std::string id = IdOf(Create("http:alice"));
  pb::UpdateTaskRequest update;
  update.set_id(id);
  update.set_input_responses_json("[1,2");
  pb::UpdateTaskResponse updated;
  grpc::Status bad = stub_->Update(As(kGatewayToken, "http:alice").get(), update, &updated);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(bad.error_message().find("input_responses_json"), std::string::npos);

  pb::FinishTaskRequest finish;
  finish.set_id(id);
  finish.set_error_json(R"({"message":"no code"})");
  pb::TaskState state;
  bad = stub_->Finish(As(kGatewayToken).get(), finish, &state);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(bad.error_message().find("an integer code"), std::string::npos);
  pb::FinishTaskRequest neither;
  neither.set_id(id);
  EXPECT_EQ(stub_->Finish(As(kGatewayToken).get(), neither, &state).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  pb::CreateTaskRequest negative;
  negative.set_ttl_ms(-5);
  EXPECT_EQ(stub_->Create(As(kGatewayToken, "http:alice").get(), negative, &state).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  // After all of that the task is as it was, and the service keeps serving.
  pb::GetTaskRequest get;
  get.set_id(id);
  ASSERT_TRUE(stub_->Get(As(kGatewayToken, "http:alice").get(), get, &state).ok());
  EXPECT_EQ(json::parse(state.task_json())["status"], "working");
  EXPECT_EQ(state.revision(), 1);
}

TEST_F(TaskGrpcTest, OnlyTheWorkerReportsProgressAndWithinBounds) {
  const std::string id = IdOf(Create("http:alice"));
  pb::ReportTaskRequest report;
  report.set_id(id);
  report.set_status_message("waiting: 2nd in the queue for bench-3");
  pb::TaskState state;
  EXPECT_EQ(stub_->Report(As("token-of-alice").get(), report, &state).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(stub_->Report(As(kGatewayToken).get(), report, &state).ok());
  EXPECT_EQ(json::parse(state.task_json())["statusMessage"],
            "waiting: 2nd in the queue for bench-3");
  EXPECT_EQ(state.revision(), 2);

  pb::ReportTaskRequest too_long = report;
  too_long.set_status_message(std::string(513, 'x'));
  grpc::Status refused = stub_->Report(As(kGatewayToken).get(), too_long, &state);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(refused.error_message(), "status_message is 513 bytes; at most 512");

  // Its owner reads the message; the refused reports changed nothing.
  pb::GetTaskRequest get;
  get.set_id(id);
  ASSERT_TRUE(stub_->Get(As(kGatewayToken, "http:alice").get(), get, &state).ok());
  EXPECT_EQ(json::parse(state.task_json())["statusMessage"],
            "waiting: 2nd in the queue for bench-3");
  EXPECT_EQ(state.revision(), 2);

  // The same message again is answered without a change; a finished task reports nothing more.
  ASSERT_TRUE(stub_->Report(As(kGatewayToken).get(), report, &state).ok());
  EXPECT_EQ(state.revision(), 2);
  pb::FinishTaskRequest finish;
  finish.set_id(id);
  finish.set_result_json(R"({"content":[]})");
  ASSERT_TRUE(stub_->Finish(As(kGatewayToken).get(), finish, &state).ok());
  grpc::Status late = stub_->Report(As(kGatewayToken).get(), report, &state);
  EXPECT_EQ(late.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(late.error_message(), "task " + id + " is completed: it reports nothing more");
}

}  // namespace
}  // namespace labgate::session
