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

#include "gateway/backends/open_streams.h"
#include "gateway/tests/serial_bench.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::serial::v1;
using testing::ChannelTo;
using testing::SerialBench;
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
