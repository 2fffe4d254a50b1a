// An action contract: the data in one actions-service/contracts/*.json file.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace labgate::actions {

// One contract file's text, named by where it came from (for error messages).
struct ContractSource {
  std::string name;  // e.g. "supportive_reply.json"
  std::string text;
};

struct ActionContract {
  std::string skill;
  std::string action;
  std::string title;
  std::string category;
  std::string description;
  std::string boundary_notice;
  std::string uncertainty;  // "low" | "medium" | "high"
  nlohmann::json input_schema;
  nlohmann::json output_schema;
  // Compact JSON text of the schemas in the file's key order (nlohmann::json sorts keys).
  std::string input_schema_json;
  std::string output_schema_json;
};

// Parses and checks one contract file. Unknown keys, missing fields and malformed JSON
// are errors (InvalidArgument) whose message names `source.name`.
absl::StatusOr<ActionContract> ParseContract(const ContractSource& source);

}  // namespace labgate::actions
