// The writer's commit delay: pipelined appends that come back while a batch commits are
// gathered into one transaction, and a lone writer is never held back. Assertions are on
// batch sizes and transaction counts only, never on timings.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using testing::SyncStore;
using testing::TempDir;

std::unique_ptr<SqliteSessionStore> OpenWithDelay(const std::string& dir, int64_t max_us,
                                                  int64_t gap_min_us) {
  SqliteSessionStoreOptions options;
  options.data_dir = dir;
  options.commit_delay_max_us = max_us;
  options.commit_gap_min_us = gap_min_us;
  absl::StatusOr<std::unique_ptr<SqliteSessionStore>> store = SqliteSessionStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

AppendParams Message(const std::string& session_id, int n) {
  AppendParams params;
  params.session_id = session_id;
  params.content = "reading " + std::to_string(n);
  params.features = "scpi,meas";
  return params;
}

// A pipelining client: keeps `in_flight` appends outstanding; a client thread takes each
// acknowledgement, pauses `think`, and sends the next, until `total` were sent.
struct PipelinedClient {
  PipelinedClient(SessionStore* store, std::string session_id, int in_flight, int total,
                  std::chrono::microseconds think)
      : store(store),
        session_id(std::move(session_id)),
        in_flight(in_flight),
        total(total),
        think(think) {}

  SessionStore* store;
  std::string session_id;
  int in_flight;
  int total;
  std::chrono::microseconds think;

  std::mutex mu;
  std::condition_variable changed;
  std::deque<absl::StatusOr<MessageRecord>> acks;
  std::vector<int64_t> ids;
  int sent = 0;

  void Send() {
    store->AppendMessage(Message(session_id, sent++), [this](absl::StatusOr<MessageRecord> r) {
      std::lock_guard<std::mutex> lock(mu);
      acks.push_back(std::move(r));
      changed.notify_all();
    });
  }

  void Run() {
    for (int i = 0; i < in_flight; ++i) Send();
    for (int received = 0; received < total; ++received) {
      absl::StatusOr<MessageRecord> ack = absl::UnknownError("none");
      {
        std::unique_lock<std::mutex> lock(mu);
        changed.wait(lock, [&] { return !acks.empty(); });
        ack = std::move(acks.front());
        acks.pop_front();
      }
      ASSERT_TRUE(ack.ok()) << ack.status();
      ids.push_back(ack->message_id);
      std::this_thread::sleep_for(think);
      if (sent < total) Send();
    }
  }
};

TEST(StoreCommitDelayTest, SequentialAppendsAreNeverDelayed) {
  TempDir dir;
  auto store = OpenWithDelay(dir.path(), 1'000'000, 1'000'000);
  SyncStore sync(store.get());
  absl::StatusOr<SessionRecord> session = sync.Create("d");
  ASSERT_TRUE(session.ok()) << session.status();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(sync.Append(Message(session->id, i)).ok());
  WriterStats stats = store->writer_stats();
  EXPECT_EQ(stats.delayed_batches, 0u);
  EXPECT_EQ(stats.transactions, 21u);  // the create and each append on its own
  EXPECT_EQ(stats.writes, 21u);
  EXPECT_EQ(stats.largest_batch, 1u);
}

TEST(StoreCommitDelayTest, PipelinedAppendsReturningOneByOneShareOneCommit) {
  constexpr int kInFlight = 16;
  constexpr int kRounds = 6;
  TempDir dir;
  // A 2 s gap is far beyond the test's pace, so a batch closes only when every
  // outstanding append has come back (the last, short round waits out the gap once).
  auto store = OpenWithDelay(dir.path(), 60'000'000, 2'000'000);
  SyncStore sync(store.get());
  absl::StatusOr<SessionRecord> session = sync.Create("d");
  ASSERT_TRUE(session.ok()) << session.status();
  const WriterStats before = store->writer_stats();

  PipelinedClient client(store.get(), session->id, kInFlight, kInFlight * kRounds,
                         std::chrono::microseconds(500));
  client.Run();
  ASSERT_FALSE(::testing::Test::HasFatalFailure());

  const WriterStats after = store->writer_stats();
  EXPECT_EQ(after.writes - before.writes, static_cast<uint64_t>(kInFlight * kRounds));
  EXPECT_EQ(after.largest_batch, static_cast<uint64_t>(kInFlight));
  // At most two warm-up transactions (the first append may be taken alone) beyond one
  // per round.
  EXPECT_LE(after.transactions - before.transactions, static_cast<uint64_t>(kRounds + 2));
  EXPECT_GE(after.delayed_batches, static_cast<uint64_t>(kRounds - 2));
  std::sort(client.ids.begin(), client.ids.end());
  for (int i = 0; i < kInFlight * kRounds; ++i) ASSERT_EQ(client.ids[i], i + 1);
}

TEST(StoreCommitDelayTest, DisabledDelayNeverWaits) {
  TempDir dir;
  auto store = OpenWithDelay(dir.path(), 0, 2'000'000);
  SyncStore sync(store.get());
  absl::StatusOr<SessionRecord> session = sync.Create("d");
  ASSERT_TRUE(session.ok()) << session.status();
  PipelinedClient client(store.get(), session->id, 8, 48, std::chrono::microseconds(200));
  client.Run();
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  WriterStats stats = store->writer_stats();
  EXPECT_EQ(stats.delayed_batches, 0u);
  EXPECT_EQ(stats.delay_us, 0u);
  EXPECT_EQ(stats.writes, 49u);
}

TEST(StoreCommitDelayTest, ShutdownEndsADelayAndCommitsTheWaitingAppend) {
  constexpr int kInFlight = 8;
  TempDir dir;
  auto store = OpenWithDelay(dir.path(), 60'000'000, 2'000'000);
  SyncStore sync(store.get());
  absl::StatusOr<SessionRecord> session = sync.Create("d");
  ASSERT_TRUE(session.ok()) << session.status();
  {
    PipelinedClient client(store.get(), session->id, kInFlight, kInFlight * 3,
                           std::chrono::microseconds(200));
    client.Run();
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
  }
  // The writer now expects about eight appends; only one comes, so it waits for the
  // rest (for up to 2 s here) until shutdown cuts the wait short.
  std::promise<absl::StatusOr<MessageRecord>> last;
  std::future<absl::StatusOr<MessageRecord>> acknowledged = last.get_future();
  store->AppendMessage(Message(session->id, 99),
                       [&](absl::StatusOr<MessageRecord> r) { last.set_value(std::move(r)); });
  store->Shutdown();
  absl::StatusOr<MessageRecord> result = acknowledged.get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->message_id, kInFlight * 3 + 1);
}

}  // namespace
}  // namespace labgate::session
