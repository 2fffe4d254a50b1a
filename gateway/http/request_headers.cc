#include "gateway/http/request_headers.h"

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/field.hpp>

namespace labgate::gateway::http {
namespace {

namespace beast_http = boost::beast::http;

std::string_view View(boost::beast::string_view value) { return {value.data(), value.size()}; }

// Keeps the first value of a header sent more than once, as a search for it would find.
void Keep(std::string_view* slot, bool* seen, boost::beast::string_view value) {
  if (*seen) return;
  *seen = true;
  *slot = View(value);
}

}  // namespace

RequestHeaders ReadRequestHeaders(const Request& request) {
  RequestHeaders headers;
  bool origin = false, authorization = false, accept = false, content_type = false,
       protocol_version = false, last_event_id = false;
  for (const auto& field : request) {
    switch (field.name()) {
      case beast_http::field::host:
        if (headers.host_count++ == 0) headers.host = View(field.value());
        break;
      case beast_http::field::origin:
        Keep(&headers.origin, &origin, field.value());
        break;
      case beast_http::field::authorization:
        Keep(&headers.authorization, &authorization, field.value());
        break;
      case beast_http::field::accept:
        Keep(&headers.accept, &accept, field.value());
        break;
      case beast_http::field::content_type:
        Keep(&headers.content_type, &content_type, field.value());
        break;
      default: {
        // MCP's own headers are not among Beast's known fields.
        const boost::beast::string_view name = field.name_string();
        if (boost::beast::iequals(name, "mcp-session-id")) {
          Keep(&headers.session_id, &headers.session_id_given, field.value());
        } else if (boost::beast::iequals(name, "mcp-protocol-version")) {
          Keep(&headers.protocol_version, &protocol_version, field.value());
        } else if (boost::beast::iequals(name, "last-event-id")) {
          Keep(&headers.last_event_id, &last_event_id, field.value());
        }
      }
    }
  }
  return headers;
}

}  // namespace labgate::gateway::http
