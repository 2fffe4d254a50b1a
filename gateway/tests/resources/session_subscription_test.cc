// A labgate://sessions/{id} subscription against a real session service on 127.0.0.1: it
// is ready only once the service has registered the watch, so a message appended right
// after that is always reported; and it is ready even when the service is not there.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "absl/synchronization/notification.h"
#include "gateway/backends/open_streams.h"
#include "gateway/resources/labgate_resources.h"
#include "gateway/tests/eventually.h"
#include "gateway/tests/loopback_server.h"
#include "gateway/tests/session_server.h"
#include "gateway/tests/temp_dir.h"
#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::gateway {
namespace {

namespace session_v1 = labgate::session::v1;
using testing::Eventually;
using testing::SessionServer;

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return context;
}

class SessionSubscriptionTest : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_TRUE(OpenStreams::WaitUntilNone(std::chrono::seconds(20)))
        << OpenStreams::count() << " stream(s) open";
  }
  testing::TempDir temp_;
};

TEST_F(SessionSubscriptionTest, AMessageAppendedRightAfterReadyIsAlwaysReported) {
  SessionServer server(temp_.path());
  ASSERT_NO_FATAL_FAILURE(server.Start());
  auto channel = testing::ChannelTo(server.address());
  LabgateResources resources(ResourceChannels{channel, channel, channel}, std::chrono::seconds(10));
  auto stub = session_v1::SessionService::NewStub(channel);
  session_v1::CreateSessionRequest create;
  create.set_device_id("dmm-7");
  session_v1::CreateSessionResponse created;
  ASSERT_TRUE(stub->CreateSession(Context().get(), create, &created).ok());
  const std::string uri = "labgate://sessions/" + created.session().id();

  // Each round races the append against the watch's registration, which the old
  // acknowledgement (at once) lost now and then under load.
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> updates{0};
    absl::Notification ready;
    auto subscription = resources.SubscribeResourceWhenReady(
        uri, [&updates] { updates.fetch_add(1); }, [&ready] { ready.Notify(); });
    ASSERT_NE(subscription, nullptr);
    ASSERT_TRUE(ready.WaitForNotificationWithTimeout(absl::Seconds(30))) << "round " << round;
    session_v1::AppendMessageRequest append;
    append.set_session_id(created.session().id());
    append.set_content("MEAS:VOLT? " + std::to_string(round));
    append.set_direction("tx");
    session_v1::AppendMessageResponse appended;
    ASSERT_TRUE(stub->AppendMessage(Context().get(), append, &appended).ok());
    EXPECT_TRUE(Eventually([&updates] { return updates.load() > 0; }))
        << "no update for the append of round " << round;
    subscription.reset();
  }
}

TEST_F(SessionSubscriptionTest, ASubscriptionIsReadyEvenWithNoServiceThere) {
  // A port nothing listens on: the watch ends at once, and the subscriber still hears back.
  auto channel = testing::ChannelTo("127.0.0.1:1");
  LabgateResources resources(ResourceChannels{channel, channel, channel}, std::chrono::seconds(10));
  absl::Notification ready;
  auto subscription = resources.SubscribeResourceWhenReady(
      "labgate://sessions/nowhere", [] {}, [&ready] { ready.Notify(); });
  ASSERT_NE(subscription, nullptr);
  EXPECT_TRUE(ready.WaitForNotificationWithTimeout(absl::Seconds(30)));
}

}  // namespace
}  // namespace labgate::gateway
