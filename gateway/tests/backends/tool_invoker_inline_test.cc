// ToolInvoker over the inline transport, as the embedded gateway calls its own serial
// service: the same JSON in and out as over a channel, answers given at once arrive before
// Call returns, a call waiting on a device can be cancelled, and a stopped transport refuses.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "absl/synchronization/notification.h"
#include "common/inline_unary.h"
#include "gateway/backends/tool_invoker.h"
#include "gateway/tests/request_context.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "serial-service/serial_service.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::serial::v1;
using nlohmann::json;
using testing::Outcome;

class ToolInvokerInlineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto service = labgate::serial::CreateSerialService({});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    service_->ServeInline(&server_);
    ASSERT_TRUE(server_.Start().ok());
    serial_ = pb::SerialService::service_full_name();
    channels_.set_serial_service(serial_);
    channels_.SetInline(serial_, &server_);
    auto catalog = ToolCatalog::FromServices(
        {pb::OpenPortRequest::descriptor()->file()->FindServiceByName("SerialService")});
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    catalog_ = std::move(*catalog);
    invoker_ = std::make_unique<ToolInvoker>(&channels_);
  }
  void TearDown() override {
    service_->Shutdown();
    server_.Shutdown(std::chrono::milliseconds(500));
  }

  ToolInvoker::Options OptionsFor(const std::string& owner) {
    ToolInvoker::Options options;
    options.owner = owner;
    options.deadline = std::chrono::seconds(20);
    return options;
  }
  absl::StatusOr<json> Call(const std::string& tool, const json& arguments,
                            const std::string& owner) {
    Outcome<absl::StatusOr<json>> outcome;
    invoker_->Call(*catalog_->Find(tool), arguments, OptionsFor(owner), outcome.Callback());
    return outcome.Wait();
  }

  InlineUnaryServer server_;
  std::unique_ptr<labgate::serial::SerialGrpcService> service_;
  std::string serial_;
  BackendChannels channels_;
  std::unique_ptr<ToolCatalog> catalog_;
  std::unique_ptr<ToolInvoker> invoker_;
};

TEST_F(ToolInvokerInlineTest, RepliesComeBackAsJsonWithTheCallersOwnerId) {
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

TEST_F(ToolInvokerInlineTest, AnAnswerGivenAtOnceRunsBeforeCallReturnsAndLeavesNothingToCancel) {
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
                     [&](absl::StatusOr<json> outcome) {
                       result = std::move(outcome);
                       done = true;
                     });
  ASSERT_TRUE(done) << "status is answered by the service at once, on this thread";
  EXPECT_EQ(call, nullptr);
  EXPECT_TRUE(answered);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)["port_name"], "loop://now");
}

TEST_F(ToolInvokerInlineTest, AFailedCallKeepsTheServicesWords) {
  absl::StatusOr<json> written =
      Call("write", {{"port_name", "loop://never-opened"}, {"data", "x"}}, "alice");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(written.status().message().find("loop://never-opened"), absl::string_view::npos)
      << written.status();
}

TEST_F(ToolInvokerInlineTest, AReadWaitingOnTheDeviceCanBeCancelled) {
  ASSERT_TRUE(
      Call("open_port", {{"port_name", "loop://quiet"}, {"baud_rate", 9600}}, "alice").ok());
  absl::Notification finished;
  absl::StatusOr<json> result;
  std::shared_ptr<PendingCall> call = invoker_->Call(
      *catalog_->Find("read"), {{"port_name", "loop://quiet"}, {"timeout_ms", 15000}},
      OptionsFor("alice"), [&](absl::StatusOr<json> outcome) {
        result = std::move(outcome);
        finished.Notify();
      });
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

TEST_F(ToolInvokerInlineTest, AfterShutdownCallsFailAsUnavailable) {
  server_.Shutdown(std::chrono::milliseconds(100));
  absl::StatusOr<json> listed = Call("list_ports", json::object(), "alice");
  EXPECT_EQ(listed.status().code(), absl::StatusCode::kUnavailable) << listed.status();
}

}  // namespace
}  // namespace labgate::gateway
