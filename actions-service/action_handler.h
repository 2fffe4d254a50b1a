// The C++ side of a contract: a deterministic, rule-based function of the input.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace labgate::actions {

struct HandlerResult {
  // Must conform to the contract's output schema; the registry checks.
  nlohmann::json output;
  // The inputs the handler relied on, then its fixed caveats.
  std::vector<std::string> assumptions;
};

// Called only with input that passed the contract's input schema, with defaults applied.
// Handlers are pure, CPU-only and fast; they may run on any thread, concurrently.
using ActionHandler = std::function<HandlerResult(const nlohmann::json& input)>;

// Keyed by action name.
using HandlerTable = std::map<std::string, ActionHandler, std::less<>>;

// The ten built-in handlers, one per contract in actions-service/contracts/.
HandlerTable BuiltinHandlers();

}  // namespace labgate::actions
