// The v0.1 NDJSON envelope ({"type":"list_actions"} / {"type":"invoke",...}), answered
// with its exact texts: {id?, ok, data | error, issues?}, keys in that order.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "gateway/actions/action_tools.h"
#include "gateway/legacy/envelope_check.h"

namespace labgate::gateway::legacy {

inline constexpr size_t kMaxLineBytes = 512 * 1024;
inline constexpr char kMalformedJson[] = "Malformed JSON request";
inline constexpr char kTooLarge[] = "Request exceeds maximum size (512 KB)";

// {"ok":false,"error":text}
std::string ErrorReply(const std::string& text);

// Whether a reply this file wrote says "ok":true (for the request's trace).
bool ReplyIsOk(std::string_view reply);

// Whether the asker may invoke an action (the access file's tool check, by the action's
// name); null: every action.
using MayInvoke = std::function<absl::Status(const std::string& action)>;

// Validates one envelope and answers it through `reply` (possibly later, from a gRPC
// thread). `actions` may be null when no actions service is configured. With `may_invoke`,
// list_actions lists only the actions it allows and invoke of another is refused with its
// reason.
void HandleEnvelope(const nlohmann::json& envelope, ActionTools* actions,
                    std::function<void(std::string)> reply, MayInvoke may_invoke = nullptr);

}  // namespace labgate::gateway::legacy
