// One POST of the 2026 era: HTTP's side of the outbound seam for a stateless request. The
// reply goes back as JSON, unless a notification (progress, a log message, a subscription's
// events) comes first: then the POST turns into an SSE stream that ends with the reply.
// Errors the era defines for malformed requests answer 400, an unknown method 404.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <memory>

#include "gateway/core/outbound.h"
#include "gateway/dialects/mcp_stateless/stateless_dialect.h"
#include "gateway/http/http_connection.h"

namespace labgate::gateway::http {

class StatelessExchange final : public Outbound,
                                public std::enable_shared_from_this<StatelessExchange> {
 public:
  StatelessExchange(boost::asio::io_context& io, std::shared_ptr<HttpConnection> connection);
  // Call once after construction: a client that leaves cancels what is in flight.
  void Start();

  // Thread-safe.
  void Send(OutboundMessage message) override;

  const std::shared_ptr<stateless::StatelessCalls>& calls() const { return calls_; }

  // The HTTP status for a JSON-RPC reply of this era.
  static int StatusFor(const std::string& payload);

 private:
  void Deliver(OutboundMessage message);

  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  std::shared_ptr<HttpConnection> connection_;
  std::shared_ptr<stateless::StatelessCalls> calls_ = std::make_shared<stateless::StatelessCalls>();
  bool streaming_ = false;
  bool done_ = false;
};

}  // namespace labgate::gateway::http
