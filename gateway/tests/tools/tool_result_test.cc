// A successful tool call is serialized once (StructuredResult); the text must be what
// serializing ToolResultJson's object gives, byte for byte, whatever structuredContent holds.
#include "gateway/mcp/tool_result.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gateway/tools/catalog_tools.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;

std::string Dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

TEST(ToolResultTest, StructuredResultIsToolResultJsonSerializedOnce) {
  const std::vector<json> outcomes = {
      json::object(),
      {{"status", "closed"}, {"port_name", ""}, {"open_ports", json::array()}},
      {{"data", "LABGATE,SIM-PTY,0001,1.0"}, {"bytes_read", 24}, {"timed_out", false}},
      {{"quote", "\"q\" \\ / \n\r\t\b\f \x01\x1f \x7f"}, {"unicode", "h\u00e9 \u4e2d \U0001F600"}},
      {{"bad_utf8", std::string("a\xff\xfe b \xc3")}, {std::string("key\xff"), 1}},
      {{"numbers", {0, -1, 18446744073709551615ULL, 0.5, 1e300, -0.0}},
       {"nested", {{"a", {{"b", {true, false, nullptr}}}}}}},
      {{"session", {{"id", "7f1c"}, {"title", "bench"}, {"message_count", 3}}}},
      {{"k\"e\\y", "\\\"\\\\\""}, {"\\", {"\"", "\\\\", "a\"b\\c"}}},
      json(std::string(300, '"')),
      json("plain string"),
  };
  for (const json& outcome : outcomes) {
    const ToolResult result = StructuredResult(outcome);
    ASSERT_TRUE(result.serialized());
    EXPECT_EQ(result.text(), Dump(ToolResultJson(outcome))) << Dump(outcome);
    EXPECT_TRUE(result.AsJson() == json::parse(Dump(ToolResultJson(outcome)))) << Dump(outcome);
  }
}

TEST(ToolResultTest, JsonResultsStayJson) {
  const ToolResult failed = ToolResultJson(absl::NotFoundError("port x is not open"));
  EXPECT_FALSE(failed.serialized());
  EXPECT_EQ(failed.json()["isError"], true);
  EXPECT_EQ(failed.AsJson(), failed.json());
}

}  // namespace
}  // namespace labgate::gateway
