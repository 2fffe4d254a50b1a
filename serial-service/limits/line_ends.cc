#include "serial-service/limits/line_ends.h"

#include "absl/strings/str_cat.h"

namespace labgate::serial {
namespace {

bool IsLineBreak(char c) { return c == '\r' || c == '\n'; }

}  // namespace

std::string SpelledLineEnd(absl::string_view line_end) {
  std::string spelled;
  for (const char c : line_end) {
    if (c == '\r') {
      spelled += "\\r";
    } else if (c == '\n') {
      spelled += "\\n";
    } else {
      absl::StrAppend(&spelled, "\\x", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    }
  }
  return spelled;
}

absl::Status CheckLineEnds(absl::string_view bytes, absl::string_view line_end,
                           absl::string_view where) {
  for (const char c : line_end) {
    if (!IsLineBreak(c)) {
      return absl::PermissionDeniedError(absl::StrCat(
          "the line end of ", where, " is ", SpelledLineEnd(line_end),
          "; its limits read lines that end in CR or LF only, so no write to it can be checked. "
          "Set its terminator to \\n, \\r or \\r\\n"));
    }
  }
  size_t at = 0;
  while (at < bytes.size()) {
    if (line_end.empty()) {
      if (bytes[at] == '\r' && at + 1 < bytes.size() && bytes[at + 1] == '\n') {
        at += 2;
        continue;
      }
      if (bytes[at] == '\n') {
        ++at;
        continue;
      }
    } else if (bytes.substr(at, line_end.size()) == line_end) {
      at += line_end.size();
      continue;
    }
    if (IsLineBreak(bytes[at])) {
      const absl::string_view expected =
          line_end.empty() ? "\\n (SCPI's, no terminator is set)" : absl::string_view();
      return absl::PermissionDeniedError(absl::StrCat(
          "the write has ", bytes[at] == '\r' ? "a carriage return (\\r)" : "a line feed (\\n)",
          " at byte ", at, " that is not part of the line end of ", where, " (",
          line_end.empty() ? std::string(expected) : SpelledLineEnd(line_end),
          "): the device would read its lines otherwise than the limits do. End each command "
          "with the line end only"));
    }
    ++at;
  }
  return absl::OkStatus();
}

}  // namespace labgate::serial
