// ToolInvoker against a real labgate serial service on 127.0.0.1: JSON arguments become the
// tool's gRPC request, with the caller's owner id; the reply comes back as JSON; bad
// arguments fail at once; a failed call keeps the service's words, and a service that is
// down is named as such (BackendCallStatus).
#include "gateway/backends/tool_invoker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gateway/backends/unreachable.h"
#include "gateway/tests/backends/reply_as_json.h"
#include "gateway/tests/request_context.h"
#include "gateway/tests/serial_bench.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::serial::v1;
using nlohmann::json;
using testing::AsJson;
using testing::ChannelTo;
using testing::Outcome;
using testing::SerialBench;

class ToolInvokerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(bench_.Start());
    serial_ = pb::SerialService::service_full_name();
    channels_.set_serial_service(serial_);
    channels_.Set(serial_, ChannelTo(bench_.address()));
    channels_.SetAddress(serial_, bench_.address());
    auto catalog = ToolCatalog::FromServices(
        {pb::OpenPortRequest::descriptor()->file()->FindServiceByName("SerialService")});
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    catalog_ = std::move(*catalog);
    invoker_ = std::make_unique<ToolInvoker>(&channels_);
  }

  absl::StatusOr<json> Call(const std::string& tool, const json& arguments,
                            const std::string& owner, std::vector<ToolInvoker::Answer>* answers) {
    ToolInvoker::Options options;
    options.owner = owner;
    options.deadline = std::chrono::seconds(20);
    auto mutex = std::make_shared<std::mutex>();
    options.on_answer = [answers, mutex](const ToolInvoker::Answer& answer) {
      std::lock_guard<std::mutex> lock(*mutex);
      if (answers != nullptr) answers->push_back(answer);
    };
    const ToolBinding* binding = catalog_->Find(tool);
    EXPECT_NE(binding, nullptr) << tool;
    Outcome<absl::StatusOr<json>> outcome;
    invoker_->Call(*binding, arguments, options, AsJson(outcome.Callback()));
    return outcome.Wait();
  }

  SerialBench bench_;
  std::string serial_;
  BackendChannels channels_;
  std::unique_ptr<ToolCatalog> catalog_;
  std::unique_ptr<ToolInvoker> invoker_;
};

TEST_F(ToolInvokerTest, ArgumentsGoOutAsTheRequestAndTheReplyComesBackAsJson) {
  std::vector<ToolInvoker::Answer> answers;
  absl::StatusOr<json> opened =
      Call("open_port", {{"port_name", "loop://inv"}, {"baud_rate", 115200}, {"data_bits", "8"}},
           "alice", &answers);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ((*opened)["status"], "opened");
  EXPECT_EQ((*opened)["port_name"], "loop://inv");
  EXPECT_EQ((*opened)["settings"]["baud_rate"], 115200);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].service_name, serial_);
  EXPECT_EQ(answers[0].bench, "");
  EXPECT_TRUE(answers[0].status.ok());

  // The owner id travels with each call: the port is alice's, not bob's.
  absl::StatusOr<json> as_alice = Call("status", {{"port_name", "loop://inv"}}, "alice", nullptr);
  ASSERT_TRUE(as_alice.ok()) << as_alice.status();
  EXPECT_EQ((*as_alice)["owned_by_caller"], true);
  EXPECT_EQ((*as_alice)["owner"], "alice");
  absl::StatusOr<json> as_bob = Call("status", {{"port_name", "loop://inv"}}, "bob", nullptr);
  ASSERT_TRUE(as_bob.ok()) << as_bob.status();
  EXPECT_FALSE(as_bob->value("owned_by_caller", false));
}

TEST_F(ToolInvokerTest, BadArgumentsFailAtOnceWithoutACall) {
  ToolInvoker::Options options;
  bool answered = false;
  options.on_answer = [&answered](const ToolInvoker::Answer&) { answered = true; };
  absl::StatusOr<json> result;
  bool done = false;
  std::shared_ptr<PendingCall> call = invoker_->Call(
      *catalog_->Find("open_port"), {{"port_name", "loop://x"}, {"parity", "purple"}}, options,
      AsJson([&](absl::StatusOr<json> outcome) {
        result = std::move(outcome);
        done = true;
      }));
  EXPECT_EQ(call, nullptr);
  ASSERT_TRUE(done) << "argument errors are answered inline";
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("parity"), absl::string_view::npos) << result.status();
  EXPECT_FALSE(answered) << "no backend was called";
}

TEST_F(ToolInvokerTest, AFailedCallKeepsTheServicesStatus) {
  std::vector<ToolInvoker::Answer> answers;
  absl::StatusOr<json> written =
      Call("write", {{"port_name", "loop://never-opened"}, {"data", "x"}}, "alice", &answers);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(written.status().message().find("loop://never-opened"), absl::string_view::npos)
      << written.status();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].status.code(), written.status().code());
}

TEST_F(ToolInvokerTest, AServiceThatIsDownIsNamed) {
  const std::string address = bench_.address();
  bench_.Stop();
  absl::StatusOr<json> result = Call("list_ports", json::object(), "alice", nullptr);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(result.status().message(), "serial service at " + address + " is not reachable");
}

TEST(BackendCallStatusTest, OnlyAnUnreachableRemoteBackendIsRewritten) {
  SerialBench bench;
  ASSERT_NO_FATAL_FAILURE(bench.Start());
  auto channel = ChannelTo(bench.address());
  ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() + testing::kWait));
  const std::string name = pb::SerialService::service_full_name();
  // The channel is READY: an UNAVAILABLE from the service itself keeps its own text.
  absl::Status own = BackendCallStatus(grpc::Status(grpc::StatusCode::UNAVAILABLE, "draining"),
                                       channel.get(), name, bench.address());
  EXPECT_EQ(own, absl::UnavailableError("draining"));
  EXPECT_EQ(BackendCallStatus(absl::UnavailableError("device disconnected: /dev/ttyUSB0"),
                              channel.get(), name, bench.address()),
            absl::UnavailableError("device disconnected: /dev/ttyUSB0"));
  // gRPC's words for a connection that broke under the call name the backend even while
  // the channel still reads READY (it notices a moment later).
  const std::string down = "serial service at " + bench.address() + " is not reachable";
  EXPECT_EQ(BackendCallStatus(grpc::Status(grpc::StatusCode::UNAVAILABLE, "Socket closed"),
                              channel.get(), name, bench.address()),
            absl::UnavailableError(down));
  EXPECT_EQ(BackendCallStatus(absl::UnavailableError("Connection reset by peer"), channel.get(),
                              name, bench.address()),
            absl::UnavailableError(down));
  // Other codes, and embedded backends (no address), pass through the error table.
  EXPECT_EQ(BackendCallStatus(grpc::Status(grpc::StatusCode::NOT_FOUND, "no port"), channel.get(),
                              name, bench.address()),
            absl::NotFoundError("no port"));
  EXPECT_EQ(BackendCallStatus(grpc::Status(grpc::StatusCode::UNAVAILABLE, "x"), nullptr, name, ""),
            absl::UnavailableError("x"));
}

}  // namespace
}  // namespace labgate::gateway
