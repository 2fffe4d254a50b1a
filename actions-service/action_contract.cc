#include "actions-service/action_contract.h"

#include <exception>
#include <memory>

#include "absl/strings/str_join.h"
#include "actions-service/schema_validator.h"

namespace labgate::actions {
namespace {

// What a contract file must look like. Unknown keys are rejected so that a typo in a
// contract is caught at startup rather than silently ignored.
constexpr char kContractFileSchema[] = R"json({
  "type": "object",
  "required": ["skill", "action", "title", "category", "description", "boundary_notice",
               "uncertainty", "input_schema", "output_schema"],
  "properties": {
    "skill": {"type": "string"},
    "action": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
    "title": {"type": "string"},
    "category": {"type": "string"},
    "description": {"type": "string"},
    "boundary_notice": {"type": "string"},
    "uncertainty": {"type": "string", "enum": ["low", "medium", "high"]},
    "input_schema": {
      "type": "object",
      "required": ["type", "properties"],
      "properties": {"type": {"type": "string", "enum": ["object"]}}
    },
    "output_schema": {
      "type": "object",
      "required": ["type", "properties"],
      "properties": {"type": {"type": "string", "enum": ["object"]}}
    }
  },
  "additionalProperties": false
})json";

const SchemaValidator& ContractFileValidator() {
  static const SchemaValidator* const kValidator =
      SchemaValidator::Create(nlohmann::json::parse(kContractFileSchema))->release();
  return *kValidator;
}

absl::Status Invalid(const ContractSource& source, const std::string& why) {
  return absl::InvalidArgumentError("Contract file '" + source.name + "' is invalid: " + why);
}

}  // namespace

absl::StatusOr<ActionContract> ParseContract(const ContractSource& source) {
  nlohmann::json document;
  nlohmann::ordered_json ordered;
  try {
    document = nlohmann::json::parse(source.text);
    ordered = nlohmann::ordered_json::parse(source.text);
  } catch (const std::exception& error) {
    return Invalid(source, std::string("malformed JSON: ") + error.what());
  }
  std::vector<std::string> errors = ContractFileValidator().Validate(document);
  if (!errors.empty()) return Invalid(source, absl::StrJoin(errors, "; "));

  ActionContract contract;
  contract.skill = document["skill"].get<std::string>();
  contract.action = document["action"].get<std::string>();
  contract.title = document["title"].get<std::string>();
  contract.category = document["category"].get<std::string>();
  contract.description = document["description"].get<std::string>();
  contract.boundary_notice = document["boundary_notice"].get<std::string>();
  contract.uncertainty = document["uncertainty"].get<std::string>();
  contract.input_schema = document["input_schema"];
  contract.output_schema = document["output_schema"];
  contract.input_schema_json = ordered["input_schema"].dump();
  contract.output_schema_json = ordered["output_schema"].dump();
  return contract;
}

}  // namespace labgate::actions
