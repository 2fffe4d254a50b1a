// The loaf dialect's pure part on arbitrary stdio messages: which messages it claims, params,
// rpc.handshake and its event notifications. Invariants:
// - it claims exactly the JSON-RPC requests and notifications whose method starts with rpc.,
//   system. or session., and nothing that is not JSON-RPC 2.0;
// - params are an object or a -32602 on "params"; a string parameter is a string, or an error
//   naming that field;
// - a handshake either answers version 1.0.0 with the method list or names the field it
//   refuses, and a strict handshake succeeds only for major version 1;
// - events are notifications that classify as such.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/dialects/loaf/loaf_protocol.h"
#include "gateway/jsonrpc/message.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

namespace loaf = labgate::gateway::loaf;
using labgate::gateway::jsonrpc::IncomingMessage;
using labgate::gateway::jsonrpc::ParseMessage;
using nlohmann::json;

bool HasLoafPrefix(const std::string& method) {
  return method.rfind("rpc.", 0) == 0 || method.rfind("system.", 0) == 0 ||
         method.rfind("session.", 0) == 0;
}

void CheckStringParam(const json& params, const std::string& field, bool required) {
  std::string value = "unchanged";
  const std::optional<loaf::ParamError> error = loaf::StringParam(params, field, required, &value);
  const bool present = params.contains(field) && !params[field].is_null();
  if (error) {
    FUZZ_CHECK(error->field == field && !error->reason.empty());
    FUZZ_CHECK(present ? !params[field].is_string() ||
                             (required && params[field].get<std::string>().empty())
                       : required);
    const json data = loaf::ErrorData(*error);
    FUZZ_CHECK(data["field"] == field && data["reason"] == error->reason);
  } else if (present) {
    FUZZ_CHECK(params[field] == value && (!required || !value.empty()));
  } else {
    FUZZ_CHECK(!required && value == "unchanged");
  }
}

void CheckHandshake(const json& params) {
  const loaf::HandshakeOutcome outcome = loaf::Handshake(params);
  if (outcome.error) {
    const std::string& field = outcome.error->field;
    FUZZ_CHECK(field == "client_name" || field == "client_version" || field == "strict" ||
               field == "protocol_version");
    FUZZ_CHECK(!outcome.error->reason.empty() && outcome.result.is_null());
    return;
  }
  FUZZ_CHECK(outcome.result["protocol_version"] == loaf::kProtocolVersion);
  FUZZ_CHECK(outcome.result["methods"] == loaf::Methods());
  const bool strict = params.contains("strict") && params["strict"] == true;
  if (strict) {  // only major version 1: "1", "1.2.3", "01.0"
    const std::string version = params["protocol_version"].get<std::string>();
    const size_t digits = version.find_first_not_of("0123456789");
    const size_t major_end = digits == std::string::npos ? version.size() : digits;
    FUZZ_CHECK(major_end > 0 && major_end <= 9);
    FUZZ_CHECK(major_end == version.size() || version[major_end] == '.');
    FUZZ_CHECK(std::stol(version.substr(0, major_end)) == 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view payload(reinterpret_cast<const char*>(data), size);
  const IncomingMessage message = ParseMessage(payload);
  const bool claimed = loaf::ClaimsMessage(message.body);
  const bool named_call = (message.kind == IncomingMessage::Kind::kRequest ||
                           message.kind == IncomingMessage::Kind::kNotification) &&
                          HasLoafPrefix(message.method);
  if (named_call) FUZZ_CHECK(claimed);
  if (message.kind == IncomingMessage::Kind::kResponse) FUZZ_CHECK(!claimed);
  if (!claimed) return 0;
  FUZZ_CHECK(message.body["jsonrpc"] == "2.0" && message.body["method"].is_string());
  const std::string method = message.body["method"].get<std::string>();
  FUZZ_CHECK(HasLoafPrefix(method));
  bool listed = false;
  for (const json& known : loaf::Methods()) listed = listed || known == method;
  FUZZ_CHECK(loaf::KnowsMethod(method) == listed);

  json params;
  if (const auto error = loaf::ParamsObject(message.body, &params)) {
    const json& given = message.body["params"];
    FUZZ_CHECK(error->field == "params" && !given.is_object() && !given.is_null());
    return 0;
  }
  FUZZ_CHECK(params.is_object());
  CheckHandshake(params);
  for (const char* field : {"session_id", "device_id", "port_name", "reason", "text"}) {
    CheckStringParam(params, field, /*required=*/true);
    CheckStringParam(params, field, /*required=*/false);
  }

  const std::string event = loaf::Event(method, params);
  const IncomingMessage parsed = ParseMessage(event);
  FUZZ_CHECK(parsed.kind == IncomingMessage::Kind::kNotification && parsed.method == "event");
  FUZZ_CHECK(parsed.body["params"]["type"] == method);
  FUZZ_CHECK(parsed.body["params"]["payload"] == params);
  return 0;
}
