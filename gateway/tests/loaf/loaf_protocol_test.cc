// The loaf dialect's texts: claims, handshake, params errors and the event shape.
#include "gateway/dialects/loaf/loaf_protocol.h"

#include <gtest/gtest.h>

namespace labgate::gateway::loaf {
namespace {

using nlohmann::json;

TEST(LoafProtocolTest, ClaimsOnlyItsMethodPrefixes) {
  EXPECT_TRUE(ClaimsMessage(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"rpc.handshake"})")));
  EXPECT_TRUE(ClaimsMessage(json::parse(R"({"jsonrpc":"2.0","id":null,"method":"system.ping"})")));
  EXPECT_TRUE(ClaimsMessage(json::parse(R"({"jsonrpc":"2.0","method":"session.send"})")));
  EXPECT_FALSE(ClaimsMessage(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})")));
  EXPECT_FALSE(ClaimsMessage(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"sessions"})")));
  EXPECT_FALSE(ClaimsMessage(json::parse(R"({"type":"list_actions"})")));
  EXPECT_FALSE(ClaimsMessage(json::parse(R"({"id":1,"method":"system.ping"})")));
}

TEST(LoafProtocolTest, HandshakeAnswersVersionNameCapabilitiesAndMethods) {
  HandshakeOutcome outcome = Handshake({{"client_name", "c"},
                                        {"client_version", "2"},
                                        {"protocol_version", "1.4.0"},
                                        {"strict", true}});
  ASSERT_FALSE(outcome.error.has_value());
  EXPECT_EQ(outcome.result["protocol_version"], "1.0.0");
  EXPECT_EQ(outcome.result["server_name"], "labgate");
  EXPECT_TRUE(outcome.result["capabilities"].is_object());
  EXPECT_EQ(outcome.result["methods"], Methods());
  EXPECT_TRUE(KnowsMethod("session.send"));
  EXPECT_FALSE(KnowsMethod("session.delete"));
}

TEST(LoafProtocolTest, StrictMajorMismatchIsRefusedWithTheField) {
  HandshakeOutcome outcome = Handshake({{"protocol_version", "2.0.0"}, {"strict", true}});
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(outcome.error->field, "protocol_version");
  EXPECT_NE(outcome.error->reason.find("2.0.0"), std::string::npos);
  EXPECT_EQ(ErrorData(*outcome.error),
            json({{"reason", outcome.error->reason}, {"field", "protocol_version"}}));
  // Not strict: the server's version is offered instead.
  EXPECT_FALSE(Handshake({{"protocol_version", "2.0.0"}}).error.has_value());
  // Strict needs a version to compare.
  EXPECT_EQ(Handshake({{"strict", true}}).error->field, "protocol_version");
}

TEST(LoafProtocolTest, BadHandshakeParamsNameTheirField) {
  EXPECT_EQ(Handshake({{"client_name", 3}}).error->field, "client_name");
  EXPECT_EQ(Handshake({{"strict", "yes"}}).error->field, "strict");
  EXPECT_EQ(Handshake({{"protocol_version", "one"}}).error->field, "protocol_version");
}

TEST(LoafProtocolTest, ParamsMustBeAnObject) {
  json params;
  EXPECT_FALSE(ParamsObject(json::parse(R"({"method":"system.ping"})"), &params).has_value());
  EXPECT_EQ(params, json::object());
  auto error = ParamsObject(json::parse(R"({"params":[1]})"), &params);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->field, "params");
  std::string value;
  EXPECT_EQ(StringParam({}, "session_id", true, &value)->field, "session_id");
  EXPECT_EQ(StringParam({{"session_id", 1}}, "session_id", false, &value)->field, "session_id");
  EXPECT_FALSE(StringParam({{"session_id", "s"}}, "session_id", true, &value).has_value());
  EXPECT_EQ(value, "s");
}

TEST(LoafProtocolTest, PingAndEventsCarryRfc3339UtcTimes) {
  json ping = Ping();
  EXPECT_EQ(ping["ok"], true);
  EXPECT_EQ(ping["time"].get<std::string>().back(), 'Z');
  json event = json::parse(Event("session.status", {{"session_id", "s"}}));
  EXPECT_EQ(event["jsonrpc"], "2.0");
  EXPECT_EQ(event["method"], "event");
  EXPECT_FALSE(event.contains("id"));
  EXPECT_EQ(event["params"]["type"], "session.status");
  EXPECT_EQ(event["params"]["payload"]["session_id"], "s");
  EXPECT_EQ(event["params"]["timestamp"].get<std::string>().size(), 24u);
}

}  // namespace
}  // namespace labgate::gateway::loaf
