#include "gateway/approvals/approval_board.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

namespace labgate::gateway {
namespace {

HeldWrite Write(const std::string& shown = "OUTP ON") {
  HeldWrite write;
  write.principal = "bob";
  write.owner = "http:bob";
  write.tool = "write";
  write.port = "loop://psu";
  write.shown = shown;
  write.rule = "output-on";
  return write;
}

ApprovalAnswer Console(const std::string& decision) {
  return {decision, "alice in the labgate console", true};
}

TEST(ApprovalBoardTest, AHoldIsListedUntilTheConsoleAnswersAndItsWaiterHearsThatAnswer) {
  ApprovalBoard board;
  auto hold = board.Put(Write(), /*retry=*/false);
  std::promise<ApprovalAnswer> heard;
  hold->Await([&heard](const ApprovalAnswer& answer) { heard.set_value(answer); });

  const auto listed = board.List();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, hold->id());
  EXPECT_EQ(listed[0].write.principal, "bob");
  EXPECT_EQ(listed[0].write.shown, "OUTP ON");
  EXPECT_GT(listed[0].expires_at, listed[0].held_at);

  ASSERT_TRUE(board.Answer(hold->id(), Console("accept")).ok());
  const ApprovalAnswer answer = heard.get_future().get();
  EXPECT_EQ(answer.decision, "accept");
  EXPECT_EQ(answer.approver, "alice in the labgate console");
  EXPECT_TRUE(answer.from_console);
  EXPECT_TRUE(board.List().empty());
}

TEST(ApprovalBoardTest, TheFirstAnswerWinsAndTheSecondIsToldWhoCameFirst) {
  ApprovalBoard board;
  auto hold = board.Put(Write(), false);
  std::vector<std::string> heard;
  hold->Await([&heard](const ApprovalAnswer& answer) { heard.push_back(answer.decision); });

  EXPECT_TRUE(hold->Answer({"decline", "the person at bob's MCP client", false}));
  const absl::Status late = board.Answer(hold->id(), Console("accept"));
  EXPECT_EQ(late.code(), absl::StatusCode::kAlreadyExists) << late;
  EXPECT_EQ(late.message(), "this write was already declined by the person at bob's MCP client");
  EXPECT_EQ(heard, std::vector<std::string>{"decline"});

  // Answered first in the console, while nobody waits yet: the client's answer loses and the
  // console hears who came first.
  auto second = board.Put(Write("OUTP ON;VOLT 30"), false);
  ASSERT_TRUE(board.Answer(second->id(), Console("accept")).ok());
  EXPECT_FALSE(second->Answer({"decline", "the person at bob's MCP client", false}));
  const absl::Status again = board.Answer(second->id(), Console("decline"));
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(), "this write was already approved by alice in the labgate console");
  std::string decided;
  second->Await([&decided](const ApprovalAnswer& answer) { decided = answer.decision; });
  EXPECT_EQ(decided, "accept");
}

TEST(ApprovalBoardTest, AnUnknownIdIsNotFound) {
  ApprovalBoard board;
  EXPECT_EQ(board.Answer("17", Console("accept")).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(board.Answer("not-a-number", Console("accept")).code(), absl::StatusCode::kNotFound);
}

TEST(ApprovalBoardTest, AnUnansweredHoldExpiresAndLeavesTheList) {
  ApprovalBoard board(absl::Milliseconds(100));
  auto hold = board.Put(Write(), false);
  std::promise<ApprovalAnswer> heard;
  hold->Await([&heard](const ApprovalAnswer& answer) { heard.set_value(answer); });
  auto future = heard.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const ApprovalAnswer answer = future.get();
  EXPECT_EQ(answer.decision, "expired");
  EXPECT_TRUE(answer.approver.empty());
  EXPECT_TRUE(board.List().empty());
  const absl::Status late = board.Answer(hold->id(), Console("accept"));
  EXPECT_EQ(late.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(late.message(), "this write's approval expired: nobody answered in time");
}

TEST(ApprovalBoardTest, ARetriedRequestFindsItsHoldAndTheConsolesAnswer) {
  ApprovalBoard board;
  // The 2026 era: the first attempt ends as input_required and nobody waits on the hold.
  auto first = board.Put(Write(), /*retry=*/true);
  ASSERT_EQ(board.List().size(), 1u);
  ASSERT_TRUE(board.Answer(first->id(), Console("accept")).ok());
  EXPECT_TRUE(board.List().empty());

  auto retried = board.Put(Write(), /*retry=*/true);
  EXPECT_EQ(retried->id(), first->id());
  std::string decided;
  retried->Await([&decided](const ApprovalAnswer& answer) { decided = answer.decision; });
  EXPECT_EQ(decided, "accept");

  // Claimed: the same write again is a new hold.
  auto next = board.Put(Write(), /*retry=*/true);
  EXPECT_NE(next->id(), first->id());
  // Holds of the stateful era are never shared, even for the same bytes.
  auto stateful_a = board.Put(Write("X"), false);
  auto stateful_b = board.Put(Write("X"), false);
  EXPECT_NE(stateful_a->id(), stateful_b->id());
}

TEST(ApprovalBoardTest, ARetryAfterTheHoldExpiredIsAskedAfresh) {
  ApprovalBoard board(absl::Milliseconds(50));
  auto first = board.Put(Write(), /*retry=*/true);
  for (int i = 0; i < 200 && !board.List().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(board.List().empty());
  auto retried = board.Put(Write(), /*retry=*/true);
  EXPECT_NE(retried->id(), first->id());
  EXPECT_FALSE(retried->answer().has_value());
}

TEST(ApprovalBoardTest, ListenersHearEachChangeOnce) {
  ApprovalBoard board;
  const uint64_t seen = board.version();
  std::atomic<int> calls{0};
  board.OnChange(seen, absl::InfiniteFuture(), [&calls] { ++calls; });
  EXPECT_EQ(calls.load(), 0);
  auto hold = board.Put(Write(), false);
  EXPECT_EQ(calls.load(), 1);
  ASSERT_TRUE(board.Answer(hold->id(), Console("decline")).ok());
  EXPECT_EQ(calls.load(), 1);                                           // heard once
  board.OnChange(seen, absl::InfiniteFuture(), [&calls] { ++calls; });  // already past: at once
  EXPECT_EQ(calls.load(), 2);
  // Nothing changes: the deadline ends the wait.
  std::promise<void> timed_out;
  board.OnChange(board.version(), absl::Now() + absl::Milliseconds(50),
                 [&timed_out] { timed_out.set_value(); });
  EXPECT_EQ(timed_out.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
}

TEST(ApprovalBoardTest, StoppingTheBoardExpiresWhatWaitsAndWakesListeners) {
  std::promise<ApprovalAnswer> heard;
  std::atomic<bool> woken{false};
  std::shared_ptr<ApprovalBoard::Hold> hold;
  {
    ApprovalBoard board;
    hold = board.Put(Write(), false);
    hold->Await([&heard](const ApprovalAnswer& answer) { heard.set_value(answer); });
    board.OnChange(board.version(), absl::InfiniteFuture(), [&woken] { woken = true; });
  }
  EXPECT_EQ(heard.get_future().get().decision, "expired");
  EXPECT_TRUE(woken.load());
  // The hold outlives the board, answered by nobody.
  EXPECT_FALSE(hold->Answer(Console("accept")));
}

}  // namespace
}  // namespace labgate::gateway
