#pragma once

#include <cstddef>
#include <string_view>

#include "gateway/http/http_connection.h"

namespace labgate::gateway::http {

// The headers the MCP endpoint reads, found in one pass over a request's fields rather than
// a search per header. The views point into the request, which must outlive them. A header
// sent more than once keeps its first value; Host is counted, since more than one is an error.
struct RequestHeaders {
  std::string_view host;
  size_t host_count = 0;
  std::string_view origin;
  std::string_view authorization;
  std::string_view accept;
  std::string_view content_type;
  std::string_view protocol_version;  // MCP-Protocol-Version
  std::string_view session_id;        // Mcp-Session-Id
  bool session_id_given = false;      // even when empty
  std::string_view last_event_id;     // Last-Event-ID
};

RequestHeaders ReadRequestHeaders(const Request& request);

}  // namespace labgate::gateway::http
