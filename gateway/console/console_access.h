// Who may use the console: the MCP endpoint's checks (Origin and Host allow-lists
// against DNS rebinding, and with --auth-token-file a bearer token naming the principal).
#pragma once

#include <string>

#include "gateway/http/http_connection.h"
#include "gateway/http/http_options.h"

namespace labgate::gateway::console {

struct Access {
  bool allowed = false;
  std::string principal;  // allowed: the token's name, or "local" without tokens
  // Refused: the HTTP status, its headers (e.g. WWW-Authenticate) and why.
  int status = 0;
  http::HeaderList headers;
  std::string error;
};

// `needs_token`: the API endpoints; the page itself loads without one (it asks for it).
Access CheckAccess(const http::Request& request, const http::HttpOptions& options,
                   bool needs_token);

}  // namespace labgate::gateway::console
