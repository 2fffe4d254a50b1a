// Durability across restarts, a process that dies without shutting down, and schema
// migration from an older database.
#include <sys/wait.h>
#include <unistd.h>

#include "session-service/store/migrations.h"
#include "session-service/store/sqlite_db.h"
#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using testing::OpenStore;
using testing::SyncStore;
using testing::TempDir;

TEST(StorePersistenceTest, AcknowledgedMessagesSurviveARestart) {
  TempDir dir;
  std::string session_id;
  {
    auto store = OpenStore(dir.path());
    SyncStore sync(store.get());
    session_id = sync.Create("psu", "/dev/ttyS1")->id;
    for (int i = 1; i <= 25; ++i) {
      ASSERT_TRUE(sync.Append(session_id, "line " + std::to_string(i), "boot").ok());
    }
    ASSERT_TRUE(sync.Close(session_id).ok());
  }
  auto store = OpenStore(dir.path());
  SyncStore sync(store.get());
  absl::StatusOr<SessionExportRecord> exported = sync.Export(session_id);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(exported->session.device_id, "psu");
  EXPECT_TRUE(exported->session.closed);
  ASSERT_EQ(exported->messages.size(), 25u);
  EXPECT_EQ(exported->messages[24].content, "line 25");
  EXPECT_EQ(exported->messages[24].features, "boot");
  EXPECT_EQ(sync.Stats(session_id)->last_message_id, 25);
}

TEST(StorePersistenceTest, IdsContinueAfterRestart) {
  TempDir dir;
  std::string session_id;
  {
    auto store = OpenStore(dir.path());
    SyncStore sync(store.get());
    session_id = sync.Create("d")->id;
    ASSERT_EQ(sync.Append(session_id, "a")->message_id, 1);
    ASSERT_EQ(sync.Append(session_id, "b")->message_id, 2);
  }
  auto store = OpenStore(dir.path());
  SyncStore sync(store.get());
  EXPECT_EQ(sync.Append(session_id, "c")->message_id, 3);
}

// A child process appends, reports each acknowledgement through a pipe, then dies
// without any shutdown. Every acknowledged message must be in the database.
TEST(StorePersistenceTest, AcknowledgedMeansCommittedEvenIfTheProcessDies) {
  TempDir dir;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    SqliteSessionStoreOptions options;
    options.data_dir = dir.path();
    auto store = SqliteSessionStore::Open(options);
    if (!store.ok()) _exit(3);
    SyncStore sync(store->get());
    absl::StatusOr<SessionRecord> session = sync.Create("crash");
    if (!session.ok()) _exit(4);
    std::string line = session->id + "\n";
    if (write(fds[1], line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(5);
    for (int i = 0; i < 40; ++i) {
      absl::StatusOr<MessageRecord> m = sync.Append(session->id, "m" + std::to_string(i));
      if (!m.ok()) _exit(6);
      if (write(fds[1], "+", 1) != 1) _exit(7);
    }
    _exit(0);  // no destructors, no checkpoint, no Shutdown
  }
  close(fds[1]);
  std::string received;
  char buffer[256];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;) received.append(buffer, n);
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  size_t newline = received.find('\n');
  ASSERT_NE(newline, std::string::npos);
  std::string session_id = received.substr(0, newline);
  int64_t acknowledged = static_cast<int64_t>(received.size() - newline - 1);
  ASSERT_EQ(acknowledged, 40);

  auto store = OpenStore(dir.path());
  SyncStore sync(store.get());
  absl::StatusOr<MessagePage> page = sync.List(session_id, 1000);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(static_cast<int64_t>(page->messages.size()), acknowledged);
}

// Builds a v1 database the way an older build left it, with data, then opens it
// with the current code.
TEST(StorePersistenceTest, MigratesAnOlderDatabaseKeepingItsData) {
  TempDir dir;
  const std::string path = dir.Sub(SqliteSessionStore::kDatabaseFileName);
  {
    auto db = SqliteConnection::Open(path, {});
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(MigrateSchema(**db, 1).ok());
    ASSERT_EQ(*SchemaVersion(**db), 1);
    auto session = (*db)->Prepare(
        "INSERT INTO sessions(id, device_id, port_name, created_at, updated_at, last_message_id) "
        "VALUES ('old-session', 'legacy-dev', '/dev/ttyUSB9', '2025-10-01T10:00:00.000Z', "
        "'2025-10-01T10:02:00.000Z', 2)");
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE(session->Run().ok());
    auto message = (*db)->Prepare(
        "INSERT INTO messages(session_id, message_id, role, features, content, created_at, "
        "created_unix_ms) VALUES ('old-session', ?1, 'tool', ?2, ?3, "
        "'2025-10-01T10:00:00.000Z', ?4)");
    ASSERT_TRUE(message.ok());
    message->BindInt64(1, 1);
    message->BindText(2, "scpi,idn");
    message->BindText(3, "*IDN?");
    message->BindInt64(4, 1759312800000);
    ASSERT_TRUE(message->Run().ok());
    message->BindInt64(1, 2);
    message->BindText(2, "scpi2");
    message->BindText(3, "MEAS?");
    message->BindInt64(4, 1759312920000);
    ASSERT_TRUE(message->Run().ok());
  }

  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  {
    auto db = SqliteConnection::Open(path, {});
    ASSERT_TRUE(db.ok());
    EXPECT_EQ(*SchemaVersion(**db), LatestSchemaVersion());
    EXPECT_EQ(LatestSchemaVersion(), 6);
  }
  SyncStore sync(store.get());
  absl::StatusOr<MessagePage> page = sync.List("old-session");
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->messages.size(), 2u);
  EXPECT_EQ(page->messages[0].content, "*IDN?");
  EXPECT_EQ(page->messages[1].content, "MEAS?");

  // The v2 tag table was back-filled from the old rows.
  MessageQuery query;
  query.session_id = "old-session";
  query.feature = "scpi";
  absl::StatusOr<MessagePage> tagged = sync.Query(query);
  ASSERT_EQ(tagged->messages.size(), 1u);
  EXPECT_EQ(tagged->messages[0].message_id, 1);
  EXPECT_EQ(sync.Features("old-session")->at("scpi2"), 1);
  // 2 messages two minutes apart.
  EXPECT_DOUBLE_EQ(sync.Stats("old-session")->messages_per_min, 1.0);

  EXPECT_EQ(sync.Append("old-session", "new")->message_id, 3);
}

TEST(StorePersistenceTest, ConnectionsUseWalForeignKeysAndFullSync) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  auto db = SqliteConnection::Open(store->database_path(), {});
  ASSERT_TRUE(db.ok()) << db.status();
  auto mode = (*db)->Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok());
  ASSERT_TRUE(*mode->Step());
  EXPECT_EQ(mode->ColumnText(0), "wal");  // persistent in the file
  EXPECT_EQ(*(*db)->QueryInt64("PRAGMA foreign_keys"), 1);
  EXPECT_EQ(*(*db)->QueryInt64("PRAGMA synchronous"), 2);  // FULL
  EXPECT_GT(*(*db)->QueryInt64("PRAGMA busy_timeout"), 0);
}

TEST(StorePersistenceTest, RefusesADatabaseFromANewerBuild) {
  TempDir dir;
  {
    auto db = SqliteConnection::Open(dir.Sub(SqliteSessionStore::kDatabaseFileName), {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("PRAGMA user_version = 99").ok());
  }
  SqliteSessionStoreOptions options;
  options.data_dir = dir.path();
  auto store = SqliteSessionStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string(store.status().message()).find("99"), std::string::npos);
}

}  // namespace
}  // namespace labgate::session
