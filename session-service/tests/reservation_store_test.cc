// Reservations kept in the session store's SQLite file: stored as JSON, read back after a
// restart into a new book, which goes on granting, expiring and queueing as the old one would
// have. Bad rows and unreadable bodies are refused by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "session-service/reservations/reservation_book.h"
#include "session-service/reservations/reservation_json.h"
#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using std::chrono::seconds;
using testing::Await;
using testing::OpenStore;
using testing::TempDir;

const ReservationTime kStart = ReservationTime() + std::chrono::hours(500000);

std::vector<Reservable> Bench() {
  return {{"psu-1", {"psu"}, true}, {"psu-2", {"psu"}, true}, {"dmm-1", {"dmm"}, true}};
}

ReservationRequest Wants(const std::string& holder, std::vector<std::string> targets,
                         int priority = 0) {
  ReservationRequest request;
  request.holder = holder;
  request.targets = std::move(targets);
  request.priority = priority;
  request.lease = seconds(60);
  request.wait = seconds(3600);
  return request;
}

// The reservation `id` as the book has it (an empty one when it has none).
Reservation Of(const ReservationBook& book, const std::string& id) {
  return book.Find(id).value_or(Reservation{});
}

std::vector<ReservationRow> Rows(const std::vector<Reservation>& reservations) {
  std::vector<ReservationRow> rows;
  rows.reserve(reservations.size());
  for (const Reservation& reservation : reservations) {
    rows.push_back(
        {reservation.id, ReservationStateName(reservation.state), ReservationToJson(reservation)});
  }
  return rows;
}

TEST(ReservationJsonTest, AReservationComesBackAsItWasStored) {
  ReservationBook book;
  ASSERT_TRUE(book.Reserve("r1", Wants("ci:nightly", {"psu-1", "dmm-1"}, 7), Bench(), kStart).ok());
  ASSERT_TRUE(book.Renew("r1", "ci:nightly", kStart + seconds(30)).ok());
  const Reservation stored = Of(book, "r1");
  absl::StatusOr<Reservation> read = ReservationFromJson(ReservationToJson(stored));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->id, "r1");
  EXPECT_EQ(read->request.holder, "ci:nightly");
  EXPECT_EQ(read->request.targets, (std::vector<std::string>{"psu-1", "dmm-1"}));
  EXPECT_EQ(read->request.priority, 7);
  EXPECT_EQ(read->request.lease, seconds(60));
  EXPECT_EQ(read->state, ReservationState::kGranted);
  EXPECT_EQ(read->granted, stored.granted);
  EXPECT_EQ(read->sequence, stored.sequence);
  EXPECT_EQ(read->granted_at, kStart);
  EXPECT_EQ(read->renewed_at, kStart + seconds(30));
  EXPECT_EQ(read->ends_at, kStart + seconds(90));

  EXPECT_TRUE(absl::IsInvalidArgument(ReservationFromJson("not json").status()));
  absl::StatusOr<Reservation> missing = ReservationFromJson(R"({"id": "r2"})");
  EXPECT_TRUE(absl::IsInvalidArgument(missing.status()));
  EXPECT_NE(missing.status().message().find("cannot be read"), std::string::npos);
  std::string renamed = ReservationToJson(stored);
  const std::string state = "\"state\":\"granted\"";
  ASSERT_NE(renamed.find(state), std::string::npos) << renamed;
  renamed.replace(renamed.find(state), state.size(), "\"state\":\"golden\"");
  EXPECT_NE(ReservationFromJson(renamed).status().message().find("no reservation state"),
            std::string::npos);
}

TEST(ReservationStoreTest, ARestartKeepsTheGrantsAndTheQueueInOrder) {
  TempDir dir;
  std::vector<Reservation> before;
  {
    auto store = OpenStore(dir.path());
    ASSERT_NE(store, nullptr);
    ReservationBook book;
    ASSERT_TRUE(book.Reserve("alice", Wants("http:alice", {"psu-1"}), Bench(), kStart).ok());
    ASSERT_TRUE(book.Reserve("bob", Wants("http:bob", {"psu-1"}), Bench(), kStart).ok());
    ASSERT_TRUE(book.Reserve("ci", Wants("ci:nightly", {"psu-1"}, 5), Bench(), kStart).ok());
    ASSERT_TRUE(book.Reserve("gone", Wants("http:carol", {"dmm-1"}), Bench(), kStart).ok());
    ASSERT_TRUE(book.End("gone", "http:carol", kStart + seconds(1)).ok());
    std::vector<Reservation> all = book.Active();
    all.push_back(Of(book, "gone"));
    absl::StatusOr<int64_t> saved =
        Await<int64_t>([&](auto done) { store->SaveReservations(Rows(all), std::move(done)); });
    ASSERT_TRUE(saved.ok()) << saved.status();
    EXPECT_EQ(*saved, 4);
    before = book.Active();
    store->Shutdown();
  }
  // A new process: the stored rows, read back into a new book.
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  absl::StatusOr<std::vector<ReservationRow>> rows = Await<std::vector<ReservationRow>>(
      [&](auto done) { store->LoadActiveReservations(std::move(done)); });
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->size(), 3u) << "the released one is not active";
  std::vector<Reservation> restored;
  for (const ReservationRow& row : *rows) {
    absl::StatusOr<Reservation> reservation = ReservationFromJson(row.body);
    ASSERT_TRUE(reservation.ok()) << reservation.status();
    restored.push_back(*reservation);
  }
  ReservationBook book;
  ASSERT_TRUE(book.Restore(restored).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(book.Restore(restored)));
  std::vector<Reservation> after = book.Active();
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].id, before[i].id);
    EXPECT_EQ(after[i].state, before[i].state);
    EXPECT_EQ(after[i].position, before[i].position);
    EXPECT_EQ(after[i].ends_at, before[i].ends_at);
  }
  EXPECT_EQ(book.HolderOf("psu-1")->request.holder, "http:alice");

  // It goes on as before: alice's lease runs out, and the queue's head (ci, priority 5) is next.
  std::vector<Reservation> changed = book.Advance(Bench(), kStart + seconds(61));
  EXPECT_EQ(Of(book, "alice").state, ReservationState::kExpired);
  EXPECT_EQ(Of(book, "ci").state, ReservationState::kGranted);
  EXPECT_EQ(Of(book, "bob").position, 1);
  absl::StatusOr<int64_t> saved =
      Await<int64_t>([&](auto done) { store->SaveReservations(Rows(changed), std::move(done)); });
  ASSERT_TRUE(saved.ok()) << saved.status();
  rows = Await<std::vector<ReservationRow>>(
      [&](auto done) { store->LoadActiveReservations(std::move(done)); });
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 2u) << "alice's expired grant is no longer active";

  // A reservation made after the restart arrives after those restored.
  absl::StatusOr<Reservation> later =
      book.Reserve("dave", Wants("http:dave", {"psu-1"}), Bench(), kStart + seconds(62));
  ASSERT_TRUE(later.ok());
  EXPECT_GT(later->sequence, Of(book, "bob").sequence);
  EXPECT_EQ(later->position, 2);

  absl::StatusOr<int64_t> refused = Await<int64_t>([&](auto done) {
    store->SaveReservations({{"x", "", "{}"}}, std::move(done));
  });
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status()));
  store->Shutdown();
}

}  // namespace
}  // namespace labgate::session
