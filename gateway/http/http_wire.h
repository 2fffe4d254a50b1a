// Responses as bytes on the wire, written by Beast's serializer: a complete response, the
// head of a chunked event stream, its chunks, and the interim 100 Continue.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace labgate::gateway::http {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// Whether a response with this status carries a body: 1xx, 204 and 304 do not (RFC 9110 §8.6).
bool StatusCarriesBody(int status);
// The head of a complete response with Content-Length (none when the status carries no body);
// `close` adds "Connection: close". A non-empty body without a Content-Type is sent as JSON.
// The body itself follows the head as it is, so the caller writes it without a copy.
std::string WireResponseHead(int status, const HeaderList& headers, size_t body_size, bool close);
// The head of a 200 `text/event-stream` response sent with chunked transfer coding.
std::string WireStreamHead(const HeaderList& headers);
std::string WireChunk(std::string_view data);
std::string WireLastChunk();
std::string WireContinue();

}  // namespace labgate::gateway::http
