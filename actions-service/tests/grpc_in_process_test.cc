// The service as the gateway embeds it: CreateActionsService() hosted by ServiceHost with
// no listening port, called through InProcessChannel (real gRPC serialization), from many
// threads at once.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "actions-service/actions_service.h"
#include "actions-service/struct_json.h"
#include "common/service_host.h"

namespace labgate::actions {
namespace {

using nlohmann::json;
namespace v1 = labgate::actions::v1;

class GrpcInProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto service = CreateActionsService({});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = *std::move(service);
    auto host = ServiceHost::Start("", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
    stub_ = v1::ActionsService::NewStub(host_->InProcessChannel());
  }
  void TearDown() override {
    stub_.reset();
    if (host_) host_->Shutdown(std::chrono::milliseconds(100));
  }

  std::unique_ptr<ActionsGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<v1::ActionsService::Stub> stub_;
};

TEST_F(GrpcInProcessTest, ConcurrentInvocationsAreDeterministic) {
  struct Call {
    std::string action;
    json input;
  };
  const std::vector<Call> calls = {
      {"supportive_reply", {{"message", "no point in anything"}, {"risk_level", "low"}}},
      {"empathetic_reframe", {{"message", "I always fail"}, {"tone", "formal"}}},
      {"wcagaaa_check", {{"target", "<img src=a>"}, {"level", "AA"}}},
      {"deescalation_plan", {{"situation", "legal threat"}}},
  };
  std::vector<std::string> expected;
  for (const Call& call : calls) {
    auto result = service_->registry().Invoke(call.action, call.input);
    ASSERT_TRUE(result.ok()) << result.status();
    v1::InvokeActionResponse proto;
    ResultToProto(*result, &proto);
    expected.push_back(proto.SerializeAsString());
  }

  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 100;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        const size_t which = static_cast<size_t>(t + i) % calls.size();
        v1::InvokeActionRequest request;
        request.set_action(calls[which].action);
        *request.mutable_input() = *JsonToStruct(calls[which].input);
        v1::InvokeActionResponse response;
        grpc::ClientContext context;
        grpc::Status status = stub_->InvokeAction(&context, request, &response);
        // Compare as JSON: Struct map order on the wire is not guaranteed.
        v1::InvokeActionResponse want;
        want.ParseFromString(expected[which]);
        if (!status.ok() || StructToJson(response.output()) != StructToJson(want.output()) ||
            response.assumptions_size() != want.assumptions_size()) {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST_F(GrpcInProcessTest, ShutdownRefusesNewCalls) {
  v1::ListActionsResponse response;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->ListActions(&context, {}, &response).ok());
    EXPECT_EQ(response.actions_size(), 10);
  }
  service_->Shutdown();
  grpc::ClientContext context;
  grpc::Status status = stub_->ListActions(&context, {}, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(GrpcInProcessTest, SharesTheRegistryWithPlainCallers) {
  // The legacy envelope can use the same registry without going through gRPC.
  const ActionRegistry& registry = service_->registry();
  EXPECT_EQ(registry.List().size(), 10u);
  auto result = registry.Invoke("grief_support_response",
                                {{"message", "we lost grandpa"}, {"support_mode", "presence"}});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->ToJson()["boundaryNotice"], "Non-clinical bereavement support only");
}

}  // namespace
}  // namespace labgate::actions
