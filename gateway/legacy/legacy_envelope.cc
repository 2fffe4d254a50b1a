#include "gateway/legacy/legacy_envelope.h"

#include "absl/strings/str_cat.h"

namespace labgate::gateway::legacy {
namespace {

using ordered = nlohmann::ordered_json;
using nlohmann::json;

std::string Dump(const ordered& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

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

ordered Reply(const json& envelope) {
  ordered reply = ordered::object();
  if (auto it = envelope.find("id"); it != envelope.end() && it->is_string()) reply["id"] = *it;
  return reply;
}

}  // namespace

std::string ErrorReply(const std::string& text) {
  return Dump(ordered{{"ok", false}, {"error", text}});
}

bool ReplyIsOk(std::string_view reply) {
  // "ok" is the first key after the optional string id, and a quote inside that string is
  // escaped, so the first "ok": in the text is the reply's own.
  const size_t at = reply.find("\"ok\":");
  return at != std::string_view::npos && reply.substr(at + 5, 4) == "true";
}

void HandleEnvelope(const json& envelope, ActionTools* actions,
                    std::function<void(std::string)> reply) {
  ordered response = Reply(envelope);
  auto fail = [&](const std::string& text, ordered issues = nullptr) {
    response["ok"] = false;
    response["error"] = text;
    if (!issues.is_null()) response["issues"] = std::move(issues);
    reply(Dump(response));
  };

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
  if (!issues.empty()) return fail("Invalid request envelope", std::move(issues));

  if (actions == nullptr) return fail("No actions service is configured");
  const std::string& type = envelope["type"].get_ref<const std::string&>();
  if (type == "list_actions") {
    actions->List([response, reply](auto listed) mutable {
      if (!listed.ok()) {
        response["ok"] = false;
        response["error"] = std::string(listed.status().message());
        return reply(Dump(response));
      }
      ordered data = ordered::array();
      for (const auto& contract : listed->actions()) {
        data.push_back(ordered{{"skill", contract.skill()},
                               {"action", contract.action()},
                               {"safetyBoundary", contract.boundary_notice()}});
      }
      response["ok"] = true;
      response["data"] = std::move(data);
      reply(Dump(response));
    });
    return;
  }

  // invoke: payload must be {action: non-empty string, input: object}.
  static const json kEmpty = json::object();
  const json* payload = &kEmpty;
  if (auto it = envelope.find("payload"); it == envelope.end()) {
    issues.push_back(Issue("invalid_type", "Required", ordered::array()));
  } else if (!it->is_object()) {
    issues.push_back(Issue("invalid_type",
                           absl::StrCat("Expected object, received ", ReceivedType(*it)),
                           ordered::array()));
  } else {
    payload = &*it;
    if (Expect(*payload, "action", json::value_t::string, "string", ordered::array(), &issues) &&
        (*payload)["action"].get_ref<const std::string&>().empty()) {
      issues.push_back(
          Issue("too_small", "String must contain at least 1 character(s)", ordered{"action"}));
    }
    Expect(*payload, "input", json::value_t::object, "object", ordered::array(), &issues);
  }
  if (!issues.empty()) return fail("Invalid invoke payload", std::move(issues));

  actions->Invoke((*payload)["action"].get<std::string>(), (*payload)["input"],
                  [actions, response, reply](absl::StatusOr<json> outcome) mutable {
                    if (!outcome.ok()) {
                      response["ok"] = false;
                      response["error"] = std::string(outcome.status().message());
                      return reply(Dump(response));
                    }
                    const json& result = *outcome;
                    response["ok"] = true;
                    response["data"] = ordered{
                        {"action", result["action"]},
                        {"boundaryNotice", result["boundaryNotice"]},
                        {"uncertainty", result["uncertainty"]},
                        {"assumptions", result["assumptions"]},
                        {"output", actions->OrderedOutput(result["action"].get<std::string>(),
                                                          result["output"])}};
                    reply(Dump(response));
                  });
}

}  // namespace labgate::gateway::legacy
