// The built-in registry, built once per test binary.
#pragma once

#include <gtest/gtest.h>

#include "actions-service/action_registry.h"

namespace labgate::actions::testing {

inline const ActionRegistry& BuiltinRegistry() {
  static const ActionRegistry* const kRegistry = [] {
    auto registry = ActionRegistry::CreateBuiltin();
    if (!registry.ok()) {
      ADD_FAILURE() << registry.status();
      std::abort();
    }
    return registry->release();
  }();
  return *kRegistry;
}

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline bool AnyContains(const nlohmann::json& strings, const std::string& part) {
  for (const nlohmann::json& entry : strings) {
    if (entry.is_string() && Contains(entry.get<std::string>(), part)) return true;
  }
  return false;
}

inline bool AnyContains(const std::vector<std::string>& strings, const std::string& part) {
  for (const std::string& entry : strings) {
    if (Contains(entry, part)) return true;
  }
  return false;
}

}  // namespace labgate::actions::testing
