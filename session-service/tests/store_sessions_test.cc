// Session records: creation, lookup, listing order and closing.
#include <regex>
#include <set>
#include <thread>

#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using testing::OpenStore;
using testing::SyncStore;
using testing::TempDir;

TEST(StoreSessionsTest, CreateReturnsUuidAndTimestamps) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  SyncStore sync(store.get());
  absl::StatusOr<SessionRecord> session = sync.Create("dmm-7", "/dev/ttyACM0");
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_TRUE(std::regex_match(
      session->id,
      std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << session->id;
  EXPECT_EQ(session->device_id, "dmm-7");
  EXPECT_EQ(session->port_name, "/dev/ttyACM0");
  EXPECT_FALSE(session->closed);
  EXPECT_FALSE(session->created_at.empty());
  EXPECT_EQ(session->created_at, session->updated_at);

  absl::StatusOr<SessionRecord> fetched = sync.Get(session->id);
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(fetched->device_id, "dmm-7");
  EXPECT_EQ(fetched->created_at, session->created_at);
}

TEST(StoreSessionsTest, IdsAreUnique) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  SyncStore sync(store.get());
  std::set<std::string> ids;
  for (int i = 0; i < 50; ++i) ids.insert(sync.Create("d")->id);
  EXPECT_EQ(ids.size(), 50u);
}

TEST(StoreSessionsTest, ListsNewestFirstAndHidesClosedUnlessAsked) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  SyncStore sync(store.get());
  std::vector<std::string> created;
  for (int i = 0; i < 4; ++i) {
    created.push_back(sync.Create("d" + std::to_string(i))->id);
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  ASSERT_TRUE(sync.Close(created[1]).ok());

  absl::StatusOr<std::vector<SessionRecord>> open = sync.Sessions(false);
  ASSERT_TRUE(open.ok()) << open.status();
  std::vector<std::string> ids;
  for (const SessionRecord& s : *open) ids.push_back(s.id);
  EXPECT_EQ(ids, (std::vector<std::string>{created[3], created[2], created[0]}));

  absl::StatusOr<std::vector<SessionRecord>> all = sync.Sessions(true);
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[0].id, created[3]);
  EXPECT_EQ((*all)[2].id, created[1]);
  EXPECT_TRUE((*all)[2].closed);

  absl::StatusOr<std::vector<SessionRecord>> limited = sync.Sessions(true, 2);
  ASSERT_EQ(limited->size(), 2u);
  EXPECT_EQ((*limited)[1].id, created[2]);
}

TEST(StoreSessionsTest, CloseIsIdempotentAndAdvancesUpdatedAt) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  SyncStore sync(store.get());
  absl::StatusOr<SessionRecord> session = sync.Create("d");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  absl::StatusOr<SessionRecord> closed = sync.Close(session->id);
  ASSERT_TRUE(closed.ok()) << closed.status();
  EXPECT_TRUE(closed->closed);
  EXPECT_GT(closed->updated_at, session->updated_at);
  absl::StatusOr<SessionRecord> again = sync.Close(session->id);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->closed);
  EXPECT_EQ(again->updated_at, closed->updated_at);
  EXPECT_TRUE(sync.Get(session->id)->closed);
}

}  // namespace
}  // namespace labgate::session
