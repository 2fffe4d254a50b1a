#include "serial-service/ports/written_line.h"

#include <algorithm>

namespace labgate::serial {
namespace {

bool IsTerminator(char c) { return c == '\n' || c == '\r'; }

}  // namespace

absl::string_view WrittenLine::Head(absl::string_view bytes) {
  const auto end = std::find_if(bytes.begin(), bytes.end(), IsTerminator);
  return bytes.substr(0, static_cast<size_t>(end - bytes.begin()));
}

bool WrittenLine::WouldOverflow(absl::string_view bytes) const {
  if (Head(bytes).size() < bytes.size()) return false;  // the line ends in this write
  return text_.size() + bytes.size() > kMaxBytes || starts_.size() + 1 > kMaxPieces;
}

void WrittenLine::Append(absl::string_view bytes, bool starts_write) {
  if (bytes.empty()) return;
  const auto last = std::find_if(bytes.rbegin(), bytes.rend(), IsTerminator);
  if (last != bytes.rend()) {
    // A new line starts after the last terminator; what it has so far is one piece.
    const absl::string_view rest =
        bytes.substr(bytes.size() - static_cast<size_t>(last - bytes.rbegin()));
    text_.assign(rest.data(), rest.size());
    starts_.clear();
    truncated_ = false;
    if (!text_.empty()) starts_.push_back(0);
  } else {
    if (starts_write || starts_.empty()) starts_.push_back(text_.size());
    text_.append(bytes.data(), bytes.size());
  }
  // Keep the newest pieces, and at most the last kMaxBytes of the oldest one kept.
  while (starts_.size() > kMaxPieces ||
         (starts_.size() > 1 && text_.size() - starts_[1] >= kMaxBytes)) {
    const size_t dropped = starts_[1];
    text_.erase(0, dropped);
    starts_.erase(starts_.begin());
    for (size_t& start : starts_) start -= dropped;
    truncated_ = true;
  }
  if (text_.size() > kMaxBytes) {
    // The loop left the oldest piece longer than what is cut, so it keeps its start at 0.
    const size_t cut = text_.size() - kMaxBytes;
    text_.erase(0, cut);
    for (size_t i = 1; i < starts_.size(); ++i) starts_[i] -= cut;
    truncated_ = true;
  }
}

}  // namespace labgate::serial
