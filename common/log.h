// Leveled logging to stderr. stdout belongs to the stdio protocol, so nothing here
// ever writes there.
#pragma once

#include <sstream>
#include <string_view>

namespace labgate {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kOff = 4 };

// Parses "debug", "info", "warning"/"warn", "error", "off" (case-insensitive).
bool ParseLogLevel(std::string_view text, LogLevel* level);
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
bool LogEnabled(LogLevel level);

// Writes one line "<time> <level> <component>: <message>" to stderr atomically.
void WriteLogLine(LogLevel level, std::string_view message);

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
