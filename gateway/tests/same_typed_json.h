// Test and fuzz helper: two JSON values equal with equal types throughout. nlohmann's ==
// counts 1 and 1u as equal; a parser must give the same type as the one it stands in for.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

namespace labgate::testing {

inline bool SameTypedJson(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type() || a != b) return false;
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!SameTypedJson(it.value(), b.at(it.key()))) return false;
    }
  } else if (a.is_array()) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameTypedJson(a[i], b[i])) return false;
    }
  }
  return true;
}

}  // namespace labgate::testing
