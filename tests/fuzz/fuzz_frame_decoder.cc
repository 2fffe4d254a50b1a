// The stdio frame decoder on arbitrary byte streams. Invariants:
// - the events do not depend on how the stream is split between Feed calls;
// - a frame never holds more than the limit, nor bytes that were not in the input, and a
//   newline frame never holds a '\n';
// - all frames together hold no more bytes than were given;
// - a frame re-encoded with EncodeFrame decodes to the same frame;
// - after Finish nothing is buffered and the decoder decodes a new stream as a fresh one does.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/transport/frame_decoder.h"
#include "gateway/transport/framing.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using labgate::gateway::EncodeFrame;
using labgate::gateway::Frame;
using labgate::gateway::FrameDecoder;
using labgate::gateway::FrameError;
using labgate::gateway::Framing;

struct Event {
  bool is_frame;
  Framing framing;
  int error_kind;    // FrameError::Kind, for errors
  std::string text;  // payload or error message

  bool operator==(const Event& other) const {
    return is_frame == other.is_frame && framing == other.framing &&
           error_kind == other.error_kind && text == other.text;
  }
};

struct Recorder {
  std::vector<Event> events;
  FrameDecoder::FrameCallback on_frame() {
    return [this](Frame frame) {
      events.push_back({true, frame.framing, -1, std::move(frame.payload)});
    };
  }
  FrameDecoder::ErrorCallback on_error() {
    return [this](const FrameError& error) {
      events.push_back({false, error.framing, static_cast<int>(error.kind), error.message});
    };
  }
};

std::vector<Event> DecodeWhole(FrameDecoder& decoder, std::string_view input) {
  Recorder recorder;
  decoder.Feed(input, recorder.on_frame(), recorder.on_error());
  decoder.Finish(recorder.on_frame(), recorder.on_error());
  FUZZ_CHECK(decoder.buffered_bytes() == 0);
  return recorder.events;
}

// Feeds `input` in pieces of 0 to 16 bytes, sized by a generator seeded from the input.
std::vector<Event> DecodeInPieces(size_t limit, std::string_view input) {
  FrameDecoder decoder(limit);
  Recorder recorder;
  uint32_t state = static_cast<uint32_t>(input.size()) * 2654435761u + 1;
  size_t fed = 0;
  while (fed < input.size()) {
    state = state * 1103515245u + 12345u;
    const size_t piece = std::min<size_t>((state >> 16) % 17, input.size() - fed);
    decoder.Feed(input.substr(fed, piece), recorder.on_frame(), recorder.on_error());
    fed += piece;
    // Whatever is held back was given, and was not handed out yet.
    FUZZ_CHECK(decoder.buffered_bytes() <= fed);
  }
  decoder.Finish(recorder.on_frame(), recorder.on_error());
  FUZZ_CHECK(decoder.buffered_bytes() == 0);
  return recorder.events;
}

void CheckLimit(size_t limit, std::string_view input) {
  FrameDecoder decoder(limit);
  const std::vector<Event> whole = DecodeWhole(decoder, input);
  FUZZ_CHECK(DecodeInPieces(limit, input) == whole);
  // Ready for a new stream after Finish.
  FUZZ_CHECK(DecodeWhole(decoder, input) == whole);

  size_t payload_bytes = 0;
  for (const Event& event : whole) {
    if (!event.is_frame) {
      FUZZ_CHECK(!event.text.empty());  // an error always says why
      if (event.error_kind == static_cast<int>(FrameError::Kind::kBadHeader)) {
        FUZZ_CHECK(event.framing == Framing::kContentLength);
      }
      continue;
    }
    const std::string& payload = event.text;
    payload_bytes += payload.size();
    FUZZ_CHECK(payload.size() <= limit);
    FUZZ_CHECK(input.find(payload) != std::string_view::npos);
    if (event.framing == Framing::kNewline) {
      FUZZ_CHECK(!payload.empty());  // blank lines are skipped, not delivered
      FUZZ_CHECK(payload.find('\n') == std::string::npos);
      // One trailing '\r' is framing; a payload that still ends in one cannot round-trip.
      if (payload.back() == '\r') continue;
    }
    FrameDecoder again(limit);
    const std::vector<Event> decoded = DecodeWhole(again, EncodeFrame(event.framing, payload));
    FUZZ_CHECK(decoded.size() == 1 && decoded[0] == event);
  }
  FUZZ_CHECK(payload_bytes <= input.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckLimit(64, input);  // small, so that oversized messages are exercised
  CheckLimit(4 * 1024 * 1024, input);
  return 0;
}
