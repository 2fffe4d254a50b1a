// The reserve tool against the real reservation service on 127.0.0.1 when the client cancels
// while the reservation service is answering: the client's cancel does not cut the reserve
// call (cut, it could leave a reservation whose id nobody has), and the reservation its answer
// made is released, granted or waiting.
#include "gateway/tools/reservation_waits.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/caller_metadata.h"
#include "common/service_host.h"
#include "gateway/tests/eventually.h"
#include "gateway/tests/request_context.h"
#include "gateway/tests/temp_dir.h"
#include "gateway/tools/catalog_tools.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"
#include "session-service/session_service.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::reservations::v1;
using nlohmann::json;
using testing::Outcome;
using testing::RecordingRequest;

// The catalog's reserve, whose answer waits until the test lets it through: the client's
// cancel can then come between the service's answer and the gateway's reading of it.
class HeldAnswers final : public ToolProvider {
 public:
  explicit HeldAnswers(ToolProvider* tools) : tools_(tools) {}
  std::vector<json> ListTools() const override { return {}; }
  bool HasTool(const std::string& name) const override { return tools_->HasTool(name); }
  void CallTool(const std::string& name, const json& arguments,
                std::shared_ptr<RequestContext> context, ToolDone done) override {
    tools_->CallTool(name, arguments, std::move(context),
                     [this, done = std::move(done)](absl::StatusOr<ToolResult> result) {
                       std::lock_guard<std::mutex> lock(mutex_);
                       held_ = std::move(result);
                       held_done_ = done;
                       changed_.notify_all();
                     });
  }
  // The held answer once the service has given it; null if it has not, or failed.
  json WaitForAnswer() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!changed_.wait_for(lock, testing::kWait, [this] { return held_done_ != nullptr; })) {
      return json();
    }
    return held_.ok() ? held_->AsJson() : json();
  }
  void LetThrough() {
    absl::StatusOr<ToolResult> held = absl::UnknownError("no answer held");
    ToolDone done;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::swap(held, held_);
      done = std::move(held_done_);
      held_done_ = nullptr;
    }
    if (done) done(std::move(held));
  }

 private:
  ToolProvider* const tools_;
  std::mutex mutex_;
  std::condition_variable changed_;
  absl::StatusOr<ToolResult> held_ = absl::UnknownError("no answer held");
  ToolDone held_done_;  // set once the service has answered
};

class ReservationWaitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto sessions = session::CreateSessionService({dir_.path()});
    ASSERT_TRUE(sessions.ok()) << sessions.status();
    sessions_ = std::move(*sessions);
    CallerAuthOptions auth;
    auth.trust_every_caller = true;  // the gateway, naming the principal it acts for
    auto reservations = session::CreateReservationService(*sessions_, auth);
    ASSERT_TRUE(reservations.ok()) << reservations.status();
    reservations_ = std::move(*reservations);
    auto host = ServiceHost::Start("127.0.0.1:0", {reservations_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(host_->port()),
                                   grpc::InsecureChannelCredentials());
    stub_ = pb::ReservationService::NewStub(channel_);
    ASSERT_NO_FATAL_FAILURE(PublishPsu());

    channels_.Set(pb::ReservationService::service_full_name(), channel_);
    auto catalog = ToolCatalog::FromServices(
        {pb::ReserveRequest::descriptor()->file()->FindServiceByName("ReservationService")});
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    catalog_ = std::move(*catalog);
    invoker_ = std::make_unique<ToolInvoker>(&channels_);
    tools_ = std::make_unique<CatalogTools>(catalog_.get(), invoker_.get(), nullptr,
                                            std::chrono::seconds(20));
    held_ = std::make_unique<HeldAnswers>(tools_.get());
    watch_ = ReservationWatch::Start(channel_);
    waits_ = std::make_unique<ReservationWaits>(held_.get(), catalog_.get(), invoker_.get(),
                                                watch_.get(), std::chrono::seconds(20));
  }
  void TearDown() override {
    waits_.reset();
    if (watch_) watch_->Stop();
    watch_.reset();
    if (host_) host_->Shutdown(std::chrono::seconds(2));
    reservations_.reset();
    if (sessions_) sessions_->Shutdown();
  }

  static std::unique_ptr<grpc::ClientContext> As(const std::string& owner) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    context->AddMetadata(kOwnerMetadataKey, owner);
    return context;
  }
  void PublishPsu() {
    pb::PublishInventoryRequest request;
    pb::Reservable* psu = request.add_reservables();
    psu->set_name("psu-1");
    psu->set_present(true);
    pb::PublishInventoryResponse response;
    grpc::Status published =
        stub_->PublishInventory(As("labgate-serial").get(), request, &response);
    ASSERT_TRUE(published.ok()) << published.error_message();
  }
  // The reservations `holder` has that have not ended.
  int ReservationsOf(const std::string& holder) {
    pb::ListReservationsResponse listed;
    EXPECT_TRUE(stub_->List(As(holder).get(), pb::ListReservationsRequest(), &listed).ok());
    int count = 0;
    for (const pb::Reservation& reservation : listed.reservations()) {
      if (reservation.holder() == holder) ++count;
    }
    return count;
  }

  testing::TempDir dir_;
  std::unique_ptr<session::SessionGrpcService> sessions_;
  std::unique_ptr<session::ReservationGrpcService> reservations_;
  std::unique_ptr<ServiceHost> host_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::ReservationService::Stub> stub_;
  BackendChannels channels_;
  std::unique_ptr<ToolCatalog> catalog_;
  std::unique_ptr<ToolInvoker> invoker_;
  std::unique_ptr<CatalogTools> tools_;
  std::unique_ptr<HeldAnswers> held_;
  std::unique_ptr<ReservationWatch> watch_;
  std::unique_ptr<ReservationWaits> waits_;
};

TEST_F(ReservationWaitsTest, AGrantAnsweredAfterTheClientCancelledIsReleased) {
  auto carol = std::make_shared<RecordingRequest>("http:carol");
  Outcome<absl::StatusOr<ToolResult>> outcome;
  waits_->CallTool("reserve", {{"targets", {"psu-1"}}}, carol, outcome.Callback());
  const json answer = held_->WaitForAnswer();
  ASSERT_TRUE(answer.is_object()) << "no answer from the reservation service";
  ASSERT_EQ(answer["structuredContent"]["state"], "granted") << answer.dump();
  EXPECT_FALSE(carol->has_cancel_handler()) << "the client's cancel must not cut the reserve call";
  ASSERT_EQ(ReservationsOf("http:carol"), 1);

  carol->Cancel();
  held_->LetThrough();
  absl::StatusOr<ToolResult> result = outcome.Wait();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
  EXPECT_NE(result.status().message().find("was released"), std::string::npos) << result.status();
  EXPECT_TRUE(testing::Eventually([&] { return ReservationsOf("http:carol") == 0; }))
      << "a grant nobody heard of holds psu-1 until its lease ends";
}

TEST_F(ReservationWaitsTest, AWaitingReserveAnsweredAfterTheClientCancelledLeavesTheQueue) {
  pb::ReserveRequest alices;
  alices.add_targets("psu-1");
  pb::Reservation held;
  ASSERT_TRUE(stub_->Reserve(As("http:alice").get(), alices, &held).ok());
  ASSERT_EQ(held.state(), "granted");

  auto carol = std::make_shared<RecordingRequest>("http:carol");
  Outcome<absl::StatusOr<ToolResult>> outcome;
  waits_->CallTool("reserve", {{"targets", {"psu-1"}}, {"wait_s", 60}}, carol, outcome.Callback());
  const json answer = held_->WaitForAnswer();
  ASSERT_TRUE(answer.is_object()) << "no answer from the reservation service";
  ASSERT_EQ(answer["structuredContent"]["state"], "waiting") << answer.dump();
  EXPECT_FALSE(carol->has_cancel_handler()) << "the client's cancel must not cut the reserve call";

  carol->Cancel();
  held_->LetThrough();
  absl::StatusOr<ToolResult> result = outcome.Wait();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
  EXPECT_TRUE(testing::Eventually([&] { return ReservationsOf("http:carol") == 0; }))
      << "carol's cancelled wait stays in the queue ahead of everyone after her";
  EXPECT_EQ(ReservationsOf("http:alice"), 1) << "alice's grant is not disturbed";
}

}  // namespace
}  // namespace labgate::gateway
