#include "gateway/dialects/loaf/loaf_protocol.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gateway/jsonrpc/message.h"

namespace labgate::gateway::loaf {

using nlohmann::json;

bool ClaimsMessage(const json& body) {
  if (!body.is_object()) return false;
  auto version = body.find("jsonrpc");
  if (version == body.end() || *version != "2.0") return false;
  auto method = body.find("method");
  if (method == body.end() || !method->is_string()) return false;
  const auto& name = method->get_ref<const std::string&>();
  return absl::StartsWith(name, "rpc.") || absl::StartsWith(name, "system.") ||
         absl::StartsWith(name, "session.");
}

json ErrorData(const ParamError& error) {
  return {{"reason", error.reason}, {"field", error.field}};
}

const json& Methods() {
  static const json* methods = new json{"rpc.handshake",  "system.ping", "system.shutdown",
                                        "session.create", "session.get", "session.send"};
  return *methods;
}

std::string ToolForMethod(const std::string& method) {
  if (method == "session.create") return "create_session";
  if (method == "session.get") return "get_session";
  if (method == "session.send") return "append_message";
  return "";
}

bool KnowsMethod(std::string_view method) {
  for (const auto& known : Methods()) {
    if (known.get_ref<const std::string&>() == method) return true;
  }
  return false;
}

std::optional<ParamError> ParamsObject(const json& body, json* params) {
  auto it = body.find("params");
  if (it == body.end() || it->is_null()) {
    *params = json::object();
    return std::nullopt;
  }
  if (!it->is_object()) return ParamError{"params must be an object", "params"};
  *params = *it;
  return std::nullopt;
}

std::optional<ParamError> StringParam(const json& params, const std::string& field, bool required,
                                      std::string* value) {
  auto it = params.find(field);
  if (it == params.end() || it->is_null()) {
    if (required) return ParamError{absl::StrCat(field, " is required"), field};
    return std::nullopt;
  }
  if (!it->is_string()) return ParamError{absl::StrCat(field, " must be a string"), field};
  *value = it->get<std::string>();
  if (required && value->empty()) {
    return ParamError{absl::StrCat(field, " must not be empty"), field};
  }
  return std::nullopt;
}

namespace {

// The major number of "MAJOR.MINOR.PATCH" (or "MAJOR"), or nullopt when it is not one.
std::optional<long> MajorOf(const std::string& version) {
  size_t digits = 0;
  while (digits < version.size() && version[digits] >= '0' && version[digits] <= '9') ++digits;
  if (digits == 0 || digits > 9 || (digits < version.size() && version[digits] != '.')) {
    return std::nullopt;
  }
  return std::stol(version.substr(0, digits));
}

}  // namespace

HandshakeOutcome Handshake(const json& params) {
  HandshakeOutcome outcome;
  std::string ignored;
  for (const char* field : {"client_name", "client_version"}) {
    if (auto error = StringParam(params, field, false, &ignored)) {
      outcome.error = *error;
      return outcome;
    }
  }
  bool strict = false;
  if (auto it = params.find("strict"); it != params.end() && !it->is_null()) {
    if (!it->is_boolean()) {
      outcome.error = ParamError{"strict must be a boolean", "strict"};
      return outcome;
    }
    strict = it->get<bool>();
  }
  std::string version;
  if (auto error = StringParam(params, "protocol_version", strict, &version)) {
    outcome.error = *error;
    return outcome;
  }
  if (!version.empty()) {
    auto major = MajorOf(version);
    if (!major.has_value()) {
      outcome.error =
          ParamError{absl::StrCat("protocol_version \"", version, "\" is not MAJOR.MINOR.PATCH"),
                     "protocol_version"};
      return outcome;
    }
    // Versions are additive within a major version, so only the major number must agree.
    if (strict && *major != 1) {
      outcome.error = ParamError{
          absl::StrCat("protocol_version ", version, " is not supported; labgate speaks ",
                       kProtocolVersion, " (major version 1)"),
          "protocol_version"};
      return outcome;
    }
  }
  outcome.result = {
      {"protocol_version", kProtocolVersion},
      {"server_name", "labgate"},
      {"capabilities",
       {{"events", {"session.message.appended", "session.status"}},
        {"sessions", true},
        {"batching", false}}},
      {"methods", Methods()},
  };
  return outcome;
}

json Ping() { return {{"ok", true}, {"time", NowRfc3339()}}; }

std::string Event(std::string_view type, json payload) {
  return jsonrpc::MakeNotification(
      "event",
      {{"type", std::string(type)}, {"timestamp", NowRfc3339()}, {"payload", std::move(payload)}});
}

std::string NowRfc3339() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
}

}  // namespace labgate::gateway::loaf
