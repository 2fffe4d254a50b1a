// How protocol messages are delimited on a byte stream. The stdio transport detects the
// framing of every incoming message and answers in the same framing (DESIGN decision 7).
#pragma once

#include <string>
#include <string_view>

namespace labgate::gateway {

enum class Framing {
  kNewline,        // one message per line (NDJSON)
  kContentLength,  // "Content-Length: N\r\n\r\n" followed by N bytes (LSP style)
};

struct Frame {
  Framing framing;
  std::string payload;
};

struct FrameError {
  enum class Kind {
    kTooLarge,       // the message exceeded the size limit; its bytes were discarded
    kBadHeader,      // Content-Length headers were malformed, missing or cut off
    kByteOrderMark,  // the message started with a UTF-8 byte order mark
  };
  Kind kind;
  Framing framing;
  // Human-readable, e.g. "message of 10485760 bytes exceeds the 4194304-byte limit".
  std::string message;
};

// Encodes one outgoing message in the given framing: payload + "\n", or
// "Content-Length: N\r\n\r\n" + payload (N = UTF-8 byte count).
std::string EncodeFrame(Framing framing, std::string_view payload);

// "newline" or "content-length", for logs.
std::string_view FramingName(Framing framing);

}  // namespace labgate::gateway
