// Incremental decoder for the stdio byte stream. Framing is detected per message from its
// first non-whitespace bytes: a "Content-Length:" header block (other "Content-*" headers such
// as Content-Type may come first) or, for anything else, one message per line.
//
// Rules, each pinned by a test in gateway/tests/transport/frame_decoder_test.cc:
// - Blank lines and whitespace between messages are skipped. In newline mode one trailing
//   '\r' is stripped; the payload is passed on unvalidated (the JSON layer judges it).
// - Header names are case-insensitive, lines may end in "\r\n" or "\n", and headers other
//   than Content-Length are ignored. Content-Length counts bytes.
// - A message that starts with a UTF-8 byte order mark gets one kByteOrderMark error and is
//   dropped: the rest of its line, or its whole Content-Length frame.
// - Over max_message_bytes: one kTooLarge error; the bytes are skipped as they arrive (to the
//   end of the line, or N body bytes), so memory stays bounded by the limit.
// - A bad header block (invalid, conflicting or missing Content-Length, an overlong or
//   malformed line) gets one kBadHeader error; the rest of that header block is dropped and
//   decoding resumes at the next line. The body of such a frame has no known length, so if it
//   sits on a line of its own it is decoded as a newline-delimited message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/transport/framing.h"

namespace labgate::gateway {

class FrameDecoder {  // incremental; not thread-safe
 public:
  using FrameCallback = std::function<void(Frame)>;
  using ErrorCallback = std::function<void(FrameError)>;

  explicit FrameDecoder(size_t max_message_bytes);

  // Appends bytes and emits, in order, each complete frame or error. The result does not
  // depend on how the stream is split between calls.
  void Feed(std::string_view bytes, const FrameCallback& on_frame, const ErrorCallback& on_error);

  // End of input: a final unterminated newline-mode message is emitted as a frame; a
  // Content-Length message cut off inside its headers or body is reported as kBadHeader.
  // The decoder is then ready for a new stream.
  void Finish(const FrameCallback& on_frame, const ErrorCallback& on_error);

  // Bytes held for an incomplete message (bounded by about max_message_bytes + 64 KiB).
  size_t buffered_bytes() const { return in_.size() - pos_; }

  // Limits on a Content-Length header block.
  static constexpr size_t kMaxHeaderLineBytes = 8192;
  static constexpr size_t kMaxHeaderLines = 32;

 private:
  enum class State {
    kStart,        // between messages: skipping whitespace, detecting the framing
    kLine,         // accumulating a newline-delimited message
    kDiscardLine,  // dropping bytes up to the next '\n'
    kHeaders,      // reading Content-Length header lines
    kSkipHeaders,  // after a header error: dropping the rest of that header block
    kBody,         // accumulating a Content-Length body
    kSkipBody,     // dropping an oversized or refused Content-Length body
  };
  enum class Start { kNeedMore, kByteOrderMark, kHeaders, kLine };

  static Start ClassifyStart(std::string_view bytes);

  void Process(const FrameCallback& on_frame, const ErrorCallback& on_error, bool at_eof);
  // Each returns false when it needs more input.
  bool StepStart(const ErrorCallback& on_error, bool at_eof);
  bool StepLine(const FrameCallback& on_frame, const ErrorCallback& on_error, bool at_eof);
  bool StepDiscardLine(const ErrorCallback& on_error, bool at_eof);
  bool StepHeaders(const ErrorCallback& on_error, bool at_eof);
  bool StepSkipHeaders(bool at_eof);
  bool StepBody(const FrameCallback& on_frame, const ErrorCallback& on_error, bool at_eof);
  bool StepSkipBody();

  void EmitLine(std::string_view line, const FrameCallback& on_frame,
                const ErrorCallback& on_error);
  void EndHeaders(const ErrorCallback& on_error);
  void HeaderError(std::string message, const ErrorCallback& on_error);
  void EmitPendingBomError(Framing framing, const ErrorCallback& on_error);
  void DiscardLineThen(State next, bool report_too_large);
  std::string TooLargeMessage(uint64_t size) const;

  std::string_view Available() const { return std::string_view(in_).substr(pos_); }
  void Consume(size_t n) { pos_ += n; }
  void Compact();

  const size_t max_message_bytes_;
  std::string in_;  // unconsumed input starts at pos_
  size_t pos_ = 0;
  State state_ = State::kStart;

  // kLine: bytes of the current line already searched for '\n'.
  size_t scanned_ = 0;
  // kDiscardLine
  State after_discard_ = State::kStart;
  bool report_too_large_ = false;
  uint64_t discarded_ = 0;
  char last_discarded_ = 0;
  // kHeaders
  std::optional<uint64_t> content_length_;
  size_t header_lines_ = 0;
  // kBody / kSkipBody
  uint64_t body_bytes_ = 0;
  // A byte order mark opened the current message: it is discarded without further errors.
  bool refused_ = false;
  // The byte order mark error waits until the framing of the refused message is known.
  bool bom_error_pending_ = false;
};

}  // namespace labgate::gateway
