// labgate-serial's inventory reaching the reservation service of a real labgate-session child:
// named instruments with their tags and the ports that are no instrument's, under the bench's
// name, presented with the gateway token; reported again after labgate-session restarts.
#include "serial-service/reservations/inventory_publisher.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/service_host.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/session_child.h"

namespace labgate::serial {
namespace {

namespace pb = ::labgate::reservations::v1;
using testing::SessionChild;

constexpr char kToken[] = "inventory-test-token-0123456789abcdef";

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

class InventoryPublisherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/labgate-inventory-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    Write(dir_ + "/token", std::string(kToken) + "\n");
    session_ = std::make_unique<SessionChild>(
        dir_, std::vector<std::string>{"--gateway-token-file", dir_ + "/token"});
    ASSERT_NE(session_->Start(), 0) << "labgate-session did not start";
    channel_ = grpc::CreateChannel(session_->address(), grpc::InsecureChannelCredentials());
    reservations_ = pb::ReservationService::NewStub(channel_);
  }
  void TearDown() override {
    if (service_) service_->Shutdown();
    service_.reset();
    session_.reset();
    std::filesystem::remove_all(dir_);
  }

  // The reservables labgate-session knows, by name, once `count` of them are there.
  std::map<std::string, pb::Reservable> Reservables(size_t count) {
    std::map<std::string, pb::Reservable> by_name;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
      pb::ListReservationsResponse listed;
      if (reservations_->List(&context, pb::ListReservationsRequest(), &listed).ok()) {
        by_name.clear();
        for (const pb::Reservable& reservable : listed.reservables()) {
          by_name[reservable.name()] = reservable;
        }
        if (by_name.size() >= count) return by_name;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return by_name;
  }

  std::string dir_;
  std::unique_ptr<SessionChild> session_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::ReservationService::Stub> reservations_;
  std::unique_ptr<SerialGrpcService> service_;
};

TEST_F(InventoryPublisherTest, InstrumentsAndOtherPortsAreReportedUnderTheBenchsName) {
  std::filesystem::create_directory(dir_ + "/profiles");
  Write(dir_ + "/profiles/psu.json",
        R"({"model": "LOOP-PSU", "tags": ["supply"], "settings": {"baud_rate": 9600}})");
  Write(dir_ + "/instruments.json", R"({"instruments": [
      {"name": "psu-loop", "profile": "LOOP-PSU", "match": {"port_name": "loop://psu"},
       "tags": ["bench-1"]},
      {"name": "psu-gone", "profile": "LOOP-PSU", "match": {"port_name": "/dev/ttyNOTHERE"}}]})");
  SerialServiceOptions options;
  options.session_channel = channel_;
  options.publish_inventory = true;
  options.bench = "lab-a";
  options.session_token = kToken;
  options.profiles_dir = dir_ + "/profiles";
  options.instruments_file = dir_ + "/instruments.json";
  options.port_lister = [] {
    PortDetails usb;
    usb.port_name = "/dev/ttyUSB7";
    return absl::StatusOr<std::vector<PortDetails>>(std::vector<PortDetails>{usb});
  };
  auto service = CreateSerialService(options);
  ASSERT_TRUE(service.ok()) << service.status();
  service_ = std::move(*service);

  std::map<std::string, pb::Reservable> reported = Reservables(3);
  ASSERT_EQ(reported.size(), 3u);
  const pb::Reservable& psu = reported["lab-a:psu-loop"];
  EXPECT_TRUE(psu.present());
  EXPECT_EQ(psu.bench(), "lab-a");
  EXPECT_EQ(std::vector<std::string>(psu.tags().begin(), psu.tags().end()),
            (std::vector<std::string>{"bench-1", "supply"}));
  EXPECT_FALSE(reported["lab-a:psu-gone"].present()) << "listed, but never granted";
  EXPECT_TRUE(reported.contains("lab-a:/dev/ttyUSB7"));
  EXPECT_FALSE(reported.contains("lab-a:loop://psu")) << "an instrument's port is the instrument";

  grpc::ClientContext context;
  pb::ReserveRequest request;
  request.add_tags("supply");
  pb::Reservation granted;
  ASSERT_TRUE(reservations_->Reserve(&context, request, &granted).ok());
  EXPECT_EQ(granted.state(), "granted");
  EXPECT_EQ(granted.granted(0), "lab-a:psu-loop") << "the present one of the two supplies";
}

TEST_F(InventoryPublisherTest, ARestartedSessionServiceHearsTheInventoryAgainAndNoTokenIsRefused) {
  InventoryPublisherOptions options;
  options.token = kToken;
  options.period = std::chrono::milliseconds(100);
  InventoryPublisher publisher(
      channel_,
      [] {
        pb::Reservable port;
        port.set_name("/dev/ttyUSB0");
        port.set_present(true);
        return std::vector<pb::Reservable>{port};
      },
      options);
  EXPECT_EQ(Reservables(1).size(), 1u);
  session_->Kill();
  ASSERT_NE(session_->Start(session_->port()), 0) << "labgate-session did not restart";
  EXPECT_EQ(Reservables(1).size(), 1u) << "reported again to the restarted service";

  InventoryPublisherOptions tokenless;
  tokenless.bench = "rogue";
  tokenless.period = std::chrono::milliseconds(50);
  InventoryPublisher refused(
      channel_,
      [] {
        pb::Reservable port;
        port.set_name("/dev/ttyS9");
        return std::vector<pb::Reservable>{port};
      },
      tokenless);
  const int64_t before = publisher.published();
  while (publisher.published() < before + 3) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(refused.published(), 0) << "a report without the token is not taken";
  EXPECT_EQ(Reservables(1).size(), 1u);
}

}  // namespace
}  // namespace labgate::serial
