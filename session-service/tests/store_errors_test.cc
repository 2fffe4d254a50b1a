// Every refusal the store makes, and database failures that must surface as errors
// rather than crashes.
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using testing::OpenStore;
using testing::SyncStore;
using testing::TempDir;

bool MessageHas(const absl::Status& status, const std::string& text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

class StoreErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStore(dir_.path(), /*busy_timeout_ms=*/200);
    ASSERT_NE(store_, nullptr);
    sync_ = SyncStore(store_.get());
    session_id_ = sync_.Create("d")->id;
  }
  TempDir dir_;
  std::unique_ptr<SqliteSessionStore> store_;
  SyncStore sync_{nullptr};
  std::string session_id_;
};

TEST_F(StoreErrorsTest, UnknownSessionIsNotFoundEverywhere) {
  const std::string expected = "session 'no-such-id' not found";
  std::vector<absl::Status> statuses = {
      sync_.Get("no-such-id").status(),         sync_.Close("no-such-id").status(),
      sync_.Append("no-such-id", "x").status(), sync_.List("no-such-id").status(),
      sync_.Export("no-such-id").status(),      sync_.Features("no-such-id").status(),
      sync_.Stats("no-such-id").status(),
  };
  for (const absl::Status& status : statuses) {
    EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
    EXPECT_EQ(std::string(status.message()), expected);
  }
}

TEST_F(StoreErrorsTest, MissingFieldsAreInvalidArgumentsNamingTheField) {
  absl::Status no_session = sync_.Append("", "x").status();
  EXPECT_EQ(no_session.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(MessageHas(no_session, "session_id")) << no_session;

  absl::Status no_content = sync_.Append(session_id_, "").status();
  EXPECT_EQ(no_content.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(MessageHas(no_content, "content")) << no_content;

  absl::Status no_device = sync_.Create("").status();
  EXPECT_EQ(no_device.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(MessageHas(no_device, "device_id")) << no_device;

  for (absl::Status status : {sync_.Get("").status(), sync_.List("").status(),
                              sync_.Close("").status(), sync_.Stats("").status()}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(MessageHas(status, "session_id")) << status;
  }
}

TEST_F(StoreErrorsTest, ContentOverOneMebibyteIsRefused) {
  absl::Status too_big = sync_.Append(session_id_, std::string(1048577, 'x')).status();
  EXPECT_EQ(too_big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(MessageHas(too_big, "content")) << too_big;

  absl::StatusOr<MessageRecord> at_limit = sync_.Append(session_id_, std::string(1048576, 'y'));
  ASSERT_TRUE(at_limit.ok()) << at_limit.status();
  EXPECT_EQ(at_limit->message_id, 1);  // the refused append used no id
  EXPECT_EQ(sync_.List(session_id_)->messages[0].content.size(), 1048576u);
}

TEST_F(StoreErrorsTest, AppendToClosedSessionIsFailedPrecondition) {
  ASSERT_TRUE(sync_.Append(session_id_, "before").ok());
  ASSERT_TRUE(sync_.Close(session_id_).ok());
  absl::Status status = sync_.Append(session_id_, "after").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_EQ(sync_.List(session_id_)->messages.size(), 1u);
  EXPECT_EQ(sync_.Stats(session_id_)->last_message_id, 1);
}

TEST_F(StoreErrorsTest, LimitDefaultsToOneHundredAndClampsAtOneThousand) {
  std::atomic<int> pending{1005};
  std::promise<void> done;
  for (int i = 0; i < 1005; ++i) {
    AppendParams params;
    params.session_id = session_id_;
    params.content = "m";
    store_->AppendMessage(std::move(params), [&](absl::StatusOr<MessageRecord> result) {
      EXPECT_TRUE(result.ok()) << result.status();
      if (pending.fetch_sub(1) == 1) done.set_value();
    });
  }
  done.get_future().wait();

  absl::StatusOr<MessagePage> by_default = sync_.List(session_id_, 0);
  EXPECT_EQ(by_default->messages.size(), 100u);
  EXPECT_EQ(by_default->next_cursor, 100);

  absl::StatusOr<MessagePage> clamped = sync_.List(session_id_, 5000);
  EXPECT_EQ(clamped->messages.size(), 1000u);
  EXPECT_EQ(clamped->next_cursor, 1000);

  absl::Status negative = sync_.List(session_id_, -1).status();
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(MessageHas(negative, "limit"));
  EXPECT_EQ(sync_.Sessions(true, 5000)->size(), 1u);
}

TEST_F(StoreErrorsTest, ANegativeCursorIsInvalidArgument) {
  MessageQuery query;
  query.session_id = session_id_;
  query.after_message_id = -5;
  absl::Status negative = sync_.Query(query).status();
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(MessageHas(negative, "after_message_id"));
  query.after_message_id = 0;
  EXPECT_TRUE(sync_.Query(query).ok());
}

TEST_F(StoreErrorsTest, MultiTagFeatureFilterIsRefused) {
  MessageQuery query;
  query.session_id = session_id_;
  query.feature = "scpi idn";
  absl::Status status = sync_.Query(query).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(MessageHas(status, "feature"));
}

// Another connection holds the write lock: appends wait busy_timeout, then fail with
// UNAVAILABLE naming the cause; reads keep working (WAL); the store recovers.
TEST_F(StoreErrorsTest, LockedDatabaseIsUnavailableAndRecovers) {
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(store_->database_path().c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);

  absl::Status locked = sync_.Append(session_id_, "blocked").status();
  EXPECT_EQ(locked.code(), absl::StatusCode::kUnavailable) << locked;
  EXPECT_TRUE(MessageHas(locked, "locked")) << locked;
  EXPECT_TRUE(sync_.Get(session_id_).ok());

  ASSERT_EQ(sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);
  absl::StatusOr<MessageRecord> after = sync_.Append(session_id_, "unblocked");
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->message_id, 1);
}

TEST_F(StoreErrorsTest, CallsAfterShutdownAreUnavailable) {
  store_->Shutdown();
  store_->Shutdown();  // idempotent
  EXPECT_EQ(sync_.Append(session_id_, "late").status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(sync_.Get(session_id_).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(sync_.Create("d").status().code(), absl::StatusCode::kUnavailable);
}

// A file-size limit makes SQLite's writes fail the way a full disk does. Runs in a
// child process so the limit does not touch the test runner.
TEST(StoreDiskFullTest, FailedWriteIsInternalAndTheStoreKeepsWorking) {
  TempDir dir;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);  // get EFBIG instead of being killed
    auto store = OpenStore(dir.path());
    SyncStore sync(store.get());
    std::string id = sync.Create("d")->id;
    EXPECT_EQ(sync.Append(id, "small")->message_id, 1);

    rlimit limit{256 * 1024, RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &limit);
    absl::Status full = sync.Append(id, std::string(1048576, 'x')).status();
    EXPECT_EQ(full.code(), absl::StatusCode::kInternal) << full;
    EXPECT_TRUE(MessageHas(full, "sqlite code")) << full;

    // Reads still work and nothing of the failed append is visible.
    absl::StatusOr<MessagePage> page = sync.List(id);
    EXPECT_TRUE(page.ok()) << page.status();
    if (page.ok()) {
      EXPECT_EQ(page->messages.size(), 1u);
    }

    limit.rlim_cur = RLIM_INFINITY;
    setrlimit(RLIMIT_FSIZE, &limit);
    absl::StatusOr<MessageRecord> after = sync.Append(id, "after");
    EXPECT_TRUE(after.ok()) << after.status();
    if (after.ok()) {
      EXPECT_EQ(after->message_id, 2);  // the failed append used no id
    }
    store->Shutdown();
    _exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the store crashed";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "see the child's failures above";
}

TEST(StoreOpenErrorsTest, DataDirUnderAFileIsAnError) {
  TempDir dir;
  std::ofstream(dir.Sub("plain-file")) << "not a directory";
  SqliteSessionStoreOptions options;
  options.data_dir = dir.Sub("plain-file/data");
  auto store = SqliteSessionStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(MessageHas(store.status(), "plain-file/data")) << store.status();
}

TEST(StoreOpenErrorsTest, CorruptDatabaseFileIsAnError) {
  TempDir dir;
  std::ofstream(dir.Sub(SqliteSessionStore::kDatabaseFileName))
      << std::string(8192, 'Z');  // not an SQLite header
  SqliteSessionStoreOptions options;
  options.data_dir = dir.path();
  auto store = SqliteSessionStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInternal) << store.status();
  EXPECT_TRUE(MessageHas(store.status(), "not a database")) << store.status();
}

TEST(StoreOpenErrorsTest, EmptyDataDirIsInvalid) {
  auto store = SqliteSessionStore::Open({});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace labgate::session
