// Appending and reading messages: ids, ordering, paging, tag filters, export,
// feature index and statistics.
#include <regex>

#include "session-service/store/sqlite_read_ops.h"
#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using testing::OpenStore;
using testing::SyncStore;
using testing::TempDir;

std::vector<int64_t> Ids(const std::vector<MessageRecord>& messages) {
  std::vector<int64_t> ids;
  for (const MessageRecord& m : messages) ids.push_back(m.message_id);
  return ids;
}

class StoreMessagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStore(dir_.path());
    ASSERT_NE(store_, nullptr);
    sync_ = SyncStore(store_.get());
    absl::StatusOr<SessionRecord> session = sync_.Create("scope-1", "/dev/ttyUSB0");
    ASSERT_TRUE(session.ok()) << session.status();
    session_id_ = session->id;
  }

  TempDir dir_;
  std::unique_ptr<SqliteSessionStore> store_;
  SyncStore sync_{nullptr};
  std::string session_id_;
};

TEST_F(StoreMessagesTest, AppendReturnsEveryFieldAndIdsRiseByOne) {
  AppendParams params;
  params.session_id = session_id_;
  params.content = "*IDN?";
  params.direction = "tx";
  params.features = " SCPI, idn  query,scpi ";
  params.latency_ms = 12;
  absl::StatusOr<MessageRecord> first = sync_.Append(params);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->message_id, 1);
  EXPECT_EQ(first->session_id, session_id_);
  EXPECT_EQ(first->role, "tool");  // the seed's default
  EXPECT_EQ(first->direction, "tx");
  EXPECT_EQ(first->features, "scpi,idn,query");
  EXPECT_EQ(first->latency_ms, 12);
  EXPECT_TRUE(
      std::regex_match(first->created_at, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z)")))
      << first->created_at;

  for (int64_t expected = 2; expected <= 5; ++expected) {
    absl::StatusOr<MessageRecord> next = sync_.Append(session_id_, "line");
    ASSERT_TRUE(next.ok()) << next.status();
    EXPECT_EQ(next->message_id, expected);
    EXPECT_FALSE(next->features.has_value());
    EXPECT_FALSE(next->direction.has_value());
  }
}

TEST_F(StoreMessagesTest, OccurredAtIsKeptInUtcWithMillisecondsBesideCreatedAt) {
  AppendParams params;
  params.session_id = session_id_;
  params.content = "boot";
  params.direction = "rx";
  params.occurred_at = "2026-11-27T02:03:04.5+01:00";
  absl::StatusOr<MessageRecord> stored = sync_.Append(params);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->occurred_at, "2026-11-27T01:03:04.500Z");
  absl::StatusOr<MessagePage> page = sync_.List(session_id_);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->messages.size(), 1u);
  EXPECT_EQ(page->messages[0].occurred_at, "2026-11-27T01:03:04.500Z");
  EXPECT_NE(page->messages[0].created_at, page->messages[0].occurred_at);

  // Without one, the message has none; a time that is not RFC 3339 is refused by name.
  absl::StatusOr<MessageRecord> plain = sync_.Append(session_id_, "line");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->occurred_at.has_value());
  params.occurred_at = "yesterday";
  absl::StatusOr<MessageRecord> refused = sync_.Append(params);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("occurred_at \"yesterday\""), std::string::npos)
      << refused.status();
}

TEST_F(StoreMessagesTest, IdsAreCountedPerSession) {
  absl::StatusOr<SessionRecord> other = sync_.Create("scope-2");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(sync_.Append(session_id_, "a")->message_id, 1);
  EXPECT_EQ(sync_.Append(other->id, "b")->message_id, 1);
  EXPECT_EQ(sync_.Append(session_id_, "c")->message_id, 2);
  EXPECT_EQ(sync_.Append(other->id, "d")->message_id, 2);
}

TEST_F(StoreMessagesTest, ListsAscendingWithCursorPaging) {
  for (int i = 1; i <= 7; ++i) ASSERT_TRUE(sync_.Append(session_id_, std::to_string(i)).ok());

  absl::StatusOr<MessagePage> page = sync_.List(session_id_, 3);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(Ids(page->messages), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(page->messages[0].content, "1");
  ASSERT_EQ(page->next_cursor, 3);

  page = sync_.List(session_id_, 3, *page->next_cursor);
  EXPECT_EQ(Ids(page->messages), (std::vector<int64_t>{4, 5, 6}));
  ASSERT_EQ(page->next_cursor, 6);

  page = sync_.List(session_id_, 3, *page->next_cursor);
  EXPECT_EQ(Ids(page->messages), (std::vector<int64_t>{7}));
  EXPECT_FALSE(page->next_cursor.has_value());

  // Exactly filling a page leaves no cursor either.
  page = sync_.List(session_id_, 7);
  EXPECT_EQ(page->messages.size(), 7u);
  EXPECT_FALSE(page->next_cursor.has_value());
}

TEST_F(StoreMessagesTest, FeatureFilterMatchesWholeTagsOnly) {
  ASSERT_TRUE(sync_.Append(session_id_, "m1", "scpi idn").ok());
  ASSERT_TRUE(sync_.Append(session_id_, "m2", "scpi2").ok());
  ASSERT_TRUE(sync_.Append(session_id_, "m3", "SCPI,query").ok());
  ASSERT_TRUE(sync_.Append(session_id_, "m4", "xscpi, scp").ok());
  ASSERT_TRUE(sync_.Append(session_id_, "m5").ok());

  MessageQuery query;
  query.session_id = session_id_;
  query.feature = "scpi";
  absl::StatusOr<MessagePage> page = sync_.Query(query);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(Ids(page->messages), (std::vector<int64_t>{1, 3}));

  query.feature = "  SCPI2 ";  // the filter is normalised like stored tags
  EXPECT_EQ(Ids(sync_.Query(query)->messages), (std::vector<int64_t>{2}));

  query.feature = "scp";
  EXPECT_EQ(Ids(sync_.Query(query)->messages), (std::vector<int64_t>{4}));

  query.feature = "sc";
  EXPECT_TRUE(sync_.Query(query)->messages.empty());
}

TEST_F(StoreMessagesTest, RoleDirectionAndFeatureFiltersAreAnded) {
  auto append = [&](std::string role, std::string direction, std::string features) {
    AppendParams params;
    params.session_id = session_id_;
    params.content = "x";
    params.role = std::move(role);
    params.direction = std::move(direction);
    params.features = std::move(features);
    ASSERT_TRUE(sync_.Append(params).ok());
  };
  append("device", "rx", "scpi");    // 1
  append("tool", "tx", "scpi");      // 2
  append("device", "tx", "scpi");    // 3
  append("device", "rx", "serial");  // 4
  append("device", "rx", "scpi");    // 5

  MessageQuery query;
  query.session_id = session_id_;
  query.role = "device";
  EXPECT_EQ(Ids(sync_.Query(query)->messages), (std::vector<int64_t>{1, 3, 4, 5}));
  query.direction = "rx";
  EXPECT_EQ(Ids(sync_.Query(query)->messages), (std::vector<int64_t>{1, 4, 5}));
  query.feature = "scpi";
  EXPECT_EQ(Ids(sync_.Query(query)->messages), (std::vector<int64_t>{1, 5}));

  // Filters page like list_messages.
  query.limit = 1;
  absl::StatusOr<MessagePage> page = sync_.Query(query);
  EXPECT_EQ(Ids(page->messages), (std::vector<int64_t>{1}));
  ASSERT_EQ(page->next_cursor, 1);
  query.after_message_id = 1;
  page = sync_.Query(query);
  EXPECT_EQ(Ids(page->messages), (std::vector<int64_t>{5}));
  EXPECT_FALSE(page->next_cursor.has_value());
}

TEST_F(StoreMessagesTest, ExportHasSessionAndAllMessages) {
  for (int i = 0; i < 150; ++i) ASSERT_TRUE(sync_.Append(session_id_, "m").ok());
  absl::StatusOr<SessionExportRecord> exported = sync_.Export(session_id_);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(exported->session.id, session_id_);
  EXPECT_EQ(exported->session.device_id, "scope-1");
  EXPECT_EQ(exported->session.port_name, "/dev/ttyUSB0");
  ASSERT_EQ(exported->messages.size(), 150u);  // not cut at the default page size
  EXPECT_EQ(exported->messages.front().message_id, 1);
  EXPECT_EQ(exported->messages.back().message_id, 150);
}

TEST_F(StoreMessagesTest, FeatureIndexCountsMessagesPerTag) {
  ASSERT_TRUE(sync_.Append(session_id_, "a", "scpi, idn").ok());
  ASSERT_TRUE(sync_.Append(session_id_, "b", "SCPI scpi").ok());
  ASSERT_TRUE(sync_.Append(session_id_, "c", "scpi2").ok());
  ASSERT_TRUE(sync_.Append(session_id_, "d").ok());
  absl::StatusOr<std::map<std::string, int64_t>> index = sync_.Features(session_id_);
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(*index, (std::map<std::string, int64_t>{{"idn", 1}, {"scpi", 2}, {"scpi2", 1}}));
}

TEST_F(StoreMessagesTest, StatsCountAndRate) {
  absl::StatusOr<SessionStatsRecord> empty = sync_.Stats(session_id_);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->message_count, 0);
  EXPECT_EQ(empty->last_message_id, 0);
  EXPECT_EQ(empty->messages_per_min, 0.0);

  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sync_.Append(session_id_, "m").ok());
  absl::StatusOr<SessionStatsRecord> stats = sync_.Stats(session_id_);
  EXPECT_EQ(stats->message_count, 3);
  EXPECT_EQ(stats->last_message_id, 3);
  // Three messages within one minute: the span is floored at one minute.
  EXPECT_DOUBLE_EQ(stats->messages_per_min, 3.0);
}

TEST(MessagesPerMinuteTest, DividesCountBySpanFlooredAtOneMinute) {
  EXPECT_EQ(MessagesPerMinute(0, 0, 0), 0.0);
  EXPECT_DOUBLE_EQ(MessagesPerMinute(1, 5000, 5000), 1.0);
  EXPECT_DOUBLE_EQ(MessagesPerMinute(10, 0, 120000), 5.0);
  EXPECT_DOUBLE_EQ(MessagesPerMinute(4, 0, 30000), 4.0);
}

TEST_F(StoreMessagesTest, CommittedChangesAreAnnouncedToWatchers) {
  std::mutex mu;
  std::vector<std::string> seen;
  store_->Subscribe(session_id_, [&](const SessionEventRecord& e) {
    std::lock_guard<std::mutex> lock(mu);
    switch (e.type) {
      case SessionEventRecord::Type::kCreated:
        seen.push_back("created");
        break;
      case SessionEventRecord::Type::kAppended:
        seen.push_back("appended " + std::to_string(e.message->message_id) + " " +
                       e.message->content);
        break;
      case SessionEventRecord::Type::kClosed:
        seen.push_back("closed");
        break;
    }
  });
  std::vector<std::string> created_ids;
  store_->Subscribe("", [&](const SessionEventRecord& e) {
    std::lock_guard<std::mutex> lock(mu);
    if (e.type == SessionEventRecord::Type::kCreated) created_ids.push_back(e.session.id);
  });
  absl::StatusOr<SessionRecord> other = sync_.Create("other");
  ASSERT_TRUE(sync_.Append(session_id_, "hello").ok());
  ASSERT_TRUE(sync_.Append(other->id, "elsewhere").ok());
  ASSERT_TRUE(sync_.Close(session_id_).ok());
  ASSERT_TRUE(sync_.Close(session_id_).ok());  // second close announces nothing

  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(seen, (std::vector<std::string>{"appended 1 hello", "closed"}));
  EXPECT_EQ(created_ids, (std::vector<std::string>{other->id}));
}

}  // namespace
}  // namespace labgate::session
