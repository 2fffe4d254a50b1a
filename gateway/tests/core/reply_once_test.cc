// ReplyOnce: one answer per request; a dropped handle answers -32603; result extras merge.
#include "gateway/core/reply_once.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "gateway/core/in_flight.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;

struct Sink {
  std::vector<std::string> payloads;
  ReplyOnce Reply(const std::string& raw_id) {
    return ReplyOnce(raw_id, [this](std::string payload) { payloads.push_back(payload); });
  }
};

TEST(ReplyOnceTest, AnswersOnceWithTheExactId) {
  Sink sink;
  ReplyOnce reply = sink.Reply("123456789012345678901234567890");
  EXPECT_TRUE(static_cast<bool>(reply));
  reply.Result({{"ok", true}});
  EXPECT_FALSE(static_cast<bool>(reply));
  ASSERT_EQ(sink.payloads.size(), 1u);
  EXPECT_EQ(sink.payloads[0],
            R"({"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{"ok":true}})");
}

TEST(ReplyOnceTest, ADroppedHandleAnswersInternalError) {
  Sink sink;
  { ReplyOnce reply = sink.Reply("7"); }
  ASSERT_EQ(sink.payloads.size(), 1u);
  json answer = json::parse(sink.payloads[0]);
  EXPECT_EQ(answer["id"], 7);
  EXPECT_EQ(answer["error"]["code"], -32603);
}

TEST(ReplyOnceTest, MovingHandsOverTheDutyToAnswer) {
  Sink sink;
  ReplyOnce first = sink.Reply("\"a\"");
  ReplyOnce second = std::move(first);
  EXPECT_FALSE(static_cast<bool>(first));
  second.Error(-32602, "bad", {{"field", "name"}});
  ASSERT_EQ(sink.payloads.size(), 1u);
  json answer = json::parse(sink.payloads[0]);
  EXPECT_EQ(answer["id"], "a");
  EXPECT_EQ(answer["error"]["data"]["field"], "name");
}

TEST(ReplyOnceTest, ASharedReplyAnswersWhenTheLastCopyGoes) {
  Sink sink;
  {
    SharedReply shared = Share(sink.Reply("1"));
    SharedReply copy = shared;
    shared.reset();
    EXPECT_TRUE(sink.payloads.empty());
  }
  ASSERT_EQ(sink.payloads.size(), 1u);
  EXPECT_EQ(json::parse(sink.payloads[0])["error"]["code"], -32603);
}

TEST(ReplyOnceTest, ExtrasMergeWithoutOverwriting) {
  Sink sink;
  ReplyOnce reply = sink.Reply("1");
  reply.SetResultExtras(
      {{"resultType", "complete"},
       {"ttlMs", 0},
       {"cacheScope", "private"},
       {"_meta", {{"io.modelcontextprotocol/serverInfo", {{"name", "labgate"}}}}}});
  reply.Result({{"tools", json::array()}, {"_meta", {{"mine", 1}}}});
  json result = json::parse(sink.payloads.at(0))["result"];
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["ttlMs"], 0);
  EXPECT_EQ(result["_meta"]["mine"], 1);
  EXPECT_EQ(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "labgate");
}

TEST(ReplyOnceTest, AnInputRequiredResultGetsNoCachingHints) {
  Sink sink;
  ReplyOnce reply = sink.Reply("1");
  reply.SetResultExtras({{"resultType", "complete"}, {"ttlMs", 5}, {"cacheScope", "public"}});
  reply.Result({{"resultType", "input_required"}, {"requestState", "x"}});
  json result = json::parse(sink.payloads.at(0))["result"];
  EXPECT_EQ(result["resultType"], "input_required");
  EXPECT_FALSE(result.contains("ttlMs"));
  EXPECT_FALSE(result.contains("cacheScope"));
}

TEST(ReplyOnceTest, ExtrasApplyToPreSerializedResultsToo) {
  Sink sink;
  ReplyOnce reply = sink.Reply("1");
  reply.SetResultExtras({{"resultType", "complete"}, {"_meta", {{"a", 1}}}});
  reply.ResultText(R"({"tools":[{"name":"x"}]})");
  json result = json::parse(sink.payloads.at(0))["result"];
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["_meta"]["a"], 1);
  EXPECT_EQ(result["tools"][0]["name"], "x");
  ReplyOnce empty = sink.Reply("2");
  empty.SetResultExtras({{"resultType", "complete"}});
  empty.ResultText("{}");
  EXPECT_EQ(json::parse(sink.payloads.at(1))["result"], json({{"resultType", "complete"}}));
}

TEST(InFlightCounterTest, WaitUntilIdleReturnsWhenTheLastTokenGoes) {
  auto counter = InFlightCounter::Create();
  auto token = std::make_unique<InFlightCounter::Token>(InFlightCounter::Enter(counter));
  EXPECT_EQ(counter->count(), 1u);
  EXPECT_FALSE(counter->WaitUntilIdle(std::chrono::milliseconds(10)));
  token.reset();
  EXPECT_TRUE(counter->WaitUntilIdle(std::chrono::milliseconds(10)));
  EXPECT_EQ(counter->count(), 0u);
}

}  // namespace
}  // namespace labgate::gateway
