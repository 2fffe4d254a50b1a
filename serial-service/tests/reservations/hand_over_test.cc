// The moment of a hand-over: labgate-session tells a reservation's holder and labgate-serial's
// grant table of a grant separately, so the new holder's first open may arrive while the table
// still shows the previous holder. An open refused to the principal first in the queue is asked
// again as the table changes, for a bounded time; anyone else is refused at once.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "serial-service/port_service.h"
#include "serial-service/reservations/grant_table.h"
#include "serial-service/tests/reservations/reservation_protos.h"
#include "serial-service/tests/test_util.h"

namespace labgate::serial {
namespace {

namespace pb = ::labgate::reservations::v1;
using std::chrono::seconds;
using testing::Granted;
using testing::Waiting;

pb::Reservation Released(const std::string& id, const std::string& holder,
                         const std::string& target) {
  pb::Reservation reservation = Granted(id, holder, {target}, seconds(0));
  reservation.set_state("released");
  return reservation;
}

TEST(GrantTableHandOverTest, TheFirstInTheQueueIsKnownAndAChangeIsAwaited) {
  GrantTable table("");
  table.Replace({Granted("r1", "http:alice", {"psu-1"}, seconds(60)),
                 Waiting("r2", "http:bob", "psu-1", 1), Waiting("r3", "http:carol", "psu-1", 2)});
  EXPECT_TRUE(table.WaitsFirstFor("http:bob", {"psu-1"}));
  EXPECT_FALSE(table.WaitsFirstFor("http:carol", {"psu-1"})) << "second in the queue";
  EXPECT_FALSE(table.WaitsFirstFor("http:dave", {"psu-1"})) << "not in the queue";
  EXPECT_FALSE(table.WaitsFirstFor("http:bob", {"psu-2"})) << "another target";

  const uint64_t seen = table.changes();
  EXPECT_FALSE(table.AwaitChangeAfter(seen, absl::Milliseconds(20))) << "nothing changed";
  std::future<bool> changed = std::async(std::launch::async, [&table, seen] {
    return table.AwaitChangeAfter(seen, absl::Seconds(30));
  });
  table.Apply(
      {Released("r1", "http:alice", "psu-1"), Granted("r2", "http:bob", {"psu-1"}, seconds(60))});
  EXPECT_TRUE(changed.get());
  EXPECT_TRUE(table.Check("http:bob", {"psu-1"}).ok());
}

class HandOverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<PortService>> created = PortService::Create({});
    ASSERT_TRUE(created.ok()) << created.status();
    service_ = *std::move(created);
    grants_->Replace({Granted("r1", "http:alice", {"loop://psu"}, seconds(60)),
                      Waiting("r2", "http:bob", "loop://psu", 1),
                      Waiting("r3", "http:carol", "loop://psu", 2)});
    service_->SetGrants(grants_);
  }

  std::future<absl::StatusOr<PortSettings>> Open(const std::string& owner) {
    PortSettings settings;
    settings.baud_rate = 9600;
    return testing::Started<absl::StatusOr<PortSettings>>(
        [&](auto done) { service_->OpenPort(owner, "loop://psu", settings, std::move(done)); });
  }

  std::shared_ptr<GrantTable> grants_ = std::make_shared<GrantTable>("");
  std::unique_ptr<PortService> service_;
};

TEST_F(HandOverTest, AnOpenByTheFirstInTheQueueWaitsForItsGrantToArrive) {
  std::future<absl::StatusOr<PortSettings>> bobs = Open("http:bob");
  if (bobs.wait_for(std::chrono::milliseconds(200)) == std::future_status::ready) {
    FAIL() << "answered before the grant on its way could arrive: " << bobs.get().status();
  }
  grants_->Apply({Released("r1", "http:alice", "loop://psu"),
                  Granted("r2", "http:bob", {"loop://psu"}, seconds(60))});
  ASSERT_EQ(bobs.wait_for(seconds(30)), std::future_status::ready);
  absl::StatusOr<PortSettings> opened = bobs.get();
  EXPECT_TRUE(opened.ok()) << opened.status();
}

TEST_F(HandOverTest, OthersAreRefusedAtOnceAndTheFirstInTheQueueWhenNoGrantComes) {
  std::future<absl::StatusOr<PortSettings>> carols = Open("http:carol");
  ASSERT_EQ(carols.wait_for(seconds(30)), std::future_status::ready);
  absl::StatusOr<PortSettings> carol = carols.get();
  EXPECT_EQ(carol.status().code(), absl::StatusCode::kFailedPrecondition) << carol.status();
  EXPECT_NE(carol.status().message().find("you are 2nd in the queue"), std::string::npos)
      << carol.status();

  // A change that grants nobody new is looked at, and the wait goes on to its bound.
  std::future<absl::StatusOr<PortSettings>> bobs = Open("http:bob");
  grants_->Apply({Waiting("r4", "http:dave", "loop://psu", 3)});
  ASSERT_EQ(bobs.wait_for(seconds(30)), std::future_status::ready);
  absl::StatusOr<PortSettings> bob = bobs.get();
  EXPECT_EQ(bob.status().code(), absl::StatusCode::kFailedPrecondition) << bob.status();
  EXPECT_NE(bob.status().message().find("reserved by http:alice"), std::string::npos)
      << bob.status();
}

// The same through open_port {instrument}: the instrument's name is what is reserved.
TEST(InstrumentHandOverTest, AnInstrumentOpenedByTheFirstInTheQueueWaitsForItsGrant) {
  char pattern[] = "/tmp/labgate-handover-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  std::filesystem::create_directory(dir + "/profiles");
  std::ofstream(dir + "/profiles/psu.json")
      << R"({"model": "LOOP-PSU", "settings": {"baud_rate": 9600}})";
  std::ofstream(dir + "/instruments.json") << R"({"instruments": [
      {"name": "psu-1", "profile": "LOOP-PSU", "match": {"port_name": "loop://psu-1"}}]})";
  PortServiceOptions options;
  options.profiles_dir = dir + "/profiles";
  options.instruments_file = dir + "/instruments.json";
  options.port_lister = [] { return absl::StatusOr<std::vector<PortDetails>>(); };
  absl::StatusOr<std::unique_ptr<PortService>> created = PortService::Create(options);
  ASSERT_TRUE(created.ok()) << created.status();
  std::unique_ptr<PortService> service = *std::move(created);
  auto grants = std::make_shared<GrantTable>("");
  grants->Replace(
      {Granted("r1", "http:alice", {"psu-1"}, seconds(60)), Waiting("r2", "http:bob", "psu-1", 1)});
  service->SetGrants(grants);

  auto open = [&service](const std::string& owner) {
    PortSettings settings;
    settings.baud_rate = 9600;
    return testing::Started<absl::StatusOr<OpenedInstrument>>(
        [&](auto done) { service->OpenInstrument(owner, "psu-1", settings, std::move(done)); });
  };
  std::future<absl::StatusOr<OpenedInstrument>> carols = open("http:carol");
  ASSERT_EQ(carols.wait_for(seconds(30)), std::future_status::ready);
  EXPECT_EQ(carols.get().status().code(), absl::StatusCode::kFailedPrecondition)
      << "not in the queue: refused at once";

  std::future<absl::StatusOr<OpenedInstrument>> bobs = open("http:bob");
  if (bobs.wait_for(std::chrono::milliseconds(200)) == std::future_status::ready) {
    FAIL() << "answered before the grant on its way could arrive: " << bobs.get().status();
  }
  grants->Apply(
      {Released("r1", "http:alice", "psu-1"), Granted("r2", "http:bob", {"psu-1"}, seconds(60))});
  ASSERT_EQ(bobs.wait_for(seconds(30)), std::future_status::ready);
  absl::StatusOr<OpenedInstrument> opened = bobs.get();
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->device_path, "loop://psu-1");
  service.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace labgate::serial
