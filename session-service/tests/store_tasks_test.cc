// Task rows (issue 34) in the session store's SQLite file: stored whole with their owner, replaced
// by id, read back after a reopen, and gone once expired, whether or not they were deleted yet.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using testing::Await;
using testing::OpenStore;
using testing::TempDir;

constexpr char kNow[] = "2026-11-27T16:00:00.000Z";
constexpr char kLater[] = "2026-11-27T17:00:00.000Z";

TaskRow Task(const std::string& id, const std::string& status, const std::string& expires_at) {
  return {id, "http:alice", status, R"({"taskId":")" + id + R"(","status":")" + status + R"("})",
          expires_at};
}

class StoreTasksTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }
  void TearDown() override {
    if (store_) store_->Shutdown();
  }
  void Open() {
    store_ = OpenStore(dir_.path());
    ASSERT_NE(store_, nullptr);
  }
  absl::StatusOr<int64_t> Save(std::vector<TaskRow> rows) {
    return Await<int64_t>([&](auto done) { store_->SaveTasks(std::move(rows), done); });
  }
  absl::StatusOr<TaskRow> Get(const std::string& id, const std::string& now = kNow) {
    return Await<TaskRow>([&](auto done) { store_->GetTask(id, now, done); });
  }

  TempDir dir_;
  std::unique_ptr<SqliteSessionStore> store_;
};

TEST_F(StoreTasksTest, ATaskIsKeptWholeReplacedByIdAndReadBackAfterAReopen) {
  ASSERT_TRUE(Save({Task("t1", "working", kLater), Task("t2", "working", kLater)}).ok());
  ASSERT_EQ(*Save({Task("t1", "completed", kLater)}), 1);
  store_->Shutdown();
  Open();
  absl::StatusOr<TaskRow> t1 = Get("t1");
  ASSERT_TRUE(t1.ok()) << t1.status();
  EXPECT_EQ(t1->owner, "http:alice");
  EXPECT_EQ(t1->status, "completed");
  EXPECT_EQ(t1->body, R"({"taskId":"t1","status":"completed"})");
  EXPECT_EQ(t1->expires_at, kLater);
  EXPECT_EQ(Get("t2")->status, "working");
}

TEST_F(StoreTasksTest, AnExpiredTaskIsGoneBeforeAndAfterItIsDeleted) {
  ASSERT_TRUE(Save({Task("old", "completed", kNow), Task("new", "working", kLater)}).ok());
  EXPECT_TRUE(absl::IsNotFound(Get("old").status())) << "expired at now: gone";
  EXPECT_TRUE(Get("old", "2026-11-27T15:59:59.999Z").ok()) << "a moment before, still there";
  absl::StatusOr<int64_t> deleted =
      Await<int64_t>([&](auto done) { store_->DeleteExpiredTasks(kNow, done); });
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 1);
  EXPECT_TRUE(absl::IsNotFound(Get("old", "2026-11-27T15:00:00.000Z").status()));
  EXPECT_TRUE(Get("new").ok());
}

TEST_F(StoreTasksTest, UnknownIdsAndIncompleteRowsAreRefusedAndNothingIsStored) {
  absl::StatusOr<TaskRow> unknown = Get("no-such-task");
  EXPECT_TRUE(absl::IsNotFound(unknown.status()));
  EXPECT_EQ(unknown.status().message(), "no task no-such-task");
  TaskRow ownerless = Task("t3", "working", kLater);
  ownerless.owner.clear();
  absl::StatusOr<int64_t> refused = Save({Task("t4", "working", kLater), ownerless});
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status()));
  EXPECT_TRUE(absl::IsNotFound(Get("t4").status())) << "all or nothing";
}

}  // namespace
}  // namespace labgate::session
