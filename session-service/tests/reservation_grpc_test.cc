// The reservations API over real gRPC on 127.0.0.1, with the callers labgate-session
// authenticates: named clients by their tokens, a gateway by the gateway token acting for the
// principal it names. The holder is always the caller's principal; another's reservation looks
// like none; only labgate's own processes may report a bench's inventory.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/caller_metadata.h"
#include "common/service_host.h"
#include "session-service/reservations/reservation_grpc_service.h"
#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

namespace pb = ::labgate::reservations::v1;
using testing::OpenStore;
using testing::TempDir;

constexpr char kGatewayToken[] = "gateway-secret-0123456789";

class ReservationGrpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStore(dir_.path());
    ASSERT_NE(store_, nullptr);
    ReservationDeskOptions desk_options;
    desk_options.run_timer = false;
    auto desk = ReservationDesk::Open(store_.get(), desk_options);
    ASSERT_TRUE(desk.ok()) << desk.status();
    CallerAuthOptions auth;
    auth.gateway_token = kGatewayToken;
    auth.client_tokens = {{"ci-runner", "token-of-ci"}, {"alice", "token-of-alice"}};
    service_ = std::make_unique<ReservationGrpcService>(*std::move(desk), auth);
    auto host = ServiceHost::Start("127.0.0.1:0", {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    stub_ = pb::ReservationService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(host_->port()), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    if (host_) host_->Shutdown(std::chrono::seconds(2));
    service_.reset();
    if (store_) store_->Shutdown();
  }

  // A context presenting `token`, and naming `owner` when given.
  static std::unique_ptr<grpc::ClientContext> As(const std::string& token,
                                                 const std::string& owner = "") {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
    if (!owner.empty()) context->AddMetadata(kOwnerMetadataKey, owner);
    return context;
  }

  grpc::Status Publish(const std::string& token) {
    pb::PublishInventoryRequest request;
    request.set_bench("");
    for (const char* name : {"psu-1", "psu-2"}) {
      pb::Reservable* reservable = request.add_reservables();
      reservable->set_name(name);
      reservable->add_tags("psu");
      reservable->set_present(true);
    }
    pb::PublishInventoryResponse response;
    return stub_->PublishInventory(As(token).get(), request, &response);
  }

  grpc::Status Reserve(const std::string& token, const std::string& owner,
                       const std::vector<std::string>& targets, pb::Reservation* reservation,
                       int64_t wait_s = 600) {
    pb::ReserveRequest request;
    for (const std::string& target : targets) request.add_targets(target);
    request.set_wait_s(wait_s);
    return stub_->Reserve(As(token, owner).get(), request, reservation);
  }

  TempDir dir_;
  std::unique_ptr<SqliteSessionStore> store_;
  std::unique_ptr<ReservationGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<pb::ReservationService::Stub> stub_;
};

TEST_F(ReservationGrpcTest, TheHolderIsTheAuthenticatedCallerAndTheQueueIsSeenByAll) {
  ASSERT_TRUE(Publish(kGatewayToken).ok());
  pb::Reservation ci;
  grpc::Status reserved = Reserve("token-of-ci", "", {"psu-1"}, &ci);
  ASSERT_TRUE(reserved.ok()) << reserved.error_message();
  EXPECT_EQ(ci.holder(), "ci-runner");
  EXPECT_EQ(ci.state(), "granted");
  EXPECT_EQ(ci.granted(0), "psu-1");
  EXPECT_TRUE(ci.has_expires_at());

  pb::Reservation carol;
  ASSERT_TRUE(Reserve(kGatewayToken, "http:carol", {"psu-1"}, &carol).ok());
  EXPECT_EQ(carol.holder(), "http:carol") << "a gateway acts for the principal it names";
  EXPECT_EQ(carol.state(), "waiting");
  EXPECT_EQ(carol.position(), 1);

  pb::ListReservationsResponse listed;
  ASSERT_TRUE(stub_->List(As("token-of-alice").get(), pb::ListReservationsRequest(), &listed).ok());
  ASSERT_EQ(listed.reservations_size(), 2);
  EXPECT_EQ(listed.reservations(0).holder(), "ci-runner");
  EXPECT_EQ(listed.reservations(1).holder(), "http:carol");
  ASSERT_EQ(listed.reservables_size(), 2);
  EXPECT_EQ(listed.reservables(0).holder(), "ci-runner");
  EXPECT_FALSE(listed.reservables(1).has_holder());

  // alice may not end ci's reservation: it looks like none.
  pb::ReleaseRequest release;
  release.set_id(ci.id());
  pb::Reservation ended;
  grpc::Status refused = stub_->Release(As("token-of-alice").get(), release, &ended);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::NOT_FOUND);
  // Nor may she claim to be ci.
  grpc::Status forged = stub_->Release(As("token-of-alice", "ci-runner").get(), release, &ended);
  EXPECT_EQ(forged.error_code(), grpc::StatusCode::PERMISSION_DENIED);

  ASSERT_TRUE(stub_->Release(As("token-of-ci").get(), release, &ended).ok());
  EXPECT_EQ(ended.state(), "released");
  EXPECT_TRUE(ended.has_ended_at());
  ASSERT_TRUE(stub_->List(As("token-of-ci").get(), pb::ListReservationsRequest(), &listed).ok());
  EXPECT_EQ(listed.reservables(0).holder(), "http:carol") << "the next in line, at once";
}

TEST_F(ReservationGrpcTest, OnlyLabgatesOwnProcessesReportInventoryAndBadRequestsAreNamed) {
  grpc::Status client = Publish("token-of-alice");
  EXPECT_EQ(client.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(client.error_message().find("may not report a bench's inventory"), std::string::npos);
  EXPECT_EQ(Publish("not-a-token").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  pb::PublishInventoryRequest nameless;
  nameless.add_reservables()->set_present(true);
  pb::PublishInventoryResponse published;
  EXPECT_EQ(stub_->PublishInventory(As(kGatewayToken).get(), nameless, &published).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(Publish(kGatewayToken).ok());

  pb::Reservation reservation;
  grpc::Status unknown = Reserve("token-of-alice", "", {"psu-9"}, &reservation);
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(unknown.error_message().find("unknown target 'psu-9'"), std::string::npos);
  EXPECT_EQ(Reserve("token-of-alice", "", {"psu-1"}, &reservation, -5).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  pb::ReserveRequest priority;
  priority.add_targets("psu-1");
  priority.set_priority(12);
  EXPECT_EQ(stub_->Reserve(As("token-of-alice").get(), priority, &reservation).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  pb::ReserveRequest too_long;
  too_long.add_targets("psu-1");
  too_long.set_hold_s(100000);
  grpc::Status hold = stub_->Reserve(As("token-of-alice").get(), too_long, &reservation);
  EXPECT_EQ(hold.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(hold.error_message().find("hold_s 100000"), std::string::npos);
  pb::RenewRequest renew;
  renew.set_id("no-such-id");
  EXPECT_EQ(stub_->Renew(As("token-of-alice").get(), renew, &reservation).error_code(),
            grpc::StatusCode::NOT_FOUND);
  // And the service still serves.
  EXPECT_TRUE(Reserve("token-of-alice", "", {"psu-1"}, &reservation, 0).ok());
  EXPECT_EQ(reservation.state(), "granted");
}

TEST_F(ReservationGrpcTest, AWatcherGetsTheQueueThenEveryChangeAndOnlyLabgateReportsUses) {
  ASSERT_TRUE(Publish(kGatewayToken).ok());
  pb::Reservation ci;
  ASSERT_TRUE(Reserve("token-of-ci", "", {"psu-1"}, &ci).ok());
  auto watching = As("token-of-alice");
  watching->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  std::unique_ptr<grpc::ClientReader<pb::ReservationUpdate>> watch =
      stub_->Watch(watching.get(), pb::WatchReservationsRequest());
  pb::ReservationUpdate update;
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_TRUE(update.snapshot());
  ASSERT_EQ(update.reservations_size(), 1);
  EXPECT_EQ(update.reservations(0).holder(), "ci-runner");
  EXPECT_EQ(update.reservations(0).state(), "granted");

  pb::Reservation carol;
  ASSERT_TRUE(Reserve(kGatewayToken, "http:carol", {"psu-1"}, &carol).ok());
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_FALSE(update.snapshot());
  EXPECT_EQ(update.reason(), "reserved");
  ASSERT_EQ(update.reservations_size(), 1);
  EXPECT_EQ(update.reservations(0).holder(), "http:carol");
  EXPECT_EQ(update.reservations(0).position(), 1);

  // A use labgate-serial saw renews the holder's grant, and the watcher hears the new expiry.
  pb::TouchRequest touch;
  pb::TouchRequest::Use* use = touch.add_uses();
  use->set_holder("ci-runner");
  use->set_target("psu-1");
  pb::TouchResponse touched;
  grpc::Status forged = stub_->Touch(As("token-of-alice").get(), touch, &touched);
  EXPECT_EQ(forged.error_code(), grpc::StatusCode::PERMISSION_DENIED)
      << "a client may not renew another's grant by saying it was used";
  ASSERT_TRUE(stub_->Touch(As(kGatewayToken).get(), touch, &touched).ok());
  EXPECT_EQ(touched.renewed(), 1);
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.reason(), "used");
  EXPECT_EQ(update.reservations(0).holder(), "ci-runner");

  pb::CancelRequest cancel;
  cancel.set_id(carol.id());
  pb::Reservation cancelled;
  EXPECT_EQ(stub_->Cancel(As("token-of-alice").get(), cancel, &cancelled).error_code(),
            grpc::StatusCode::NOT_FOUND)
      << "another's reservation looks like none";
  ASSERT_TRUE(stub_->Cancel(As(kGatewayToken, "http:carol").get(), cancel, &cancelled).ok());
  EXPECT_EQ(cancelled.state(), "cancelled");
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.reservations(0).state(), "cancelled");

  // Shutting down ends the stream with UNAVAILABLE rather than leaving it hanging.
  service_->FinishWatchStreams();
  EXPECT_FALSE(watch->Read(&update));
  EXPECT_EQ(watch->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(
      stub_->Watch(As("bad-token").get(), pb::WatchReservationsRequest())->Finish().error_code(),
      grpc::StatusCode::UNAUTHENTICATED);
}

}  // namespace
}  // namespace labgate::session
