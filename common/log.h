// Leveled logging to stderr. stdout belongs to the stdio protocol, so nothing here
// ever writes there. Each line is stamped with an RFC 3339 UTC time (date included) and is
// either text ("<time> <LEVEL> <message> key=value ...") or, with --log-format json, one
// JSON object ({"time","level","message", then each field as a member of its own}).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "absl/types/span.h"

namespace labgate {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kOff = 4 };
enum class LogFormat { kText, kJson };

// Parses "debug", "info", "warning"/"warn", "error", "off" (case-insensitive).
bool ParseLogLevel(std::string_view text, LogLevel* level);
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
bool LogEnabled(LogLevel level);

// Parses "text" or "json" (case-insensitive).
bool ParseLogFormat(std::string_view text, LogFormat* format);
void SetLogFormat(LogFormat format);
LogFormat GetLogFormat();

// A named value on a line: text shows key=value (the value quoted when it has spaces,
// quotes, '=' or control characters, or is empty), JSON a string or number member.
class LogField {
 public:
  LogField(std::string_view key, std::string_view text) : key_(key), text_(text) {}
  LogField(std::string_view key, const char* text) : key_(key), text_(text) {}
  LogField(std::string_view key, const std::string& text) : key_(key), text_(text) {}
  LogField(std::string_view key, double number) : key_(key), number_(number), is_number_(true) {}
  LogField(std::string_view key, int64_t number)
      : key_(key), number_(static_cast<double>(number)), is_number_(true) {}
  LogField(std::string_view key, int number)
      : key_(key), number_(static_cast<double>(number)), is_number_(true) {}

  std::string_view key() const { return key_; }
  std::string_view text() const { return text_; }
  double number() const { return number_; }
  bool is_number() const { return is_number_; }

 private:
  std::string_view key_;
  std::string_view text_;
  double number_ = 0;
  bool is_number_ = false;
};

// Writes one line to stderr atomically (one write()), in the current format.
void WriteLogLine(LogLevel level, std::string_view message, absl::Span<const LogField> fields = {});

// The line WriteLogLine would write at `time` (an RFC 3339 text), newline included.
std::string FormatLogLine(LogFormat format, std::string_view time, LogLevel level,
                          std::string_view message, absl::Span<const LogField> fields);

namespace internal {
class LogLine {
 public:
  explicit LogLine(LogLevel level) : level_(level) {}
  ~LogLine() { WriteLogLine(level_, stream_.str()); }
  std::ostringstream& stream() { return stream_; }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};
}  // namespace internal

}  // namespace labgate

// LG_LOG(kInfo) << "listening on " << addr;  (the for-loop form is safe inside an
// unbraced if/else)
#define LG_LOG(level)                                                                     \
  for (bool lg_log_once = ::labgate::LogEnabled(::labgate::LogLevel::level); lg_log_once; \
       lg_log_once = false)                                                               \
  ::labgate::internal::LogLine(::labgate::LogLevel::level).stream()
