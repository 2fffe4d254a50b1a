// PortListWatch against real serial services on 127.0.0.1 (loop:// ports): each port opened,
// closed or auto-closed by any owner is a change; data and reconfigures are not; a service
// that comes back is caught up with; the streams end with the watch.
#include "gateway/resources/port_list_watch.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "common/service_host.h"
#include "gateway/backends/open_streams.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "serial-service/serial_service.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::serial::v1;
constexpr auto kWait = std::chrono::seconds(20);

// Counts changes and lets a test wait for a count.
class Changes {
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

// A labgate serial service on 127.0.0.1, which can stop and start again on the same port.
class SerialBench {
 public:
  void Start(int port = 0) {
    auto service = labgate::serial::CreateSerialService(labgate::serial::SerialServiceOptions{});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("127.0.0.1:" + std::to_string(port), {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
  }
  void Stop() {
    if (!service_) return;
    service_->Shutdown();
    host_->Shutdown(std::chrono::seconds(2));
    host_.reset();
    service_.reset();
  }
  ~SerialBench() { Stop(); }
  int port() const { return host_->port(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port()); }

 private:
  std::unique_ptr<labgate::serial::SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
};

// A direct gRPC caller with an owner id of its own.
class Caller {
 public:
  Caller(std::shared_ptr<grpc::Channel> channel, std::string owner)
      : stub_(pb::SerialService::NewStub(std::move(channel))), owner_(std::move(owner)) {}
  grpc::Status Open(const std::string& port, int64_t idle_ms = 0) {
    pb::OpenPortRequest request;
    request.set_port_name(port);
    request.set_baud_rate(9600);
    if (idle_ms > 0) request.set_idle_disconnect_ms(idle_ms);
    pb::OpenPortResponse response;
    return stub_->OpenPort(Context().get(), request, &response);
  }
  grpc::Status Close(const std::string& port) {
    pb::ClosePortRequest request;
    request.set_port_name(port);
    pb::ClosePortResponse response;
    return stub_->ClosePort(Context().get(), request, &response);
  }
  grpc::Status Write(const std::string& port, const std::string& data) {
    pb::WriteRequest request;
    request.set_port_name(port);
    request.set_data(data);
    pb::WriteResponse response;
    return stub_->Write(Context().get(), request, &response);
  }
  grpc::Status Read(const std::string& port, pb::ReadResponse* response) {
    pb::ReadRequest request;
    request.set_port_name(port);
    request.set_timeout_ms(20);
    return stub_->Read(Context().get(), request, response);
  }

 private:
  std::unique_ptr<grpc::ClientContext> Context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("labgate-owner", owner_);
    context->set_deadline(std::chrono::system_clock::now() + kWait);
    return context;
  }
  std::unique_ptr<pb::SerialService::Stub> stub_;
  std::string owner_;
};

std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address) {
  return grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
}

TEST(PortListWatchTest, OnlyCurrentStateIsNotAChange) {
  EXPECT_FALSE(ChangesPortList(pb::PortEvent::TYPE_OPENED, "current state"));
  EXPECT_FALSE(ChangesPortList(pb::PortEvent::TYPE_ERROR, "device disconnected"));
  EXPECT_FALSE(ChangesPortList(pb::PortEvent::TYPE_RECONFIGURED, ""));
  EXPECT_FALSE(ChangesPortList(pb::PortEvent::TYPE_DATA, ""));
  EXPECT_TRUE(ChangesPortList(pb::PortEvent::TYPE_OPENED, ""));
  EXPECT_TRUE(ChangesPortList(pb::PortEvent::TYPE_CLOSED, "closed by client"));
  EXPECT_TRUE(ChangesPortList(pb::PortEvent::TYPE_AUTO_CLOSE, "idle_timeout"));
}

// Each stream's start is a change (the gateway cannot know what happened before it), so
// once there are as many changes as streams, every stream is in place.
TEST(PortListWatchTest, EveryBenchsOpensClosesAndAutoClosesAreChanges) {
  SerialBench first;
  SerialBench second;
  ASSERT_NO_FATAL_FAILURE(first.Start());
  ASSERT_NO_FATAL_FAILURE(second.Start());
  Changes changes;
  auto watch = PortListWatch::Start({ChannelTo(first.address()), ChannelTo(second.address())},
                                    [&changes] { changes.Add(); });
  ASSERT_TRUE(changes.WaitFor(2)) << "the streams did not start";
  Caller on_first(ChannelTo(first.address()), "someone-else");
  Caller on_second(ChannelTo(second.address()), "another-gateway");

  ASSERT_TRUE(on_second.Open("loop://b").ok());
  ASSERT_TRUE(changes.WaitFor(3)) << "an open on the second bench";
  ASSERT_TRUE(on_second.Write("loop://b", "data is no change").ok());
  ASSERT_TRUE(on_second.Close("loop://b").ok());
  ASSERT_TRUE(changes.WaitFor(4)) << "a close on the second bench";

  ASSERT_TRUE(on_first.Open("loop://idle", /*idle_ms=*/50).ok());
  ASSERT_TRUE(changes.WaitFor(5)) << "an open on the first bench";
  pb::ReadResponse read;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  do {
    ASSERT_TRUE(on_first.Read("loop://idle", &read).ok());
  } while (read.event() != "auto_close" && std::chrono::steady_clock::now() < deadline);
  ASSERT_EQ(read.event(), "auto_close");
  ASSERT_TRUE(changes.WaitFor(6)) << "an auto-close on the first bench";
}

TEST(PortListWatchTest, AServiceThatComesBackIsCaughtUpWith) {
  SerialBench bench;
  ASSERT_NO_FATAL_FAILURE(bench.Start());
  const int port = bench.port();
  Changes changes;
  auto watch = PortListWatch::Start({ChannelTo(bench.address())}, [&changes] { changes.Add(); });
  ASSERT_TRUE(changes.WaitFor(1)) << "the stream did not start";
  // Ports may have come and gone while the service was away: one change when it is back.
  bench.Stop();
  ASSERT_NO_FATAL_FAILURE(bench.Start(port));
  EXPECT_TRUE(changes.WaitFor(2)) << "no catch-up change after the service returned";
  Caller caller(ChannelTo(bench.address()), "someone");
  ASSERT_TRUE(caller.Open("loop://after").ok());
  EXPECT_TRUE(changes.WaitFor(3)) << "the renewed stream missed an open";
}

TEST(PortListWatchTest, TheStreamsEndWithTheWatch) {
  SerialBench bench;
  ASSERT_NO_FATAL_FAILURE(bench.Start());
  Changes changes;
  const size_t before = OpenStreams::count();
  auto watch = PortListWatch::Start({ChannelTo(bench.address())}, [&changes] { changes.Add(); });
  EXPECT_EQ(OpenStreams::count(), before + 1);
  ASSERT_TRUE(changes.WaitFor(1)) << "the stream did not start";
  watch.reset();
  EXPECT_TRUE(OpenStreams::WaitUntilNone(std::chrono::seconds(10)))
      << OpenStreams::count() << " stream(s) still open";
  Caller caller(ChannelTo(bench.address()), "someone");
  ASSERT_TRUE(caller.Open("loop://unwatched").ok());
  ASSERT_TRUE(caller.Close("loop://unwatched").ok());
  EXPECT_EQ(changes.count(), 1) << "a change reported after the watch was gone";
}

}  // namespace
}  // namespace labgate::gateway
