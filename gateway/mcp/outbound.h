// One message from an MCP session to its client, with what it belongs to, so that a
// transport can route it: stdio writes everything in order; Streamable HTTP sends a
// request's related messages and its response on that request's POST stream, and
// unrelated ones on the session's GET stream.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace labgate::gateway {

struct Outbound {
  std::string payload;          // one JSON-RPC message, serialized
  std::string related_request;  // RequestKey() of the client request it belongs to; "" = none
  bool is_response = false;     // the final message for related_request
  // No payload: end related_request's own stream, if the transport has one; the request
  // goes on (RequestContext::CloseStream). Transports without such streams ignore it.
  bool close_stream = false;
};

using OutboundFn = std::function<void(Outbound)>;

// The key that identifies a client request by its id: the id's canonical JSON text.
inline std::string RequestKey(const nlohmann::json& id) {
  return id.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace labgate::gateway
