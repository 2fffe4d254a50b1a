// The rules of MCP tasks (issue 34) with a clock the tests drive: ownership, the status machine,
// input keys that are never reused and answers to keys not outstanding ignored, the time to live,
// and the shape tasks/get shows.
#include "session-service/tasks/task_book.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace labgate::session {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

const TaskTime kStart = TaskTime() + std::chrono::hours(500000);

json Elicit(const std::string& message) {
  return {{"method", "elicitation/create"},
          {"params", {{"message", message}, {"requestedSchema", {{"type", "object"}}}}}};
}

TEST(TaskBookTest, ATaskIsItsOwnersAloneAndGoneAfterItsTimeToLive) {
  TaskBook book;
  book.Create("t1", "http:alice", milliseconds(60000), milliseconds(500), kStart);
  EXPECT_TRUE(book.Get("t1", "http:alice", kStart + seconds(59)).ok());
  absl::StatusOr<Task> other = book.Get("t1", "http:bob", kStart);
  EXPECT_TRUE(absl::IsNotFound(other.status()));
  EXPECT_EQ(other.status().message(), "no task t1") << "the same words as for no task at all";
  EXPECT_EQ(book.Get("nope", "http:alice", kStart).status().message(), "no task nope");
  EXPECT_TRUE(absl::IsNotFound(book.Get("t1", "http:alice", kStart + seconds(60)).status()));
  EXPECT_TRUE(absl::IsNotFound(book.Cancel("t1", "http:alice", kStart + seconds(61)).status()));
  EXPECT_EQ(book.Purge(kStart + seconds(61)), 1);

  book.Create("forever", "http:alice", std::nullopt, std::nullopt, kStart);
  json shown = TaskToJson(*book.Get("forever", "http:alice", kStart + std::chrono::hours(999)));
  EXPECT_TRUE(shown.contains("ttlMs") && shown["ttlMs"].is_null()) << shown;
  EXPECT_FALSE(shown.contains("pollIntervalMs")) << "left out rather than null";
}

TEST(TaskBookTest, InputKeysAreNeverReusedAndAnswersToOtherKeysAreIgnored) {
  TaskBook book;
  book.Create("t", "http:alice", milliseconds(600000), milliseconds(500), kStart);
  ASSERT_TRUE(
      book.AskForInput("t", {{"name", Elicit("Your name?")}, {"size", Elicit("How big?")}}, kStart)
          .ok());
  json shown = TaskToJson(*book.Get("t", "http:alice", kStart));
  EXPECT_EQ(shown["status"], "input_required");
  EXPECT_EQ(shown["inputRequests"].size(), 2u);

  absl::StatusOr<json> taken =
      book.Answer("t", "http:alice", {{"name", {{"action", "accept"}}}, {"unknown-key", {}}},
                  kStart + seconds(1));
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(*taken, (json{{"name", {{"action", "accept"}}}})) << "the unknown key is ignored";
  shown = TaskToJson(*book.Get("t", "http:alice", kStart + seconds(1)));
  EXPECT_EQ(shown["status"], "input_required") << "one key is still outstanding";
  EXPECT_EQ(shown["inputRequests"], (json{{"size", Elicit("How big?")}}));
  EXPECT_TRUE(absl::IsNotFound(book.Answer("t", "http:bob", {{"size", {}}}, kStart).status()));

  ASSERT_TRUE(book.Answer("t", "http:alice", {{"size", {{"action", "decline"}}}}, kStart).ok());
  EXPECT_EQ(book.Get("t", "http:alice", kStart)->status, TaskStatus::kWorking);
  EXPECT_TRUE(absl::IsFailedPrecondition(
      book.AskForInput("t", {{"name", Elicit("Again?")}}, kStart).status()))
      << "a key is used once in a task's life";
  EXPECT_TRUE(book.AskForInput("t", {{"name-2", Elicit("Again?")}}, kStart).ok());
}

TEST(TaskBookTest, AFinishedTaskNeverChangesAndEachEndShowsItsOwnPart) {
  TaskBook book;
  book.Create("done", "http:alice", milliseconds(60000), std::nullopt, kStart);
  const json result = {{"content", json::array({{{"type", "text"}, {"text", "VOLT 5 set"}}})},
                       {"isError", true}};
  ASSERT_TRUE(book.Complete("done", result, kStart + seconds(1)).ok());
  EXPECT_EQ(book.Cancel("done", "http:alice", kStart + seconds(2))->status, TaskStatus::kCompleted)
      << "a cancel of a finished task changes nothing";
  json shown = TaskToJson(*book.Get("done", "http:alice", kStart + seconds(3)));
  EXPECT_EQ(shown["status"], "completed") << "a tool error result still completes the task";
  EXPECT_EQ(shown["result"], result);
  EXPECT_FALSE(shown.contains("error"));

  book.Create("broken", "http:alice", milliseconds(60000), std::nullopt, kStart);
  ASSERT_TRUE(book.Fail("broken", {{"code", -32603}, {"message", "labgate-serial went away"}},
                        "the worker died", kStart)
                  .ok());
  shown = TaskToJson(*book.Get("broken", "http:alice", kStart));
  EXPECT_EQ(shown["status"], "failed");
  EXPECT_EQ(shown["statusMessage"], "the worker died");
  EXPECT_EQ(shown["error"]["code"], -32603);
  EXPECT_FALSE(shown.contains("result"));
  EXPECT_TRUE(absl::IsFailedPrecondition(
      book.AskForInput("broken", {{"k", Elicit("?")}}, kStart).status()));

  book.Create("stop", "http:alice", milliseconds(60000), std::nullopt, kStart);
  ASSERT_TRUE(book.AskForInput("stop", {{"k", Elicit("?")}}, kStart).ok());
  EXPECT_EQ(book.Cancel("stop", "http:alice", kStart)->status, TaskStatus::kCancelled);
  EXPECT_EQ(book.Complete("stop", result, kStart)->status, TaskStatus::kCancelled)
      << "work that ends after a cancel does not undo it";
  shown = TaskToJson(*book.Get("stop", "http:alice", kStart));
  EXPECT_FALSE(shown.contains("inputRequests"));
  EXPECT_FALSE(shown.contains("result"));
  const std::string created = shown["createdAt"].get<std::string>();
  ASSERT_GE(created.size(), 20u) << created;
  EXPECT_EQ(created[4], '-');
  EXPECT_EQ(created[10], 'T') << "ISO 8601, as tasks/get must show it";
  EXPECT_EQ(created.back(), 'Z');
}

TEST(TaskBookTest, AWorkingTaskSaysWhatItIsDoingUntilItEnds) {
  TaskBook book;
  book.Create("t", "http:alice", milliseconds(600000), milliseconds(500), kStart);
  absl::StatusOr<Task> reported =
      book.Report("t", "waiting: 2nd in the queue", kStart + seconds(1));
  ASSERT_TRUE(reported.ok()) << reported.status();
  EXPECT_EQ(reported->revision, 2);
  json shown = TaskToJson(*book.Get("t", "http:alice", kStart + seconds(1)));
  EXPECT_EQ(shown["statusMessage"], "waiting: 2nd in the queue");
  EXPECT_EQ(shown["status"], "working");
  bool changed = true;
  EXPECT_EQ(book.Report("t", "waiting: 2nd in the queue", kStart + seconds(2), &changed)->revision,
            2)
      << "the same message again is no change";
  EXPECT_FALSE(changed);
  EXPECT_EQ(book.Report("t", "waiting: 1st in the queue", kStart + seconds(3), &changed)->revision,
            3);
  EXPECT_TRUE(changed);

  ASSERT_TRUE(book.Complete("t", {{"content", json::array()}}, kStart + seconds(4)).ok());
  shown = TaskToJson(*book.Get("t", "http:alice", kStart + seconds(4)));
  EXPECT_FALSE(shown.contains("statusMessage")) << "what it was doing is over: " << shown;
  absl::StatusOr<Task> late = book.Report("t", "waiting", kStart + seconds(5));
  EXPECT_TRUE(absl::IsFailedPrecondition(late.status())) << late.status();
  EXPECT_EQ(late.status().message(), "task t is completed: it reports nothing more");
  EXPECT_TRUE(absl::IsNotFound(book.Report("nope", "x", kStart).status()));
}

}  // namespace
}  // namespace labgate::session
