#include "common/json_schema_check.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "valijson/adapters/nlohmann_json_adapter.hpp"
#include "valijson/schema.hpp"
#include "valijson/schema_parser.hpp"
#include "valijson/validation_results.hpp"
#include "valijson/validator.hpp"

namespace labgate {
namespace {

std::string ContextPath(const std::vector<std::string>& context) {
  std::string path;
  for (const std::string& part : context) {
    if (part == "<root>") continue;
    path += part;
  }
  return path.empty() ? "(top level)" : path;
}

}  // namespace

absl::Status CheckAgainstSchema(const nlohmann::json& schema_json, const nlohmann::json& document) {
  valijson::Schema schema;
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  valijson::adapters::NlohmannJsonAdapter schema_adapter(schema_json);
  parser.populateSchema(schema_adapter, schema);
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  if (validator.validate(schema, valijson::adapters::NlohmannJsonAdapter(document), &results)) {
    return absl::OkStatus();
  }
  std::vector<std::string> problems, generic;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    // The generic "failed against the schema of property X" lines add nothing, unless they
    // are all there is (a property name the schema refuses).
    const bool is_generic =
        error.description.rfind("Failed to validate against schema associated", 0) == 0 ||
        error.description.rfind("Failed to validate item", 0) == 0;
    (is_generic ? generic : problems)
        .push_back(absl::StrCat(ContextPath(error.context), ": ", error.description));
  }
  return absl::InvalidArgumentError(absl::StrJoin(problems.empty() ? generic : problems, "; "));
}

}  // namespace labgate
