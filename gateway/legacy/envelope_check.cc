#include "gateway/legacy/envelope_check.h"

#include "absl/strings/str_cat.h"

namespace labgate::gateway::legacy {
namespace {

using ordered = nlohmann::ordered_json;
using nlohmann::json;

// The received-type word of the envelope's original validation messages.
std::string ReceivedType(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "object";
    case json::value_t::array:
      return "array";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_float:
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "number";
    default:
      return "unknown";
  }
}

ordered Issue(const std::string& code, const std::string& message, ordered path) {
  return ordered{{"code", code}, {"message", message}, {"path", std::move(path)}};
}

// Checks that `object[key]` is present and of `type`; appends an issue otherwise.
bool Expect(const json& object, const std::string& key, json::value_t type,
            const std::string& type_word, const ordered& path_prefix, ordered* issues) {
  ordered path = path_prefix;
  path.push_back(key);
  auto it = object.find(key);
  if (it == object.end()) {
    issues->push_back(Issue("invalid_type", "Required", path));
    return false;
  }
  bool matches = it->type() == type || (type == json::value_t::number_float && it->is_number());
  if (!matches) {
    issues->push_back(Issue("invalid_type",
                            absl::StrCat("Expected ", type_word, ", received ", ReceivedType(*it)),
                            path));
    return false;
  }
  return true;
}

CheckedEnvelope Refuse(const json& envelope, const std::string& text, ordered issues = nullptr) {
  ordered reply = ReplyBase(envelope);
  reply["ok"] = false;
  reply["error"] = text;
  if (!issues.is_null()) reply["issues"] = std::move(issues);
  CheckedEnvelope checked;
  checked.refusal = DumpReply(reply);
  return checked;
}

}  // namespace

ordered ReplyBase(const json& envelope) {
  ordered reply = ordered::object();
  if (auto it = envelope.find("id"); it != envelope.end() && it->is_string()) reply["id"] = *it;
  return reply;
}

std::string DumpReply(const ordered& reply) {
  return reply.dump(-1, ' ', false, json::error_handler_t::replace);
}

CheckedEnvelope CheckEnvelope(const json& envelope, bool actions_configured) {
  ordered issues = ordered::array();
  if (envelope.contains("id") && !envelope["id"].is_string()) {
    issues.push_back(Issue("invalid_type",
                           absl::StrCat("Expected string, received ", ReceivedType(envelope["id"])),
                           ordered{"id"}));
  }
  if (Expect(envelope, "type", json::value_t::string, "string", ordered::array(), &issues)) {
    const std::string& type = envelope["type"].get_ref<const std::string&>();
    if (type != "list_actions" && type != "invoke") {
      issues.push_back(Issue("invalid_enum_value",
                             absl::StrCat("Invalid enum value. Expected 'list_actions' | "
                                          "'invoke', received '",
                                          type, "'"),
                             ordered{"type"}));
    }
  }
  if (!issues.empty()) return Refuse(envelope, "Invalid request envelope", std::move(issues));
  if (!actions_configured) return Refuse(envelope, "No actions service is configured");

  CheckedEnvelope checked;
  if (envelope["type"] == "list_actions") {
    checked.kind = CheckedEnvelope::Kind::kListActions;
    return checked;
  }
  // invoke: payload must be {action: non-empty string, input: object}.
  auto payload = envelope.find("payload");
  if (payload == envelope.end()) {
    issues.push_back(Issue("invalid_type", "Required", ordered::array()));
  } else if (!payload->is_object()) {
    issues.push_back(Issue("invalid_type",
                           absl::StrCat("Expected object, received ", ReceivedType(*payload)),
                           ordered::array()));
  } else {
    if (Expect(*payload, "action", json::value_t::string, "string", ordered::array(), &issues) &&
        (*payload)["action"].get_ref<const std::string&>().empty()) {
      issues.push_back(
          Issue("too_small", "String must contain at least 1 character(s)", ordered{"action"}));
    }
    Expect(*payload, "input", json::value_t::object, "object", ordered::array(), &issues);
  }
  if (!issues.empty()) return Refuse(envelope, "Invalid invoke payload", std::move(issues));
  checked.kind = CheckedEnvelope::Kind::kInvoke;
  checked.action = (*payload)["action"].get<std::string>();
  checked.input = (*payload)["input"];
  return checked;
}

}  // namespace labgate::gateway::legacy
