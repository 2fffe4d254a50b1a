// OwnerLease against a real labgate serial service on 127.0.0.1: while the lease stream
// lives the owner's ports stay open; when it is released (or dropped) the service closes
// them, and another owner's ports are left alone. A service that restarts is leased again, and
// a link that goes silent is found out by both ends' pings.
#include "gateway/backends/owner_lease.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "gateway/tests/eventually.h"
#include "gateway/tests/serial_bench.h"
#include "gateway/tests/tcp_relay.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::serial::v1;
using testing::ChannelTo;
using testing::Eventually;
using testing::SerialBench;
using testing::TcpRelay;
constexpr auto kWait = std::chrono::seconds(30);
// Pings every 300 ms, so that a silent link is found out within a second or two.
constexpr GrpcKeepalive kQuickPings{std::chrono::milliseconds(300), std::chrono::milliseconds(300)};

std::unique_ptr<grpc::ClientContext> As(const std::string& owner) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->AddMetadata("labgate-owner", owner);
  context->set_deadline(std::chrono::system_clock::now() + kWait);
  return context;
}

class OwnerLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_.SetKeepalive(kQuickPings);
    ASSERT_NO_FATAL_FAILURE(bench_.Start());
    channel_ = ChannelTo(bench_.address());
    stub_ = pb::SerialService::NewStub(channel_);
  }

  void Open(const std::string& owner, const std::string& port) {
    pb::OpenPortRequest request;
    request.set_port_name(port);
    request.set_baud_rate(9600);
    pb::OpenPortResponse response;
    grpc::Status status = stub_->OpenPort(As(owner).get(), request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  std::vector<std::string> OpenPorts() {
    pb::GetStatusResponse response;
    grpc::Status status = stub_->GetStatus(As("observer").get(), pb::GetStatusRequest(), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.open_ports().begin(), response.open_ports().end()};
  }

  SerialBench bench_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::SerialService::Stub> stub_;
};

TEST_F(OwnerLeaseTest, ReleasingTheLeaseClosesOnlyThatOwnersPorts) {
  std::shared_ptr<OwnerLease> lease = OwnerLease::Start(channel_, "alice");
  ASSERT_TRUE(Eventually([&] { return lease->active(); })) << "the service never confirmed";
  ASSERT_NO_FATAL_FAILURE(Open("alice", "loop://alice"));
  ASSERT_NO_FATAL_FAILURE(Open("bob", "loop://bob"));
  EXPECT_EQ(OpenPorts().size(), 2u);

  lease->Release();
  EXPECT_TRUE(Eventually([&] { return OpenPorts() == std::vector<std::string>{"loop://bob"}; }));
  EXPECT_TRUE(Eventually([&] { return !lease->active(); }));
}

TEST_F(OwnerLeaseTest, DroppingTheLeaseReleasesIt) {
  ASSERT_NO_FATAL_FAILURE(Open("carol", "loop://carol"));
  {
    std::shared_ptr<OwnerLease> lease = OwnerLease::Start(channel_, "carol");
    ASSERT_TRUE(Eventually([&] { return lease->active(); }));
  }
  EXPECT_TRUE(Eventually([&] { return OpenPorts().empty(); }));
}

TEST_F(OwnerLeaseTest, ARestartedServiceIsLeasedAgainSoItsPortsStillCloseWithTheOwner) {
  std::shared_ptr<OwnerLease> lease = OwnerLease::Start(channel_, "erin");
  ASSERT_TRUE(Eventually([&] { return lease->active(); }));
  const int port = bench_.port();
  bench_.Stop();
  EXPECT_TRUE(Eventually([&] { return !lease->active(); })) << "a lost lease still shows held";
  ASSERT_NO_FATAL_FAILURE(bench_.Start(port));
  ASSERT_TRUE(Eventually([&] { return lease->active(); }, kWait))
      << "the lease was never asked for again";
  ASSERT_NO_FATAL_FAILURE(Open("erin", "loop://after-restart"));
  ASSERT_NO_FATAL_FAILURE(Open("frank", "loop://frank"));

  lease->Release();
  EXPECT_TRUE(Eventually([&] { return OpenPorts() == std::vector<std::string>{"loop://frank"}; }));
}

// The gateway's host lost power, or a cable was pulled: the link neither carries bytes nor
// closes. The service's unanswered pings end the Lease, so the owner's ports close; the
// gateway's own pings drop the link, and it leases again over a new one.
TEST_F(OwnerLeaseTest, ASilentLinkEndsTheLeaseAndTheLeaseIsTakenAgainOverANewLink) {
  TcpRelay relay(bench_.port());
  auto linked = ChannelTo("127.0.0.1:" + std::to_string(relay.port()), kQuickPings);
  std::shared_ptr<OwnerLease> lease = OwnerLease::Start(linked, "gina");
  ASSERT_TRUE(Eventually([&] { return lease->active(); }));
  ASSERT_NO_FATAL_FAILURE(Open("gina", "loop://gina"));

  relay.Freeze();
  EXPECT_TRUE(Eventually([&] { return OpenPorts().empty(); }))
      << "the service kept the ports of an owner whose link went silent";
  EXPECT_TRUE(Eventually([&] { return !lease->active(); }));
  ASSERT_TRUE(Eventually([&] { return lease->active(); }))
      << "the gateway never dropped the silent link and leased again";
  ASSERT_NO_FATAL_FAILURE(Open("gina", "loop://gina-again"));
  lease->Release();
  EXPECT_TRUE(Eventually([&] { return OpenPorts().empty(); }))
      << "the lease taken again over the new link does not hold the owner's ports";
}

TEST_F(OwnerLeaseTest, OwnerLeasesHoldOneLeasePerBench) {
  SerialBench other;
  ASSERT_NO_FATAL_FAILURE(other.Start());
  auto other_channel = ChannelTo(other.address());
  OwnerLeases leases({channel_, other_channel}, pb::SerialService::service_full_name());
  EXPECT_TRUE(leases.Covers(pb::SerialService::service_full_name()));
  EXPECT_FALSE(leases.Covers("labgate.session.v1.SessionService"));

  auto other_stub = pb::SerialService::NewStub(other_channel);
  std::shared_ptr<void> held = leases.Acquire("dave");
  ASSERT_NO_FATAL_FAILURE(Open("dave", "loop://here"));
  pb::OpenPortRequest request;
  request.set_port_name("loop://there");
  request.set_baud_rate(9600);
  pb::OpenPortResponse response;
  ASSERT_TRUE(other_stub->OpenPort(As("dave").get(), request, &response).ok());

  held.reset();  // both benches close dave's ports
  EXPECT_TRUE(Eventually([&] { return OpenPorts().empty(); }));
  EXPECT_TRUE(Eventually([&] {
    pb::GetStatusResponse status;
    return other_stub->GetStatus(As("observer").get(), pb::GetStatusRequest(), &status).ok() &&
           status.open_ports().empty();
  }));
}

// A connection's first serial call goes to the service only once its Lease has: an open that
// reached the service first could finish for an owner the service cannot see go.
TEST_F(OwnerLeaseTest, AFirstCallWaitsUntilTheServiceHasAnsweredTheLease) {
  SerialBench other;
  ASSERT_NO_FATAL_FAILURE(other.Start());
  OwnerLeases leases({channel_, ChannelTo(other.address())},
                     pb::SerialService::service_full_name());
  std::shared_ptr<void> held = leases.Acquire("hana");
  std::atomic<int> ran{0};
  std::atomic<bool> leased_when_run{false};
  auto* lease_list = static_cast<std::vector<std::shared_ptr<OwnerLease>>*>(held.get());
  OwnerLeases::WhenFirstAnswered(held, [&] {
    bool all = true;
    for (const auto& lease : *lease_list) all = all && lease->active();
    leased_when_run = all;
    ++ran;
  });
  ASSERT_TRUE(Eventually([&] { return ran.load() == 1; }));
  EXPECT_TRUE(leased_when_run.load()) << "the call went ahead before every bench held the lease";
  // Once answered, later calls go at once, on the caller's thread.
  bool at_once = false;
  OwnerLeases::WhenFirstAnswered(held, [&] { at_once = true; });
  EXPECT_TRUE(at_once);
}

TEST_F(OwnerLeaseTest, ASilentServiceHoldsAFirstCallOnlyForTheBound) {
  // Connections are taken by the kernel and never read: nothing answers.
  const int silent = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(silent, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(silent, 16), 0);
  ASSERT_EQ(getsockname(silent, reinterpret_cast<sockaddr*>(&address), &length), 0);
  std::shared_ptr<OwnerLease> lease =
      OwnerLease::Start(ChannelTo("127.0.0.1:" + std::to_string(ntohs(address.sin_port))), "ivan");
  std::atomic<bool> ran{false};
  lease->WhenFirstAnswered([&] { ran = true; });
  EXPECT_FALSE(lease->first_answered());
  EXPECT_TRUE(Eventually([&] { return ran.load(); }, OwnerLease::kFirstAnswerBound * 10))
      << "a call waited for a silent service past the bound";
  EXPECT_TRUE(lease->first_answered());
  EXPECT_FALSE(lease->active());
  lease->Release();
  close(silent);
}

}  // namespace
}  // namespace labgate::gateway
