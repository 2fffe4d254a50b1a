// The v0.1 envelope on arbitrary stdio lines, as StdioConnection meets them (parsed by
// jsonrpc::ParseMessage, claimed by IsEnvelope), checked with and without an actions
// service. Invariants:
// - checking never throws and always decides: a refusal, list_actions or a well-formed invoke;
// - a refusal is one JSON object {id?, ok:false, error, issues?} in that key order, with one
//   of the envelope's error texts, the id echoed exactly when it is a string, and issues
//   exactly when the envelope or payload was malformed;
// - what is accepted is what the envelope said.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "gateway/jsonrpc/message.h"
#include "gateway/legacy/envelope_check.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using labgate::gateway::legacy::CheckedEnvelope;
using labgate::gateway::legacy::CheckEnvelope;
using nlohmann::json;
using nlohmann::ordered_json;

void CheckRefusal(const json& envelope, const std::string& refusal) {
  const ordered_json reply = ordered_json::parse(refusal, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(reply.is_object());
  const bool string_id = envelope.contains("id") && envelope["id"].is_string();
  auto key = reply.begin();
  if (string_id) {
    FUZZ_CHECK(key.key() == "id" && key.value() == envelope["id"]);
    ++key;
  }
  FUZZ_CHECK(key != reply.end() && key.key() == "ok" && key.value() == false);
  ++key;
  FUZZ_CHECK(key != reply.end() && key.key() == "error" && key.value().is_string());
  const std::string error = key.value().get<std::string>();
  ++key;
  const bool malformed = error == "Invalid request envelope" || error == "Invalid invoke payload";
  FUZZ_CHECK(malformed || error == "No actions service is configured");
  if (malformed) {
    FUZZ_CHECK(key != reply.end() && key.key() == "issues");
    const ordered_json& issues = key.value();
    FUZZ_CHECK(issues.is_array() && !issues.empty());
    for (const auto& issue : issues) {
      FUZZ_CHECK(issue.is_object() && issue.size() == 3);
      FUZZ_CHECK(issue["code"].is_string() && issue["message"].is_string());
      FUZZ_CHECK(issue["path"].is_array());
    }
    ++key;
  }
  FUZZ_CHECK(key == reply.end());
}

void Check(const json& envelope, bool actions_configured) {
  const CheckedEnvelope checked = CheckEnvelope(envelope, actions_configured);
  switch (checked.kind) {
    case CheckedEnvelope::Kind::kRefused:
      CheckRefusal(envelope, checked.refusal);
      break;
    case CheckedEnvelope::Kind::kListActions:
      FUZZ_CHECK(actions_configured && envelope["type"] == "list_actions");
      FUZZ_CHECK(!envelope.contains("id") || envelope["id"].is_string());
      break;
    case CheckedEnvelope::Kind::kInvoke: {
      FUZZ_CHECK(actions_configured && envelope["type"] == "invoke");
      FUZZ_CHECK(!envelope.contains("id") || envelope["id"].is_string());
      const json& payload = envelope["payload"];
      FUZZ_CHECK(!checked.action.empty() && payload["action"] == checked.action);
      FUZZ_CHECK(checked.input.is_object() && payload["input"] == checked.input);
      break;
    }
  }
  if (!actions_configured) FUZZ_CHECK(checked.kind == CheckedEnvelope::Kind::kRefused);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const auto message = labgate::gateway::jsonrpc::ParseMessage(line);
  if (!labgate::gateway::legacy::IsEnvelope(message.body)) return 0;
  Check(message.body, /*actions_configured=*/false);
  Check(message.body, /*actions_configured=*/true);
  return 0;
}
