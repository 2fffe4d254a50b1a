// Tasks kept in the session store's SQLite file (issue 34): a task in every status goes to its
// row and back exactly after a reopen, what tasks/get never shows included (owner, used keys);
// expired ones are not loaded; an unreadable body is refused by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/time_format.h"
#include "session-service/tasks/task_json.h"
#include "session-service/tests/store_test_util.h"

namespace labgate::session {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::Await;
using testing::OpenStore;
using testing::TempDir;

const TaskTime kStart =
    std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());

TEST(TaskStoreTest, ATaskGoesToItsRowAndBackExactlyAfterAReopen) {
  TempDir dir;
  TaskBook book;
  book.Create("asks", "http:alice", milliseconds(600000), milliseconds(500), kStart);
  ASSERT_TRUE(
      book.AskForInput("asks",
                       {{"k1", {{"method", "elicitation/create"}, {"params", json::object()}}},
                        {"k2", {{"method", "elicitation/create"}, {"params", json::object()}}}},
                       kStart + seconds(1))
          .ok());
  ASSERT_TRUE(book.Answer("asks", "http:alice", {{"k1", {{"action", "accept"}}}}, kStart).ok());
  book.Create("done", "ci:nightly", std::nullopt, std::nullopt, kStart);
  ASSERT_TRUE(book.Complete("done", {{"content", json::array()}, {"isError", false}}, kStart).ok());

  std::vector<TaskRow> rows;
  for (const char* id : {"asks", "done"}) {
    const std::string owner = std::string(id) == "done" ? "ci:nightly" : "http:alice";
    rows.push_back(TaskToRow(*book.Get(id, owner, kStart)));
  }
  Task expired;
  expired.id = "old";
  expired.owner = "http:alice";
  expired.created_at = kStart - seconds(10);
  expired.updated_at = expired.created_at;
  expired.ttl = milliseconds(1000);
  rows.push_back(TaskToRow(expired));

  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(Await<int64_t>([&](auto done) { store->SaveTasks(rows, done); }).ok());
  store->Shutdown();
  store = OpenStore(dir.path());
  absl::StatusOr<std::vector<TaskRow>> live = Await<std::vector<TaskRow>>(
      [&](auto done) { store->LoadLiveTasks(FormatRfc3339(kStart), done); });
  store->Shutdown();
  ASSERT_TRUE(live.ok()) << live.status();
  ASSERT_EQ(live->size(), 2u) << "the expired one is not loaded";

  absl::StatusOr<Task> asks = TaskFromStoredJson((*live)[0].body);
  ASSERT_TRUE(asks.ok()) << asks.status();
  EXPECT_EQ(asks->owner, "http:alice");
  EXPECT_EQ(asks->used_keys, (std::set<std::string>{"k1", "k2"})) << "k1 may never be used again";
  EXPECT_EQ(TaskToJson(*asks), TaskToJson(*book.Get("asks", "http:alice", kStart)));
  absl::StatusOr<Task> done = TaskFromStoredJson((*live)[1].body);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(TaskToJson(*done), TaskToJson(*book.Get("done", "ci:nightly", kStart)));
  EXPECT_EQ((*live)[1].expires_at, "9999-12-31T23:59:59.999Z") << "no time to live";
}

TEST(TaskStoreTest, AnUnreadableStoredTaskIsRefusedByName) {
  EXPECT_TRUE(absl::IsInvalidArgument(TaskFromStoredJson("not json").status()));
  absl::Status ownerless = TaskFromStoredJson(R"({"id":"t","status":"working"})").status();
  EXPECT_EQ(ownerless.message(), "a stored task needs a string owner");
  absl::Status status =
      TaskFromStoredJson(R"({"id":"t","owner":"o","status":"done","created_ms":1,"updated_ms":1})")
          .status();
  EXPECT_EQ(status.message(), "'done' is no task status");
}

}  // namespace
}  // namespace labgate::session
