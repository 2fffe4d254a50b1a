// The plain parser against the nlohmann pass: what it accepts, it parses to the same value (the
// same number types too) and the same id text; what it declines, ParseBoundedJson still gives
// as the nlohmann pass does.
#include "gateway/jsonrpc/plain_json.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "gateway/tests/same_typed_json.h"

namespace labgate::gateway::jsonrpc {
namespace {

using labgate::testing::SameTypedJson;
using nlohmann::json;

// Whether the plain parser took `text`; when it did, it must agree with the nlohmann pass.
bool AcceptsAlike(const std::string& text, size_t max_depth = 128) {
  BoundedJson plain;
  if (!ParsePlainJson(text, max_depth, &plain)) return false;
  const BoundedJson sax = ParseBoundedJsonWithSax(text, max_depth);
  EXPECT_EQ(sax.error, BoundedJson::Error::kNone) << text;
  EXPECT_TRUE(SameTypedJson(plain.value, sax.value))
      << text << "\nplain: " << plain.value.dump() << "\nsax: " << sax.value.dump();
  EXPECT_EQ(plain.id_text, sax.id_text) << text;
  return true;
}

// ParseBoundedJson gives what the nlohmann pass gives, error and all.
void ExpectAsSax(const std::string& text, size_t max_depth = 128) {
  const BoundedJson both = ParseBoundedJson(text, max_depth);
  const BoundedJson sax = ParseBoundedJsonWithSax(text, max_depth);
  EXPECT_EQ(both.error, sax.error) << text;
  EXPECT_EQ(both.error_text, sax.error_text) << text;
  EXPECT_TRUE(SameTypedJson(both.value, sax.value)) << text;
  EXPECT_EQ(both.id_text, sax.id_text) << text;
}

TEST(PlainJsonTest, TakesTheMessagesClientsSend) {
  for (
      const std::string text : {
          R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"status","arguments":{}}})",
          R"({"jsonrpc":"2.0","id":"req-12","method":"ping"})",
          R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
          R"({"jsonrpc":"2.0","id":-3,"result":{"content":[],"isError":false}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write","arguments":{"port_name":"/dev/ttyUSB0","data":"VOLT 5\r\n","line_ending":"none"},"_meta":{"progressToken":42}}})",
          " {\n\t\"id\" : 0 ,\r\n \"method\" : \"ping\" } \n",
          R"({"a":[1,-2,true,false,null,"x",{"b":[]},[]],"c":{"d":{"e":"\"\\\/\b\f\n\r\t"}}})",
          R"({"id":1,"id":"two"})",
          R"({"id":"one","id":null})",
          R"({"id":{"nested":1}})",
          R"({"params":{"id":5}})",
          R"([{"id":1}])",
          R"("just a string")",
          "123456789012345678",
          "-123456789012345678",
          "0",
          "[]",
          "{}",
      }) {
    EXPECT_TRUE(AcceptsAlike(text)) << "declined: " << text;
    ExpectAsSax(text);
  }
}

TEST(PlainJsonTest, TheIdIsEchoedAsWritten) {
  BoundedJson parsed;
  ASSERT_TRUE(ParsePlainJson(R"({"id":"a\"b\\c","x":1})", 128, &parsed));
  EXPECT_EQ(parsed.id_text, R"("a\"b\\c")");
  EXPECT_EQ(parsed.value["id"], "a\"b\\c");
  ASSERT_TRUE(ParsePlainJson(R"({"x":{"id":3},"id":-12})", 128, &parsed));
  EXPECT_EQ(parsed.id_text, "-12");
  EXPECT_TRUE(parsed.value["id"].is_number_integer());
  EXPECT_FALSE(parsed.value["id"].is_number_unsigned()) << "negative: signed, as nlohmann's";
  ASSERT_TRUE(ParsePlainJson(R"({"id":12})", 128, &parsed));
  EXPECT_TRUE(parsed.value["id"].is_number_unsigned());
}

TEST(PlainJsonTest, DeclinesWhatItDoesNotJudgeAndTheNlohmannPassDoes) {
  for (const std::string text : {
           "",
           "   ",
           "-0",
           R"({"id":-0})",
           "01",
           "1.5",
           "1e3",
           "2E-1",
           "1234567890123456789",
           R"({"id":12345678901234567890123})",
           R"("\u0041")",
           "\"\xc3\xa9\"",
           "\"a\x01z\"",
           "\"a\x7fz\"",
           "\xef\xbb\xbf{}",
           "tru",
           "nul",
           "truex",
           R"({"a":1,})",
           "[1,]",
           "[1 2]",
           R"({"a" 1})",
           R"({1:2})",
           "{} {}",
           "{}x",
           R"("unterminated)",
           R"("bad \x escape")",
           "-",
           "[",
           "]",
       }) {
    EXPECT_FALSE(AcceptsAlike(text)) << "accepted: " << text;
    ExpectAsSax(text);
  }
}

TEST(PlainJsonTest, DeclinesPastTheDepthLimit) {
  const std::string deep = std::string(129, '[') + std::string(129, ']');
  EXPECT_FALSE(AcceptsAlike(deep, 128));
  ExpectAsSax(deep, 128);
  EXPECT_EQ(ParseBoundedJson(deep, 128).error, BoundedJson::Error::kTooDeep);
  const std::string at_limit = std::string(128, '[') + std::string(128, ']');
  EXPECT_TRUE(AcceptsAlike(at_limit, 128));
  EXPECT_FALSE(AcceptsAlike(R"({"a":{"b":{}}})", 2));
  EXPECT_EQ(ParseBoundedJson(R"({"a":{"b":{}}})", 2).error, BoundedJson::Error::kTooDeep);
  EXPECT_FALSE(AcceptsAlike(std::string(1000000, '['), 128));
}

// Random texts built from JSON's pieces and a few wrong ones: whatever the plain parser takes,
// it takes alike, and ParseBoundedJson always gives what the nlohmann pass gives.
TEST(PlainJsonTest, RandomTextsAreTakenAlikeOrDeclined) {
  const std::vector<std::string> pieces = {"{",
                                           "}",
                                           "[",
                                           "]",
                                           ",",
                                           ":",
                                           " ",
                                           "\n",
                                           "\"id\"",
                                           "\"a\"",
                                           "\"b\\n\"",
                                           "\"\\u00e9\"",
                                           "\"\xc3\xa9\"",
                                           "0",
                                           "7",
                                           "-3",
                                           "12.5",
                                           "1e2",
                                           "-0",
                                           "007",
                                           "true",
                                           "false",
                                           "null",
                                           "\"\\\"\"",
                                           "123456789012345678",
                                           "9999999999999999999",
                                           "\"",
                                           "\\",
                                           "x",
                                           "\t"};
  std::mt19937 random(20261129);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int count = 1 + static_cast<int>(random() % 12);
    for (int j = 0; j < count; ++j) text += pieces[random() % pieces.size()];
    if (AcceptsAlike(text, 4)) ++accepted;
    ExpectAsSax(text, 4);
    if (HasFailure()) break;
  }
  EXPECT_GT(accepted, 100) << "the texts should include plain ones";
}

}  // namespace
}  // namespace labgate::gateway::jsonrpc
