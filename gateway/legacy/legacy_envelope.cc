#include "gateway/legacy/legacy_envelope.h"

#include "gateway/legacy/envelope_check.h"

namespace labgate::gateway::legacy {
namespace {

using ordered = nlohmann::ordered_json;
using nlohmann::json;

}  // namespace

std::string ErrorReply(const std::string& text) {
  return DumpReply(ordered{{"ok", false}, {"error", text}});
}

bool ReplyIsOk(std::string_view reply) {
  // "ok" is the first key after the optional string id, and a quote inside that string is
  // escaped, so the first "ok": in the text is the reply's own.
  const size_t at = reply.find("\"ok\":");
  return at != std::string_view::npos && reply.substr(at + 5, 4) == "true";
}

void HandleEnvelope(const json& envelope, ActionTools* actions,
                    std::function<void(std::string)> reply, MayInvoke may_invoke) {
  CheckedEnvelope checked = CheckEnvelope(envelope, actions != nullptr);
  if (checked.kind == CheckedEnvelope::Kind::kRefused) return reply(std::move(checked.refusal));
  ordered response = ReplyBase(envelope);
  if (checked.kind == CheckedEnvelope::Kind::kListActions) {
    actions->List([response, reply = std::move(reply),
                   may_invoke = std::move(may_invoke)](auto listed) mutable {
      if (!listed.ok()) {
        response["ok"] = false;
        response["error"] = std::string(listed.status().message());
        return reply(DumpReply(response));
      }
      ordered data = ordered::array();
      for (const auto& contract : listed->actions()) {
        if (may_invoke && !may_invoke(contract.action()).ok()) continue;
        data.push_back(ordered{{"skill", contract.skill()},
                               {"action", contract.action()},
                               {"safetyBoundary", contract.boundary_notice()}});
      }
      response["ok"] = true;
      response["data"] = std::move(data);
      reply(DumpReply(response));
    });
    return;
  }

  if (may_invoke) {
    if (absl::Status allowed = may_invoke(checked.action); !allowed.ok()) {
      response["ok"] = false;
      response["error"] = std::string(allowed.message());
      return reply(DumpReply(response));
    }
  }
  actions->Invoke(
      checked.action, checked.input,
      [actions, response, reply = std::move(reply)](absl::StatusOr<json> outcome) mutable {
        if (!outcome.ok()) {
          response["ok"] = false;
          response["error"] = std::string(outcome.status().message());
          return reply(DumpReply(response));
        }
        const json& result = *outcome;
        response["ok"] = true;
        response["data"] = ordered{
            {"action", result["action"]},
            {"boundaryNotice", result["boundaryNotice"]},
            {"uncertainty", result["uncertainty"]},
            {"assumptions", result["assumptions"]},
            {"output",
             actions->OrderedOutput(result["action"].get<std::string>(), result["output"])}};
        reply(DumpReply(response));
      });
}

}  // namespace labgate::gateway::legacy
