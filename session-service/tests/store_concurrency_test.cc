// Many threads appending at once: ids stay exactly 1..N and the writer batches them.
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using testing::OpenStore;
using testing::SyncStore;
using testing::TempDir;

constexpr int kThreads = 8;
constexpr int kAppendsPerThread = 200;
constexpr int kTotal = kThreads * kAppendsPerThread;

TEST(StoreConcurrencyTest, ConcurrentAppendsGetGaplessIdsInGroupCommits) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  SyncStore sync(store.get());
  absl::StatusOr<SessionRecord> session = sync.Create("bench");
  ASSERT_TRUE(session.ok());
  const uint64_t transactions_before = store->committed_transactions();

  std::mutex mu;
  std::condition_variable all_done;
  int acknowledged = 0;
  std::vector<absl::Status> errors;
  std::vector<std::vector<int64_t>> ids_by_thread(kThreads);

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kAppendsPerThread; ++i) {
        AppendParams params;
        params.session_id = session->id;
        params.content = "thread " + std::to_string(t) + " #" + std::to_string(i);
        // Fire without waiting, like pipelined clients.
        store->AppendMessage(std::move(params), [&, t](absl::StatusOr<MessageRecord> result) {
          std::lock_guard<std::mutex> lock(mu);
          if (result.ok()) {
            ids_by_thread[t].push_back(result->message_id);
          } else {
            errors.push_back(result.status());
          }
          if (++acknowledged == kTotal) all_done.notify_all();
        });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(
        all_done.wait_for(lock, std::chrono::seconds(60), [&] { return acknowledged == kTotal; }));
  }
  ASSERT_TRUE(errors.empty()) << errors.front();

  std::vector<int64_t> all_ids;
  for (const auto& ids : ids_by_thread) {
    // One thread's appends are queued in order, so they are numbered in order.
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
    all_ids.insert(all_ids.end(), ids.begin(), ids.end());
  }
  std::sort(all_ids.begin(), all_ids.end());
  ASSERT_EQ(all_ids.size(), static_cast<size_t>(kTotal));
  for (int i = 0; i < kTotal; ++i) ASSERT_EQ(all_ids[i], i + 1) << "gap or duplicate";

  const uint64_t transactions = store->committed_transactions() - transactions_before;
  EXPECT_GE(transactions, 1u);
  EXPECT_LT(transactions, static_cast<uint64_t>(kTotal)) << "appends were not batched";

  // What was acknowledged is what the database holds, in id order.
  absl::StatusOr<MessagePage> first = sync.List(session->id, 1000);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->messages.size(), 1000u);
  ASSERT_EQ(first->next_cursor, 1000);
  absl::StatusOr<MessagePage> second = sync.List(session->id, 1000, *first->next_cursor);
  ASSERT_EQ(second->messages.size(), static_cast<size_t>(kTotal - 1000));
  EXPECT_FALSE(second->next_cursor.has_value());
  EXPECT_EQ(second->messages.back().message_id, kTotal);
  EXPECT_EQ(sync.Stats(session->id)->last_message_id, kTotal);
}

TEST(StoreConcurrencyTest, ReadsProceedWhileWritesAreQueued) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  SyncStore sync(store.get());
  absl::StatusOr<SessionRecord> session = sync.Create("d");
  std::atomic<int> acknowledged{0};
  for (int i = 0; i < 500; ++i) {
    AppendParams params;
    params.session_id = session->id;
    params.content = "x";
    store->AppendMessage(std::move(params),
                         [&](absl::StatusOr<MessageRecord>) { acknowledged.fetch_add(1); });
  }
  // A read submitted meanwhile sees a consistent prefix of the appends.
  absl::StatusOr<MessagePage> page = sync.List(session->id, 1000);
  ASSERT_TRUE(page.ok()) << page.status();
  for (size_t i = 0; i < page->messages.size(); ++i) {
    EXPECT_EQ(page->messages[i].message_id, static_cast<int64_t>(i + 1));
  }
  store->Shutdown();  // completes every queued append first
  EXPECT_EQ(acknowledged.load(), 500);
}

}  // namespace
}  // namespace labgate::session
