#include "gateway/http/sse.h"

#include <charconv>

namespace labgate::gateway::http {

std::string FormatEventId(EventId id) {
  return std::to_string(id.stream) + "." + std::to_string(id.seq);
}

std::optional<EventId> ParseEventId(std::string_view text) {
  size_t dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  EventId id;
  auto parse = [](std::string_view part, uint64_t* out) {
    if (part.empty()) return false;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), *out);
    return ec == std::errc() && end == part.data() + part.size();
  };
  if (!parse(text.substr(0, dot), &id.stream) || !parse(text.substr(dot + 1), &id.seq)) {
    return std::nullopt;
  }
  return id;
}

std::string FormatEvent(EventId id, std::string_view payload) {
  std::string out = "id: " + FormatEventId(id) + "\nevent: message\n";
  while (true) {
    size_t newline = payload.find('\n');
    out += "data: ";
    out += payload.substr(0, newline);
    out += '\n';
    if (newline == std::string_view::npos) break;
    payload.remove_prefix(newline + 1);
  }
  out += '\n';
  return out;
}

std::string FormatPrimingEvent(EventId id, std::chrono::milliseconds retry) {
  return "retry: " + std::to_string(retry.count()) + "\nid: " + FormatEventId(id) + "\ndata: \n\n";
}

}  // namespace labgate::gateway::http
