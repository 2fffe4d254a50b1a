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
    return ReplyOnce(
        raw_id, [this](MessageText payload) { payloads.push_back(std::move(payload).Join()); });
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

TEST(ReplyOnceTest, ACachedResultIsSharedNotCopiedAndReadsTheSameAsText) {
  auto cached = std::make_shared<const std::string>(R"({"tools":[{"name":"x"}]})");
  std::vector<MessageText> delivered;
  ReplyOnce shared("\"q\"", [&](MessageText payload) { delivered.push_back(std::move(payload)); });
  shared.ResultText(cached);
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_EQ(delivered[0].shared.get(), cached.get()) << "the cache's own string, uncopied";
  EXPECT_EQ(delivered[0].size(),
            std::string(R"({"jsonrpc":"2.0","id":"q","result":)").size() + cached->size() + 1);

  Sink sink;
  sink.Reply("\"q\"").ResultText(absl::string_view(*cached));
  EXPECT_EQ(std::move(delivered[0]).Join(), sink.payloads.at(0));
  EXPECT_EQ(sink.payloads.at(0), R"({"jsonrpc":"2.0","id":"q","result":{"tools":[{"name":"x"}]}})");
}

TEST(ReplyOnceTest, ACachedResultWithExtrasIsJoinedWithThem) {
  auto cached = std::make_shared<const std::string>(R"({"tools":[]})");
  std::vector<MessageText> delivered;
  ReplyOnce reply("1", [&](MessageText payload) { delivered.push_back(std::move(payload)); });
  reply.SetResultExtras({{"resultType", "complete"}});
  reply.ResultText(cached);
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_EQ(delivered[0].shared, nullptr);
  EXPECT_EQ(json::parse(std::move(delivered[0]).Join())["result"],
            json({{"tools", json::array()}, {"resultType", "complete"}}));
}

TEST(MessageTextTest, JoinsItsPiecesInOrderAndMovesASinglePiece) {
  EXPECT_TRUE(MessageText().empty());
  EXPECT_EQ(MessageText("abc").size(), 3u);
  EXPECT_EQ(MessageText("abc").Join(), "abc");
  auto middle = std::make_shared<const std::string>("-middle-");
  MessageText pieces("head", middle, "tail");
  EXPECT_FALSE(pieces.empty());
  EXPECT_EQ(pieces.size(), 16u);
  EXPECT_EQ(std::move(pieces).Join(), "head-middle-tail");
  EXPECT_EQ(*middle, "-middle-") << "the shared piece is left as it was";
  EXPECT_EQ(MessageText("", middle, "").Join(), "-middle-");
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
