// The v0.1 envelope's validation, with its exact texts: what an envelope asks for, or the
// reply that refuses it. Pure (no backend is asked), so it is tested and fuzzed alone.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace labgate::gateway::legacy {

// True for a v0.1 envelope: a JSON object with "type" and no "jsonrpc".
inline bool IsEnvelope(const nlohmann::json& body) {
  return body.is_object() && body.contains("type") && !body.contains("jsonrpc");
}

struct CheckedEnvelope {
  enum class Kind { kRefused, kListActions, kInvoke };
  Kind kind = Kind::kRefused;
  std::string refusal;  // kRefused: the whole reply, {id?, ok:false, error, issues?}
  std::string action;   // kInvoke: non-empty
  nlohmann::json input = nlohmann::json::object();  // kInvoke: an object
};

// Checks the envelope, then (when `actions_configured`; otherwise it is refused with "No
// actions service is configured") an invoke's payload, in the order the seed answered.
CheckedEnvelope CheckEnvelope(const nlohmann::json& envelope, bool actions_configured);

// The start of every reply: {"id": ...} when the envelope has a string id, else {}.
nlohmann::ordered_json ReplyBase(const nlohmann::json& envelope);

// Compact text with invalid UTF-8 replaced, as every reply is sent.
std::string DumpReply(const nlohmann::ordered_json& reply);

}  // namespace labgate::gateway::legacy
