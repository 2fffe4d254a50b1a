// Every action's output validates against its output schema, across inputs generated from
// each input schema: every enum value, empty-ish text, 100 KB text, unicode, crisis text.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "actions-service/schema_validator.h"
#include "actions-service/tests/test_registry.h"

namespace labgate::actions {
namespace {

using nlohmann::json;
using testing::BuiltinRegistry;

// The envelope every response has, whatever the action.
constexpr char kResponseSchema[] = R"json({
  "type": "object",
  "required": ["action", "boundaryNotice", "uncertainty", "assumptions", "output"],
  "properties": {
    "action": {"type": "string"},
    "boundaryNotice": {"type": "string"},
    "uncertainty": {"type": "string", "enum": ["low", "medium", "high"]},
    "assumptions": {"type": "array", "items": {"type": "string"}},
    "output": {"type": "object"}
  },
  "additionalProperties": false
})json";

std::vector<std::pair<std::string, std::string>> TextVariants() {
  std::string long_text;
  while (long_text.size() < 100 * 1024) {
    long_text += "You must act now or it is your fault. The hallway is long and bright. ";
  }
  std::string long_unicode;
  while (long_unicode.size() < 100 * 1024) long_unicode += "\xF0\x9F\x98\x80\xE4\xB8\xAD ";
  return {
      {"space", " "},
      {"one_letter", "a"},
      {"whitespace_mix", " \t\n "},
      {"punctuation_only", "...!?"},
      {"long_100kb", long_text},
      {"long_100kb_unicode", long_unicode},
      {"emoji", "I feel \xF0\x9F\x98\x9E today \xF0\x9F\x92\x94"},
      {"cjk", "\xE6\x88\x91\xE5\xBE\x88\xE9\x9A\xBE\xE8\xBF\x87\xE3\x80\x82"},
      {"rtl", "\xD8\xA3\xD9\x86\xD8\xA7 \xD8\xAD\xD8\xB2\xD9\x8A\xD9\x86 \xD8\xAC\xD8\xAF\xD8\xA7"},
      {"crisis", "I don't want to be here, there is no point"},
      {"html", "<html><img src=x><input><a href=#>click here</a></html>"},
      {"keywords", "threat harm legal password swipe animated countdown China elder older"},
  };
}

// Inputs for `schema`: one per text variant, with enum fields cycling through their values,
// arrays holding the text, and optional fields both present and (for variant 0) absent.
std::vector<std::pair<std::string, json>> GenerateInputs(const json& schema) {
  std::vector<std::pair<std::string, json>> inputs;
  std::vector<std::pair<std::string, std::string>> variants = TextVariants();
  std::vector<std::string> required = schema.value("required", std::vector<std::string>{});
  size_t max_enum = 1;
  for (const auto& [name, property] : schema["properties"].items()) {
    if (property.contains("enum")) max_enum = std::max(max_enum, property["enum"].size());
  }
  for (size_t v = 0; v < variants.size(); ++v) {
    for (size_t e = 0; e < max_enum; ++e) {
      json input = json::object();
      bool only_required = (v + e) % 2 == 0;
      for (const auto& [name, property] : schema["properties"].items()) {
        bool is_required = std::find(required.begin(), required.end(), name) != required.end();
        if (only_required && !is_required) continue;
        if (property.contains("enum")) {
          input[name] = property["enum"][e % property["enum"].size()];
        } else if (property["type"] == "array") {
          input[name] = json::array({variants[v].second, "adhd", "older adults", "children"});
        } else {
          input[name] = variants[v].second;
        }
      }
      inputs.emplace_back(variants[v].first + "_" + std::to_string(e) +
                              (only_required ? "_required_only" : "_all_fields"),
                          input);
    }
  }
  return inputs;
}

class OutputSchemaTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OutputSchemaTest, EveryOutputConformsToTheOutputSchema) {
  const std::string& action = GetParam();
  absl::StatusOr<const ActionContract*> contract = BuiltinRegistry().Get(action);
  ASSERT_TRUE(contract.ok()) << contract.status();
  auto output_validator = SchemaValidator::Create((*contract)->output_schema);
  ASSERT_TRUE(output_validator.ok());
  auto response_validator = SchemaValidator::Create(json::parse(kResponseSchema));
  ASSERT_TRUE(response_validator.ok());

  std::vector<std::pair<std::string, json>> inputs = GenerateInputs((*contract)->input_schema);
  ASSERT_GE(inputs.size(), 12u);
  for (const auto& [name, input] : inputs) {
    SCOPED_TRACE(name);
    absl::StatusOr<ActionResult> result = BuiltinRegistry().Invoke(action, input);
    ASSERT_TRUE(result.ok()) << result.status();
    std::vector<std::string> errors = (*output_validator)->Validate(result->output);
    EXPECT_TRUE(errors.empty()) << absl::StrJoin(errors, "; ") << "\n" << result->output.dump();
    errors = (*response_validator)->Validate(result->ToJson());
    EXPECT_TRUE(errors.empty()) << absl::StrJoin(errors, "; ");
    EXPECT_EQ(result->uncertainty, (*contract)->uncertainty);
    // Assumptions echo inputs, but never a whole 100 KB message.
    for (const std::string& assumption : result->assumptions) EXPECT_LT(assumption.size(), 400u);
    // Output is valid UTF-8: serialising with strict error handling must not throw.
    EXPECT_NO_THROW((void)result->ToJson().dump());
  }
}

std::vector<std::string> AllActions() {
  std::vector<std::string> actions;
  for (const ActionContract& contract : BuiltinRegistry().List()) {
    actions.push_back(contract.action);
  }
  return actions;
}

INSTANTIATE_TEST_SUITE_P(AllActions, OutputSchemaTest, ::testing::ValuesIn(AllActions()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(OutputSchemaTest, CoversAllTenActions) {
  EXPECT_EQ(AllActions(),
            (std::vector<std::string>{
                "age_inclusive_design_check", "cognitive_accessibility_audit",
                "cultural_context_check", "deescalation_plan", "empathetic_reframe",
                "grief_support_response", "neurodiversity_design_check",
                "rewrite_depression_sensitive_content", "supportive_reply", "wcagaaa_check"}));
}

}  // namespace
}  // namespace labgate::actions
