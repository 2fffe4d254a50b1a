// WatchPorts: the lifecycle of every port, whoever drives it, served by a real gRPC server
// on 127.0.0.1 with loop:// ports and the real clock.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/service_host.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/serial_test_client.h"

namespace labgate::serial {
namespace {

using testing::SerialClient;
using Event = v1::PortEvent;

// A WatchPorts stream that is registered once constructed (its initial metadata came).
class Watcher {
 public:
  explicit Watcher(SerialClient& client) {
    context_.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    reader_ = client.stub()->WatchPorts(&context_, v1::WatchPortsRequest());
    reader_->WaitForInitialMetadata();
  }
  ~Watcher() {
    if (finished_) return;
    context_.TryCancel();
    Finish().IgnoreError();
  }
  // The next event; TYPE_UNSPECIFIED once the stream has ended.
  Event Next() {
    Event event;
    if (!reader_->Read(&event)) return Event();
    return event;
  }
  grpc::Status Finish() {
    Event ignored;
    while (reader_->Read(&ignored)) {
    }
    finished_ = true;
    return reader_->Finish();
  }

 private:
  bool finished_ = false;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<Event>> reader_;
};

class WatchPortsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto service = CreateSerialService(SerialServiceOptions{});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("127.0.0.1:0", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    ASSERT_GT(host_->port(), 0);
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(host_->port()),
                                   grpc::InsecureChannelCredentials());
    alice_ = std::make_unique<SerialClient>(channel_, "alice");
    bob_ = std::make_unique<SerialClient>(channel_, "bob");
    watcher_client_ = std::make_unique<SerialClient>(channel_, "watcher");
  }
  void TearDown() override {
    service_->Shutdown();
    host_->Shutdown(std::chrono::seconds(2));
  }

  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<SerialClient> alice_;
  std::unique_ptr<SerialClient> bob_;
  std::unique_ptr<SerialClient> watcher_client_;
};

TEST_F(WatchPortsTest, EveryOwnersOpensReconfiguresAndClosesButNoData) {
  Watcher watcher(*watcher_client_);
  ASSERT_TRUE(alice_->Open("loop://a", 9600).ok());
  ASSERT_TRUE(bob_->Open("loop://b", 9600).ok());
  // Data goes by without an event on this stream.
  ASSERT_TRUE(alice_->Write("loop://a", "hello").ok());
  v1::ReadResponse read;
  ASSERT_TRUE(alice_->Read("loop://a", 1000, &read).ok());
  EXPECT_EQ(read.data(), "hello");
  v1::ReconfigurePortRequest reconfigure;
  reconfigure.set_port_name("loop://a");
  reconfigure.set_baud_rate(115200);
  v1::ReconfigurePortResponse reconfigured;
  ASSERT_TRUE(
      alice_->stub()->ReconfigurePort(alice_->Context().get(), reconfigure, &reconfigured).ok());
  ASSERT_TRUE(alice_->Close("loop://a").ok());
  ASSERT_TRUE(bob_->Close("loop://b").ok());

  struct Expected {
    Event::Type type;
    const char* port;
    const char* reason;
  };
  const std::vector<Expected> expected = {
      {Event::TYPE_OPENED, "loop://a", ""},
      {Event::TYPE_OPENED, "loop://b", ""},
      {Event::TYPE_RECONFIGURED, "loop://a", ""},
      {Event::TYPE_CLOSED, "loop://a", "closed by client"},
      {Event::TYPE_CLOSED, "loop://b", "closed by client"},
  };
  for (const Expected& want : expected) {
    Event event = watcher.Next();
    EXPECT_EQ(event.type(), want.type) << event.ShortDebugString();
    EXPECT_EQ(event.port_name(), want.port) << event.ShortDebugString();
    EXPECT_EQ(event.reason(), want.reason) << event.ShortDebugString();
    EXPECT_GT(event.timestamp_ms(), 0);
  }
}

TEST_F(WatchPortsTest, PortsAlreadyOpenComeFirstAsTheCurrentState) {
  ASSERT_TRUE(alice_->Open("loop://early", 9600).ok());
  Watcher watcher(*watcher_client_);
  Event current = watcher.Next();
  EXPECT_EQ(current.type(), Event::TYPE_OPENED);
  EXPECT_EQ(current.port_name(), "loop://early");
  EXPECT_EQ(current.reason(), "current state");
  ASSERT_TRUE(alice_->Close("loop://early").ok());
  Event closed = watcher.Next();
  EXPECT_EQ(closed.type(), Event::TYPE_CLOSED);
  EXPECT_EQ(closed.port_name(), "loop://early");
}

TEST_F(WatchPortsTest, AnIdlePortsAutoCloseIsSeenByEveryWatcher) {
  Watcher first(*watcher_client_);
  Watcher second(*bob_);
  v1::OpenPortRequest open;
  open.set_port_name("loop://idle");
  open.set_baud_rate(9600);
  open.set_idle_disconnect_ms(50);
  ASSERT_TRUE(alice_->Open(open).ok());
  // The port closes on the first read once 50 ms have passed without I/O; reads that
  // time out with nothing are not I/O.
  v1::ReadResponse read;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {
    ASSERT_TRUE(alice_->Read("loop://idle", 20, &read).ok());
  } while (read.event() != "auto_close" && std::chrono::steady_clock::now() < deadline);
  ASSERT_EQ(read.event(), "auto_close");

  for (Watcher* watcher : {&first, &second}) {
    Event opened = watcher->Next();
    EXPECT_EQ(opened.type(), Event::TYPE_OPENED);
    Event closed = watcher->Next();
    EXPECT_EQ(closed.type(), Event::TYPE_AUTO_CLOSE) << closed.ShortDebugString();
    EXPECT_EQ(closed.port_name(), "loop://idle");
    EXPECT_EQ(closed.reason(), "idle_timeout");
    EXPECT_EQ(closed.idle_ms(), 50);
    EXPECT_EQ(closed.idle_close_count(), 1);
  }
}

TEST_F(WatchPortsTest, AnOwnersLastLeaseEndingClosesItsPortsForWatchersToSee) {
  Watcher watcher(*watcher_client_);
  {
    auto lease_context = alice_->Context();
    auto lease = alice_->stub()->Lease(lease_context.get(), v1::LeaseRequest());
    v1::LeaseEvent held;
    ASSERT_TRUE(lease->Read(&held));
    ASSERT_TRUE(alice_->Open("loop://leased", 9600).ok());
    lease_context->TryCancel();
    while (lease->Read(&held)) {
    }
    lease->Finish().IgnoreError();
  }
  Event opened = watcher.Next();
  EXPECT_EQ(opened.type(), Event::TYPE_OPENED);
  Event closed = watcher.Next();
  EXPECT_EQ(closed.type(), Event::TYPE_CLOSED) << closed.ShortDebugString();
  EXPECT_EQ(closed.port_name(), "loop://leased");
}

TEST_F(WatchPortsTest, ShutdownDeliversTheClosesThenEndsTheStream) {
  Watcher watcher(*watcher_client_);
  ASSERT_TRUE(alice_->Open("loop://", 9600).ok());
  EXPECT_EQ(watcher.Next().type(), Event::TYPE_OPENED);
  service_->Shutdown();
  Event closed = watcher.Next();
  EXPECT_EQ(closed.type(), Event::TYPE_CLOSED);
  EXPECT_EQ(closed.reason(), "service stopping");
  EXPECT_TRUE(watcher.Finish().ok());

  grpc::ClientContext late_context;
  auto late = watcher_client_->stub()->WatchPorts(&late_context, v1::WatchPortsRequest());
  Event ignored;
  EXPECT_FALSE(late->Read(&ignored));
  EXPECT_EQ(late->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace labgate::serial
