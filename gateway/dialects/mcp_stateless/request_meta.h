// The per-request `_meta` of the 2026-07-28 era: protocol version and client capabilities
// (required), client info and log level (optional).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gateway/mcp/providers.h"

namespace labgate::gateway::stateless {

inline constexpr char kStatelessVersion[] = "2026-07-28";
inline constexpr char kProtocolVersionKey[] = "io.modelcontextprotocol/protocolVersion";
inline constexpr char kClientCapabilitiesKey[] = "io.modelcontextprotocol/clientCapabilities";
inline constexpr char kClientInfoKey[] = "io.modelcontextprotocol/clientInfo";
inline constexpr char kLogLevelKey[] = "io.modelcontextprotocol/logLevel";
inline constexpr char kServerInfoKey[] = "io.modelcontextprotocol/serverInfo";
inline constexpr char kSubscriptionIdKey[] = "io.modelcontextprotocol/subscriptionId";

// Versions served statelessly (newest first).
const std::vector<std::string>& StatelessVersions();
// Every version labgate serves, both eras, newest first.
const std::vector<std::string>& AllSupportedVersions();

// True when a request belongs to this era: it carries the era's protocol version key in
// params._meta, or it is server/discover.
bool ClaimsMessage(const std::string& method, const nlohmann::json& body);

struct RequestMeta {
  std::string protocol_version;
  nlohmann::json client_capabilities = nlohmann::json::object();
  nlohmann::json client_info;            // null when absent
  std::optional<McpLogLevel> log_level;  // none: send no notifications/message
  nlohmann::json progress_token;         // null when absent
};

// A refusal of the request's _meta, as a JSON-RPC error.
struct MetaError {
  int code = 0;
  std::string message;
  nlohmann::json data;
};

// Reads params._meta; a missing or malformed required key, or an unsupported version, is an
// error.
std::optional<MetaError> ParseRequestMeta(const nlohmann::json& params, RequestMeta* meta);

}  // namespace labgate::gateway::stateless
