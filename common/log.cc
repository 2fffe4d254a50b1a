#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <string>

#include "absl/strings/ascii.h"

namespace labgate {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarning:
      return "WARN";
    case LogLevel::kError:
      return "ERROR";
    case LogLevel::kOff:
      return "OFF";
  }
  return "?";
}
}  // namespace

bool ParseLogLevel(std::string_view text, LogLevel* level) {
  std::string lower = absl::AsciiStrToLower(absl::string_view(text.data(), text.size()));
  if (lower == "debug" || lower == "trace") {
    *level = LogLevel::kDebug;
  } else if (lower == "info") {
    *level = LogLevel::kInfo;
  } else if (lower == "warning" || lower == "warn") {
    *level = LogLevel::kWarning;
  } else if (lower == "error") {
    *level = LogLevel::kError;
  } else if (lower == "off" || lower == "none") {
    *level = LogLevel::kOff;
  } else {
    return false;
  }
  return true;
}

void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level)); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }
bool LogEnabled(LogLevel level) {
  return level != LogLevel::kOff && static_cast<int>(level) >= g_level.load();
}

void WriteLogLine(LogLevel level, std::string_view message) {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  int millis = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm utc;
  gmtime_r(&seconds, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%H:%M:%S", &utc);
  std::string line = std::string(stamp) + "." + std::to_string(1000 + millis).substr(1) + " " +
                     LevelName(level) + " " + std::string(message) + "\n";
  // One write() per line keeps concurrent lines from interleaving.
  size_t offset = 0;
  while (offset < line.size()) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + offset, line.size() - offset);
    if (n <= 0) return;
    offset += static_cast<size_t>(n);
  }
}

}  // namespace labgate
