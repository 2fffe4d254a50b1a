#include "gateway/transport/frame_decoder.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace labgate::gateway {
namespace {

// Input is appended and processed in slices of this size, so that an oversized message is
// dropped after at most one slice beyond the limit even when a caller feeds megabytes at once.
constexpr size_t kFeedSliceBytes = 64 * 1024;
// After a large message the buffer gives its memory back.
constexpr size_t kShrinkAboveBytes = 1024 * 1024;
constexpr size_t kMaxHeaderNameBytes = 64;
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
// Every header block that starts a message begins with a "Content-" header.
constexpr std::string_view kHeaderPrefix = "content-";

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// RFC 9110 token characters, which make up a header name.
bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != '\0';
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Digits only; no sign, no spaces inside, at most 19 digits so the value fits in 64 bits.
bool ParseLength(std::string_view text, uint64_t* value) {
  if (text.empty() || text.size() > 19) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *value = v;
  return true;
}

// For error messages: a bounded, single-line excerpt.
std::string Excerpt(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string out(text.substr(0, kMax));
  if (text.size() > kMax) out += "...";
  return out;
}

}  // namespace

FrameDecoder::FrameDecoder(size_t max_message_bytes) : max_message_bytes_(max_message_bytes) {}

void FrameDecoder::Feed(std::string_view bytes, const FrameCallback& on_frame,
                        const ErrorCallback& on_error) {
  while (!bytes.empty()) {
    size_t n = std::min(kFeedSliceBytes, bytes.size());
    in_.append(bytes.data(), n);
    bytes.remove_prefix(n);
    Process(on_frame, on_error, /*at_eof=*/false);
    Compact();
  }
}

void FrameDecoder::Finish(const FrameCallback& on_frame, const ErrorCallback& on_error) {
  Process(on_frame, on_error, /*at_eof=*/true);
  in_.clear();
  in_.shrink_to_fit();
  pos_ = 0;
  state_ = State::kStart;
  report_too_large_ = false;
  refused_ = false;
  bom_error_pending_ = false;
}

void FrameDecoder::Compact() {
  if (pos_ == in_.size()) {
    in_.clear();
    if (in_.capacity() > kShrinkAboveBytes) in_.shrink_to_fit();
  } else if (pos_ > 0) {
    in_.erase(0, pos_);
  }
  pos_ = 0;
}

void FrameDecoder::Process(const FrameCallback& on_frame, const ErrorCallback& on_error,
                           bool at_eof) {
  bool progressed = true;
  while (progressed) {
    switch (state_) {
      case State::kStart:
        progressed = StepStart(on_error, at_eof);
        break;
      case State::kLine:
        progressed = StepLine(on_frame, on_error, at_eof);
        break;
      case State::kDiscardLine:
        progressed = StepDiscardLine(on_error, at_eof);
        break;
      case State::kHeaders:
        progressed = StepHeaders(on_error, at_eof);
        break;
      case State::kSkipHeaders:
        progressed = StepSkipHeaders(at_eof);
        break;
      case State::kBody:
        progressed = StepBody(on_frame, on_error, at_eof);
        break;
      case State::kSkipBody:
        progressed = StepSkipBody();
        break;
    }
  }
}

// Decides from the first bytes of a message how it is framed. Every decision is made at the
// first byte that distinguishes the cases, so it cannot change as more bytes arrive.
FrameDecoder::Start FrameDecoder::ClassifyStart(std::string_view bytes) {
  if (bytes.front() == kByteOrderMark.front()) {
    size_t n = std::min(bytes.size(), kByteOrderMark.size());
    if (bytes.substr(0, n) != kByteOrderMark.substr(0, n)) return Start::kLine;
    return n < kByteOrderMark.size() ? Start::kNeedMore : Start::kByteOrderMark;
  }
  for (size_t i = 0; i < bytes.size() && i < kHeaderPrefix.size(); ++i) {
    if (AsciiLower(bytes[i]) != kHeaderPrefix[i]) return Start::kLine;
  }
  for (size_t i = kHeaderPrefix.size(); i < bytes.size(); ++i) {
    if (bytes[i] == ':') return i > kHeaderPrefix.size() ? Start::kHeaders : Start::kLine;
    if (!IsTokenChar(bytes[i]) || i >= kMaxHeaderNameBytes) return Start::kLine;
  }
  return Start::kNeedMore;
}

bool FrameDecoder::StepStart(const ErrorCallback& on_error, bool at_eof) {
  std::string_view avail = Available();
  size_t i = 0;
  if (refused_) {
    // The refused message ends at the end of its line unless it turns out to be framed.
    while (i < avail.size() && IsBlank(avail[i]) && avail[i] != '\n') ++i;
    Consume(i);
    if (i == avail.size()) {
      if (at_eof) {
        EmitPendingBomError(Framing::kNewline, on_error);
        refused_ = false;
      }
      return false;
    }
    if (avail[i] == '\n') {
      Consume(1);
      EmitPendingBomError(Framing::kNewline, on_error);
      refused_ = false;
      return true;
    }
  } else {
    while (i < avail.size() && IsBlank(avail[i])) ++i;  // blank lines between messages
    Consume(i);
    if (i == avail.size()) return false;
  }
  avail = Available();
  switch (ClassifyStart(avail)) {
    case Start::kNeedMore:
      if (!at_eof) return false;
      [[fallthrough]];
    case Start::kLine:
      if (refused_) {
        EmitPendingBomError(Framing::kNewline, on_error);
        refused_ = false;
        DiscardLineThen(State::kStart, /*report_too_large=*/false);
      } else {
        state_ = State::kLine;
        scanned_ = 0;
      }
      return true;
    case Start::kByteOrderMark:
      Consume(kByteOrderMark.size());
      if (!refused_) {
        refused_ = true;
        bom_error_pending_ = true;
      }
      return true;
    case Start::kHeaders:
      EmitPendingBomError(Framing::kContentLength, on_error);
      state_ = State::kHeaders;
      content_length_.reset();
      header_lines_ = 0;
      return true;
  }
  return false;
}

bool FrameDecoder::StepLine(const FrameCallback& on_frame, const ErrorCallback& on_error,
                            bool at_eof) {
  std::string_view avail = Available();
  size_t newline = avail.find('\n', scanned_);
  if (newline == std::string_view::npos) {
    scanned_ = avail.size();
    // One byte of slack for a '\r' that will be stripped.
    if (avail.size() > max_message_bytes_ + 1) {
      DiscardLineThen(State::kStart, /*report_too_large=*/true);
      discarded_ = avail.size();
      last_discarded_ = avail.back();
      Consume(avail.size());
      return true;
    }
    if (!at_eof) return false;
    state_ = State::kStart;
    if (avail.empty()) return false;
    Consume(avail.size());
    EmitLine(avail, on_frame, on_error);
    return true;
  }
  Consume(newline + 1);
  state_ = State::kStart;
  EmitLine(avail.substr(0, newline), on_frame, on_error);
  return true;
}

void FrameDecoder::EmitLine(std::string_view line, const FrameCallback& on_frame,
                            const ErrorCallback& on_error) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > max_message_bytes_) {
    on_error(
        FrameError{FrameError::Kind::kTooLarge, Framing::kNewline, TooLargeMessage(line.size())});
    return;
  }
  on_frame(Frame{Framing::kNewline, std::string(line)});
}

void FrameDecoder::DiscardLineThen(State next, bool report_too_large) {
  state_ = State::kDiscardLine;
  after_discard_ = next;
  report_too_large_ = report_too_large;
  discarded_ = 0;
  last_discarded_ = 0;
}

bool FrameDecoder::StepDiscardLine(const ErrorCallback& on_error, bool at_eof) {
  std::string_view avail = Available();
  size_t newline = avail.find('\n');
  size_t take = newline == std::string_view::npos ? avail.size() : newline;
  discarded_ += take;
  if (take > 0) last_discarded_ = avail[take - 1];
  Consume(newline == std::string_view::npos ? take : take + 1);
  if (newline == std::string_view::npos && !at_eof) return false;
  if (report_too_large_) {
    uint64_t size = discarded_ - (last_discarded_ == '\r' ? 1 : 0);
    on_error(FrameError{FrameError::Kind::kTooLarge, Framing::kNewline, TooLargeMessage(size)});
    report_too_large_ = false;
  }
  state_ = after_discard_;
  return true;
}

bool FrameDecoder::StepHeaders(const ErrorCallback& on_error, bool at_eof) {
  std::string_view avail = Available();
  size_t newline = avail.find('\n');
  if (newline == std::string_view::npos) {
    if (avail.size() > kMaxHeaderLineBytes + 1) {
      HeaderError("header line longer than " + std::to_string(kMaxHeaderLineBytes) + " bytes",
                  on_error);
      DiscardLineThen(State::kSkipHeaders, /*report_too_large=*/false);
      return true;
    }
    if (!at_eof) return false;
    Consume(avail.size());
    HeaderError("input ended inside Content-Length headers", on_error);
    state_ = State::kStart;
    return true;
  }
  std::string_view line = avail.substr(0, newline);
  Consume(newline + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) {
    EndHeaders(on_error);
    return true;
  }
  if (line.size() > kMaxHeaderLineBytes) {
    HeaderError("header line longer than " + std::to_string(kMaxHeaderLineBytes) + " bytes",
                on_error);
    state_ = State::kSkipHeaders;
    return true;
  }
  if (++header_lines_ > kMaxHeaderLines) {
    HeaderError("more than " + std::to_string(kMaxHeaderLines) + " header lines", on_error);
    state_ = State::kSkipHeaders;
    return true;
  }
  size_t colon = line.find(':');
  std::string_view name = line.substr(0, colon);
  if (colon == std::string_view::npos || name.empty() ||
      !std::all_of(name.begin(), name.end(), IsTokenChar)) {
    // Probably a body whose blank line is missing: the line is dropped and decoding
    // resumes with the next one.
    HeaderError("malformed header line \"" + Excerpt(line) + "\"", on_error);
    state_ = State::kStart;
    return true;
  }
  if (EqualsIgnoreCase(name, "content-length")) {
    std::string_view value = TrimBlanks(line.substr(colon + 1));
    uint64_t length = 0;
    if (!ParseLength(value, &length)) {
      HeaderError("invalid Content-Length value \"" + Excerpt(value) + "\"", on_error);
      state_ = State::kSkipHeaders;
      return true;
    }
    if (content_length_.has_value() && *content_length_ != length) {
      HeaderError("conflicting Content-Length headers", on_error);
      state_ = State::kSkipHeaders;
      return true;
    }
    content_length_ = length;
  }
  return true;  // other headers (Content-Type, ...) are ignored
}

void FrameDecoder::EndHeaders(const ErrorCallback& on_error) {
  if (!content_length_.has_value()) {
    HeaderError("missing Content-Length header", on_error);
    state_ = State::kStart;
    return;
  }
  body_bytes_ = *content_length_;
  if (refused_) {
    refused_ = false;
    state_ = State::kSkipBody;
    return;
  }
  if (body_bytes_ > max_message_bytes_) {
    on_error(FrameError{FrameError::Kind::kTooLarge, Framing::kContentLength,
                        TooLargeMessage(body_bytes_)});
    state_ = State::kSkipBody;
    return;
  }
  state_ = State::kBody;
}

void FrameDecoder::HeaderError(std::string message, const ErrorCallback& on_error) {
  if (refused_) {
    refused_ = false;  // the byte order mark error already covers this message
    return;
  }
  on_error(FrameError{FrameError::Kind::kBadHeader, Framing::kContentLength, std::move(message)});
}

void FrameDecoder::EmitPendingBomError(Framing framing, const ErrorCallback& on_error) {
  if (!bom_error_pending_) return;
  bom_error_pending_ = false;
  on_error(FrameError{FrameError::Kind::kByteOrderMark, framing,
                      "message starts with a UTF-8 byte order mark (EF BB BF); send UTF-8 "
                      "without a byte order mark"});
}

bool FrameDecoder::StepSkipHeaders(bool at_eof) {
  std::string_view avail = Available();
  if (avail.empty()) return false;
  if (avail[0] == '\n') {
    Consume(1);
    state_ = State::kStart;
    return true;
  }
  if (avail[0] == '\r') {
    if (avail.size() < 2) {
      if (!at_eof) return false;
      Consume(1);
    } else if (avail[1] == '\n') {
      Consume(2);
    }
    state_ = State::kStart;
    return true;
  }
  // A header name has 1 to kMaxHeaderNameBytes token characters; the byte after the longest
  // one decides, so the answer does not depend on how the input was split.
  size_t i = 0;
  while (i < avail.size() && i < kMaxHeaderNameBytes && IsTokenChar(avail[i])) ++i;
  if (i == avail.size() && !at_eof) return false;
  if (i > 0 && i < avail.size() && avail[i] == ':') {
    DiscardLineThen(State::kSkipHeaders, /*report_too_large=*/false);
    return true;
  }
  state_ = State::kStart;  // not a header line: it starts the next message
  return true;
}

bool FrameDecoder::StepBody(const FrameCallback& on_frame, const ErrorCallback& on_error,
                            bool at_eof) {
  std::string_view avail = Available();
  if (avail.size() >= body_bytes_) {
    std::string payload(avail.substr(0, body_bytes_));
    Consume(body_bytes_);
    state_ = State::kStart;
    on_frame(Frame{Framing::kContentLength, std::move(payload)});
    return true;
  }
  if (!at_eof) return false;
  Consume(avail.size());
  state_ = State::kStart;
  on_error(FrameError{FrameError::Kind::kBadHeader, Framing::kContentLength,
                      "input ended after " + std::to_string(avail.size()) + " of the " +
                          std::to_string(body_bytes_) + " bytes announced by Content-Length"});
  return true;
}

bool FrameDecoder::StepSkipBody() {
  std::string_view avail = Available();
  uint64_t take = std::min<uint64_t>(avail.size(), body_bytes_);
  Consume(static_cast<size_t>(take));
  body_bytes_ -= take;
  if (body_bytes_ > 0) return false;
  state_ = State::kStart;
  return true;
}

std::string FrameDecoder::TooLargeMessage(uint64_t size) const {
  return "message of " + std::to_string(size) + " bytes exceeds the " +
         std::to_string(max_message_bytes_) + "-byte limit";
}

}  // namespace labgate::gateway
