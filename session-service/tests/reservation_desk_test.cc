// The reservation service's state over a real SQLite store: reservations against what benches
// report, the queue moving on a release, every change stored before it is answered and heard by
// listeners in order, a restart that keeps everything, and leases that end on time by
// themselves.
#include "session-service/reservations/reservation_desk.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "session-service/reservations/reservation_metrics.h"
#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using std::chrono::seconds;
using testing::Await;
using testing::OpenStore;
using testing::TempDir;

ReservationRequest Wants(const std::string& holder, std::vector<std::string> targets,
                         seconds wait = seconds(600), seconds lease = seconds(60)) {
  ReservationRequest request;
  request.holder = holder;
  request.targets = std::move(targets);
  request.wait = wait;
  request.lease = lease;
  return request;
}

std::vector<Reservable> Supplies() { return {{"psu-1", {"psu"}, true}, {"psu-2", {"psu"}, true}}; }

class ReservationDeskTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(); }
  void TearDown() override {
    desk_.reset();
    if (store_) store_->Shutdown();
  }
  void Start(bool run_timer = false) {
    store_ = OpenStore(dir_.path());
    ASSERT_NE(store_, nullptr);
    ReservationDeskOptions options;
    options.run_timer = run_timer;
    if (!run_timer) options.clock = [this] { return now_.load(); };
    absl::StatusOr<std::unique_ptr<ReservationDesk>> desk =
        ReservationDesk::Open(store_.get(), options);
    ASSERT_TRUE(desk.ok()) << desk.status();
    desk_ = std::move(*desk);
  }
  void Restart(bool run_timer = false) {
    desk_.reset();
    store_->Shutdown();
    store_.reset();
    Start(run_timer);
  }
  absl::StatusOr<Reservation> Reserve(ReservationRequest request) {
    return Await<Reservation>(
        [&](auto done) { desk_->Reserve(std::move(request), std::move(done)); });
  }
  absl::StatusOr<Reservation> Release(const std::string& id, const std::string& holder) {
    return Await<Reservation>([&](auto done) { desk_->Release(id, holder, std::move(done)); });
  }
  void Publish(const std::string& bench, std::vector<Reservable> reservables) {
    absl::StatusOr<bool> published = Await<bool>([&](auto done) {
      desk_->PublishInventory(bench, std::move(reservables), [done](const absl::Status& status) {
        done(status.ok() ? absl::StatusOr<bool>(true) : status);
      });
    });
    ASSERT_TRUE(published.ok()) << published.status();
  }
  std::vector<ReservationRow> Stored() {
    return Await<std::vector<ReservationRow>>(
               [&](auto done) { store_->LoadActiveReservations(std::move(done)); })
        .value_or(std::vector<ReservationRow>{});
  }

  TempDir dir_;
  std::atomic<ReservationTime> now_{ReservationTime() + std::chrono::hours(500000)};
  std::unique_ptr<SqliteSessionStore> store_;
  std::unique_ptr<ReservationDesk> desk_;
};

TEST_F(ReservationDeskTest, TheQueueMovesOnAReleaseAndEveryChangeIsStoredBeforeItIsAnswered) {
  ReservationMetrics& metrics = ReservationMetrics::Get();
  const uint64_t grants_before = metrics.grants.Get().value();
  const uint64_t waits_before = metrics.wait_seconds.Get().Read().cumulative.back();
  Publish("lab-a", Supplies());
  std::vector<std::string> heard;
  desk_->Watch([](const std::vector<Reservation>& active) { EXPECT_TRUE(active.empty()); },
               [&heard](const std::vector<Reservation>& changed, const std::string& reason) {
                 for (const Reservation& reservation : changed) {
                   heard.push_back(reservation.request.holder + " " +
                                   ReservationStateName(reservation.state) + " (" + reason + ")");
                 }
               });
  absl::StatusOr<Reservation> alice = Reserve(Wants("http:alice", {"lab-a:psu-1"}));
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(alice->state, ReservationState::kGranted);
  EXPECT_EQ(Stored().size(), 1u) << "stored before it was answered";
  absl::StatusOr<Reservation> ci = Reserve(Wants("ci:nightly", {"lab-a:psu-1"}));
  ASSERT_TRUE(ci.ok());
  EXPECT_EQ(ci->state, ReservationState::kWaiting);
  EXPECT_EQ(ci->position, 1);
  EXPECT_EQ(metrics.waiting.Get().value(), 1);
  EXPECT_EQ(metrics.granted.Get().value(), 1);

  ReservationDesk::Listing listing = desk_->List();
  ASSERT_EQ(listing.reservations.size(), 2u);
  ASSERT_EQ(listing.reservables.size(), 2u);
  EXPECT_EQ(listing.reservables[0].reservable.name, "lab-a:psu-1");
  EXPECT_EQ(listing.reservables[0].holder, "http:alice");
  EXPECT_EQ(listing.reservables[1].holder, "");

  absl::StatusOr<Reservation> released = Release(alice->id, "http:alice");
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(released->state, ReservationState::kReleased);
  EXPECT_EQ(desk_->List().reservables[0].holder, "ci:nightly") << "the next in line, at once";
  EXPECT_EQ(heard, (std::vector<std::string>{
                       "http:alice granted (reserved)", "ci:nightly waiting (reserved)",
                       "http:alice released (released)", "ci:nightly granted (released)"}));
  EXPECT_EQ(metrics.grants.Get().value(), grants_before + 2) << "alice, then ci";
  EXPECT_EQ(metrics.wait_seconds.Get().Read().cumulative.back(), waits_before + 2);
  EXPECT_EQ(metrics.waiting.Get().value(), 0);
  std::vector<ReservationRow> stored = Stored();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].id, ci->id);
  EXPECT_EQ(stored[0].state, "granted");
}

TEST_F(ReservationDeskTest, ARestartKeepsTheQueueAndTheBenchesReportAgain) {
  Publish("", Supplies());
  ASSERT_TRUE(Reserve(Wants("http:alice", {"psu-1", "psu-2"})).ok());
  absl::StatusOr<Reservation> bob = Reserve(Wants("http:bob", {"psu-2"}));
  ASSERT_TRUE(bob.ok());
  Restart();
  ReservationDesk::Listing listing = desk_->List();
  ASSERT_EQ(listing.reservations.size(), 2u);
  EXPECT_EQ(listing.reservations[0].request.holder, "http:alice");
  EXPECT_EQ(listing.reservations[1].position, 1);
  EXPECT_TRUE(listing.reservables.empty()) << "inventory is reported, not stored";
  Publish("", Supplies());
  EXPECT_EQ(desk_->List().reservables[0].holder, "http:alice");

  // alice stops renewing: her lease ends at its time, and bob gets psu-2.
  const uint64_t expiries_before = ReservationMetrics::Get().expiries.Get().value();
  now_ = now_.load() + seconds(61);
  desk_->Advance();
  EXPECT_EQ(ReservationMetrics::Get().expiries.Get().value(), expiries_before + 1);
  Publish("", Supplies());  // the bench reports every 2 s, so it is still reachable
  absl::StatusOr<Reservation> again = Reserve(Wants("http:carol", {"psu-1"}, seconds(0)));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->state, ReservationState::kGranted) << "psu-1 is free again";
  listing = desk_->List();
  EXPECT_EQ(listing.reservables[1].holder, "http:bob");
}

TEST_F(ReservationDeskTest, UsesRenewOnlyTheHoldersGrantAndAWatcherStartsFromWhatIsStored) {
  Publish("", Supplies());
  absl::StatusOr<Reservation> ci = Reserve(Wants("ci:job", {"psu-1"}));
  ASSERT_TRUE(ci.ok());
  absl::StatusOr<Reservation> alice = Reserve(Wants("http:alice", {"psu-1"}));
  ASSERT_TRUE(alice.ok());
  Restart();  // the watcher's snapshot comes from what was stored
  Publish("", Supplies());
  std::vector<std::string> snapshot;
  std::vector<std::string> heard;
  absl::Mutex mu;
  const uint64_t watch = desk_->Watch(
      [&](const std::vector<Reservation>& active) {
        for (const Reservation& reservation : active) {
          snapshot.push_back(reservation.request.holder + " " +
                             ReservationStateName(reservation.state));
        }
      },
      [&](const std::vector<Reservation>& changed, const std::string& reason) {
        absl::MutexLock lock(&mu);
        for (const Reservation& reservation : changed) {
          heard.push_back(reservation.request.holder + " " +
                          ReservationStateName(reservation.state) + " (" + reason + ")");
        }
      });
  EXPECT_EQ(snapshot, (std::vector<std::string>{"ci:job granted", "http:alice waiting"}));

  now_ = now_.load() + seconds(50);
  auto touch = [&](std::vector<ReservationDesk::Use> uses) {
    return Await<int>([&](auto done) { desk_->Touch(uses, std::move(done)); });
  };
  absl::StatusOr<int> renewed = touch({{"ci:job", "psu-1"}, {"ci:job", "psu-1"}});
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_EQ(*renewed, 1) << "one grant, however many uses";
  EXPECT_EQ(*touch({{"http:alice", "psu-1"}, {"ci:job", "psu-2"}}), 0)
      << "a use by another, or of what the holder does not hold, renews nothing";
  now_ = now_.load() + seconds(50);  // 100 s after the grant, 50 after the use
  desk_->Advance();
  EXPECT_EQ(desk_->List().reservables[0].holder, "ci:job") << "the use renewed the lease";

  absl::StatusOr<Reservation> granted_cancel =
      Await<Reservation>([&](auto done) { desk_->Cancel(ci->id, "ci:job", std::move(done)); });
  EXPECT_TRUE(absl::IsFailedPrecondition(granted_cancel.status())) << granted_cancel.status();
  absl::StatusOr<Reservation> cancelled = Await<Reservation>(
      [&](auto done) { desk_->Cancel(alice->id, "http:alice", std::move(done)); });
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_EQ(cancelled->state, ReservationState::kCancelled);
  desk_->Unwatch(watch);
  absl::MutexLock lock(&mu);
  EXPECT_EQ(heard,
            (std::vector<std::string>{"ci:job granted (used)", "http:alice cancelled (released)"}));
}

TEST_F(ReservationDeskTest, ALateRenewalOrUseDoesNotReviveALeaseThatRanOut) {
  Publish("", Supplies());
  // Leases shorter than the 10 s a bench's report stays fresh, so the bench is still there.
  absl::StatusOr<Reservation> ci = Reserve(Wants("ci:job", {"psu-1"}, seconds(600), seconds(5)));
  ASSERT_TRUE(ci.ok()) << ci.status();
  ASSERT_TRUE(Reserve(Wants("ci:other", {"psu-2"}, seconds(600), seconds(5))).ok());
  absl::StatusOr<Reservation> alice = Reserve(Wants("http:alice", {"psu-1"}));
  ASSERT_TRUE(alice.ok());
  EXPECT_EQ(alice->state, ReservationState::kWaiting);
  now_ = now_.load() + seconds(6);  // both leases are up; no timer has ended them (it is off)

  absl::StatusOr<Reservation> late =
      Await<Reservation>([&](auto done) { desk_->Renew(ci->id, "ci:job", std::move(done)); });
  EXPECT_TRUE(absl::IsFailedPrecondition(late.status())) << late.status();
  EXPECT_NE(late.status().message().find("is expired, not granted"), std::string::npos)
      << late.status();
  absl::StatusOr<int> used = Await<int>([&](auto done) {
    desk_->Touch({{"ci:other", "psu-2"}}, std::move(done));
  });
  ASSERT_TRUE(used.ok()) << used.status();
  EXPECT_EQ(*used, 0) << "a use after the lease ended renews nothing";

  ReservationDesk::Listing listing = desk_->List();
  EXPECT_EQ(listing.reservables[0].holder, "http:alice") << "the next in line, at once";
  EXPECT_EQ(listing.reservables[1].holder, "");
  std::vector<ReservationRow> stored = Stored();
  ASSERT_EQ(stored.size(), 1u) << "the expiries are stored";
  EXPECT_EQ(stored[0].id, alice->id);
  EXPECT_EQ(stored[0].state, "granted");
}

TEST_F(ReservationDeskTest, ABenchThatStopsReportingIsNeverGrantedUntilItReportsAgain) {
  Publish("lab-a", Supplies());
  now_ = now_.load() + seconds(11);  // lab-a's labgate-serial went quiet
  EXPECT_FALSE(desk_->List().reservables[0].reservable.present) << "unreachable: absent";
  absl::StatusOr<Reservation> waiting = Reserve(Wants("http:alice", {"lab-a:psu-1"}));
  ASSERT_TRUE(waiting.ok()) << waiting.status();
  EXPECT_EQ(waiting->state, ReservationState::kWaiting) << "an offline place is not handed out";
  Publish("lab-a", Supplies());
  EXPECT_EQ(desk_->List().reservables[0].holder, "http:alice") << "granted once it is back";
}

TEST_F(ReservationDeskTest, BadRequestsAreRefusedAndNothingIsStored) {
  Publish("", Supplies());
  absl::StatusOr<Reservation> unknown = Reserve(Wants("http:alice", {"psu-9"}));
  EXPECT_TRUE(absl::IsNotFound(unknown.status())) << unknown.status();
  ReservationRequest negative = Wants("http:alice", {"psu-1"});
  negative.wait = seconds(-1);
  EXPECT_TRUE(absl::IsInvalidArgument(Reserve(negative).status()));
  ReservationRequest priority = Wants("http:alice", {"psu-1"});
  priority.priority = 10;
  EXPECT_TRUE(absl::IsInvalidArgument(Reserve(priority).status()));
  absl::StatusOr<Reservation> mine = Reserve(Wants("http:alice", {"psu-1"}));
  ASSERT_TRUE(mine.ok());
  EXPECT_TRUE(absl::IsNotFound(Release(mine->id, "http:mallory").status()))
      << "another's reservation looks like none";
  EXPECT_EQ(Stored().size(), 1u);
}

TEST_F(ReservationDeskTest, AChangeTheStoreCannotKeepIsNotAcknowledged) {
  Publish("", Supplies());
  store_->Shutdown();  // the database goes away under the desk
  absl::StatusOr<Reservation> lost = Reserve(Wants("http:alice", {"psu-1"}));
  EXPECT_TRUE(absl::IsUnavailable(lost.status())) << lost.status();
}

TEST_F(ReservationDeskTest, ALeaseNotRenewedEndsByItselfAndTheNextIsGranted) {
  Restart(/*run_timer=*/true);  // the system clock and the desk's own timer
  Publish("", Supplies());
  absl::StatusOr<Reservation> holder =
      Reserve(Wants("ci:killed", {"psu-1"}, seconds(600), /*lease=*/seconds(1)));
  ASSERT_TRUE(holder.ok());
  absl::StatusOr<Reservation> next = Reserve(Wants("http:alice", {"psu-1"}));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->state, ReservationState::kWaiting);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (desk_->List().reservables[0].holder != "http:alice" &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(desk_->List().reservables[0].holder, "http:alice");
}

}  // namespace
}  // namespace labgate::session
