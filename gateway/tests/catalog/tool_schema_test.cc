#include "gateway/catalog/tool_schema.h"

#include <gtest/gtest.h>

#include "labgate/session/v1/session.pb.h"
#include "labgate/testing/catalog_test.pb.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;

TEST(ToolSchemaTest, InputSchemaHasTypesRequiredDescriptionsAndBounds) {
  json schema = MessageSchema(labgate::testing::Everything::descriptor(), SchemaRole::kInput);
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["additionalProperties"], false);
  EXPECT_EQ(schema["required"], json({"port_name", "baud_rate"}));
  const json& props = schema["properties"];
  EXPECT_EQ(props["port_name"]["type"], "string");
  EXPECT_EQ(props["port_name"]["description"], "Device path");
  EXPECT_EQ(props["baud_rate"]["type"], "integer");
  EXPECT_EQ(props["baud_rate"]["minimum"], 1);
  EXPECT_EQ(props["baud_rate"]["maximum"], 4000000);
  EXPECT_EQ(props["big"]["type"], "integer");
  EXPECT_EQ(props["flag"]["type"], "boolean");
  EXPECT_EQ(props["ratio"]["type"], "number");
  EXPECT_EQ(props["limit"]["default"], 100);
  EXPECT_EQ(props["data_bits"]["enum"], json({"seven", "eight"}));
  EXPECT_EQ(props["flow_control"]["enum"], json({"none", "hardware", "software"}));
  EXPECT_EQ(props["inners"]["type"], "array");
  EXPECT_EQ(props["inners"]["items"]["properties"]["values"]["items"]["type"], "integer");
  EXPECT_EQ(props["counts"]["additionalProperties"]["type"], "integer");
  EXPECT_EQ(props["extra"]["type"], "object");
  EXPECT_EQ(props["inner"]["additionalProperties"], false);
}

TEST(ToolSchemaTest, OutputSchemaRequiresExactlyTheFieldsAlwaysPrinted) {
  json schema = MessageSchema(labgate::testing::Everything::descriptor(), SchemaRole::kOutput);
  EXPECT_FALSE(schema.contains("additionalProperties"));
  const json& required = schema["required"];
  auto has = [&](const std::string& name) {
    return std::find(required.begin(), required.end(), name) != required.end();
  };
  EXPECT_TRUE(has("port_name"));
  EXPECT_TRUE(has("inners"));
  EXPECT_TRUE(has("counts"));
  EXPECT_FALSE(has("terminator"));  // optional
  EXPECT_FALSE(has("inner"));       // message: printed only when set
  EXPECT_FALSE(has("choice_text"));
}

TEST(ToolSchemaTest, RecursiveMessagesTerminate) {
  json schema = MessageSchema(labgate::testing::Nested::descriptor(), SchemaRole::kInput);
  EXPECT_EQ(schema["properties"]["child"]["type"], "object");
  EXPECT_FALSE(schema["properties"]["child"].contains("properties"));
}

TEST(ToolSchemaTest, SessionAppendSchemaMatchesTheSeedFields) {
  json schema =
      MessageSchema(labgate::session::v1::AppendMessageRequest::descriptor(), SchemaRole::kInput);
  EXPECT_EQ(schema["required"], json({"session_id", "content"}));
  EXPECT_EQ(schema["properties"]["role"]["default"], "tool");
  for (const char* field : {"direction", "features", "latency_ms"}) {
    EXPECT_TRUE(schema["properties"].contains(field)) << field;
  }
}

}  // namespace
}  // namespace labgate::gateway
