// What a client hears about ports on benches, through the proto tools (CatalogTools, the
// real ToolInvoker and PortEventLog) over two real labgate serial services on 127.0.0.1,
// named lab-a and lab-b: its logs name the port as the client does (lab-b:PORT), a port it
// opened is followed on its own bench (a pty whose other end goes away and comes back is
// device_lost, then device_back on the reopen, once each), and a bench that goes away is
// warned about apart from the other.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gateway/backends/open_streams.h"
#include "gateway/catalog/tool_catalog.h"
#include "gateway/tests/serial_bench.h"
#include "gateway/tools/catalog_tools.h"
#include "gateway/tools/port_event_log.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::serial::v1;
using nlohmann::json;
using testing::ChannelTo;
using testing::SerialBench;
constexpr auto kWait = std::chrono::seconds(20);

// Every log a client was sent, during its calls or later; a test waits for the ones it
// expects.
class Logs {
 public:
  void Add(McpLogLevel level, const std::string& logger, const json& data) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_back({{"level", McpLogLevelName(level)}, {"logger", logger}, {"data", data}});
    added_.notify_all();
  }
  // The entries whose data has `event` (and `port_name`, if given).
  std::vector<json> Of(const std::string& event, const std::string& port = "") {
    std::lock_guard<std::mutex> lock(mutex_);
    return Matching(event, port);
  }
  bool WaitFor(const std::string& event, const std::string& port = "") {
    std::unique_lock<std::mutex> lock(mutex_);
    return added_.wait_for(lock, kWait, [&] { return !Matching(event, port).empty(); });
  }
  std::string Dump() {
    std::lock_guard<std::mutex> lock(mutex_);
    return json(entries_).dump();
  }

 private:
  std::vector<json> Matching(const std::string& event, const std::string& port) {
    std::vector<json> found;
    for (const json& entry : entries_) {
      if (entry["data"].value("event", "") != event) continue;
      if (!port.empty() && entry["data"].value("port_name", "") != port) continue;
      found.push_back(entry);
    }
    return found;
  }
  std::mutex mutex_;
  std::condition_variable added_;
  std::vector<json> entries_;
};

// One stateful-era request of the owner "alice": its logs, and those sent after it ends.
class AliceRequest final : public RequestContext {
 public:
  explicit AliceRequest(std::shared_ptr<Logs> logs) : logs_(std::move(logs)) {}
  const std::string& owner() const override { return owner_; }
  const json& client_capabilities() const override { return capabilities_; }
  bool cancelled() const override { return false; }
  void OnCancel(std::function<void()>) override {}
  void Progress(double, std::optional<double>, const std::string&) override {}
  void Log(McpLogLevel level, const std::string& logger, const json& data) override {
    logs_->Add(level, logger, data);
  }
  void RequestClient(const std::string&, const json&, std::chrono::milliseconds,
                     JsonDone done) override {
    done(absl::UnimplementedError("no client requests here"));
  }
  LogSink LaterLog() override {
    return [logs = logs_](McpLogLevel level, const std::string& logger, const json& data) {
      logs->Add(level, logger, data);
    };
  }
  std::shared_ptr<void> HoldForPrincipal(const std::string&,
                                         const std::function<std::shared_ptr<void>()>&) override {
    return nullptr;
  }

 private:
  std::shared_ptr<Logs> logs_;
  const std::string owner_ = "alice";
  const json capabilities_ = json::object();
};

// A pseudo-terminal reached through a symlink (served by the termios backend), standing in
// for an instrument that can be unplugged and plugged in again at the same path.
class PluggablePty {
 public:
  PluggablePty() {
    char pattern[] = "/tmp/labgate-bench-pty-XXXXXX";
    if (mkdtemp(pattern) != nullptr) dir_ = pattern;
    link_ = dir_ + "/instrument";
  }
  ~PluggablePty() {
    Unplug();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  const std::string& path() const { return link_; }
  // A fresh pty, linked at path().
  bool PlugIn() {
    int slave = -1;
    char name[256] = {};
    if (dir_.empty() || openpty(&master_, &slave, name, nullptr, nullptr) != 0) return false;
    close(slave);  // the port opens it again by path
    const std::string staged = dir_ + "/staged";
    std::error_code error;
    std::filesystem::create_symlink(name, staged, error);
    if (!error) std::filesystem::rename(staged, link_, error);  // atomically replaces the old
    return !error;
  }
  // The instrument's end closes: the port sees a hang-up.
  void Unplug() {
    if (master_ >= 0) close(master_);
    master_ = -1;
  }

 private:
  std::string dir_;
  std::string link_;
  int master_ = -1;
};

class BenchNoticesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(lab_a_.Start());
    ASSERT_NO_FATAL_FAILURE(lab_b_.Start());
    std::vector<Bench> benches = {{"lab-a", lab_a_.address(), ChannelTo(lab_a_.address())},
                                  {"lab-b", lab_b_.address(), ChannelTo(lab_b_.address())}};
    const std::string serial = pb::SerialService::service_full_name();
    channels_.set_serial_service(serial);
    channels_.Set(serial, benches.front().channel);
    channels_.SetSerialBenches(std::make_shared<SerialBenches>(std::move(benches)));
    auto catalog = ToolCatalog::FromServices(
        {pb::OpenPortRequest::descriptor()->file()->FindServiceByName("SerialService")});
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    catalog_ = std::move(*catalog);
    invoker_ = std::make_unique<ToolInvoker>(&channels_);
    port_events_ =
        std::make_unique<PortEventLog>(channels_.For(serial), channels_.serial_benches());
    tools_ = std::make_unique<CatalogTools>(catalog_.get(), invoker_.get(), nullptr,
                                            std::chrono::seconds(10));
    tools_->SetPortEventLog(port_events_.get());
  }

  void TearDown() override {
    tools_.reset();
    port_events_.reset();
    // The followed streams finish before their channels go.
    EXPECT_TRUE(OpenStreams::WaitUntilNone(kWait)) << OpenStreams::count() << " stream(s) open";
  }

  // A tool call as alice; its CallToolResult.
  json Call(const std::string& tool, const json& arguments) {
    std::promise<absl::StatusOr<json>> answered;
    auto result = answered.get_future();
    tools_->CallTool(tool, arguments, std::make_shared<AliceRequest>(logs_),
                     [&answered](absl::StatusOr<ToolResult> outcome) {
                       if (!outcome.ok()) return answered.set_value(outcome.status());
                       answered.set_value(outcome->AsJson());
                     });
    if (result.wait_for(kWait) != std::future_status::ready) {
      ADD_FAILURE() << tool << " was not answered";
      return json::object();
    }
    absl::StatusOr<json> outcome = result.get();
    EXPECT_TRUE(outcome.ok()) << outcome.status();
    return outcome.ok() ? *outcome : json::object();
  }
  json CallOk(const std::string& tool, const json& arguments) {
    json result = Call(tool, arguments);
    EXPECT_FALSE(result.value("isError", true)) << tool << ": " << result.dump();
    return result.value("structuredContent", json::object());
  }

  static bool WaitUntil(const std::function<bool()>& condition) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (!condition()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  SerialBench lab_a_;
  SerialBench lab_b_;
  BackendChannels channels_;
  std::unique_ptr<ToolCatalog> catalog_;
  std::unique_ptr<ToolInvoker> invoker_;
  std::unique_ptr<PortEventLog> port_events_;
  std::unique_ptr<CatalogTools> tools_;
  std::shared_ptr<Logs> logs_ = std::make_shared<Logs>();
};

TEST_F(BenchNoticesTest, PortsAreLoggedByTheNamesTheClientUses) {
  for (const std::string port : {"lab-a:loop://x", "lab-b:loop://x"}) {
    EXPECT_EQ(CallOk("open_port", {{"port_name", port}, {"baud_rate", 9600}})["port_name"], port);
    ASSERT_TRUE(logs_->WaitFor("port_opened", port)) << logs_->Dump();
    EXPECT_EQ(CallOk("describe_port", {{"port_name", port}})["port"]["port_name"], port);
  }
  // Each port opened is followed on its bench until it is closed.
  EXPECT_EQ(OpenStreams::count(), 2u);
  CallOk("close", {{"port_name", "lab-b:loop://x"}});
  EXPECT_EQ(logs_->Of("port_closed", "lab-b:loop://x").size(), 1u) << logs_->Dump();
  EXPECT_TRUE(WaitUntil([] { return OpenStreams::count() == 1; }));
  CallOk("close", {{"port_name", "lab-a:loop://x"}});
  EXPECT_TRUE(OpenStreams::WaitUntilNone(kWait));

  // A read that finds its port idle closes it, logs the auto-close and ends the follow.
  const std::string idle = "lab-b:loop://idle";
  CallOk("open_port", {{"port_name", idle}, {"baud_rate", 9600}, {"idle_disconnect_ms", 50}});
  json read;
  ASSERT_TRUE(WaitUntil([&] {
    read = CallOk("read", {{"port_name", idle}, {"timeout_ms", 20}});
    return read.value("event", "") == "auto_close";
  })) << read.dump();
  EXPECT_EQ(read["port_name"], idle);
  auto closed = logs_->Of("port_auto_closed", idle);
  ASSERT_EQ(closed.size(), 1u) << logs_->Dump();
  EXPECT_EQ(closed[0]["level"], "info");
  EXPECT_EQ(closed[0]["logger"], "serial");
  EXPECT_EQ(closed[0]["data"]["reason"], "idle_timeout");
  EXPECT_TRUE(OpenStreams::WaitUntilNone(kWait));
}

// lab-b serves the pty; lab-a has never heard of it. Only a follow on lab-b, under lab-b's
// own name for the port, hears it go and come back.
TEST_F(BenchNoticesTest, ADeviceLostAndBackOnABenchIsLoggedOnceByItsQualifiedName) {
  PluggablePty pty;
  ASSERT_TRUE(pty.PlugIn());
  const std::string port = "lab-b:" + pty.path();
  const json open = {{"port_name", port}, {"baud_rate", 115200}, {"timeout_ms", 500}};
  EXPECT_EQ(CallOk("open_port", open)["port_name"], port);
  EXPECT_TRUE(logs_->Of("device_lost").empty());

  // The instrument goes; alice makes no call until she is told.
  pty.Unplug();
  ASSERT_TRUE(logs_->WaitFor("device_lost", port)) << logs_->Dump();
  json lost = logs_->Of("device_lost", port)[0];
  EXPECT_EQ(lost["level"], "info");
  EXPECT_EQ(lost["logger"], "serial");
  EXPECT_EQ(
      lost["data"],
      (json{{"event", "device_lost"}, {"port_name", port}, {"reason", "device disconnected"}}));
  EXPECT_EQ(CallOk("status", {{"port_name", port}})["status"], "error");
  EXPECT_TRUE(logs_->Of("device_back").empty()) << "not back before the port is open again";

  // It comes back at the same path, and alice opens the port again.
  ASSERT_TRUE(pty.PlugIn());
  EXPECT_EQ(CallOk("open_port", open)["port_name"], port);
  ASSERT_TRUE(logs_->WaitFor("device_back", port)) << logs_->Dump();
  EXPECT_EQ(logs_->Of("device_back", port)[0]["data"],
            (json{{"event", "device_back"}, {"port_name", port}}));
  EXPECT_EQ(CallOk("status", {{"port_name", port}})["status"], "open");
  CallOk("close", {{"port_name", port}});
  // Once every stream has ended, nothing more can come.
  ASSERT_TRUE(OpenStreams::WaitUntilNone(kWait));
  EXPECT_EQ(logs_->Of("device_lost").size(), 1u) << logs_->Dump();
  EXPECT_EQ(logs_->Of("device_back").size(), 1u) << logs_->Dump();
}

TEST_F(BenchNoticesTest, ABenchThatGoesAwayIsWarnedAboutAloneAndItsReturnToo) {
  CallOk("open_port", {{"port_name", "lab-a:loop://x"}, {"baud_rate", 9600}});
  const int port = lab_b_.port();
  lab_b_.Stop();
  json failed;
  ASSERT_TRUE(WaitUntil([&] {
    failed = Call("status", {{"port_name", "lab-b:loop://x"}});
    return !logs_->Of("backend_unreachable").empty();
  })) << failed.dump()
      << logs_->Dump();
  auto unreachable = logs_->Of("backend_unreachable");
  ASSERT_EQ(unreachable.size(), 1u) << logs_->Dump();
  EXPECT_EQ(unreachable[0]["level"], "warning");
  EXPECT_EQ(unreachable[0]["logger"], "gateway");
  EXPECT_EQ(unreachable[0]["data"]["bench"], "lab-b");
  EXPECT_EQ(unreachable[0]["data"]["error"],
            "serial service at 127.0.0.1:" + std::to_string(port) + " is not reachable");

  // lab-a answering says nothing about lab-b; a listing over both benches still lists
  // lab-b as unreachable, and warns no more.
  CallOk("status", {{"port_name", "lab-a:loop://x"}});
  json listed = CallOk("list_ports", json::object());
  ASSERT_EQ(listed["unreachable_benches"].size(), 1u) << listed.dump();
  EXPECT_EQ(listed["unreachable_benches"][0]["bench"], "lab-b");
  EXPECT_TRUE(logs_->Of("backend_recovered").empty()) << logs_->Dump();
  EXPECT_EQ(logs_->Of("backend_unreachable").size(), 1u) << logs_->Dump();

  ASSERT_NO_FATAL_FAILURE(lab_b_.Start(port));
  ASSERT_TRUE(WaitUntil([&] {
    return !Call("status", {{"port_name", "lab-b:loop://x"}}).value("isError", true);
  }));
  auto recovered = logs_->Of("backend_recovered");
  ASSERT_EQ(recovered.size(), 1u) << logs_->Dump();
  EXPECT_EQ(recovered[0]["data"], (json{{"event", "backend_recovered"},
                                        {"service", pb::SerialService::service_full_name()},
                                        {"bench", "lab-b"}}));
  CallOk("close", {{"port_name", "lab-a:loop://x"}});
}

}  // namespace
}  // namespace labgate::gateway
