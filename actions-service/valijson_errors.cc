#include "actions-service/valijson_errors.h"

#include <array>
#include <utility>

namespace labgate::actions {
namespace {

// The openings of valijson 1.0's descriptions (Debian bookworm's libvalijson-dev
// 1.0+repack-2, validation_visitor.hpp).
constexpr std::array<std::pair<std::string_view, ValijsonErrorKind>, 6> kOpenings = {{
    {"Failed to validate against schema associated with property", ValijsonErrorKind::kChildFailed},
    {"Failed to validate item #", ValijsonErrorKind::kChildFailed},
    {"Missing required property", ValijsonErrorKind::kMissingRequired},
    {"Object contains a property that could not be validated", ValijsonErrorKind::kUnknownProperty},
    {"Value type not permitted", ValijsonErrorKind::kWrongType},
    {"Failed to match against any enum values", ValijsonErrorKind::kNotInEnum},
}};

}  // namespace

ValijsonErrorKind ClassifyValijsonError(std::string_view description) {
  for (const auto& [opening, kind] : kOpenings) {
    if (description.substr(0, opening.size()) == opening) return kind;
  }
  return ValijsonErrorKind::kOther;
}

std::string NamedProperty(std::string_view description) {
  const size_t end = description.rfind('\'');
  if (end == std::string_view::npos || end == 0) return "";
  const size_t begin = description.rfind('\'', end - 1);
  if (begin == std::string_view::npos) return "";
  return std::string(description.substr(begin + 1, end - begin - 1));
}

}  // namespace labgate::actions
