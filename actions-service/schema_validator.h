// JSON Schema validation (valijson) with error texts a person can act on.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace valijson {
class Schema;
}

namespace labgate::actions {

// Checks values against one compiled schema. Immutable after Create(), so one instance
// may validate from many threads at once.
//
// Error texts, in this order:
//   Required field 'x' is missing or empty        required field absent, null or ""
//   Unknown field 'x' is not allowed              additionalProperties: false
//   Field 'x' must be of type string, got number  type (types: string, number, integer,
//                                                 boolean, array, object, null)
//   Field 'x' must be one of: a, b, c (got 'v')   enum (v cut to 40 characters + "...")
//   Input must be a JSON object, got array        the root is not an object
//   Field 'x': <valijson's description>           any other keyword
// Fields nested in arrays and objects are named like 'focus[2]' or 'findings[0].fix'.
// Required-field errors follow the schema's "required" order; the rest are sorted by
// field name. A field with a required-field error gets no further errors.
class SchemaValidator {
 public:
  // InvalidArgument when valijson cannot compile `schema`.
  static absl::StatusOr<std::unique_ptr<SchemaValidator>> Create(const nlohmann::json& schema);
  ~SchemaValidator();

  // Empty when `value` conforms.
  std::vector<std::string> Validate(const nlohmann::json& value) const;

  // Adds each top-level property's "default" that `value` (an object) lacks.
  void ApplyDefaults(nlohmann::json& value) const;

 private:
  SchemaValidator() = default;
  nlohmann::json schema_;
  std::unique_ptr<valijson::Schema> compiled_;
};

}  // namespace labgate::actions
