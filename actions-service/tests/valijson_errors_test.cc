// Pinned to valijson 1.0 as Debian bookworm ships it (libvalijson-dev 1.0+repack-2): each
// test makes real valijson describe one failure and checks the exact text and its kind.
// When an upgrade rewords a description, these fail and valijson_errors.cc is updated.
#include "actions-service/valijson_errors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "valijson/adapters/nlohmann_json_adapter.hpp"
#include "valijson/schema.hpp"
#include "valijson/schema_parser.hpp"
#include "valijson/validation_results.hpp"
#include "valijson/validator.hpp"

namespace labgate::actions {
namespace {

// Every description valijson gives for `value` against `schema`, innermost first.
std::vector<std::string> Descriptions(const nlohmann::json& schema, const nlohmann::json& value) {
  valijson::Schema compiled;
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(schema), compiled);
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  validator.validate(compiled, valijson::adapters::NlohmannJsonAdapter(value), &results);
  std::vector<std::string> descriptions;
  for (const auto& error : results) descriptions.push_back(error.description);
  return descriptions;
}

const nlohmann::json kObjectSchema = nlohmann::json::parse(R"json({
  "type": "object",
  "additionalProperties": false,
  "required": ["text"],
  "properties": {
    "text": {"type": "string", "maxLength": 5},
    "tone": {"type": "string", "enum": ["calm", "warm"]},
    "tags": {"type": "array", "items": {"type": "string"}}
  }
})json");

TEST(ValijsonErrorsTest, MissingRequiredProperty) {
  std::vector<std::string> texts = Descriptions(kObjectSchema, nlohmann::json::object());
  ASSERT_EQ(texts, std::vector<std::string>{"Missing required property 'text'."});
  EXPECT_EQ(ClassifyValijsonError(texts[0]), ValijsonErrorKind::kMissingRequired);
  EXPECT_EQ(NamedProperty(texts[0]), "text");
}

TEST(ValijsonErrorsTest, UnknownProperty) {
  std::vector<std::string> texts =
      Descriptions(kObjectSchema, nlohmann::json{{"text", "hi"}, {"colour", 1}});
  ASSERT_EQ(texts, std::vector<std::string>{
                       "Object contains a property that could not be validated using "
                       "'properties' or 'additionalProperties' constraints: 'colour'."});
  EXPECT_EQ(ClassifyValijsonError(texts[0]), ValijsonErrorKind::kUnknownProperty);
  EXPECT_EQ(NamedProperty(texts[0]), "colour");
}

TEST(ValijsonErrorsTest, WrongTypeInsideAPropertyIsWrapped) {
  std::vector<std::string> texts = Descriptions(kObjectSchema, nlohmann::json{{"text", 7}});
  ASSERT_EQ(texts, (std::vector<std::string>{
                       "Value type not permitted by 'type' constraint.",
                       "Failed to validate against schema associated with property name 'text'."}));
  EXPECT_EQ(ClassifyValijsonError(texts[0]), ValijsonErrorKind::kWrongType);
  EXPECT_EQ(ClassifyValijsonError(texts[1]), ValijsonErrorKind::kChildFailed);
}

TEST(ValijsonErrorsTest, NotInEnum) {
  std::vector<std::string> texts =
      Descriptions(kObjectSchema, nlohmann::json{{"text", "hi"}, {"tone", "cold"}});
  ASSERT_EQ(texts, (std::vector<std::string>{
                       "Failed to match against any enum values.",
                       "Failed to validate against schema associated with property name 'tone'."}));
  EXPECT_EQ(ClassifyValijsonError(texts[0]), ValijsonErrorKind::kNotInEnum);
}

TEST(ValijsonErrorsTest, ArrayItemsAreWrapped) {
  std::vector<std::string> texts =
      Descriptions(kObjectSchema, nlohmann::json{{"text", "hi"}, {"tags", {"a", 2}}});
  ASSERT_EQ(texts, (std::vector<std::string>{
                       "Value type not permitted by 'type' constraint.",
                       "Failed to validate item #1 in array.",
                       "Failed to validate against schema associated with property name 'tags'."}));
  EXPECT_EQ(ClassifyValijsonError(texts[1]), ValijsonErrorKind::kChildFailed);
}

TEST(ValijsonErrorsTest, OtherKeywordsKeepTheirOwnText) {
  std::vector<std::string> texts = Descriptions(kObjectSchema, nlohmann::json{{"text", "toolong"}});
  ASSERT_EQ(texts.size(), 2u);
  EXPECT_EQ(texts[0], "String should be no more than 5 characters in length.");
  EXPECT_EQ(ClassifyValijsonError(texts[0]), ValijsonErrorKind::kOther);
}

TEST(ValijsonErrorsTest, NamedPropertyWithoutQuotesIsEmpty) {
  EXPECT_EQ(NamedProperty("no quotes here"), "");
  EXPECT_EQ(NamedProperty("one ' quote"), "");
}

}  // namespace
}  // namespace labgate::actions
