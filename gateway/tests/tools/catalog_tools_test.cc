// CatalogTools over a real labgate serial service on 127.0.0.1: a proto tool call answers a
// CallToolResult, holds a serial lease for the principal (whose end closes its ports), tells
// which port it touched and that the port list changed, and a failure is "CODE: message".
#include "gateway/tools/catalog_tools.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "gateway/tests/eventually.h"
#include "gateway/tests/request_context.h"
#include "gateway/tests/serial_bench.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::serial::v1;
using nlohmann::json;
using testing::ChannelTo;
using testing::Outcome;
using testing::RecordingRequest;
using testing::SerialBench;

class CatalogToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(bench_.Start());
    const std::string serial = pb::SerialService::service_full_name();
    channel_ = ChannelTo(bench_.address());
    channels_.set_serial_service(serial);
    channels_.Set(serial, channel_);
    auto catalog = ToolCatalog::FromServices(
        {pb::OpenPortRequest::descriptor()->file()->FindServiceByName("SerialService")});
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    catalog_ = std::move(*catalog);
    invoker_ = std::make_unique<ToolInvoker>(&channels_);
    leases_ = std::make_unique<OwnerLeases>(channel_, serial);
    tools_ = std::make_unique<CatalogTools>(catalog_.get(), invoker_.get(), leases_.get(),
                                            std::chrono::seconds(20));
    tools_->OnPortsChanged([this] { ports_changed_.fetch_add(1); });
    tools_->OnPortTouched([this](const std::string& port) {
      std::lock_guard<std::mutex> lock(mutex_);
      touched_.push_back(port);
    });
  }

  json Call(const std::string& name, const json& arguments,
            const std::shared_ptr<RecordingRequest>& request) {
    Outcome<absl::StatusOr<ToolResult>> outcome;
    tools_->CallTool(name, arguments, request, outcome.Callback());
    absl::StatusOr<ToolResult> result = outcome.Wait();
    EXPECT_TRUE(result.ok()) << result.status();  // failures are results, not errors
    return result.ok() ? result->AsJson() : json();
  }
  std::vector<std::string> OpenPorts() {
    auto stub = pb::SerialService::NewStub(channel_);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + testing::kWait);
    pb::GetStatusResponse response;
    EXPECT_TRUE(stub->GetStatus(&context, pb::GetStatusRequest(), &response).ok());
    return {response.open_ports().begin(), response.open_ports().end()};
  }

  SerialBench bench_;
  std::shared_ptr<grpc::Channel> channel_;
  BackendChannels channels_;
  std::unique_ptr<ToolCatalog> catalog_;
  std::unique_ptr<ToolInvoker> invoker_;
  std::unique_ptr<OwnerLeases> leases_;
  std::unique_ptr<CatalogTools> tools_;
  std::atomic<int> ports_changed_{0};
  std::mutex mutex_;
  std::vector<std::string> touched_;
};

TEST_F(CatalogToolsTest, ListsTheAnnotatedMethods) {
  std::vector<std::string> names;
  for (const json& tool : tools_->ListTools()) names.push_back(tool["name"]);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "list_ports", "list_ports_extended", "describe_port", "list_instruments", "open_port",
                "reconfigure_port", "write", "read", "query", "wait_for", "send_expect",
                "run_sequence", "close", "get_signals", "set_signals", "pulse_signal",
                "send_break", "status", "replay_status", "metrics"}));
  EXPECT_TRUE(tools_->HasTool("write"));
  EXPECT_FALSE(tools_->HasTool("create_session"));
}

TEST_F(CatalogToolsTest, ACallAnswersAResultAndTheLeaseOutlivesIt) {
  auto alice = std::make_shared<RecordingRequest>("alice");
  json opened = Call("open_port", {{"port_name", "loop://cat"}, {"baud_rate", 9600}}, alice);
  EXPECT_EQ(opened["isError"], false);
  EXPECT_EQ(opened["structuredContent"]["status"], "opened");
  EXPECT_EQ(json::parse(opened["content"][0]["text"].get<std::string>()),
            opened["structuredContent"]);
  EXPECT_EQ(ports_changed_.load(), 1);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    EXPECT_EQ(touched_, std::vector<std::string>{"loop://cat"});
  }
  EXPECT_EQ(alice->held_count(), 1u) << "the call holds a serial lease for its principal";

  json written = Call("write", {{"port_name", "loop://cat"}, {"data", "*IDN?\n"}}, alice);
  EXPECT_EQ(written["isError"], false);
  EXPECT_EQ(ports_changed_.load(), 1) << "a write changes no port list";
  EXPECT_EQ(OpenPorts(), std::vector<std::string>{"loop://cat"});

  // The principal goes: its lease ends and the service closes its port.
  alice->ReleaseHeld();
  EXPECT_TRUE(testing::Eventually([&] { return OpenPorts().empty(); }));
}

TEST_F(CatalogToolsTest, AFailureIsAnErrorResultNamingItsCode) {
  auto bob = std::make_shared<RecordingRequest>("bob");
  json refused = Call("read", {{"port_name", "loop://not-open"}}, bob);
  EXPECT_EQ(refused["isError"], true);
  EXPECT_FALSE(refused.contains("structuredContent"));
  const std::string text = refused["content"][0]["text"];
  EXPECT_NE(text.find("loop://not-open"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("^[A-Z_]+: "))) << text;
  EXPECT_EQ(ports_changed_.load(), 0);

  EXPECT_EQ(ToolResultJson(absl::NotFoundError("port x is not open"))["content"][0]["text"],
            "NOT_FOUND: port x is not open");
}

}  // namespace
}  // namespace labgate::gateway
