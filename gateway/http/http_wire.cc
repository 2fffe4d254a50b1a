#include "gateway/http/http_wire.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/serializer.hpp>

namespace labgate::gateway::http {
namespace {

namespace beast = boost::beast;
namespace beast_http = boost::beast::http;

// Runs Beast's serializer into a string, through the header only when `header_only`.
template <class Body>
std::string Serialize(beast_http::response<Body>& response, bool header_only) {
  beast_http::response_serializer<Body> serializer(response);
  serializer.split(header_only);
  std::string out;
  boost::system::error_code ec;
  while (!ec && !(header_only ? serializer.is_header_done() : serializer.is_done())) {
    serializer.next(ec, [&](boost::system::error_code& next_ec, const auto& buffers) {
      next_ec = {};
      size_t taken = 0;
      for (auto buffer : beast::buffers_range_ref(buffers)) {
        out.append(static_cast<const char*>(buffer.data()), buffer.size());
        taken += buffer.size();
      }
      serializer.consume(taken);
    });
  }
  return out;
}

template <class Body>
void AddHeaders(beast_http::response<Body>& response, const HeaderList& headers) {
  for (const auto& [name, value] : headers) response.insert(name, value);
}

}  // namespace

bool StatusCarriesBody(int status) { return status >= 200 && status != 204 && status != 304; }

std::string WireResponseHead(int status, const HeaderList& headers, size_t body_size, bool close) {
  beast_http::response<beast_http::empty_body> response(static_cast<beast_http::status>(status),
                                                        11);
  AddHeaders(response, headers);
  if (StatusCarriesBody(status)) {
    if (body_size > 0 && response.find(beast_http::field::content_type) == response.end()) {
      response.set(beast_http::field::content_type, "application/json");
    }
    response.content_length(body_size);
  }
  response.keep_alive(!close);
  // Content-Length framing has no coding: the body follows the head byte for byte.
  return Serialize(response, true);
}

std::string WireStreamHead(const HeaderList& headers) {
  beast_http::response<beast_http::empty_body> response(beast_http::status::ok, 11);
  response.set(beast_http::field::content_type, "text/event-stream");
  response.set(beast_http::field::cache_control, "no-cache, no-transform");
  response.set("X-Accel-Buffering", "no");
  AddHeaders(response, headers);
  response.chunked(true);
  return Serialize(response, true);
}

std::string WireChunk(std::string_view data) {
  return beast::buffers_to_string(
      beast_http::make_chunk(boost::asio::const_buffer(data.data(), data.size())));
}

std::string WireLastChunk() { return beast::buffers_to_string(beast_http::make_chunk_last()); }

std::string WireContinue() {
  beast_http::response<beast_http::empty_body> response(beast_http::status::continue_, 11);
  return Serialize(response, true);
}

}  // namespace labgate::gateway::http
