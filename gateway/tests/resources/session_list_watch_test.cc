// SessionListWatch against a real session service on 127.0.0.1: every session created or
// closed, by anyone, is one change; and a service that was not up when the watch began is
// watched once it is.
#include "gateway/resources/session_list_watch.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

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

class SessionListWatchTest : public ::testing::Test {
 protected:
  static std::string Create(session_v1::SessionService::Stub* stub, const std::string& device) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    context.set_wait_for_ready(true);  // through the channel's reconnects
    session_v1::CreateSessionRequest request;
    request.set_device_id(device);
    session_v1::CreateSessionResponse response;
    EXPECT_TRUE(stub->CreateSession(&context, request, &response).ok());
    return response.session().id();
  }
  testing::TempDir temp_;
  const std::string& dir_ = temp_.path();
};

TEST_F(SessionListWatchTest, EachCreatedOrClosedSessionIsAChange) {
  SessionServer server(dir_);
  ASSERT_NO_FATAL_FAILURE(server.Start());
  auto channel = testing::ChannelTo(server.address());
  std::atomic<int> changes{0};
  auto watch = SessionListWatch::Start(channel, [&changes] { changes.fetch_add(1); });
  auto stub = session_v1::SessionService::NewStub(channel);

  // The watch may not be established yet when the first session is created: create until
  // one is seen. Every event is then one of these probes or of the session below.
  int probes = 0;
  ASSERT_TRUE(Eventually([&] {
    Create(stub.get(), "probe");
    ++probes;
    return changes.load() > 0;
  }));
  const int before = changes.load();
  const std::string id = Create(stub.get(), "dmm-1");
  EXPECT_TRUE(Eventually([&] { return changes.load() >= before + 1; }));

  grpc::ClientContext context;
  session_v1::CloseSessionRequest close;
  close.set_session_id(id);
  session_v1::CloseSessionResponse closed;
  ASSERT_TRUE(stub->CloseSession(&context, close, &closed).ok());
  EXPECT_TRUE(Eventually([&] { return changes.load() >= before + 2; }));
  // One change per event at most: the probes, the creation and the closing.
  EXPECT_LE(changes.load(), probes + 2);
  watch.reset();
}

TEST_F(SessionListWatchTest, AServiceThatComesUpLaterIsWatched) {
  SessionServer server(dir_);
  ASSERT_NO_FATAL_FAILURE(server.Start());
  const int port = server.port();
  const std::string address = server.address();
  server.Stop();

  auto channel = testing::ChannelTo(address);
  std::atomic<int> changes{0};
  auto watch = SessionListWatch::Start(channel, [&changes] { changes.fetch_add(1); });
  ASSERT_NO_FATAL_FAILURE(server.Start(port));
  auto stub = session_v1::SessionService::NewStub(channel);
  EXPECT_TRUE(Eventually([&] {
    Create(stub.get(), "late");
    return changes.load() > 0;
  }));
  watch.reset();
}

}  // namespace
}  // namespace labgate::gateway
