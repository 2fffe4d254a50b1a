// ToolInvoker calling a service in process, as the embedded gateway calls its own serial
// service: the same JSON in and out as over a channel, the caller's principal, answers given
// at once arrive before Call returns, a call waiting on a device can be cancelled or run past
// its deadline (and then frees the port), and a stopped service refuses.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "absl/synchronization/notification.h"
#include "common/local_call.h"
#include "gateway/backends/tool_invoker.h"
#include "gateway/tests/backends/reply_as_json.h"
#include "gateway/tests/request_context.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "serial-service/serial_service.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::serial::v1;
using nlohmann::json;
using testing::AsJson;
using testing::Outcome;

class ToolInvokerLocalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto service = labgate::serial::CreateSerialService({});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    LocalMethods methods;
    service_->AddLocalMethods(&methods);
    ASSERT_TRUE(methods.CheckServesAll(pb::SerialService::service_full_name()).ok());
    calls_ = std::make_unique<LocalCalls>(std::move(methods));
    serial_ = pb::SerialService::service_full_name();
    channels_.set_serial_service(serial_);
    channels_.SetLocal(serial_, calls_.get());
    auto catalog = ToolCatalog::FromServices(
        {pb::OpenPortRequest::descriptor()->file()->FindServiceByName("SerialService")});
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    catalog_ = std::move(*catalog);
    invoker_ = std::make_unique<ToolInvoker>(&channels_);
  }
  void TearDown() override { service_->Shutdown(); }

  ToolInvoker::Options OptionsFor(const std::string& owner) {
    ToolInvoker::Options options;
    options.owner = owner;
    options.deadline = std::chrono::seconds(20);
    return options;
  }
  absl::StatusOr<json> Call(const std::string& tool, const json& arguments,
                            const std::string& owner) {
    Outcome<absl::StatusOr<json>> outcome;
    invoker_->Call(*catalog_->Find(tool), arguments, OptionsFor(owner), AsJson(outcome.Callback()));
    return outcome.Wait();
  }

  std::unique_ptr<labgate::serial::SerialGrpcService> service_;
  std::unique_ptr<LocalCalls> calls_;
  std::string serial_;
  BackendChannels channels_;
  std::unique_ptr<ToolCatalog> catalog_;
  std::unique_ptr<ToolInvoker> invoker_;
};

TEST_F(ToolInvokerLocalTest, RepliesComeBackAsJsonWithTheCallersOwnerId) {
  absl::StatusOr<json> opened =
      Call("open_port", {{"port_name", "loop://inl"}, {"baud_rate", 9600}}, "alice");
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ((*opened)["status"], "opened");
  EXPECT_EQ((*opened)["settings"]["baud_rate"], 9600);
  absl::StatusOr<json> as_alice = Call("status", {{"port_name", "loop://inl"}}, "alice");
  ASSERT_TRUE(as_alice.ok()) << as_alice.status();
  EXPECT_EQ((*as_alice)["owner"], "alice");
  EXPECT_EQ((*as_alice)["owned_by_caller"], true);
  absl::StatusOr<json> as_bob = Call("status", {{"port_name", "loop://inl"}}, "bob");
  ASSERT_TRUE(as_bob.ok()) << as_bob.status();
  EXPECT_FALSE(as_bob->value("owned_by_caller", false));
}

TEST_F(ToolInvokerLocalTest, AnAnswerGivenAtOnceRunsBeforeCallReturnsAndLeavesNothingToCancel) {
  ASSERT_TRUE(Call("open_port", {{"port_name", "loop://now"}, {"baud_rate", 9600}}, "alice").ok());
  ToolInvoker::Options options = OptionsFor("alice");
  bool answered = false;
  options.on_answer = [&answered](const ToolInvoker::Answer& answer) {
    answered = answer.status.ok();
  };
  absl::StatusOr<json> result;
  bool done = false;
  std::shared_ptr<PendingCall> call =
      invoker_->Call(*catalog_->Find("status"), {{"port_name", "loop://now"}}, options,
                     AsJson([&](absl::StatusOr<json> outcome) {
                       result = std::move(outcome);
                       done = true;
                     }));
  ASSERT_TRUE(done) << "status is answered by the service at once, on this thread";
  EXPECT_EQ(call, nullptr);
  EXPECT_TRUE(answered);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)["port_name"], "loop://now");
}

TEST_F(ToolInvokerLocalTest, AFailedCallKeepsTheServicesWords) {
  absl::StatusOr<json> written =
      Call("write", {{"port_name", "loop://never-opened"}, {"data", "x"}}, "alice");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(written.status().message().find("loop://never-opened"), absl::string_view::npos)
      << written.status();
}

TEST_F(ToolInvokerLocalTest, AReadWaitingOnTheDeviceCanBeCancelled) {
  ASSERT_TRUE(
      Call("open_port", {{"port_name", "loop://quiet"}, {"baud_rate", 9600}}, "alice").ok());
  absl::Notification finished;
  absl::StatusOr<json> result;
  std::shared_ptr<PendingCall> call = invoker_->Call(
      *catalog_->Find("read"), {{"port_name", "loop://quiet"}, {"timeout_ms", 15000}},
      OptionsFor("alice"), AsJson([&](absl::StatusOr<json> outcome) {
        result = std::move(outcome);
        finished.Notify();
      }));
  ASSERT_NE(call, nullptr) << "nothing has arrived, so the read waits";
  EXPECT_FALSE(finished.HasBeenNotified());
  const auto cancelled_at = std::chrono::steady_clock::now();
  call->Cancel();
  ASSERT_TRUE(finished.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
  EXPECT_LT(std::chrono::steady_clock::now() - cancelled_at, std::chrono::seconds(10));
  // The port goes on serving its owner.
  EXPECT_TRUE(Call("status", {{"port_name", "loop://quiet"}}, "alice").ok());
}

TEST_F(ToolInvokerLocalTest, ACancelledReadFreesThePortForTheNextRead) {
  ASSERT_TRUE(
      Call("open_port", {{"port_name", "loop://freed"}, {"baud_rate", 9600}}, "alice").ok());
  absl::Notification finished;
  std::shared_ptr<PendingCall> call = invoker_->Call(
      *catalog_->Find("read"), {{"port_name", "loop://freed"}, {"timeout_ms", 60000}},
      OptionsFor("alice"), AsJson([&](const absl::StatusOr<json>&) { finished.Notify(); }));
  ASSERT_NE(call, nullptr);
  call->Cancel();
  ASSERT_TRUE(finished.HasBeenNotified()) << "a cancelled call is answered when it is cancelled";
  // The port's worker gives the abandoned read up, so the next read, which queues behind it,
  // ends by its own short timeout rather than after the first read's minute.
  absl::StatusOr<json> next =
      Call("read", {{"port_name", "loop://freed"}, {"timeout_ms", 50}}, "alice");
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ((*next)["timed_out"], true);
}

TEST_F(ToolInvokerLocalTest, ACallStillRunningAtItsDeadlineIsAnsweredDeadlineExceeded) {
  ASSERT_TRUE(Call("open_port", {{"port_name", "loop://late"}, {"baud_rate", 9600}}, "alice").ok());
  ToolInvoker::Options options = OptionsFor("alice");
  options.deadline = std::chrono::milliseconds(200);
  Outcome<absl::StatusOr<json>> outcome;
  invoker_->Call(*catalog_->Find("read"), {{"port_name", "loop://late"}, {"timeout_ms", 60000}},
                 options, AsJson(outcome.Callback()));
  absl::StatusOr<json> result = outcome.Wait();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded) << result.status();
  absl::StatusOr<json> next =
      Call("read", {{"port_name", "loop://late"}, {"timeout_ms", 50}}, "alice");
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ((*next)["timed_out"], true);
}

TEST_F(ToolInvokerLocalTest, AnUnknownOrMistypedArgumentIsRefusedBeforeTheServiceSeesIt) {
  absl::StatusOr<json> wrong_type =
      Call("open_port", {{"port_name", "loop://typed"}, {"baud_rate", "fast"}}, "alice");
  EXPECT_EQ(wrong_type.status().code(), absl::StatusCode::kInvalidArgument) << wrong_type.status();
  absl::StatusOr<json> status = Call("status", {{"port_name", "loop://typed"}}, "alice");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ((*status)["status"], "closed");
}

TEST_F(ToolInvokerLocalTest, AfterShutdownCallsFailAsUnavailable) {
  service_->Shutdown();
  absl::StatusOr<json> listed = Call("list_ports", json::object(), "alice");
  EXPECT_EQ(listed.status().code(), absl::StatusCode::kUnavailable) << listed.status();
}

struct ListOnly {
  void ServeListPorts(CallContext* call, const pb::ListPortsRequest*, pb::ListPortsResponse*) {
    call->Finish(absl::OkStatus());
  }
};

TEST(LocalMethodsTest, ATableThatLeavesAUnaryMethodOutOrMistypesOneIsRefusedByName) {
  ListOnly list_only;
  LocalMethods methods;
  methods.Add(pb::SerialService::service_full_name(), "ListPorts", &list_only,
              &ListOnly::ServeListPorts);
  absl::Status missing = methods.CheckServesAll(pb::SerialService::service_full_name());
  EXPECT_EQ(missing.code(), absl::StatusCode::kInternal);
  EXPECT_NE(missing.message().find("labgate.serial.v1.SerialService.ListPortsExtended"),
            absl::string_view::npos)
      << missing;
  methods.Add(pb::SerialService::service_full_name(), "ListPortsExtended", &list_only,
              &ListOnly::ServeListPorts);
  absl::Status mistyped = methods.CheckServesAll(pb::SerialService::service_full_name());
  EXPECT_NE(mistyped.message().find("ListPortsExtended's in-process handler takes other messages"),
            absl::string_view::npos)
      << mistyped;
}

}  // namespace
}  // namespace labgate::gateway
