// Responses as bytes on the wire, written by Beast's serializer: a complete response, the
// head of a chunked event stream, its chunks, and the interim 100 Continue.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace labgate::gateway::http {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// A complete response with Content-Length (none for 1xx and 204); `close` adds
// "Connection: close". A non-empty body without a Content-Type is sent as JSON.
std::string WireResponse(int status, const HeaderList& headers, const std::string& body,
                         bool close);
// The head of a 200 `text/event-stream` response sent with chunked transfer coding.
std::string WireStreamHead(const HeaderList& headers);
std::string WireChunk(std::string_view data);
std::string WireLastChunk();
std::string WireContinue();

}  // namespace labgate::gateway::http
