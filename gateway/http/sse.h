// Server-Sent Events framing. Event ids are "<stream>.<seq>" so that a Last-Event-ID
// names the stream it came from.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace labgate::gateway::http {

struct EventId {
  uint64_t stream = 0;
  uint64_t seq = 0;
};

std::string FormatEventId(EventId id);
std::optional<EventId> ParseEventId(std::string_view text);

// "id: ...\ndata: ...\n\n"; a payload with newlines becomes several data lines.
std::string FormatEvent(EventId id, std::string_view payload);
// An event with an id and empty data, preceded by the retry field: lets a client
// reconnect with Last-Event-ID before any message was sent.
std::string FormatPrimingEvent(EventId id, std::chrono::milliseconds retry);
// A comment line; clients ignore it.
inline constexpr std::string_view kKeepAliveComment = ": keepalive\n\n";

}  // namespace labgate::gateway::http
