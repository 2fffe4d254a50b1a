// The reservation queue's rules with a clock the test drives: grant order (priority, then
// arrival), tags, named targets held back for whoever is ahead, absent instruments, leases,
// holds, waits, ending, and bad requests.
#include "session-service/reservations/reservation_book.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"

namespace labgate::session {
namespace {

using std::chrono::seconds;

const ReservationTime kStart = ReservationTime() + std::chrono::hours(1000);

std::vector<Reservable> Bench() {
  return {{"psu-1", {"psu", "bench-1"}, true},
          {"psu-2", {"psu", "bench-2"}, true},
          {"dmm-1", {"dmm", "bench-1"}, true},
          {"/dev/ttyUSB0", {}, true}};
}

ReservationRequest For(const std::string& holder, std::vector<std::string> targets,
                       int priority = 0, seconds wait = seconds(600)) {
  ReservationRequest request;
  request.holder = holder;
  request.targets = std::move(targets);
  request.priority = priority;
  request.wait = wait;
  return request;
}

ReservationRequest ByTags(const std::string& holder, std::vector<std::string> tags, int count = 1) {
  ReservationRequest request;
  request.holder = holder;
  request.tags = std::move(tags);
  request.count = count;
  request.wait = seconds(600);
  return request;
}

class ReservationBookTest : public ::testing::Test {
 protected:
  Reservation Reserve(const std::string& id, ReservationRequest request, seconds at = seconds(0)) {
    absl::StatusOr<Reservation> reserved =
        book_.Reserve(id, std::move(request), inventory_, kStart + at);
    EXPECT_TRUE(reserved.ok()) << reserved.status();
    return reserved.value_or(Reservation{});
  }
  ReservationState StateOf(const std::string& id) {
    return book_.Find(id).value_or(Reservation{}).state;
  }
  int PositionOf(const std::string& id) { return book_.Find(id).value_or(Reservation{}).position; }
  std::string HolderOf(const std::string& target) {
    const Reservation* holder = book_.HolderOf(target);
    return holder == nullptr ? "" : holder->request.holder;
  }

  ReservationBook book_;
  std::vector<Reservable> inventory_ = Bench();
};

TEST_F(ReservationBookTest, WaitingReservationsAreGrantedByPriorityThenArrival) {
  EXPECT_EQ(Reserve("h", For("holder", {"psu-1"})).state, ReservationState::kGranted);
  EXPECT_EQ(Reserve("a", For("alice", {"psu-1"}, 0), seconds(1)).position, 1);
  EXPECT_EQ(Reserve("b", For("bob", {"psu-1"}, 5), seconds(2)).position, 1)
      << "a higher priority goes ahead of those waiting";
  Reserve("c", For("carol", {"psu-1"}, 0), seconds(3));
  EXPECT_EQ(PositionOf("a"), 2);
  EXPECT_EQ(PositionOf("c"), 3);

  ASSERT_TRUE(book_.End("h", "holder", kStart + seconds(10)).ok());
  std::vector<Reservation> changed = book_.Advance(inventory_, kStart + seconds(10));
  EXPECT_EQ(HolderOf("psu-1"), "bob");
  EXPECT_EQ(PositionOf("a"), 1);
  EXPECT_EQ(PositionOf("c"), 2);
  EXPECT_EQ(changed.size(), 3u) << "the grant and two new positions (End made the release)";
  ASSERT_TRUE(book_.End("b", "bob", kStart + seconds(11)).ok());
  book_.Advance(inventory_, kStart + seconds(11));
  EXPECT_EQ(HolderOf("psu-1"), "alice") << "then arrival order";
  ASSERT_TRUE(book_.End("a", "alice", kStart + seconds(12)).ok());
  book_.Advance(inventory_, kStart + seconds(12));
  EXPECT_EQ(HolderOf("psu-1"), "carol");
}

TEST_F(ReservationBookTest, APlaceInTheQueueCountsOnlyThoseAheadForTheSameThings) {
  Reserve("h1", For("holder", {"psu-1"}));
  Reserve("h2", For("holder", {"psu-2"}));
  Reserve("a", For("alice", {"psu-1"}), seconds(1));
  Reserve("b", For("bob", {"psu-1"}), seconds(2));
  EXPECT_EQ(Reserve("c", For("carol", {"psu-2"}), seconds(3)).position, 1)
      << "nobody waits for psu-2 ahead of carol, however many wait for psu-1";
  EXPECT_EQ(Reserve("d", For("dave", {"psu-1", "psu-2"}), seconds(4)).position, 3)
      << "both: the longer line, psu-1's";
  EXPECT_EQ(Reserve("t", ByTags("tess", {"psu"}), seconds(5)).position, 1)
      << "by tags: among those with the same tags";
  EXPECT_EQ(PositionOf("b"), 2);
  // A grant on psu-2 moves only psu-2's line.
  ASSERT_TRUE(book_.End("h2", "holder", kStart + seconds(10)).ok());
  std::vector<Reservation> changed = book_.Advance(inventory_, kStart + seconds(10));
  EXPECT_EQ(HolderOf("psu-2"), "carol");
  std::vector<std::string> moved;
  moved.reserve(changed.size());
  for (const Reservation& reservation : changed) moved.push_back(reservation.id);
  EXPECT_EQ(moved, (std::vector<std::string>{"c"}))
      << "psu-1's waiters (dave is behind alice and bob there) did not move (End ended h2)";
}

TEST_F(ReservationBookTest, ThreeContendForTwoTaggedSuppliesAndTheThirdTakesWhicheverFreesFirst) {
  EXPECT_EQ(Reserve("1", ByTags("ci:nightly", {"psu"})).granted, std::vector<std::string>{"psu-1"});
  EXPECT_EQ(Reserve("2", ByTags("alice", {"psu"})).granted, std::vector<std::string>{"psu-2"});
  const Reservation third = Reserve("3", ByTags("assistant", {"psu"}));
  EXPECT_EQ(third.state, ReservationState::kWaiting);
  EXPECT_EQ(third.position, 1);
  ASSERT_TRUE(book_.End("2", "alice", kStart + seconds(5)).ok());
  book_.Advance(inventory_, kStart + seconds(5));
  EXPECT_EQ(HolderOf("psu-2"), "assistant");
  EXPECT_EQ(HolderOf("psu-1"), "ci:nightly");
  // Two at once, by two tags.
  const Reservation both = Reserve("4", ByTags("bob", {"bench-1"}, 2), seconds(6));
  EXPECT_EQ(both.state, ReservationState::kWaiting) << "psu-1 is held";
  ASSERT_TRUE(book_.End("1", "ci:nightly", kStart + seconds(7)).ok());
  book_.Advance(inventory_, kStart + seconds(7));
  EXPECT_EQ(book_.Find("4").value_or(Reservation{}).granted,
            (std::vector<std::string>{"psu-1", "dmm-1"}));
}

TEST_F(ReservationBookTest, NamedTargetsThatAreFreeWaitForTheReservationAheadNotThoseBehind) {
  Reserve("meter", For("holder", {"dmm-1"}));
  EXPECT_EQ(Reserve("both", For("alice", {"psu-1", "dmm-1"}), seconds(1)).state,
            ReservationState::kWaiting);
  EXPECT_EQ(Reserve("one", For("bob", {"psu-1"}), seconds(2)).state, ReservationState::kWaiting)
      << "psu-1 is free, but alice, ahead, needs it";
  EXPECT_EQ(Reserve("other", For("carol", {"psu-2"}), seconds(3)).state, ReservationState::kGranted)
      << "what nobody ahead wants is granted at once";
  ASSERT_TRUE(book_.End("meter", "holder", kStart + seconds(4)).ok());
  book_.Advance(inventory_, kStart + seconds(4));
  EXPECT_EQ(HolderOf("psu-1"), "alice");
  EXPECT_EQ(HolderOf("dmm-1"), "alice");
  EXPECT_EQ(PositionOf("one"), 1);
}

TEST_F(ReservationBookTest, AnAbsentInstrumentIsNeverGranted) {
  inventory_[0].present = false;
  const Reservation waiting = Reserve("a", For("alice", {"psu-1"}));
  EXPECT_EQ(waiting.state, ReservationState::kWaiting);
  EXPECT_EQ(Reserve("t", ByTags("bob", {"psu"})).granted, std::vector<std::string>{"psu-2"})
      << "a tag reservation takes the one that is there";
  inventory_[0].present = true;
  book_.Advance(inventory_, kStart + seconds(1));
  EXPECT_EQ(HolderOf("psu-1"), "alice");
}

TEST_F(ReservationBookTest, AGrantLivesWhileRenewedAndEndsALeaseAfterTheLastRenewal) {
  ReservationRequest request = For("ci:job", {"psu-1"});
  request.lease = seconds(60);
  Reserve("job", request);
  Reserve("next", For("alice", {"psu-1"}), seconds(1));
  book_.Advance(inventory_, kStart + seconds(59));
  EXPECT_EQ(StateOf("job"), ReservationState::kGranted);
  book_.Touch("ci:job", "psu-1", kStart + seconds(50));  // a use of the port renews it
  book_.Advance(inventory_, kStart + seconds(100));
  EXPECT_EQ(StateOf("job"), ReservationState::kGranted);
  ASSERT_TRUE(book_.Renew("job", "ci:job", kStart + seconds(100)).ok());
  book_.Touch("alice", "psu-1", kStart + seconds(150));  // not hers: renews nothing
  std::vector<Reservation> changed = book_.Advance(inventory_, kStart + seconds(160));
  EXPECT_EQ(StateOf("job"), ReservationState::kExpired);
  EXPECT_EQ(book_.Find("job").value_or(Reservation{}).end_reason, "its lease was not renewed");
  EXPECT_EQ(HolderOf("psu-1"), "alice") << "the next in line has it";
  EXPECT_EQ(changed.size(), 2u);
}

TEST_F(ReservationBookTest, ALeaseThatRanOutIsNotRevivedByALateRenewalOrUse) {
  ReservationRequest job = For("ci:job", {"psu-1"});
  job.lease = seconds(60);
  Reserve("job", job);
  ReservationRequest other = For("ci:other", {"psu-2"});
  other.lease = seconds(60);
  Reserve("other", other);
  Reserve("next", For("alice", {"psu-1"}), seconds(1));
  // No Advance ran since the grants: both leases are up at 60 s all the same.
  absl::StatusOr<Reservation> late = book_.Renew("job", "ci:job", kStart + seconds(60));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition) << late.status();
  EXPECT_TRUE(absl::StrContains(late.status().message(), "is expired, not granted"))
      << late.status();
  EXPECT_EQ(StateOf("job"), ReservationState::kExpired);
  EXPECT_EQ(book_.Find("job").value_or(Reservation{}).end_reason, "its lease was not renewed");
  EXPECT_TRUE(book_.Touch("ci:other", "psu-2", kStart + seconds(61)).empty());
  EXPECT_EQ(StateOf("other"), ReservationState::kExpired);
  EXPECT_EQ(HolderOf("psu-2"), "");
  book_.Advance(inventory_, kStart + seconds(61));
  EXPECT_EQ(HolderOf("psu-1"), "alice") << "the next in line has it";
}

TEST_F(ReservationBookTest, TheHoldCapsAGrantHoweverOftenItIsRenewed) {
  ReservationRequest request = For("alice", {"psu-1"});
  request.lease = seconds(60);
  request.hold = seconds(120);
  Reserve("a", request);
  for (int at = 50; at < 120; at += 50) {
    ASSERT_TRUE(book_.Renew("a", "alice", kStart + seconds(at)).ok());
  }
  EXPECT_EQ(book_.Find("a").value_or(Reservation{}).ends_at, kStart + seconds(120));
  EXPECT_EQ(book_.NextDeadline(), kStart + seconds(120));
  book_.Advance(inventory_, kStart + seconds(120));
  EXPECT_EQ(StateOf("a"), ReservationState::kExpired);
  EXPECT_EQ(book_.Find("a").value_or(Reservation{}).end_reason, "its hold time ran out");
  EXPECT_FALSE(book_.Renew("a", "alice", kStart + seconds(121)).ok());
}

TEST_F(ReservationBookTest, AWaitEndsWhenItsTimeIsUpAndNoWaitMeansNowOrNot) {
  Reserve("h", For("holder", {"psu-1"}));
  Reserve("w", For("alice", {"psu-1"}, 0, seconds(30)));
  book_.Advance(inventory_, kStart + seconds(29));
  EXPECT_EQ(StateOf("w"), ReservationState::kWaiting);
  book_.Advance(inventory_, kStart + seconds(30));
  EXPECT_EQ(StateOf("w"), ReservationState::kExpired);
  EXPECT_TRUE(absl::StrContains(book_.Find("w").value_or(Reservation{}).end_reason, "wait_s"));
  const Reservation now_or_not = Reserve("n", For("bob", {"psu-1"}, 0, seconds(0)));
  EXPECT_EQ(now_or_not.state, ReservationState::kExpired);
  EXPECT_EQ(now_or_not.end_reason, "not free now, and wait_s is 0");
  EXPECT_EQ(Reserve("free", For("bob", {"psu-2"}, 0, seconds(0))).state,
            ReservationState::kGranted);
}

TEST_F(ReservationBookTest, EndingReleasesAGrantCancelsAWaitAndOnlyTheHolderMayDoIt) {
  Reserve("g", For("alice", {"psu-1"}));
  Reserve("w", For("bob", {"psu-1"}));
  absl::StatusOr<Reservation> other = book_.End("g", "mallory", kStart);
  EXPECT_EQ(other.status().code(), absl::StatusCode::kNotFound)
      << "another's reservation is not told apart from none";
  EXPECT_EQ(book_.Renew("g", "mallory", kStart).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(book_.End("w", "bob", kStart).value_or(Reservation{}).state,
            ReservationState::kCancelled);
  EXPECT_EQ(book_.End("g", "alice", kStart).value_or(Reservation{}).state,
            ReservationState::kReleased);
  EXPECT_EQ(book_.End("g", "alice", kStart).value_or(Reservation{}).state,
            ReservationState::kReleased)
      << "ending twice answers what became of it";
  Reserve("x", For("carol", {"psu-2"}));
  const Reservation ended =
      book_.EndByOperator("x", "bench maintenance", kStart).value_or(Reservation{});
  EXPECT_EQ(ended.state, ReservationState::kCancelled);
  EXPECT_EQ(ended.end_reason, "ended by an operator: bench maintenance");
  EXPECT_TRUE(book_.Active().empty());
}

TEST_F(ReservationBookTest, BadRequestsAreRefusedSayingWhatIsWrong) {
  ReservationLimits limits;
  limits.max_hold = seconds(3600);
  ReservationBook book(limits);
  struct Case {
    ReservationRequest request;
    absl::StatusCode code;
    std::string says;
  };
  ReservationRequest too_long = For("a", {"psu-1"});
  too_long.hold = seconds(7200);
  ReservationRequest negative = For("a", {"psu-1"});
  negative.wait = seconds(-1);
  ReservationRequest both = For("a", {"psu-1"});
  both.tags = {"psu"};
  ReservationRequest twice = For("a", {"psu-1", "psu-1"});
  const std::vector<Case> cases = {
      {For("a", {"psu-9"}), absl::StatusCode::kNotFound, "unknown target 'psu-9'"},
      {too_long, absl::StatusCode::kInvalidArgument,
       "hold_s 7200 is over the longest hold allowed, 3600 s"},
      {For("a", {"psu-1"}, 10), absl::StatusCode::kInvalidArgument,
       "priority must be 0 to 9, not 10"},
      {negative, absl::StatusCode::kInvalidArgument, "wait_s must not be negative"},
      {both, absl::StatusCode::kInvalidArgument, "one of the two"},
      {For("", {"psu-1"}), absl::StatusCode::kInvalidArgument, "needs a holder"},
      {ByTags("a", {"psu"}, 3), absl::StatusCode::kNotFound, "2 reservable(s) have the tags psu"},
      {ByTags("a", {"psu"}, 0), absl::StatusCode::kInvalidArgument, "count must be 1 to"},
      {twice, absl::StatusCode::kInvalidArgument, "named twice"},
  };
  for (const Case& bad : cases) {
    absl::StatusOr<Reservation> refused = book.Reserve("id", bad.request, inventory_, kStart);
    EXPECT_EQ(refused.status().code(), bad.code) << bad.says;
    EXPECT_TRUE(absl::StrContains(refused.status().message(), bad.says))
        << refused.status().message();
  }
  EXPECT_TRUE(book.Active().empty()) << "nothing refused was queued";
}

}  // namespace
}  // namespace labgate::session
