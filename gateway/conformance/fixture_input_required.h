// The fixtures that ask the client for input (SEP-2322, "multi round-trip requests"), as
// the 2026-07-28 conformance scenarios expect them. Each asks through
// RequestContext::AskClient under a fixed inputRequests key: in the 2026 era the request
// then ends as input_required and the retry brings the answers; in the stateful era the
// questions go to the client as real requests. Internal to this module.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gateway/mcp/providers.h"

namespace labgate::gateway::conformance {

// The tools/list entries of the input-asking tools, in a fixed order.
const std::vector<nlohmann::json>& InputRequiredTools();

// Runs the input-asking tool `name` and returns true; false (and `done` untouched) when
// `name` is not one of them. `timeout` bounds each question in the stateful era.
bool CallInputRequiredTool(const std::string& name, const std::shared_ptr<RequestContext>& context,
                           std::chrono::milliseconds timeout, JsonDone& done);

// The prompts/list entries of the input-asking prompts.
const std::vector<nlohmann::json>& InputRequiredPrompts();

// Serves the input-asking prompt `name` and returns true; false when it is not one.
bool GetInputRequiredPrompt(const std::string& name, const std::shared_ptr<RequestContext>& context,
                            std::chrono::milliseconds timeout, JsonDone& done);

}  // namespace labgate::gateway::conformance
