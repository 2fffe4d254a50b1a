// What a port's device has been sent since the last line terminator ('\n' or '\r'), and the
// writes it came in. A device joins those writes into one line, so a check that reads each
// write alone would pass "VO" and then "LT 35"; the write gate (PortEnvironment) reads the line
// they join. Kept per device across closes: the device keeps its half line when labgate closes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace labgate::serial {

class WrittenLine {
 public:
  // What is kept of one unfinished line. Beyond either, its start is dropped (truncated()).
  static constexpr size_t kMaxBytes = 256;
  static constexpr size_t kMaxPieces = 16;

  bool empty() const { return text_.empty(); }
  const std::string& text() const { return text_; }
  // Where each write's part of text() starts, oldest first.
  const std::vector<size_t>& starts() const { return starts_; }
  // Its start was dropped to keep within kMaxBytes and kMaxPieces.
  bool truncated() const { return truncated_; }
  // Whether writing `bytes` would leave an unfinished line that is not kept whole.
  bool WouldOverflow(absl::string_view bytes) const;
  // `bytes` went out. `starts_write`: they begin a write, rather than being what was left of
  // one the device took only in part.
  void Append(absl::string_view bytes, bool starts_write);
  // The device's line was ended outside the port's writes (a probe sent a terminator first).
  void Clear() {
    text_.clear();
    starts_.clear();
    truncated_ = false;
  }

  // The part of `bytes` a device joins to the unfinished line: up to its first terminator.
  static absl::string_view Head(absl::string_view bytes);

 private:
  std::string text_;
  std::vector<size_t> starts_;
  bool truncated_ = false;
};

// One device's line, shared by the ports that open it in turn.
struct SharedWrittenLine {
  absl::Mutex mu;
  WrittenLine line ABSL_GUARDED_BY(mu);
};

}  // namespace labgate::serial
