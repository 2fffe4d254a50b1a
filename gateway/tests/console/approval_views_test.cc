// The console's answers to held writes: an operator may answer only the holds whose rule is in
// its may_approve, and an answer for a hold that is not waiting yet cannot slip past that check
// by reaching the board after the hold is made.
#include "gateway/console/approval_views.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/access/access_control.h"
#include "common/access/access_policy.h"
#include "gateway/approvals/approval_board.h"
#include "gateway/console/port_views.h"

namespace labgate::gateway::console {
namespace {

using nlohmann::json;

HeldWrite Write(const std::string& shown) {
  HeldWrite write;
  write.principal = "olga";
  write.owner = "http:olga";
  write.tool = "write";
  write.port = "loop://psu";
  write.shown = shown;
  write.rule = "output-on";
  return write;
}

std::shared_ptr<const access::AccessControl> Access() {
  const json document = {{"principals",
                          {{"alice", {{"role", "operator"}, {"may_approve", {"output-*"}}}},
                           {"bob", {{"role", "operator"}, {"may_approve", {"nothing-*"}}}}}}};
  auto policy = access::AccessPolicy::Parse(document, "access.json");
  EXPECT_TRUE(policy.ok()) << policy.status();
  return access::AccessControl::ForTesting(*std::move(policy));
}

class ApprovalViewsTest : public ::testing::Test {
 protected:
  ApprovalBoard board_;
  ApprovalViews views_{&board_, Access()};
};

TEST_F(ApprovalViewsTest, AnAnswerForAHoldNotYetMadeIsRefusedAndDoesNotDecideItLater) {
  const ApprovalViews::Reply early = views_.Answered("bob", "1", "accept");
  EXPECT_EQ(early.status, 404) << early.body;
  EXPECT_EQ(early.body["error"], "no write is waiting for approval as 1");
  std::shared_ptr<ApprovalBoard::Hold> hold = board_.Put(Write("OUTP ON"), /*retry=*/false);
  ASSERT_EQ(hold->id(), "1");
  EXPECT_FALSE(hold->answer().has_value());
  // Now that it waits, bob is told its rule is not his to approve.
  const ApprovalViews::Reply refused = views_.Answered("bob", "1", "accept");
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_FALSE(hold->answer().has_value());
}

// The race itself: bob answers the next id over and over while the hold is being made. Each
// of his answers looks for the hold and, when it is not there, must not reach the board, where
// the hold may have appeared meanwhile.
TEST_F(ApprovalViewsTest, AnOperatorRacingANewHoldNeverApprovesARuleHeMayNot) {
  constexpr int kRounds = 300;
  std::vector<std::shared_ptr<ApprovalBoard::Hold>> holds(kRounds);
  int approved = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string id = std::to_string(round + 1);
    std::thread putter(
        [&, round] { holds[round] = board_.Put(Write("OUTP ON " + id), /*retry=*/false); });
    ApprovalViews::Reply reply;
    do {
      reply = views_.Answered("bob", id, "accept");
    } while (reply.status == 404);
    putter.join();
    if (reply.status == 200) ++approved;
    EXPECT_EQ(reply.status, 403) << "round " << round << ": " << reply.body;
    ASSERT_EQ(holds[round]->id(), id);
    EXPECT_FALSE(holds[round]->answer().has_value()) << "round " << round;
    holds[round]->Answer({"decline", "test", false});  // out of the next rounds' list
  }
  EXPECT_EQ(approved, 0);
}

TEST_F(ApprovalViewsTest, ASecondAnswerToAHoldShownIsToldWhoCameFirst) {
  std::shared_ptr<ApprovalBoard::Hold> hold = board_.Put(Write("OUTP ON"), /*retry=*/false);
  const ApprovalViews::Reply approved = views_.Answered("alice", hold->id(), "accept");
  EXPECT_EQ(approved.status, 200) << approved.body;
  EXPECT_EQ(approved.body["approver"], "alice in the labgate console");
  const std::optional<ApprovalAnswer> answer = hold->answer();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer.value_or(ApprovalAnswer{}).decision, "accept");

  const ApprovalViews::Reply late = views_.Answered("alice", hold->id(), "decline");
  EXPECT_EQ(late.status, 409) << late.body;
  EXPECT_EQ(late.body["error"], "this write was already approved by alice in the labgate console");
  // An id past every one shown is not asked about, so not even a known answer is told.
  EXPECT_EQ(views_.Answered("alice", "2", "accept").status, 404);
  EXPECT_EQ(views_.Answered("alice", "two", "accept").status, 404);
}

// An approval lets a write reach the port, so the approver must be one who may change that
// port: its ports, its bench and not read-only, as well as may_approve naming the rule.
TEST(ApprovalViewsPortTest, OnlyAnOperatorWhoMayChangeTheHeldPortApprovesIt) {
  const json document = {{"principals",
                          {{"student", {{"role", "operator"}, {"ports", {"loop://dmm-*"}}}},
                           {"reader", {{"role", "operator"}, {"read_only", true}}},
                           {"alice", {{"role", "operator"}, {"benches", {"lab-a"}}}}}}};
  auto policy = access::AccessPolicy::Parse(document, "access.json");
  ASSERT_TRUE(policy.ok()) << policy.status();
  std::shared_ptr<const access::AccessControl> access =
      access::AccessControl::ForTesting(*std::move(policy));
  ApprovalBoard board;
  ApprovalViews views(&board, access,
                      [access](const std::string& principal, const std::string& port) {
                        return MayChangePort(access.get(), nullptr, principal, port);
                      });
  std::shared_ptr<ApprovalBoard::Hold> hold = board.Put(Write("OUTP ON"), /*retry=*/false);

  const ApprovalViews::Reply student = views.Answered("student", hold->id(), "accept");
  EXPECT_EQ(student.status, 403) << student.body;
  EXPECT_EQ(student.body["error"],
            "student may not use port loop://psu: it is not among its ports in access.json");
  const ApprovalViews::Reply reader = views.Answered("reader", hold->id(), "accept");
  EXPECT_EQ(reader.status, 403) << reader.body;
  EXPECT_FALSE(hold->answer().has_value());
  const json listed =
      ApprovalsJson(&board, access.get(), "student", nullptr,
                    [access](const std::string& principal, const std::string& port) {
                      return MayChangePort(access.get(), nullptr, principal, port);
                    });
  ASSERT_EQ(listed["approvals"].size(), 1u);
  EXPECT_EQ(listed["approvals"][0]["may_answer"], false) << "the list says so too";

  const ApprovalViews::Reply ok = views.Answered("alice", hold->id(), "accept");
  EXPECT_EQ(ok.status, 200) << ok.body;
  ASSERT_TRUE(hold->answer().has_value());
}

TEST(ApprovalViewsPortTest, ABenchOutsideThePrincipalsBenchesIsRefusedByItsName) {
  const json document = {
      {"principals", {{"alice", {{"role", "operator"}, {"benches", {"lab-a"}}}}}}};
  auto policy = access::AccessPolicy::Parse(document, "access.json");
  ASSERT_TRUE(policy.ok()) << policy.status();
  std::shared_ptr<const access::AccessControl> access =
      access::AccessControl::ForTesting(*std::move(policy));
  absl::StatusOr<std::vector<Bench>> parsed =
      ParseBenches({"lab-a=127.0.0.1:1", "lab-b=127.0.0.1:2"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const SerialBenches benches(*std::move(parsed));
  EXPECT_TRUE(MayChangePort(access.get(), &benches, "alice", "lab-a:loop://psu").ok());
  const absl::Status other = MayChangePort(access.get(), &benches, "alice", "lab-b:loop://psu");
  EXPECT_EQ(other.code(), absl::StatusCode::kPermissionDenied) << other;
}

}  // namespace
}  // namespace labgate::gateway::console
