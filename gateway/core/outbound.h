// The one outbound seam: how a dialect hands a protocol message to its transport. stdio
// implements it by writing each message in the framing of the request it answers; Streamable
// HTTP by routing it to the POST stream of that request, or to the session's GET stream.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "gateway/core/message_text.h"
#include "gateway/transport/framing.h"

namespace labgate::gateway {

struct OutboundMessage {
  std::string payload;  // one JSON-RPC message, serialized
  // Instead of payload, the message in pieces; only for an Outbound that TakesPieces().
  MessageText pieces;
  std::string related_request;  // RequestKey() of the client request it belongs to; "" = none
  bool is_response = false;     // the final message for related_request
  // The framing of the request it belongs to (transports that frame per message use it).
  Framing framing = Framing::kNewline;
  // No payload: end related_request's own stream, if the transport has one; the request
  // goes on (RequestContext::CloseStream). Transports without such streams ignore it.
  bool close_stream = false;
};

class Outbound {
 public:
  virtual ~Outbound() = default;
  // Thread-safe unless the implementation says otherwise; never blocks on I/O.
  virtual void Send(OutboundMessage message) = 0;
  // Whether replies may come as OutboundMessage::pieces (a shared piece is then written
  // without being copied). Any other Outbound gets every message joined in payload.
  virtual bool TakesPieces() const { return false; }
};

// The key that identifies a client request by its id: the id's canonical JSON text.
inline std::string RequestKey(const nlohmann::json& id) {
  return id.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace labgate::gateway

namespace labgate::gateway {

// An Outbound that hands each message to a function (tests, small adapters).
class FunctionOutbound final : public Outbound {
 public:
  explicit FunctionOutbound(std::function<void(OutboundMessage)> send) : send_(std::move(send)) {}
  void Send(OutboundMessage message) override { send_(std::move(message)); }

 private:
  std::function<void(OutboundMessage)> send_;
};

}  // namespace labgate::gateway
