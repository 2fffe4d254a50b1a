// labgate://ports/{name} with two benches, two real serial services on 127.0.0.1 named
// lab-a and lab-b: a port is read and subscribed to on its own bench by its bench-qualified
// name, and reads back under that name.
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gateway/backends/open_streams.h"
#include "gateway/resources/labgate_resources.h"
#include "gateway/tests/serial_bench.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::serial::v1;
using nlohmann::json;
using testing::ChannelTo;
using testing::SerialBench;
constexpr auto kWait = std::chrono::seconds(20);
constexpr char kPortUri[] = "labgate://ports/lab-b:loop:%2F%2Fx";

// A direct gRPC caller on one bench.
class Caller {
 public:
  explicit Caller(std::shared_ptr<grpc::Channel> channel)
      : stub_(pb::SerialService::NewStub(std::move(channel))) {}
  grpc::Status Open(const std::string& port) {
    pb::OpenPortRequest request;
    request.set_port_name(port);
    request.set_baud_rate(9600);
    pb::OpenPortResponse response;
    return stub_->OpenPort(Context().get(), request, &response);
  }
  grpc::Status Write(const std::string& port, const std::string& data) {
    pb::WriteRequest request;
    request.set_port_name(port);
    request.set_data(data);
    pb::WriteResponse response;
    return stub_->Write(Context().get(), request, &response);
  }

 private:
  static std::unique_ptr<grpc::ClientContext> Context() {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("labgate-owner", "bench-user");
    context->set_deadline(std::chrono::system_clock::now() + kWait);
    return context;
  }
  std::unique_ptr<pb::SerialService::Stub> stub_;
};

// Counts a subscription's updates and lets a test wait for a count.
class Updates {
 public:
  void Add() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
    changed_.notify_all();
  }
  bool WaitFor(int count) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kWait, [&] { return count_ >= count; });
  }
  int count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int count_ = 0;
};

class BenchPortResourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(lab_a_.Start());
    ASSERT_NO_FATAL_FAILURE(lab_b_.Start());
    benches_ = std::make_unique<SerialBenches>(
        std::vector<Bench>{{"lab-a", lab_a_.address(), ChannelTo(lab_a_.address())},
                           {"lab-b", lab_b_.address(), ChannelTo(lab_b_.address())}});
    // Only the serial service is asked here; the others' stubs need some channel.
    auto first = benches_->all().front().channel;
    resources_ = std::make_unique<LabgateResources>(
        ResourceChannels{first, first, first, benches_.get()}, std::chrono::seconds(10));
    resources_->SetPortChanges(&port_changes_);
  }
  void TearDown() override {
    resources_.reset();
    EXPECT_TRUE(OpenStreams::WaitUntilNone(kWait)) << OpenStreams::count() << " stream(s) open";
  }

  absl::StatusOr<json> Read(const std::string& uri) {
    std::promise<absl::StatusOr<json>> answered;
    auto result = answered.get_future();
    resources_->ReadResource(uri, nullptr, [&answered](absl::StatusOr<json> outcome) {
      answered.set_value(std::move(outcome));
    });
    if (result.wait_for(kWait) != std::future_status::ready) {
      return absl::DeadlineExceededError("not answered");
    }
    absl::StatusOr<json> outcome = result.get();
    if (!outcome.ok()) return outcome.status();
    return json::parse((*outcome)["contents"][0]["text"].get<std::string>());
  }

  SerialBench lab_a_;
  SerialBench lab_b_;
  std::unique_ptr<SerialBenches> benches_;
  PortChanges port_changes_;
  std::unique_ptr<LabgateResources> resources_;
};

TEST_F(BenchPortResourcesTest, APortReadsFromItsBenchByItsQualifiedName) {
  Caller on_b(benches_->all()[1].channel);
  ASSERT_TRUE(on_b.Open("loop://x").ok());
  auto port = Read(kPortUri);
  ASSERT_TRUE(port.ok()) << port.status();
  EXPECT_EQ((*port)["port"]["port_name"], "lab-b:loop://x") << port->dump();
  EXPECT_EQ((*port)["state"], "open") << port->dump();
  // lab-a has no such port open.
  auto elsewhere = Read("labgate://ports/lab-a:loop:%2F%2Fx");
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status();
  EXPECT_EQ((*elsewhere)["port"]["port_name"], "lab-a:loop://x");
  EXPECT_EQ((*elsewhere)["state"], "closed") << elsewhere->dump();

  auto unknown = Read("labgate://ports/lab-c:loop:%2F%2Fx");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("unknown bench 'lab-c'"), std::string::npos)
      << unknown.status();
}

TEST_F(BenchPortResourcesTest, ASubscriptionHearsItsBenchsPortAndThisGatewaysCallsOnIt) {
  Updates updates;
  auto subscription = resources_->SubscribeResource(kPortUri, [&updates] { updates.Add(); });
  ASSERT_NE(subscription, nullptr);
  // The stream's first event, the port's current state, is one update wherever it comes from.
  ASSERT_TRUE(updates.WaitFor(1)) << "the subscription's stream did not start";
  // Only lab-b has the port, and only someone else drives it: a further update comes only
  // from lab-b's Subscribe stream for its own name, loop://x.
  Caller on_b(benches_->all()[1].channel);
  ASSERT_TRUE(on_b.Open("loop://x").ok());
  ASSERT_TRUE(on_b.Write("loop://x", "ping").ok());
  ASSERT_TRUE(updates.WaitFor(2)) << "no update for lab-b's port";

  // This gateway's calls touch ports by the names their clients use.
  const int before = updates.count();
  port_changes_.Touch("lab-b:loop://x");
  EXPECT_TRUE(updates.WaitFor(before + 1)) << "no update for a touch of lab-b:loop://x";

  EXPECT_EQ(resources_->SubscribeResource("labgate://ports/lab-c:loop:%2F%2Fx", [] {}), nullptr)
      << "a port of no bench cannot be subscribed to";
  subscription.reset();
}

}  // namespace
}  // namespace labgate::gateway
