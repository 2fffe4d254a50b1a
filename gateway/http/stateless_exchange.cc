#include "gateway/http/stateless_exchange.h"

#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "common/status_map.h"
#include "gateway/dialects/mcp_stateless/request_meta.h"
#include "gateway/http/sse.h"

namespace labgate::gateway::http {

namespace {

// "data: ...\n\n" without an id: streams of this era are not resumable.
std::string DataEvent(const std::string& payload) {
  std::string event;
  event.reserve(payload.size() + 8);
  size_t start = 0;
  while (true) {
    size_t end = payload.find('\n', start);
    event += "data: ";
    event.append(payload, start, end == std::string::npos ? std::string::npos : end - start);
    event += '\n';
    if (end == std::string::npos) break;
    start = end + 1;
  }
  event += '\n';
  return event;
}

}  // namespace

StatelessExchange::StatelessExchange(boost::asio::io_context& io,
                                     std::shared_ptr<HttpConnection> connection)
    : strand_(boost::asio::make_strand(io)), connection_(std::move(connection)) {}

void StatelessExchange::Start() {
  connection_->OnGone([calls = calls_] { calls->CancelAll(); });
}

int StatelessExchange::StatusFor(const std::string& payload) {
  if (payload.find("\"error\":{") == std::string::npos) return 200;
  nlohmann::json reply = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (reply.is_discarded() || !reply.contains("error") || !reply["error"].is_object()) return 200;
  const nlohmann::json& error = reply["error"];
  const int code = error.value("code", 0);
  switch (code) {
    case jsonrpc_code::kMethodNotFound:
      return 404;
    case jsonrpc_code::kHeaderMismatch:
    case jsonrpc_code::kMissingClientCapability:
    case jsonrpc_code::kUnsupportedProtocolVersion:
    case jsonrpc_code::kParseError:
    case jsonrpc_code::kInvalidRequest:
      return 400;
    case jsonrpc_code::kInvalidParams: {
      // A malformed _meta is the request's fault at the HTTP level too.
      const nlohmann::json data = error.value("data", nlohmann::json::object());
      const std::string field = data.is_object() ? data.value("field", std::string()) : "";
      return field.rfind("_meta", 0) == 0 || field == "params" ? 400 : 200;
    }
    default:
      return 200;
  }
}

void StatelessExchange::Send(OutboundMessage message) {
  boost::asio::post(strand_, [self = shared_from_this(), message = std::move(message)]() mutable {
    self->Deliver(std::move(message));
  });
}

void StatelessExchange::Deliver(OutboundMessage message) {
  if (done_ || message.close_stream) return;
  if (message.is_response) {
    done_ = true;
    if (streaming_) {
      connection_->StreamWrite(DataEvent(message.payload));
      connection_->EndStream();
    } else {
      const int status = StatusFor(message.payload);
      connection_->Respond(status, {}, std::move(message.payload));
    }
    return;
  }
  if (!streaming_) {
    streaming_ = true;
    connection_->StartStream({});
  }
  connection_->StreamWrite(DataEvent(message.payload));
}

}  // namespace labgate::gateway::http
