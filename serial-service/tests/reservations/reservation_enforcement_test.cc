// Bench reservations enforced where the hardware is: labgate-serial on real gRPC (127.0.0.1,
// port 0) watching the reservation service of a real labgate-session child. Direct gRPC clients
// that are not the holder are refused, with the holder, the expiry and the queue in the
// refusal; the holder's uses renew its lease; the holder's open takes the port from another;
// restarts of either service resync, and the last grants hold while the service is away.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/service_host.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/serial_test_client.h"
#include "serial-service/tests/session_child.h"
#include "tests/serial_harness/pty_device.h"

namespace labgate::serial {
namespace {

namespace pb = ::labgate::reservations::v1;
using serial_harness::InstrumentMode;
using serial_harness::PtyDevice;
using testing::SerialClient;
using testing::SessionChild;

constexpr char kGatewayToken[] = "enforcement-gateway-token-0123456789";

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Polls `condition` for up to 20 s.
bool Eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

class ReservationEnforcementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/labgate-enforce-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    Write(dir_ + "/token", std::string(kGatewayToken) + "\n");
    Write(dir_ + "/clients", "ci ci-token-1\nalice alice-token-2\n");
    std::filesystem::create_directory(dir_ + "/profiles");
    Write(dir_ + "/profiles/psu.json",
          R"({"model": "LOOP-PSU", "tags": ["psu"], "settings": {"baud_rate": 9600}})");
    Write(dir_ + "/instruments.json", R"({"instruments": [
        {"name": "psu-1", "profile": "LOOP-PSU", "match": {"port_name": "loop://psu-1"}}]})");
    session_ = std::make_unique<SessionChild>(
        dir_, std::vector<std::string>{"--gateway-token-file", dir_ + "/token",
                                       "--client-token-file", dir_ + "/clients"});
    ASSERT_NE(session_->Start(), 0) << "labgate-session did not start";
    session_channel_ = grpc::CreateChannel(session_->address(), grpc::InsecureChannelCredentials());
    reservations_ = pb::ReservationService::NewStub(session_channel_);
    StartSerial();
  }
  void TearDown() override {
    StopSerial();
    session_.reset();
    std::filesystem::remove_all(dir_);
  }

  void StartSerial() {
    SerialServiceOptions options;
    options.session_channel = session_channel_;
    options.publish_inventory = true;
    options.session_token = kGatewayToken;
    options.profiles_dir = dir_ + "/profiles";
    options.instruments_file = dir_ + "/instruments.json";
    options.port_lister = [this] { return absl::StatusOr<std::vector<PortDetails>>(listed_); };
    options.caller_auth = CallerAuthOptions();
    options.caller_auth.gateway_token = kGatewayToken;
    options.caller_auth.client_tokens = {{"ci", "ci-token-1"}, {"alice", "alice-token-2"}};
    auto service = CreateSerialService(options);
    ASSERT_TRUE(service.ok()) << service.status();
    serial_ = std::move(*service);
    auto host = ServiceHost::Start("127.0.0.1:0", {serial_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(host_->port()),
                                       grpc::InsecureChannelCredentials());
    ci_ = std::make_unique<SerialClient>(channel, "", "ci-token-1");
    alice_ = std::make_unique<SerialClient>(channel, "", "alice-token-2");
  }
  void StopSerial() {
    if (serial_) serial_->Shutdown();
    if (host_) host_->Shutdown(std::chrono::seconds(2));
    host_.reset();
    serial_.reset();
  }

  std::unique_ptr<grpc::ClientContext> As(const std::string& token) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    context->AddMetadata("authorization", "Bearer " + token);
    return context;
  }
  pb::Reservation Reserve(const std::string& token, int64_t lease_s, int64_t wait_s = 0,
                          const std::string& target = "psu-1") {
    pb::ReserveRequest request;
    request.add_targets(target);
    request.set_lease_s(lease_s);
    request.set_wait_s(wait_s);
    pb::Reservation reservation;
    grpc::Status status = reservations_->Reserve(As(token).get(), request, &reservation);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return reservation;
  }
  // Who holds psu-1 as the reservation service says; "" when free or unknown.
  std::string Holder() {
    pb::ListReservationsResponse listed;
    if (!reservations_->List(As("alice-token-2").get(), {}, &listed).ok()) return "";
    for (const pb::Reservable& reservable : listed.reservables()) {
      if (reservable.name() == "psu-1") return reservable.holder();
    }
    return "";
  }
  // Whether labgate-serial is watching the reservation service now.
  bool Reachable() const {
    return serial_->ReservationState().value_or(GrantTable::State{}).reachable;
  }
  static grpc::Status OpenInstrument(SerialClient& client) {
    v1::OpenPortRequest request;
    request.set_instrument("psu-1");
    return client.Open(request);
  }
  // Waits until the reservation service has psu-1 from labgate-serial's inventory.
  void AwaitInventory() {
    ASSERT_TRUE(Eventually([&] {
      pb::ListReservationsResponse listed;
      return reservations_->List(As("alice-token-2").get(), {}, &listed).ok() &&
             listed.reservables_size() > 0;
    })) << "the inventory never arrived";
  }

  std::vector<PortDetails> listed_;  // what the host lists, in place of libserialport
  std::string dir_;
  std::unique_ptr<SessionChild> session_;
  std::shared_ptr<grpc::Channel> session_channel_;
  std::unique_ptr<pb::ReservationService::Stub> reservations_;
  std::unique_ptr<SerialGrpcService> serial_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<SerialClient> ci_;
  std::unique_ptr<SerialClient> alice_;
};

// A named instrument is reserved by its name only: its device's path, listed by the host while
// the instrument is closed, is not a second reservable that someone else could hold.
TEST_F(ReservationEnforcementTest, AnInstrumentsDeviceIsOneReservableUnderItsName) {
  StopSerial();
  PortDetails instrument_port, free_port;
  instrument_port.port_name = "loop://psu-1";
  free_port.port_name = "loop://spare";
  listed_ = {instrument_port, free_port};
  StartSerial();
  std::vector<std::string> names;
  ASSERT_TRUE(Eventually([&] {
    pb::ListReservationsResponse listed;
    if (!reservations_->List(As("alice-token-2").get(), {}, &listed).ok()) return false;
    names.clear();
    for (const pb::Reservable& reservable : listed.reservables())
      names.push_back(reservable.name());
    return std::find(names.begin(), names.end(), "loop://spare") != names.end();
  })) << "the inventory never listed the spare port";
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"loop://spare", "psu-1"}));
}

TEST_F(ReservationEnforcementTest, OnlyTheHolderUsesAReservedPortAndItsUsesRenewTheLease) {
  AwaitInventory();
  ASSERT_TRUE(OpenInstrument(*alice_).ok()) << "free: alice opens it";
  const pb::Reservation ci = Reserve("ci-token-1", /*lease_s=*/2);
  EXPECT_EQ(ci.state(), "granted") << "an open port is not a reservation";

  // labgate-serial hears of the grant without being called, and refuses alice's I/O.
  grpc::Status refused;
  ASSERT_TRUE(Eventually([&] {
    refused = alice_->Write("psu-1", "VOLT 5");
    return !refused.ok();
  }));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(refused.error_message().find("psu-1 is reserved by ci until "), std::string::npos)
      << refused.error_message();
  EXPECT_NE(refused.error_message().find("call reserve with targets [\"psu-1\"] and wait_s"),
            std::string::npos)
      << refused.error_message();

  // ci's open takes the port from alice; her path to it is refused too.
  ASSERT_TRUE(OpenInstrument(*ci_).ok());
  EXPECT_FALSE(alice_->Open("loop://psu-1", 9600).ok()) << "the instrument's path is reserved";
  EXPECT_FALSE(OpenInstrument(*alice_).ok());

  // ci uses it for more than two leases: each use renews the grant.
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(ci_->Write("psu-1", "VOLT 5").ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_EQ(Holder(), "ci") << "5 s of use kept a 2 s lease";
  ASSERT_TRUE(serial_->ReservationState().has_value());
  const GrantTable::State state = serial_->ReservationState().value_or(GrantTable::State{});
  EXPECT_TRUE(state.reachable);
  EXPECT_EQ(state.grants, 1);

  // alice queues, and her refusal says where she is.
  const pb::Reservation waiting = Reserve("alice-token-2", 60, /*wait_s=*/60);
  EXPECT_EQ(waiting.state(), "waiting");
  ASSERT_TRUE(Eventually([&] {
    return OpenInstrument(*alice_).error_message().find("you are 1st in the queue") !=
           std::string::npos;
  })) << OpenInstrument(*alice_).error_message();

  // ci stops using it: a lease later alice holds it, and her open takes it from ci.
  ASSERT_TRUE(Eventually([&] { return Holder() == "alice"; }));
  ASSERT_TRUE(Eventually([&] { return OpenInstrument(*alice_).ok(); }));
  EXPECT_TRUE(alice_->Write("psu-1", "VOLT 1").ok());
  grpc::Status ci_refused = ci_->Write("psu-1", "VOLT 9");
  EXPECT_FALSE(ci_refused.ok()) << "ci's port was taken by the holder";
}

// The holder of a device's grant takes it from another principal under any name for it (a
// udev link): the other's port is found by its device, not by the name it was opened under.
TEST_F(ReservationEnforcementTest, TheHolderTakesTheDeviceFromAnotherUnderAnotherNameForIt) {
  absl::StatusOr<std::unique_ptr<PtyDevice>> device = PtyDevice::Create(InstrumentMode::kEcho);
  ASSERT_TRUE(device.ok()) << "pty harness: " << device.status();
  const std::string path = (*device)->path();
  StopSerial();
  PortDetails listed;
  listed.port_name = path;
  listed_ = {listed};
  StartSerial();
  ASSERT_TRUE(Eventually([&] {
    pb::ListReservationsResponse reservables;
    if (!reservations_->List(As("alice-token-2").get(), {}, &reservables).ok()) return false;
    for (const pb::Reservable& reservable : reservables.reservables()) {
      if (reservable.name() == path) return true;
    }
    return false;
  })) << "the inventory never listed "
      << path;
  ASSERT_TRUE(alice_->Open(path, 9600).ok()) << "free: alice opens it";
  EXPECT_EQ(Reserve("ci-token-1", 60, 0, path).state(), "granted");

  const std::string link = dir_ + "/by-id-link";
  std::filesystem::create_symlink(path, link);
  grpc::Status taken;
  ASSERT_TRUE(Eventually([&] {
    taken = ci_->Open(link, 9600);
    return taken.ok();
  })) << "the holder was refused: "
      << taken.error_message();
  ASSERT_TRUE(ci_->Write(link, "from ci", v1::ENCODING_TEXT).ok());
  EXPECT_FALSE(alice_->Write(path, "from alice").ok()) << "alice's port was closed for ci";
  EXPECT_TRUE(Eventually([&] { return (*device)->Received() == "from ci"; }))
      << (*device)->Received();
}

// A script checked when it began must not keep writing once the port is reserved by another:
// each send is checked as it goes out.
TEST_F(ReservationEnforcementTest, AScriptStopsWritingWhenThePortIsReservedByAnotherMidway) {
  AwaitInventory();
  ASSERT_TRUE(OpenInstrument(*alice_).ok()) << "free: alice opens it";
  v1::SendExpectRequest script;
  script.set_port_name("psu-1");
  script.add_steps()->set_send("VOLT 1");
  script.add_steps()->set_delay_ms(5000);
  script.add_steps()->set_send("VOLT 2");
  auto ran = std::async(std::launch::async, [&] {
    v1::SendExpectResponse response;
    return alice_->stub()->SendExpect(alice_->Context().get(), script, &response);
  });
  ASSERT_EQ(Reserve("ci-token-1", /*lease_s=*/60).state(), "granted");
  ASSERT_TRUE(Eventually([&] {
    return serial_->ReservationState().value_or(GrantTable::State{}).grants == 1;
  })) << "labgate-serial never heard of the grant";
  const grpc::Status stopped = ran.get();
  EXPECT_EQ(stopped.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(stopped.error_message().find("psu-1 is reserved by ci until "), std::string::npos)
      << stopped.error_message();
}

TEST_F(ReservationEnforcementTest, RestartsResyncAndTheLastGrantsHoldWhileTheServiceIsAway) {
  AwaitInventory();
  const pb::Reservation ci = Reserve("ci-token-1", /*lease_s=*/60);
  ASSERT_EQ(ci.state(), "granted");
  ASSERT_TRUE(Eventually([&] { return !OpenInstrument(*alice_).ok(); }));

  session_->Kill();
  ASSERT_TRUE(Eventually([&] { return !Reachable(); }));
  grpc::Status away = OpenInstrument(*alice_);
  EXPECT_EQ(away.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(away.error_message().find("as last known: the reservation service is unreachable"),
            std::string::npos)
      << away.error_message();
  EXPECT_EQ(serial_->ReservationState().value_or(GrantTable::State{}).grants, 1);

  ASSERT_NE(session_->Start(session_->port()), 0) << "labgate-session did not restart";
  ASSERT_TRUE(Eventually([&] { return Reachable(); }));
  EXPECT_EQ(OpenInstrument(*alice_).error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << "the grant was kept through the restart";

  // A restarted labgate-serial knows the grant from its first snapshot, and its first calls
  // wait for that snapshot instead of passing unchecked.
  StopSerial();
  StartSerial();
  EXPECT_EQ(OpenInstrument(*alice_).error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << "a call right after the restart passed before the grants were known";
  ASSERT_TRUE(Reachable());
  ASSERT_TRUE(OpenInstrument(*ci_).ok());

  pb::ReleaseRequest release;
  release.set_id(ci.id());
  pb::Reservation released;
  ASSERT_TRUE(reservations_->Release(As("ci-token-1").get(), release, &released).ok());
  ASSERT_TRUE(Eventually([&] { return alice_->Open("loop://psu-2", 9600).ok(); }))
      << "an unreserved port was never refused";
  ASSERT_TRUE(Eventually([&] {
    grpc::Status status = OpenInstrument(*alice_);
    return status.error_message().find("reserved") == std::string::npos;
  })) << "released: no longer reserved (ci still has it open)";
}

}  // namespace
}  // namespace labgate::serial
