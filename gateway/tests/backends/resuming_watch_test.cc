// ResumingWatch's Stop against a real session service on 127.0.0.1: it returns only once a
// callback running on another thread has returned (its owner is destroyed next), and a callback
// may stop its own watch without waiting for itself.
#include "gateway/backends/resuming_watch.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gateway/tests/eventually.h"
#include "gateway/tests/loopback_server.h"
#include "gateway/tests/session_server.h"
#include "gateway/tests/temp_dir.h"
#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::gateway {
namespace {

namespace session_v1 = labgate::session::v1;
using Stream = ResumingWatch<session_v1::SessionEvent>;
using testing::Eventually;

class ResumingWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(server_.Start());
    channel_ = testing::ChannelTo(server_.address());
    stub_ = session_v1::SessionService::NewStub(channel_);
  }
  std::shared_ptr<Stream> Watch(std::function<void(const session_v1::SessionEvent&)> on_event) {
    std::shared_ptr<session_v1::SessionService::Stub> stub =
        session_v1::SessionService::NewStub(channel_);
    return Stream::Start(
        [stub](grpc::ClientContext* context,
               grpc::ClientReadReactor<session_v1::SessionEvent>* reactor) {
          static const session_v1::WatchSessionRequest kEverySession;
          stub->async()->WatchSession(context, &kEverySession, reactor);
        },
        {.on_event = std::move(on_event), .on_started = nullptr}, std::chrono::seconds(1));
  }
  void Create() {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    session_v1::CreateSessionRequest request;
    request.set_device_id("dmm-1");
    session_v1::CreateSessionResponse response;
    EXPECT_TRUE(stub_->CreateSession(&context, request, &response).ok());
  }

  testing::TempDir temp_;
  testing::SessionServer server_{temp_.path()};
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<session_v1::SessionService::Stub> stub_;
};

TEST_F(ResumingWatchTest, StopWaitsForACallbackRunningOnAnotherThread) {
  absl::Notification in_callback;
  absl::Notification release;
  std::atomic<bool> callback_returned{false};
  auto watch = Watch([&](const session_v1::SessionEvent&) {
    if (in_callback.HasBeenNotified()) return;
    in_callback.Notify();
    release.WaitForNotification();
    callback_returned = true;
  });
  // The stream may not be up yet when the first session is created: create until one is heard.
  ASSERT_TRUE(Eventually([&] {
    Create();
    return in_callback.HasBeenNotified();
  }));

  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    watch->Stop();
    stopped = true;
  });
  // Not a timing assertion: Stop must not return at all while the callback is held.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(stopped.load());
  release.Notify();
  stopper.join();
  EXPECT_TRUE(callback_returned.load());
}

TEST_F(ResumingWatchTest, ACallbackThatStopsItsOwnWatchReturnsAndNothingFollows) {
  absl::Mutex mu;
  std::shared_ptr<Stream> watch;
  std::atomic<int> events{0};
  absl::Notification stopped_itself;
  {
    absl::MutexLock lock(&mu);
    watch = Watch([&](const session_v1::SessionEvent&) {
      events.fetch_add(1);
      std::shared_ptr<Stream> self;
      {
        absl::MutexLock lock(&mu);
        self = watch;
      }
      self->Stop();
      stopped_itself.Notify();
    });
  }
  ASSERT_TRUE(Eventually([&] {
    Create();
    return stopped_itself.HasBeenNotified();
  }));
  EXPECT_EQ(events.load(), 1);
  // A stopped watch neither calls back nor begins again.
  Create();
  Create();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(events.load(), 1);
  absl::MutexLock lock(&mu);
  watch.reset();
}

}  // namespace
}  // namespace labgate::gateway
