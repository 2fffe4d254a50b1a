// The v0.1 envelope's own texts, byte for byte: validation before any backend is asked.
// (Answers that need the actions service are tested end to end in tests/e2e.)
#include "gateway/legacy/legacy_envelope.h"

#include <gtest/gtest.h>

#include <string>

namespace labgate::gateway::legacy {
namespace {

using nlohmann::json;

std::string Answer(const std::string& envelope) {
  std::string reply;
  HandleEnvelope(json::parse(envelope), nullptr, [&reply](std::string text) { reply = text; });
  return reply;
}

TEST(LegacyEnvelopeTest, ItIsAnObjectWithTypeAndNoJsonrpc) {
  EXPECT_TRUE(IsEnvelope(json::parse(R"({"type":"list_actions"})")));
  EXPECT_FALSE(IsEnvelope(json::parse(R"({"jsonrpc":"2.0","type":"x"})")));
  EXPECT_FALSE(IsEnvelope(json::parse(R"({"id":1})")));
  EXPECT_FALSE(IsEnvelope(json::parse(R"(["type"])")));
}

TEST(LegacyEnvelopeTest, FixedErrorTexts) {
  EXPECT_EQ(ErrorReply(kMalformedJson), R"({"ok":false,"error":"Malformed JSON request"})");
  EXPECT_EQ(ErrorReply(kTooLarge),
            R"x({"ok":false,"error":"Request exceeds maximum size (512 KB)"})x");
}

TEST(LegacyEnvelopeTest, AnUnknownTypeListsTheAllowedOnes) {
  EXPECT_EQ(Answer(R"({"id":"a","type":"launch"})"),
            R"({"id":"a","ok":false,"error":"Invalid request envelope","issues":[)"
            R"({"code":"invalid_enum_value","message":"Invalid enum value. Expected )"
            R"('list_actions' | 'invoke', received 'launch'","path":["type"]}]})");
}

TEST(LegacyEnvelopeTest, ANonStringIdAndTypeAreNamed) {
  EXPECT_EQ(
      Answer(R"({"id":7,"type":3})"),
      R"({"ok":false,"error":"Invalid request envelope","issues":[)"
      R"({"code":"invalid_type","message":"Expected string, received number","path":["id"]},)"
      R"({"code":"invalid_type","message":"Expected string, received number","path":["type"]}]})");
}

TEST(LegacyEnvelopeTest, WithoutAnActionsServiceItSaysSo) {
  EXPECT_EQ(Answer(R"({"id":"x","type":"list_actions"})"),
            R"({"id":"x","ok":false,"error":"No actions service is configured"})");
}

}  // namespace
}  // namespace labgate::gateway::legacy
