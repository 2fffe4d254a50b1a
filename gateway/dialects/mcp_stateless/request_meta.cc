#include "gateway/dialects/mcp_stateless/request_meta.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/status_map.h"

namespace labgate::gateway::stateless {

using nlohmann::json;

const std::vector<std::string>& StatelessVersions() {
  static const std::vector<std::string> versions = {kStatelessVersion};
  return versions;
}

const std::vector<std::string>& AllSupportedVersions() {
  static const std::vector<std::string> versions = {kStatelessVersion, "2025-11-25", "2025-06-18",
                                                    "2025-03-26", "2024-11-05"};
  return versions;
}

bool ClaimsMessage(const std::string& method, const json& body) {
  if (method == "server/discover") return true;
  auto params = body.find("params");
  if (params == body.end() || !params->is_object()) return false;
  auto meta = params->find("_meta");
  return meta != params->end() && meta->is_object() && meta->contains(kProtocolVersionKey);
}

namespace {

MetaError Invalid(const std::string& field, const std::string& reason) {
  return {jsonrpc_code::kInvalidParams, reason, {{"reason", reason}, {"field", field}}};
}

}  // namespace

std::optional<MetaError> ParseRequestMeta(const json& params, RequestMeta* meta) {
  if (!params.is_object()) return Invalid("params", "params must be an object with _meta");
  auto it = params.find("_meta");
  if (it == params.end() || !it->is_object()) {
    return Invalid("_meta", "params._meta is required in protocol version 2026-07-28");
  }
  const json& m = *it;
  auto version = m.find(kProtocolVersionKey);
  if (version == m.end() || !version->is_string()) {
    return Invalid(absl::StrCat("_meta.", kProtocolVersionKey),
                   absl::StrCat("params._meta[\"", kProtocolVersionKey, "\"] is required"));
  }
  meta->protocol_version = version->get<std::string>();
  const auto& served = StatelessVersions();
  if (std::find(served.begin(), served.end(), meta->protocol_version) == served.end()) {
    return MetaError{jsonrpc_code::kUnsupportedProtocolVersion,
                     absl::StrCat("Unsupported protocol version: ", meta->protocol_version),
                     {{"supported", StatelessVersions()}, {"requested", meta->protocol_version}}};
  }
  auto capabilities = m.find(kClientCapabilitiesKey);
  if (capabilities == m.end() || !capabilities->is_object()) {
    return Invalid(
        absl::StrCat("_meta.", kClientCapabilitiesKey),
        absl::StrCat("params._meta[\"", kClientCapabilitiesKey, "\"] is required (an object)"));
  }
  meta->client_capabilities = *capabilities;
  if (auto info = m.find(kClientInfoKey); info != m.end()) meta->client_info = *info;
  if (auto level = m.find(kLogLevelKey); level != m.end()) {
    McpLogLevel parsed;
    if (!level->is_string() || !ParseMcpLogLevel(level->get<std::string>(), &parsed)) {
      return Invalid(absl::StrCat("_meta.", kLogLevelKey),
                     "logLevel must be one of debug, info, notice, warning, error, critical, "
                     "alert, emergency");
    }
    meta->log_level = parsed;
  }
  if (auto token = m.find("progressToken"); token != m.end()) meta->progress_token = *token;
  return std::nullopt;
}

}  // namespace labgate::gateway::stateless
