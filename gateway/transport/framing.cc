#include "gateway/transport/framing.h"

#include <string>

namespace labgate::gateway {

std::string EncodeFrame(Framing framing, std::string_view payload) {
  std::string out;
  switch (framing) {
    case Framing::kNewline:
      out.reserve(payload.size() + 1);
      out.append(payload);
      out.push_back('\n');
      return out;
    case Framing::kContentLength: {
      std::string length = std::to_string(payload.size());
      out.reserve(payload.size() + length.size() + 20);
      out.append("Content-Length: ");
      out.append(length);
      out.append("\r\n\r\n");
      out.append(payload);
      return out;
    }
  }
  return out;
}

std::string_view FramingName(Framing framing) {
  switch (framing) {
    case Framing::kNewline:
      return "newline";
    case Framing::kContentLength:
      return "content-length";
  }
  return "unknown";
}

}  // namespace labgate::gateway
