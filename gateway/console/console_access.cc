#include "gateway/console/console_access.h"

#include <boost/beast/http/field.hpp>

#include "gateway/http/http_security.h"

namespace labgate::gateway::console {
namespace {

namespace beast_http = boost::beast::http;

std::string Header(const http::Request& request, beast_http::field field) {
  auto it = request.find(field);
  if (it == request.end()) return "";
  return std::string(it->value().data(), it->value().size());
}

Access Refuse(int status, std::string error, http::HeaderList headers = {}) {
  Access access;
  access.status = status;
  access.error = std::move(error);
  access.headers = std::move(headers);
  return access;
}

}  // namespace

Access CheckAccess(const http::Request& request, const http::HttpOptions& options,
                   bool needs_token) {
  if (!http::OriginAllowed(Header(request, beast_http::field::origin), options.allowed_origins)) {
    return Refuse(403, "Origin not allowed");
  }
  if (request.count(beast_http::field::host) > 1) return Refuse(400, "more than one Host header");
  if (!http::HostAllowed(Header(request, beast_http::field::host), options.allowed_hosts)) {
    return Refuse(403, "Host not allowed");
  }
  Access access;
  access.allowed = true;
  access.principal = "local";
  if (!needs_token || options.auth_tokens.empty()) return access;
  const std::string authorization = Header(request, beast_http::field::authorization);
  auto named = http::BearerPrincipal(authorization, options.auth_tokens);
  if (!named) {
    // The same challenge as /mcp; Bearer makes no browser show a password dialog.
    if (authorization.empty()) {
      return Refuse(401, "Unauthorized: this console needs a bearer token",
                    {{"WWW-Authenticate", R"(Bearer realm="labgate")"}});
    }
    return Refuse(401, "Unauthorized: the token was not accepted",
                  {{"WWW-Authenticate", R"(Bearer realm="labgate", error="invalid_token")"}});
  }
  access.principal = *named;
  return access;
}

}  // namespace labgate::gateway::console
