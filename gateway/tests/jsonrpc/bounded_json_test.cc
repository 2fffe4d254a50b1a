#include "gateway/jsonrpc/bounded_json.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace labgate::gateway::jsonrpc {
namespace {

using Error = BoundedJson::Error;
using nlohmann::json;

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(ParseBoundedJsonTest, BuildsTheValue) {
  BoundedJson parsed = ParseBoundedJson(R"({"a":[1,2.5,"x",null,true],"b":{}})", 128);
  EXPECT_EQ(parsed.error, Error::kNone);
  EXPECT_EQ(parsed.value, json::parse(R"({"a":[1,2.5,"x",null,true],"b":{}})"));
}

TEST(ParseBoundedJsonTest, RefusesTheFirstLevelPastTheLimit) {
  EXPECT_EQ(ParseBoundedJson("{}", 1).error, Error::kNone);
  EXPECT_EQ(ParseBoundedJson(R"({"a":[]})", 1).error, Error::kTooDeep);
  EXPECT_EQ(ParseBoundedJson(Nested(128), 128).error, Error::kNone);
  BoundedJson deep = ParseBoundedJson(Nested(129), 128);
  EXPECT_EQ(deep.error, Error::kTooDeep);
  EXPECT_TRUE(deep.value.is_null());
  // Siblings do not add up; brackets in strings are not nesting.
  EXPECT_EQ(ParseBoundedJson("[[],[],{},[[]]]", 3).error, Error::kNone);
  EXPECT_EQ(ParseBoundedJson("[[],[],{},[[]]]", 2).error, Error::kTooDeep);
  EXPECT_EQ(ParseBoundedJson("[\"" + std::string(1000, '[') + "\"]", 1).error, Error::kNone);
}

TEST(ParseBoundedJsonTest, StopsAtTheLimitOnAMillionBrackets) {
  EXPECT_EQ(ParseBoundedJson(std::string(1000000, '['), 128).error, Error::kTooDeep);
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  EXPECT_EQ(ParseBoundedJson(objects, 128).error, Error::kTooDeep);
}

TEST(ParseBoundedJsonTest, SyntaxErrorsKeepNlohmannsText) {
  BoundedJson broken = ParseBoundedJson(R"({"a":})", 128);
  EXPECT_EQ(broken.error, Error::kSyntax);
  EXPECT_EQ(broken.error_text.rfind("[json.exception.parse_error.101] parse error at line 1", 0),
            0u)
      << broken.error_text;
  EXPECT_TRUE(broken.value.is_null());
  EXPECT_EQ(ParseBoundedJson("{} x", 128).error, Error::kSyntax);
  EXPECT_EQ(ParseBoundedJson("", 128).error, Error::kSyntax);
  BoundedJson overflow = ParseBoundedJson("[1e400]", 128);
  EXPECT_EQ(overflow.error, Error::kSyntax);
  EXPECT_NE(overflow.error_text.find("number overflow"), std::string::npos);
}

std::optional<std::string> IdOf(const std::string& text) {
  return ParseBoundedJson(text, 128).id_text;
}

TEST(ParseBoundedJsonTest, IdTextIsTheSourceText) {
  for (const char* id :
       {"0", "7", "-7", "-0", "18446744073709551615", "18446744073709551616",
        "-9223372036854775809", "123456789012345678901234567890", "1.5", "1E+2",
        "-0.000000000000000000001", "1e3", R"("")", R"("abc")", "\"\xC3\xA9\xF0\x9D\x84\x9E\"",
        R"("a\"b\\c\/d\u00e9\n")", R"("\u0041")"}) {
    SCOPED_TRACE(id);
    EXPECT_EQ(IdOf(std::string(R"({"jsonrpc":"2.0","id":)") + id + "}"), id);
  }
}

TEST(ParseBoundedJsonTest, IdTextIsTheTopLevelLastStringOrNumber) {
  EXPECT_EQ(IdOf(R"({"params":{"id":99},"id":1})"), "1");
  EXPECT_EQ(IdOf(R"({"params":[{"id":99}]})"), std::nullopt);
  EXPECT_EQ(IdOf(R"({"method":"\"id\":5","id":2})"), "2");
  EXPECT_EQ(IdOf(R"({"\u0069d":3})"), "3");
  EXPECT_EQ(IdOf(R"({"id":1,"id":"two"})"), "\"two\"");
  EXPECT_EQ(IdOf(R"({"id":"one","id":{"x":1}})"), std::nullopt);
  EXPECT_EQ(IdOf(R"({"id":null})"), std::nullopt);
  EXPECT_EQ(IdOf(R"({"id":true})"), std::nullopt);
  EXPECT_EQ(IdOf(R"({"id":[1]})"), std::nullopt);
  EXPECT_EQ(IdOf(R"(["id",1])"), std::nullopt);
  // A string id without escapes beside an escaped member elsewhere.
  EXPECT_EQ(IdOf(R"({"x":"a\nb","id":"plain"})"), "\"plain\"");
}

}  // namespace
}  // namespace labgate::gateway::jsonrpc
