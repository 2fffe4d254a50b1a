// What a valijson error description is about. valijson reports errors as English sentences
// only; this is the one place that reads them, so a valijson upgrade that rewords one fails
// tests/valijson_errors_test.cc instead of silently changing labgate's texts.
#pragma once

#include <string>
#include <string_view>

namespace labgate::actions {

enum class ValijsonErrorKind {
  kChildFailed,      // wraps the errors of a property or item, which are reported themselves
  kMissingRequired,  // "required": names the missing property
  kUnknownProperty,  // additionalProperties: false; names the first unknown property
  kWrongType,        // "type"
  kNotInEnum,        // "enum"
  kOther,            // any other keyword: its description is shown as it is
};

ValijsonErrorKind ClassifyValijsonError(std::string_view description);

// The property a kMissingRequired or kUnknownProperty description names (the text between
// its last pair of single quotes), or "".
std::string NamedProperty(std::string_view description);

}  // namespace labgate::actions
