// The v0.1 envelope's checks with an actions service configured: an invoke's payload texts,
// byte for byte, and what a valid envelope asks for.
#include "gateway/legacy/envelope_check.h"

#include <gtest/gtest.h>

#include <string>

namespace labgate::gateway::legacy {
namespace {

using nlohmann::json;

std::string Refusal(const std::string& envelope) {
  CheckedEnvelope checked = CheckEnvelope(json::parse(envelope), /*actions_configured=*/true);
  EXPECT_EQ(checked.kind, CheckedEnvelope::Kind::kRefused);
  return checked.refusal;
}

TEST(EnvelopeCheckTest, AnInvokeWithoutPayloadIsRequired) {
  EXPECT_EQ(Refusal(R"({"id":"r","type":"invoke"})"),
            R"({"id":"r","ok":false,"error":"Invalid invoke payload","issues":[)"
            R"({"code":"invalid_type","message":"Required","path":[]}]})");
}

TEST(EnvelopeCheckTest, APayloadMustBeAnObject) {
  EXPECT_EQ(Refusal(R"({"type":"invoke","payload":[1]})"),
            R"({"ok":false,"error":"Invalid invoke payload","issues":[)"
            R"({"code":"invalid_type","message":"Expected object, received array","path":[]}]})");
}

TEST(EnvelopeCheckTest, EveryPayloadIssueIsListed) {
  EXPECT_EQ(Refusal(R"({"type":"invoke","payload":{"action":"","input":"text"}})"),
            R"({"ok":false,"error":"Invalid invoke payload","issues":[)"
            R"x({"code":"too_small","message":"String must contain at least 1 character(s)",)x"
            R"("path":["action"]},)"
            R"({"code":"invalid_type","message":"Expected object, received string",)"
            R"("path":["input"]}]})");
}

TEST(EnvelopeCheckTest, TheEnvelopeIsJudgedBeforeThePayload) {
  EXPECT_EQ(Refusal(R"({"id":5,"type":"invoke"})"),
            R"({"ok":false,"error":"Invalid request envelope","issues":[)"
            R"({"code":"invalid_type","message":"Expected string, received number",)"
            R"("path":["id"]}]})");
}

TEST(EnvelopeCheckTest, WithoutActionsServiceNoPayloadIsJudged) {
  CheckedEnvelope checked =
      CheckEnvelope(json::parse(R"({"id":"q","type":"invoke"})"), /*actions_configured=*/false);
  EXPECT_EQ(checked.refusal, R"({"id":"q","ok":false,"error":"No actions service is configured"})");
}

TEST(EnvelopeCheckTest, AValidInvokeSaysWhatToRun) {
  CheckedEnvelope checked = CheckEnvelope(
      json::parse(R"({"type":"invoke","payload":{"action":"supportive_reply","input":{"a":1}}})"),
      /*actions_configured=*/true);
  ASSERT_EQ(checked.kind, CheckedEnvelope::Kind::kInvoke);
  EXPECT_EQ(checked.action, "supportive_reply");
  EXPECT_EQ(checked.input, json({{"a", 1}}));
  EXPECT_TRUE(checked.refusal.empty());
}

TEST(EnvelopeCheckTest, ListActionsAsksForTheList) {
  CheckedEnvelope checked = CheckEnvelope(json::parse(R"({"id":"l","type":"list_actions"})"),
                                          /*actions_configured=*/true);
  EXPECT_EQ(checked.kind, CheckedEnvelope::Kind::kListActions);
  EXPECT_EQ(DumpReply(ReplyBase(json::parse(R"({"id":"l","type":"list_actions"})"))),
            R"({"id":"l"})");
}

}  // namespace
}  // namespace labgate::gateway::legacy
