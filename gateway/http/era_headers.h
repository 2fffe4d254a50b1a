// The 2026 era's request headers, checked against the body: MCP-Protocol-Version,
// Mcp-Method, Mcp-Name (tools/call, resources/read, prompts/get) and the Mcp-Param-*
// headers of tool parameters marked x-mcp-header. Values may use the Base64 sentinel
// "=?base64?...?=". A missing, malformed or mismatching header is -32020 (HTTP 400).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/http/http_connection.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/mcp/mcp_server.h"

namespace labgate::gateway::http {

// The decoded value of a header that permits the sentinel; none when malformed (bad
// Base64, or characters a header value may not carry).
std::optional<std::string> DecodeHeaderValue(std::string_view value);

// Which tool parameters are mirrored into headers, rebuilt when the tool set changes.
class HeaderParamIndex {
 public:
  struct Param {
    std::string property;  // the argument's name
    std::string header;    // "Region" of Mcp-Param-Region
  };
  // A copy: another request may rebuild the index meanwhile.
  std::vector<Param> For(const McpServer& server, const std::string& tool)
      ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  absl::Mutex mutex_;
  uint64_t generation_ ABSL_GUARDED_BY(mutex_) = UINT64_MAX;
  std::map<std::string, std::vector<Param>> params_ ABSL_GUARDED_BY(mutex_);
};

// An error reply (JSON-RPC -32020 with the request's id), or none when the headers hold.
// The protocol version is compared by the caller, which knows the _meta rules' order.
std::optional<std::string> CheckEraHeaders(const Request& request,
                                           const jsonrpc::IncomingMessage& message,
                                           const McpServer& server, HeaderParamIndex& index);

}  // namespace labgate::gateway::http
