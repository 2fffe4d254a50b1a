#include "gateway/jsonrpc/json_scan.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

namespace labgate::gateway::jsonrpc {
namespace {

TEST(TopLevelMemberTextTest, FindsTheExactValueText) {
  EXPECT_EQ(TopLevelMemberText(R"({"id":7})", "id"), "7");
  EXPECT_EQ(TopLevelMemberText(R"({ "a" : 1 , "id" :  -1.50e+3 , "b":2 })", "id"), "-1.50e+3");
  EXPECT_EQ(TopLevelMemberText(R"({"id":123456789012345678901234567890})", "id"),
            "123456789012345678901234567890");
  EXPECT_EQ(TopLevelMemberText(R"({"id":"a\"b\\c\u00e9"})", "id"), R"("a\"b\\c\u00e9")");
  EXPECT_EQ(TopLevelMemberText(R"({"id":{"x":[1,"}"]},"z":0})", "id"), R"({"x":[1,"}"]})");
  EXPECT_EQ(TopLevelMemberText(R"({"id":null})", "id"), "null");
  EXPECT_EQ(TopLevelMemberText("\n\t{\r\n\"id\"\n:\ttrue\n}\n", "id"), "true");
}

TEST(TopLevelMemberTextTest, IgnoresNestedMembersAndStrings) {
  EXPECT_EQ(TopLevelMemberText(R"({"params":{"id":99},"id":1})", "id"), "1");
  EXPECT_EQ(TopLevelMemberText(R"({"params":[{"id":99}]})", "id"), std::nullopt);
  EXPECT_EQ(TopLevelMemberText(R"({"method":"\"id\":5","id":2})", "id"), "2");
  EXPECT_EQ(TopLevelMemberText(R"({"idx":1,"i":2,"ID":3})", "id"), std::nullopt);
}

TEST(TopLevelMemberTextTest, EscapedKeysAndDuplicates) {
  EXPECT_EQ(TopLevelMemberText(R"({"\u0069d":3})", "id"), "3");
  EXPECT_EQ(TopLevelMemberText(R"({"id":1,"id":"two"})", "id"), "\"two\"");
}

TEST(TopLevelMemberTextTest, NonObjectsAndMalformedText) {
  EXPECT_EQ(TopLevelMemberText("[1]", "id"), std::nullopt);
  EXPECT_EQ(TopLevelMemberText("{}", "id"), std::nullopt);
  EXPECT_EQ(TopLevelMemberText("", "id"), std::nullopt);
  EXPECT_EQ(TopLevelMemberText(R"({"id":)", "id"), std::nullopt);
  EXPECT_EQ(TopLevelMemberText(R"({"id":"unterminated)", "id"), std::nullopt);
  EXPECT_EQ(TopLevelMemberText(R"({"id":[1,2)", "id"), std::nullopt);
  EXPECT_EQ(TopLevelMemberText(R"({"id":1 "x":2})", "id"), std::nullopt);
}

}  // namespace
}  // namespace labgate::gateway::jsonrpc
