// Idempotent appends: a retry under the same key returns the original message and
// stores nothing; the keys survive restarts and a v2 database upgrades in place.
#include <future>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "session-service/store/migrations.h"
#include "session-service/store/sqlite_db.h"
#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using testing::OpenStore;
using testing::SyncStore;
using testing::TempDir;

AppendParams Keyed(const std::string& session_id, std::string content, std::string key) {
  AppendParams params;
  params.session_id = session_id;
  params.content = std::move(content);
  params.role = "device";
  params.direction = "tx";
  params.features = "serial";
  params.idempotency_key = std::move(key);
  return params;
}

TEST(StoreIdempotencyTest, ARetryReturnsTheOriginalAndStoresNothing) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  SyncStore sync(store.get());
  const std::string id = sync.Create("dev")->id;
  absl::StatusOr<MessageRecord> first = sync.Append(Keyed(id, "*IDN?", "k-1"));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<MessageRecord> retry = sync.Append(Keyed(id, "*IDN?", "k-1"));
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(retry->message_id, first->message_id);
  EXPECT_EQ(retry->created_at, first->created_at);
  EXPECT_EQ(retry->content, "*IDN?");
  EXPECT_EQ(sync.List(id)->messages.size(), 1u);
  // The next new message still gets the next id.
  EXPECT_EQ(sync.Append(Keyed(id, "MEAS?", "k-2"))->message_id, first->message_id + 1);
  // Appends without a key are never deduplicated.
  EXPECT_EQ(sync.Append(id, "same")->message_id, 3);
  EXPECT_EQ(sync.Append(id, "same")->message_id, 4);
}

TEST(StoreIdempotencyTest, OtherContentUnderAUsedKeyIsRefusedAndStoresNothing) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  SyncStore sync(store.get());
  const std::string id = sync.Create("dev")->id;
  ASSERT_TRUE(sync.Append(Keyed(id, "OUTP OFF", "k")).ok());
  absl::StatusOr<MessageRecord> other = sync.Append(Keyed(id, "OUTP ON", "k"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(other.status().message(), "idempotency_key 'k'")) << other.status();
  AppendParams other_direction = Keyed(id, "OUTP OFF", "k");
  other_direction.direction = "rx";
  EXPECT_EQ(sync.Append(other_direction).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_EQ(sync.List(id)->messages.size(), 1u);
  EXPECT_EQ(sync.List(id)->messages[0].content, "OUTP OFF");
}

TEST(StoreIdempotencyTest, KeysAreUniquePerSession) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  SyncStore sync(store.get());
  const std::string a = sync.Create("a")->id;
  const std::string b = sync.Create("b")->id;
  ASSERT_TRUE(sync.Append(Keyed(a, "one", "shared")).ok());
  absl::StatusOr<MessageRecord> in_b = sync.Append(Keyed(b, "two", "shared"));
  ASSERT_TRUE(in_b.ok()) << in_b.status();
  EXPECT_EQ(in_b->session_id, b);
  EXPECT_EQ(sync.List(b)->messages.size(), 1u);
}

TEST(StoreIdempotencyTest, ARetryAfterTheSessionClosedStillGetsItsMessage) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  SyncStore sync(store.get());
  const std::string id = sync.Create("dev")->id;
  const int64_t stored = sync.Append(Keyed(id, "last", "k"))->message_id;
  ASSERT_TRUE(sync.Close(id).ok());
  absl::StatusOr<MessageRecord> retry = sync.Append(Keyed(id, "last", "k"));
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(retry->message_id, stored);
  EXPECT_EQ(sync.Append(Keyed(id, "new", "k2")).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(StoreIdempotencyTest, ConcurrentRetriesInOneBatchStoreOneMessage) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  SyncStore sync(store.get());
  const std::string id = sync.Create("dev")->id;
  std::vector<std::future<absl::StatusOr<MessageRecord>>> calls;
  for (int i = 0; i < 16; ++i) {
    calls.push_back(std::async(std::launch::async, [&] {
      return SyncStore(store.get()).Append(Keyed(id, "burst", "one-key"));
    }));
  }
  std::vector<int64_t> ids;
  for (auto& call : calls) {
    absl::StatusOr<MessageRecord> result = call.get();
    ASSERT_TRUE(result.ok()) << result.status();
    ids.push_back(result->message_id);
  }
  for (int64_t message_id : ids) EXPECT_EQ(message_id, ids.front());
  EXPECT_EQ(sync.List(id)->messages.size(), 1u);
}

TEST(StoreIdempotencyTest, AnOverlongKeyIsInvalid) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  SyncStore sync(store.get());
  const std::string id = sync.Create("dev")->id;
  absl::StatusOr<MessageRecord> refused =
      sync.Append(Keyed(id, "x", std::string(kMaxIdempotencyKeyBytes + 1, 'k')));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(sync.List(id)->messages.empty());
}

TEST(StoreIdempotencyTest, KeysSurviveARestart) {
  TempDir dir;
  std::string id;
  int64_t stored = 0;
  {
    auto store = OpenStore(dir.path());
    ASSERT_NE(store, nullptr);
    SyncStore sync(store.get());
    id = sync.Create("dev")->id;
    stored = sync.Append(Keyed(id, "before restart", "k"))->message_id;
  }
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  SyncStore sync(store.get());
  EXPECT_EQ(sync.Append(Keyed(id, "before restart", "k"))->message_id, stored);
  EXPECT_EQ(sync.List(id)->messages.size(), 1u);
}

// A database as the previous build (schema v2) left it, with data, opened by this build.
TEST(StoreIdempotencyTest, AV2DatabaseUpgradesInPlace) {
  TempDir dir;
  const std::string path = dir.Sub(SqliteSessionStore::kDatabaseFileName);
  {
    auto db = SqliteConnection::Open(path, {});
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(MigrateSchema(**db, 2).ok());
    ASSERT_TRUE((*db)
                    ->Exec("INSERT INTO sessions(id, device_id, port_name, created_at, updated_at, "
                           "last_message_id) VALUES ('v2-session', 'dev', '/dev/ttyUSB0', "
                           "'2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 1);"
                           "INSERT INTO messages(session_id, message_id, role, features, content, "
                           "created_at, created_unix_ms) VALUES ('v2-session', 1, 'tool', "
                           "'scpi', '*IDN?', '2026-01-01T00:00:00.000Z', 1767225600000);"
                           "INSERT INTO message_features VALUES ('v2-session', 1, 'scpi');")
                    .ok());
  }
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  {
    auto db = SqliteConnection::Open(path, {});
    ASSERT_TRUE(db.ok());
    EXPECT_EQ(*SchemaVersion(**db), LatestSchemaVersion());
  }
  SyncStore sync(store.get());
  absl::StatusOr<MessagePage> page = sync.List("v2-session");
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->messages.size(), 1u);
  EXPECT_EQ(page->messages[0].content, "*IDN?");
  EXPECT_FALSE(page->messages[0].occurred_at.has_value());  // v4 column, empty for old rows
  EXPECT_EQ(sync.Features("v2-session")->at("scpi"), 1);
  const int64_t keyed = sync.Append(Keyed("v2-session", "MEAS?", "k"))->message_id;
  EXPECT_EQ(keyed, 2);
  EXPECT_EQ(sync.Append(Keyed("v2-session", "MEAS?", "k"))->message_id, 2);
  EXPECT_EQ(sync.List("v2-session")->messages.size(), 2u);
}

}  // namespace
}  // namespace labgate::session
