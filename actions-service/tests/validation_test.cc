// The exact texts of input validation errors, and defaults applied after validation.
#include <gtest/gtest.h>

#include "actions-service/schema_validator.h"
#include "actions-service/tests/test_registry.h"

namespace labgate::actions {
namespace {

using nlohmann::json;
using testing::BuiltinRegistry;

struct ErrorCase {
  std::string name;
  std::string action;
  json input;
  std::string message;
};

class ValidationErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ValidationErrorTest, ExactText) {
  const ErrorCase& c = GetParam();
  absl::StatusOr<ActionResult> result = BuiltinRegistry().Invoke(c.action, c.input);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(result.status().message()), c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Texts, ValidationErrorTest,
    ::testing::Values(
        ErrorCase{"Missing",
                  "supportive_reply",
                  {{"risk_level", "low"}},
                  "Input validation failed for action 'supportive_reply': Required field "
                  "'message' is missing or empty"},
        ErrorCase{"Null",
                  "supportive_reply",
                  {{"message", nullptr}, {"risk_level", "low"}},
                  "Input validation failed for action 'supportive_reply': Required field "
                  "'message' is missing or empty"},
        ErrorCase{"EmptyString",
                  "supportive_reply",
                  {{"message", ""}, {"risk_level", "low"}},
                  "Input validation failed for action 'supportive_reply': Required field "
                  "'message' is missing or empty"},
        ErrorCase{"TwoMissingInSchemaOrder", "supportive_reply", json::object(),
                  "Input validation failed for action 'supportive_reply': Required field "
                  "'message' is missing or empty; Required field 'risk_level' is missing or "
                  "empty"},
        ErrorCase{"EmptyEnumFieldIsMissing",
                  "grief_support_response",
                  {{"message", "x"}, {"support_mode", ""}},
                  "Input validation failed for action 'grief_support_response': Required field "
                  "'support_mode' is missing or empty"},
        ErrorCase{"Enum",
                  "supportive_reply",
                  {{"message", "hi"}, {"risk_level", "extreme"}},
                  "Input validation failed for action 'supportive_reply': Field 'risk_level' "
                  "must be one of: low, medium, high (got 'extreme')"},
        ErrorCase{"EnumOnOptionalField",
                  "empathetic_reframe",
                  {{"message", "hi"}, {"tone", "sarcastic"}},
                  "Input validation failed for action 'empathetic_reframe': Field 'tone' must "
                  "be one of: neutral, warm, formal (got 'sarcastic')"},
        ErrorCase{"EnumIsCaseSensitive",
                  "wcagaaa_check",
                  {{"target", "x"}, {"level", "aaa"}},
                  "Input validation failed for action 'wcagaaa_check': Field 'level' must be "
                  "one of: A, AA, AAA (got 'aaa')"},
        ErrorCase{"LongEnumValueIsCut",
                  "deescalation_plan",
                  {{"situation", "x"}, {"intensity", std::string(100, 'z')}},
                  "Input validation failed for action 'deescalation_plan': Field 'intensity' "
                  "must be one of: low, medium, high (got '" +
                      std::string(40, 'z') + "...')"},
        ErrorCase{"Type",
                  "supportive_reply",
                  {{"message", 42}, {"risk_level", "low"}},
                  "Input validation failed for action 'supportive_reply': Field 'message' must "
                  "be of type string, got number"},
        ErrorCase{"TypeBeatsEnum",
                  "supportive_reply",
                  {{"message", "hi"}, {"risk_level", true}},
                  "Input validation failed for action 'supportive_reply': Field 'risk_level' "
                  "must be of type string, got boolean"},
        ErrorCase{"ArrayType",
                  "neurodiversity_design_check",
                  {{"ui_description", "x"}, {"focus", "adhd"}},
                  "Input validation failed for action 'neurodiversity_design_check': Field "
                  "'focus' must be of type array, got string"},
        ErrorCase{"ArrayItemType",
                  "neurodiversity_design_check",
                  {{"ui_description", "x"}, {"focus", {"adhd", 3, "autism"}}},
                  "Input validation failed for action 'neurodiversity_design_check': Field "
                  "'focus[1]' must be of type string, got number"},
        ErrorCase{"AdditionalProperty",
                  "supportive_reply",
                  {{"message", "hi"}, {"risk_level", "low"}, {"mood", "sad"}},
                  "Input validation failed for action 'supportive_reply': Unknown field 'mood' "
                  "is not allowed"},
        ErrorCase{"InputNotAnObject", "supportive_reply", json::array({1, 2}),
                  "Input validation failed for action 'supportive_reply': Input must be a JSON "
                  "object, got array"},
        ErrorCase{"ManyErrorsJoined",
                  "supportive_reply",
                  {{"risk_level", "extreme"}, {"locale", 7}, {"zzz", 1}, {"aaa", 2}},
                  "Input validation failed for action 'supportive_reply': Required field "
                  "'message' is missing or empty; Unknown field 'aaa' is not allowed; Field "
                  "'locale' must be of type string, got number; Field 'risk_level' must be one "
                  "of: low, medium, high (got 'extreme'); Unknown field 'zzz' is not allowed"},
        ErrorCase{"NullOptionalIsATypeError",
                  "empathetic_reframe",
                  {{"message", "hi"}, {"tone", nullptr}},
                  "Input validation failed for action 'empathetic_reframe': Field 'tone' must "
                  "be of type string, got null"}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

TEST(ValidationTest, WhitespaceIsNotEmpty) {
  EXPECT_TRUE(
      BuiltinRegistry().Invoke("supportive_reply", {{"message", " "}, {"risk_level", "low"}}).ok());
}

TEST(ValidationTest, UnknownActionIsNotFound) {
  absl::StatusOr<ActionResult> result = BuiltinRegistry().Invoke("make_coffee", json::object());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(std::string(result.status().message()),
            "Unknown action: 'make_coffee'. Call list_actions to see available actions.");
  EXPECT_EQ(BuiltinRegistry().Get("make_coffee").status().code(), absl::StatusCode::kNotFound);
}

struct DefaultCase {
  std::string action;
  json input;
  std::string field;
  std::string value;
};

TEST(ValidationTest, DefaultsAppliedAfterValidation) {
  const std::vector<DefaultCase> cases = {
      {"supportive_reply", {{"message", "m"}, {"risk_level", "low"}}, "Locale", "en"},
      {"empathetic_reframe", {{"message", "m"}}, "Tone", "warm"},
      {"rewrite_depression_sensitive_content", {{"text", "m"}}, "Mode", "rewrite"},
      {"deescalation_plan", {{"situation", "m"}}, "Intensity", "medium"},
  };
  for (const DefaultCase& c : cases) {
    absl::StatusOr<ActionResult> result = BuiltinRegistry().Invoke(c.action, c.input);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(testing::AnyContains(result->assumptions, c.field + ": " + c.value)) << c.action;
  }
  // The schemas carry the defaults, including level "AAA" (level is also required, as in
  // the reference schema, so its default documents the handler's assumption).
  const json& level =
      (*BuiltinRegistry().Get("wcagaaa_check"))->input_schema["properties"]["level"];
  EXPECT_EQ(level["default"], "AAA");
}

TEST(SchemaValidatorTest, ApplyDefaultsKeepsGivenValues) {
  auto validator = SchemaValidator::Create(json::parse(R"({
    "type": "object",
    "properties": {"tone": {"type": "string", "default": "warm"},
                   "n": {"type": "integer", "default": 3}}
  })"));
  ASSERT_TRUE(validator.ok());
  json value = {{"tone", "formal"}};
  (*validator)->ApplyDefaults(value);
  EXPECT_EQ(value, (json{{"tone", "formal"}, {"n", 3}}));
}

TEST(SchemaValidatorTest, NestedPathsAndOtherKeywords) {
  auto validator = SchemaValidator::Create(json::parse(R"({
    "type": "object",
    "properties": {
      "findings": {"type": "array", "items": {
        "type": "object", "required": ["fix"],
        "properties": {"fix": {"type": "string"}, "n": {"type": "integer", "minimum": 0}},
        "additionalProperties": false}}
    }
  })"));
  ASSERT_TRUE(validator.ok());
  EXPECT_EQ((*validator)->Validate({{"findings", {{{"fix", "ok"}, {"n", 1}}}}}),
            std::vector<std::string>{});
  EXPECT_EQ((*validator)->Validate({{"findings", {{{"n", 1}}, {{"fix", "x"}, {"extra", 1}}}}}),
            (std::vector<std::string>{"Required field 'findings[0].fix' is missing or empty",
                                      "Unknown field 'findings[1].extra' is not allowed"}));
  EXPECT_EQ(
      (*validator)->Validate({{"findings", {{{"fix", "x"}, {"n", 1.5}}}}}),
      (std::vector<std::string>{"Field 'findings[0].n' must be of type integer, got number"}));
  std::vector<std::string> errors =
      (*validator)->Validate({{"findings", {{{"fix", "x"}, {"n", -1}}}}});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("Field 'findings[0].n': Expected number greater than or equal to", 0),
            0u)
      << errors[0];
}

TEST(SchemaValidatorTest, RejectsUncompilableSchema) {
  EXPECT_FALSE(SchemaValidator::Create(json::parse(R"({"type": 5})")).ok());
}

}  // namespace
}  // namespace labgate::actions
