// The reservation check labgate-serial makes on every open, I/O and line change: a grant on a
// port, by its name, its instrument or its device path, refuses everyone but the holder, saying
// who holds it, until when and how to queue; the holder's uses are recorded to renew it; cut off
// from the service, the last grants hold until their leases end; and no grant outlives its lease
// (beyond a short skew) however alive the watch looks; and a table that has heard nothing yet
// holds its checks for the first word, for a bounded time.
#include "serial-service/reservations/grant_table.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "serial-service/tests/reservations/reservation_protos.h"

namespace labgate::serial {
namespace {

namespace pb = ::labgate::reservations::v1;
using std::chrono::seconds;
using testing::Granted;
using testing::Waiting;

TEST(GrantTableTest, ACheckBeforeTheFirstSnapshotWaitsForItAndSeesItsGrants) {
  GrantTable table("", absl::Seconds(60));
  EXPECT_TRUE(table.MayHoldGrants()) << "nothing heard yet: every I/O must be checked";
  std::future<absl::Status> check =
      std::async(std::launch::async, [&] { return table.Check("http:bob", {"psu-1"}); });
  EXPECT_EQ(check.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "a check before the first snapshot passed: " << check.get();
  table.Replace({Granted("r1", "ci:nightly", {"psu-1"}, seconds(90))});
  absl::Status refused = check.get();
  EXPECT_TRUE(absl::IsFailedPrecondition(refused)) << refused;
}

TEST(GrantTableTest, AnUnreachableServiceEndsTheWaitWithNothingEnforced) {
  GrantTable table("", absl::Seconds(60));
  table.SetUnreachable("connection refused");
  EXPECT_FALSE(table.MayHoldGrants());
  EXPECT_TRUE(table.Check("http:bob", {"psu-1"}).ok()) << "nothing is known to enforce";
}

TEST(GrantTableTest, TheWaitForTheFirstWordIsBounded) {
  GrantTable table("", absl::Milliseconds(50));
  EXPECT_TRUE(table.Check("http:bob", {"psu-1"}).ok());
  EXPECT_FALSE(table.MayHoldGrants()) << "once the wait ran out, I/O goes unchecked";
}

TEST(GrantTableTest, OnlyTheHolderMayUseAReservedPortAndTheRefusalSaysWhoUntilWhenAndHowToQueue) {
  GrantTable table("lab-a");
  EXPECT_FALSE(table.MayHoldGrants()) << "nothing known: I/O is not checked";
  table.Replace({Granted("r1", "ci:nightly", {"lab-a:psu-2"}, seconds(90)),
                 Granted("r9", "http:bob", {"lab-b:psu-2"}, seconds(90))});
  EXPECT_TRUE(table.Check("ci:nightly", {"psu-2", "psu-2", "/dev/ttyUSB0"}).ok());
  EXPECT_TRUE(table.MayHoldGrants());
  EXPECT_TRUE(table.Check("http:alice", {"psu-1", "", "/dev/ttyUSB1"}).ok()) << "not reserved";

  absl::Status refused = table.Check("http:alice", {"psu-2", "psu-2", "/dev/ttyUSB0"});
  EXPECT_TRUE(absl::IsFailedPrecondition(refused)) << refused;
  std::string message(refused.message());
  EXPECT_NE(message.find("psu-2 is reserved by ci:nightly until "), std::string::npos) << message;
  EXPECT_NE(message.find(" UTC unless renewed (reservation r1)"), std::string::npos) << message;
  EXPECT_NE(message.find("call reserve with targets [\"lab-a:psu-2\"] and wait_s"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("labgate-reserve --targets lab-a:psu-2 --wait"), std::string::npos);

  // Once alice waits in the queue, the refusal says where she is.
  table.Apply({Waiting("r2", "http:carol", "lab-a:psu-2", 1),
               Waiting("r3", "http:alice", "lab-a:psu-2", 2)});
  message = std::string(table.Check("http:alice", {"psu-2"}).message());
  EXPECT_NE(message.find("; you are 2nd in the queue"), std::string::npos) << message;
  EXPECT_EQ(table.HolderOf({"psu-2"}), "ci:nightly");
  EXPECT_EQ(table.HolderOf({"psu-1"}), "") << "bench lab-b's psu-2 is another instrument";

  // The holder's uses are reported once each, by the service's name.
  EXPECT_TRUE(table.Check("ci:nightly", {"psu-2"}).ok());
  std::vector<std::pair<std::string, std::string>> uses = table.TakeUses();
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0], (std::pair<std::string, std::string>{"ci:nightly", "lab-a:psu-2"}));
  EXPECT_TRUE(table.TakeUses().empty());
  EXPECT_FALSE(table.Check("http:alice", {"psu-2"}).ok());
  EXPECT_TRUE(table.TakeUses().empty()) << "a refused use renews nothing";

  // Released: the grant leaves and the port is free.
  pb::Reservation released = Granted("r1", "ci:nightly", {"lab-a:psu-2"}, seconds(0));
  released.set_state("released");
  table.Apply({released});
  EXPECT_TRUE(table.Check("http:alice", {"psu-2"}).ok());
  EXPECT_TRUE(table.MayHoldGrants()) << "lab-b's grant is still known";
  released.set_id("r9");
  table.Apply({released});
  EXPECT_FALSE(table.MayHoldGrants());
  GrantTable::State state = table.state();
  EXPECT_TRUE(state.reachable);
  EXPECT_EQ(state.grants, 0);
  EXPECT_EQ(state.waiting, 2);
}

TEST(GrantTableTest, CutOffFromTheServiceTheLastGrantsHoldUntilTheirLeasesEnd) {
  GrantTable table("");
  EXPECT_FALSE(table.state().reachable) << "nothing is known before the first snapshot";
  table.Replace({Granted("long", "ci:a", {"psu-1"}, seconds(600)),
                 Granted("lapsed", "ci:b", {"psu-2"}, -seconds(1))});
  EXPECT_FALSE(table.Check("http:alice", {"psu-2"}).ok())
      << "while the service is there, its word holds (a renewal may be on its way)";
  table.SetUnreachable("connection refused");
  GrantTable::State state = table.state();
  EXPECT_FALSE(state.reachable);
  EXPECT_EQ(state.unreachable_why, "connection refused");
  EXPECT_EQ(state.grants, 1) << "only the grant whose lease has not ended";
  absl::Status refused = table.Check("http:alice", {"psu-1"});
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("as last known: the reservation service is unreachable"),
            std::string::npos)
      << refused;
  EXPECT_TRUE(table.Check("http:alice", {"psu-2"}).ok()) << "its lease ended, nobody renewed it";
  table.Replace({});
  EXPECT_TRUE(table.state().reachable);
  EXPECT_TRUE(table.Check("http:alice", {"psu-1"}).ok()) << "the new snapshot has no grant";
}

TEST(GrantTableTest, AGrantPastItsLeaseIsNotEnforcedEvenWhileTheWatchLooksAlive) {
  GrantTable table("lab-a");
  // The stream is up, but its end of r1 never came (a watch that went quiet without breaking).
  table.Replace({Granted("r1", "ci:a", {"lab-a:psu-1"}, -seconds(5)),
                 Granted("r2", "ci:b", {"lab-a:psu-2"}, -seconds(1))});
  ASSERT_TRUE(table.state().reachable);
  absl::Status checked = table.Check("http:alice", {"psu-1"});
  EXPECT_TRUE(checked.ok()) << "its lease ended 5 s ago, past the skew allowed: " << checked;
  EXPECT_EQ(table.HolderOf({"psu-1"}), "");
  EXPECT_FALSE(table.Check("http:alice", {"psu-2"}).ok())
      << "1 s past its lease: within the skew, a renewal may be on its way";
  EXPECT_EQ(table.state().grants, 1) << "only the grant within the skew";
}

}  // namespace
}  // namespace labgate::serial
