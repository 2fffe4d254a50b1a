#include "gateway/jsonrpc/message.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>

#include "common/status_map.h"

namespace labgate::gateway::jsonrpc {
namespace {

using Kind = IncomingMessage::Kind;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kParse = jsonrpc_code::kParseError;
constexpr int kInvalid = jsonrpc_code::kInvalidRequest;
constexpr int kParams = jsonrpc_code::kInvalidParams;

// An invalid message with this code, id and (part of its) message.
void ExpectInvalid(std::string_view payload, int code, std::string_view raw_id,
                   std::string_view message_part = "") {
  SCOPED_TRACE(::testing::Message() << "payload: " << payload.substr(0, 200));
  IncomingMessage m = ParseMessage(payload);
  EXPECT_EQ(m.kind, Kind::kInvalid);
  EXPECT_EQ(m.error_code, code);
  EXPECT_EQ(m.raw_id, raw_id);
  EXPECT_THAT(m.error_message, HasSubstr(std::string(message_part)));
  EXPECT_FALSE(m.error_message.empty());
  if (code == kParse) {
    EXPECT_TRUE(m.body.is_null());
  }
}

TEST(ParseMessageTest, Request) {
  IncomingMessage m = ParseMessage(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
  EXPECT_EQ(m.kind, Kind::kRequest);
  EXPECT_EQ(m.raw_id, "7");
  EXPECT_EQ(m.method, "ping");
  EXPECT_EQ(m.error_code, 0);
  EXPECT_EQ(m.body["method"], "ping");
}

TEST(ParseMessageTest, RequestWithParamsObjectOrArray) {
  IncomingMessage m =
      ParseMessage(R"({"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"x"}})");
  EXPECT_EQ(m.kind, Kind::kRequest);
  EXPECT_EQ(m.raw_id, "\"abc\"");
  EXPECT_EQ(m.body["params"]["name"], "x");
  EXPECT_EQ(ParseMessage(R"({"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]})").kind,
            Kind::kRequest);
}

TEST(ParseMessageTest, Notification) {
  IncomingMessage m = ParseMessage(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(m.kind, Kind::kNotification);
  EXPECT_EQ(m.raw_id, "null");
  EXPECT_EQ(m.method, "notifications/initialized");
}

TEST(ParseMessageTest, Responses) {
  IncomingMessage result = ParseMessage(R"({"jsonrpc":"2.0","id":3,"result":{}})");
  EXPECT_EQ(result.kind, Kind::kResponse);
  EXPECT_EQ(result.raw_id, "3");
  IncomingMessage error =
      ParseMessage(R"({"jsonrpc":"2.0","id":"s-1","error":{"code":-1,"message":"no"}})");
  EXPECT_EQ(error.kind, Kind::kResponse);
  EXPECT_EQ(error.raw_id, "\"s-1\"");
  // A result may be anything, null included.
  EXPECT_EQ(ParseMessage(R"({"jsonrpc":"2.0","id":3,"result":null})").kind, Kind::kResponse);
}

TEST(ParseMessageTest, AnObjectWithoutJsonrpcIsInvalidAndKeepsItsBody) {
  // The core knows no other dialect: a v0.1 envelope is just not JSON-RPC here, and its
  // body stays for the dialect that claims it.
  IncomingMessage m =
      ParseMessage(R"({"id":"r1","type":"invoke","payload":{"action":"a","input":{}}})");
  EXPECT_EQ(m.kind, Kind::kInvalid);
  EXPECT_EQ(m.error_code, -32600);
  EXPECT_EQ(m.body["payload"]["action"], "a");
  // With "jsonrpc" it is JSON-RPC, whatever else it has.
  EXPECT_EQ(ParseMessage(R"({"jsonrpc":"2.0","type":"x","id":1,"method":"m"})").kind,
            Kind::kRequest);
}

TEST(ParseMessageTest, InvalidJsonIsAParseErrorWithNullId) {
  ExpectInvalid("", kParse, "null", "Parse error");
  ExpectInvalid("   ", kParse, "null");
  ExpectInvalid("{", kParse, "null");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":5,"method":)", kParse, "null");  // truncated
  ExpectInvalid(R"({"jsonrpc":"2.0","id":5,"method":"m")", kParse, "null");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":5,"method":"m"} x)", kParse, "null");  // trailing
  ExpectInvalid(R"({"a":1}{"b":2})", kParse, "null");
  ExpectInvalid(R"({'a':1})", kParse, "null");
  ExpectInvalid(R"({"a":tru})", kParse, "null");
  ExpectInvalid(R"({"a":01})", kParse, "null");
  ExpectInvalid(R"({"a":1,})", kParse, "null");
  ExpectInvalid("garbage", kParse, "null");
}

TEST(ParseMessageTest, ParseErrorMessageSaysWhere) {
  IncomingMessage m = ParseMessage(R"({"a":tru})");
  EXPECT_THAT(m.error_message, StartsWith("Parse error: "));
  EXPECT_THAT(m.error_message, HasSubstr("column"));
  EXPECT_THAT(m.error_message, ::testing::Not(HasSubstr("[json.exception")));
}

TEST(ParseMessageTest, NulBytesAreParseErrors) {
  ExpectInvalid(std::string("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\0", 38), kParse,
                "null");
  ExpectInvalid(std::string("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\0\"}", 38), kParse,
                "null");
  ExpectInvalid(std::string("\0", 1), kParse, "null");
  // nlohmann alone would stop at the NUL and accept what came before it.
  ExpectInvalid(std::string("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\0junk", 42), kParse,
                "null", "NUL byte at offset 37");
}

TEST(ParseMessageTest, InvalidUtf8IsAParseError) {
  ExpectInvalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xFF\"}", kParse, "null");
  ExpectInvalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xC0\xAF\"}", kParse, "null");
  ExpectInvalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xED\xA0\x80\"}", kParse, "null");
  ExpectInvalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xE2\x82\"}", kParse, "null");
  ExpectInvalid("{\"jsonrpc\":\"2.0\",\"id\":\"\x80\",\"method\":\"m\"}", kParse, "null");
  // Valid multi-byte UTF-8 is fine.
  IncomingMessage ok = ParseMessage(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E\"}");
  EXPECT_EQ(ok.kind, Kind::kRequest);
  EXPECT_EQ(ok.method, "\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E");
}

TEST(ParseMessageTest, ByteOrderMarkIsAParseError) {
  ExpectInvalid("\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}", kParse, "null",
                "byte order mark");
}

TEST(ParseMessageTest, NumbersOutOfRangeAreParseErrors) {
  ExpectInvalid(R"({"jsonrpc":"2.0","id":1e400,"method":"m"})", kParse, "null");
}

std::string Nest(size_t depth) {
  // depth levels in total: the request object, its params array and depth - 2 more arrays.
  return R"({"jsonrpc":"2.0","id":1,"method":"m","params":)" + std::string(depth - 1, '[') +
         std::string(depth - 1, ']') + "}";
}

TEST(ParseMessageTest, NestingUpTo128LevelsIsAccepted) {
  EXPECT_EQ(ParseMessage(Nest(128)).kind, Kind::kRequest);
  ExpectInvalid(Nest(129), kParse, "null", "deeper than 128 levels");
}

TEST(ParseMessageTest, DeepNestingIsRefusedAtTheLimit) {
  ExpectInvalid(std::string(1000000, '['), kParse, "null", "deeper than 128 levels");
  std::string objects;
  for (int i = 0; i < 1000000; ++i) objects += "{\"a\":";
  ExpectInvalid(objects, kParse, "null", "deeper than 128 levels");
  // Brackets in strings are not nesting.
  EXPECT_EQ(ParseMessage(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"s":")" +
                         std::string(100000, '[') + "\"}}")
                .kind,
            Kind::kRequest);
}

TEST(ParseMessageTest, BatchesAreRefused) {
  ExpectInvalid(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", kInvalid, "null",
                "batch requests are not supported");
  ExpectInvalid("[]", kInvalid, "null", "batch requests are not supported");
}

TEST(ParseMessageTest, NonObjectsAreInvalidRequests) {
  ExpectInvalid("1", kInvalid, "null", "JSON object");
  ExpectInvalid("\"ping\"", kInvalid, "null");
  ExpectInvalid("null", kInvalid, "null");
  ExpectInvalid("true", kInvalid, "null");
}

TEST(ParseMessageTest, WrongOrMissingJsonrpcVersion) {
  ExpectInvalid(R"({"id":4,"method":"ping"})", kInvalid, "4", "\"2.0\"");
  ExpectInvalid(R"({"jsonrpc":"1.0","id":"x","method":"ping"})", kInvalid, "\"x\"");
  ExpectInvalid(R"({"jsonrpc":2.0,"id":4,"method":"ping"})", kInvalid, "4");
  ExpectInvalid(R"({"jsonrpc":"2.0 ","id":4,"method":"ping"})", kInvalid, "4");
  // An id that is not valid is not echoed.
  ExpectInvalid(R"({"jsonrpc":"1.0","id":[4],"method":"ping"})", kInvalid, "null");
  ExpectInvalid("{}", kInvalid, "null");
}

TEST(ParseMessageTest, IdMustBeAStringOrANumber) {
  ExpectInvalid(R"({"jsonrpc":"2.0","id":null,"method":"m"})", kInvalid, "null",
                "string or a number");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":true,"method":"m"})", kInvalid, "null");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":{"a":1},"method":"m"})", kInvalid, "null");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":[1],"method":"m"})", kInvalid, "null");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":null,"result":{}})", kInvalid, "null");
}

TEST(ParseMessageTest, MethodMustBeAString) {
  ExpectInvalid(R"({"jsonrpc":"2.0","id":1,"method":5})", kInvalid, "1", "\"method\"");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":1,"method":null})", kInvalid, "1");
  ExpectInvalid(R"({"jsonrpc":"2.0","method":["m"]})", kInvalid, "null");
}

TEST(ParseMessageTest, ParamsMustBeAnObjectOrAnArray) {
  ExpectInvalid(R"({"jsonrpc":"2.0","id":1,"method":"m","params":"x"})", kParams, "1",
                "\"params\"");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":"q","method":"m","params":5})", kParams, "\"q\"");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":1,"method":"m","params":null})", kParams, "1");
  IncomingMessage notification = ParseMessage(R"({"jsonrpc":"2.0","method":"n","params":true})");
  EXPECT_EQ(notification.kind, Kind::kInvalid);
  EXPECT_EQ(notification.error_code, kParams);
  EXPECT_EQ(notification.method, "n");  // the engine can tell it was a notification
}

TEST(ParseMessageTest, MalformedResponses) {
  ExpectInvalid(R"({"jsonrpc":"2.0","id":1})", kInvalid, "1", "\"method\"");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}})", kInvalid,
                "1", "not both");
  ExpectInvalid(R"({"jsonrpc":"2.0","result":1})", kInvalid, "null", "\"id\"");
  ExpectInvalid(R"({"jsonrpc":"2.0","id":1,"error":"bad"})", kInvalid, "1", "\"error\"");
}

TEST(ParseMessageTest, IdsAreEchoedExactly) {
  const char* ids[] = {
      "0",
      "-1",
      "123456789012345678901234567890",
      "18446744073709551616",
      "-9223372036854775809",
      "1.5",
      "1E+2",
      "-0.000000000000000000001",
      R"("")",
      R"("a\"b\\c\/d\u00e9\n")",
      "\"\xC3\xA9\xF0\x9D\x84\x9E\"",
      R"("123456789012345678901234567890")",
  };
  for (const char* id : ids) {
    SCOPED_TRACE(id);
    IncomingMessage m =
        ParseMessage(std::string(R"({"jsonrpc":"2.0","id":)") + id + R"(,"method":"ping"})");
    EXPECT_EQ(m.kind, Kind::kRequest);
    EXPECT_EQ(m.raw_id, id);
    EXPECT_EQ(MakeResult(m.raw_id, json::object()),
              std::string(R"({"jsonrpc":"2.0","id":)") + id + R"(,"result":{}})");
  }
}

TEST(ParseMessageTest, IdMayComeAnywhereAndNestedIdsAreIgnored) {
  IncomingMessage last = ParseMessage(
      R"({"method":"m","params":{"id":99,"x":{"id":98}},"jsonrpc":"2.0",  "id" : 123456789012345678901234567890 })");
  EXPECT_EQ(last.kind, Kind::kRequest);
  EXPECT_EQ(last.raw_id, "123456789012345678901234567890");
  IncomingMessage only_nested =
      ParseMessage(R"({"jsonrpc":"2.0","method":"m","params":{"id":99}})");
  EXPECT_EQ(only_nested.kind, Kind::kNotification);
  EXPECT_EQ(only_nested.raw_id, "null");
  IncomingMessage in_string =
      ParseMessage(R"({"jsonrpc":"2.0","method":"\"id\":5,","id":"\"id\":6"})");
  EXPECT_EQ(in_string.raw_id, R"("\"id\":6")");
}

TEST(ParseMessageTest, EscapedAndDuplicateIdKeys) {
  EXPECT_EQ(ParseMessage(R"({"jsonrpc":"2.0","\u0069d":3,"method":"m"})").raw_id, "3");
  IncomingMessage duplicate = ParseMessage(R"({"jsonrpc":"2.0","id":1,"id":2,"method":"m"})");
  EXPECT_EQ(duplicate.raw_id, "2");
  EXPECT_EQ(duplicate.body["id"], 2);
}

TEST(MakeTest, Result) {
  EXPECT_EQ(MakeResult("7", json{{"a", 1}}), R"({"jsonrpc":"2.0","id":7,"result":{"a":1}})");
  EXPECT_EQ(MakeResult("\"x\"", json::array()), R"({"jsonrpc":"2.0","id":"x","result":[]})");
  EXPECT_EQ(MakeResult("", nullptr), R"({"jsonrpc":"2.0","id":null,"result":null})");
}

TEST(MakeTest, ErrorWithAndWithoutData) {
  EXPECT_EQ(MakeError("null", kParse, "Parse error"),
            R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})");
  EXPECT_EQ(MakeError("1", kParams, "bad \"x\"\n", json{{"field", "x"}}),
            R"({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad \"x\"\n",)"
            R"("data":{"field":"x"}}})");
}

TEST(MakeTest, InvalidUtf8IsReplacedNotThrown) {
  std::string out;
  EXPECT_NO_THROW(out = MakeError("1", -32603, "bad \xFF byte", json{{"raw", "\xC0"}}));
  EXPECT_EQ(out,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"bad "
            "\xEF\xBF\xBD byte\",\"data\":{\"raw\":\"\xEF\xBF\xBD\"}}}");
  EXPECT_NO_THROW(out = MakeResult("1", json{{"text", "\xE2\x82"}}));
  EXPECT_TRUE(json::accept(out));
  EXPECT_NO_THROW(out = MakeNotification("m\xFF", json::object()));
  EXPECT_TRUE(json::accept(out));
}

TEST(MakeTest, KeepsUtf8Readable) {
  EXPECT_EQ(MakeResult("1", json("\xC3\xA9")),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xC3\xA9\"}");
}

TEST(MakeTest, NotificationAndRequest) {
  EXPECT_EQ(MakeNotification("notifications/message", json{{"level", "info"}}),
            R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}})");
  EXPECT_EQ(MakeNotification("notifications/initialized", nullptr),
            R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(MakeRequest("\"srv-1\"", "roots/list", json::object()),
            R"({"jsonrpc":"2.0","id":"srv-1","method":"roots/list","params":{}})");
  EXPECT_EQ(MakeRequest("5", "ping", nullptr), R"({"jsonrpc":"2.0","id":5,"method":"ping"})");
}

TEST(MakeTest, BuiltMessagesParseBackTheSame) {
  IncomingMessage request =
      ParseMessage(MakeRequest("123456789012345678901234567890", "m", json{{"k", "v"}}));
  EXPECT_EQ(request.kind, Kind::kRequest);
  EXPECT_EQ(request.raw_id, "123456789012345678901234567890");
  EXPECT_EQ(request.method, "m");
  EXPECT_EQ(ParseMessage(MakeNotification("n", json::array())).kind, Kind::kNotification);
  EXPECT_EQ(ParseMessage(MakeResult("\"r\"", 1)).kind, Kind::kResponse);
  EXPECT_EQ(ParseMessage(MakeError("2", -1, "x")).kind, Kind::kResponse);
}

// Ids of every shape, wherever they sit among other members with nested "id"s: the echoed
// text is exactly the source text, and it denotes the same value nlohmann parsed.
TEST(ParseMessageTest, RandomlyPlacedIdsAreEchoedExactly) {
  std::mt19937 rng(7);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const std::vector<std::string> ids = {"0",
                                        "42",
                                        "-7",
                                        "3.25",
                                        "1e3",
                                        "98765432109876543210",
                                        R"("x")",
                                        R"("\"id\":1")",
                                        R"("\u0041\\")",
                                        R"("")"};
  const std::vector<std::string> others = {R"("jsonrpc":"2.0")", R"("method":"m")",
                                           R"("params":{"id":1,"l":[{"id":"n"}]})",
                                           R"("x":"\"id\": 9")", R"("y":[["id",{"id":[]}]])"};
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> members = others;
    const std::string& id = ids[pick(ids.size())];
    members.insert(members.begin() + static_cast<long>(pick(members.size() + 1)),
                   std::string(R"("id")") + (pick(2) ? " : " : ":") + id);
    std::shuffle(members.begin(), members.end(), rng);
    std::string payload = pick(2) ? "{" : " {\n";
    for (size_t i = 0; i < members.size(); ++i) payload += (i ? "," : "") + members[i];
    payload += "}";
    IncomingMessage m = ParseMessage(payload);
    ASSERT_EQ(m.kind, Kind::kRequest) << payload;
    ASSERT_EQ(m.raw_id, id) << payload;
    EXPECT_EQ(json::parse(m.raw_id), m.body["id"]) << payload;
  }
}

}  // namespace
}  // namespace labgate::gateway::jsonrpc
