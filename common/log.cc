#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cmath>
#include <string>

#include "absl/strings/ascii.h"
#include "common/time_format.h"

namespace labgate {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::atomic<int> g_format{static_cast<int>(LogFormat::kText)};

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

const char* JsonLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warn";
    case LogLevel::kError:
      return "error";
    case LogLevel::kOff:
      return "off";
  }
  return "?";
}

// The length of the valid UTF-8 sequence at text[i], or 0 if it is not one.
size_t Utf8Length(std::string_view text, size_t i) {
  const auto byte = [&](size_t at) { return static_cast<unsigned char>(text[at]); };
  const unsigned char lead = byte(i);
  size_t length;
  uint32_t code;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    code = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    code = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  const bool overlong = (length == 2 && code < 0x80) || (length == 3 && code < 0x800) ||
                        (length == 4 && code < 0x10000);
  if (overlong || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

// A JSON string: control characters escaped, bytes that are not UTF-8 become U+FFFD, so
// every line parses whatever a message carries.
void AppendJsonString(std::string* out, std::string_view text) {
  *out += '"';
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += c;
      ++i;
    } else if (c == '\n') {
      *out += "\\n";
      ++i;
    } else if (c == '\r') {
      *out += "\\r";
      ++i;
    } else if (c == '\t') {
      *out += "\\t";
      ++i;
    } else if (u < 0x20 || u == 0x7F) {
      static const char kHex[] = "0123456789abcdef";
      *out += "\\u00";
      *out += kHex[u >> 4];
      *out += kHex[u & 0xF];
      ++i;
    } else if (size_t length = Utf8Length(text, i); length > 0) {
      out->append(text.data() + i, length);
      i += length;
    } else {
      *out += "\\ufffd";
      ++i;
    }
  }
  *out += '"';
}

void AppendNumber(std::string* out, double number) {
  if (!std::isfinite(number)) {
    *out += "null";
    return;
  }
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), number);
  if (ec != std::errc()) {
    *out += "null";
    return;
  }
  out->append(buffer, end);
}

bool NeedsQuotes(std::string_view text) {
  if (text.empty()) return true;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || u < 0x20 || u == 0x7F) return true;
  }
  return false;
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

bool ParseLogFormat(std::string_view text, LogFormat* format) {
  std::string lower = absl::AsciiStrToLower(absl::string_view(text.data(), text.size()));
  if (lower == "text") {
    *format = LogFormat::kText;
  } else if (lower == "json") {
    *format = LogFormat::kJson;
  } else {
    return false;
  }
  return true;
}

void SetLogFormat(LogFormat format) { g_format.store(static_cast<int>(format)); }
LogFormat GetLogFormat() { return static_cast<LogFormat>(g_format.load()); }

std::string FormatLogLine(LogFormat format, std::string_view time, LogLevel level,
                          std::string_view message, absl::Span<const LogField> fields) {
  std::string line;
  line.reserve(64 + message.size() + 24 * fields.size());
  if (format == LogFormat::kJson) {
    line += "{\"time\":";
    AppendJsonString(&line, time);
    line += ",\"level\":\"";
    line += JsonLevelName(level);
    line += "\",\"message\":";
    AppendJsonString(&line, message);
    for (const LogField& field : fields) {
      line += ',';
      AppendJsonString(&line, field.key());
      line += ':';
      if (field.is_number()) {
        AppendNumber(&line, field.number());
      } else {
        AppendJsonString(&line, field.text());
      }
    }
    line += "}\n";
    return line;
  }
  line.append(time.data(), time.size());
  line += ' ';
  line += LevelName(level);
  line += ' ';
  line.append(message.data(), message.size());
  for (const LogField& field : fields) {
    line += ' ';
    line.append(field.key().data(), field.key().size());
    line += '=';
    if (field.is_number()) {
      AppendNumber(&line, field.number());
    } else if (NeedsQuotes(field.text())) {
      AppendJsonString(&line, field.text());
    } else {
      line.append(field.text().data(), field.text().size());
    }
  }
  line += '\n';
  return line;
}

void WriteLogLine(LogLevel level, std::string_view message, absl::Span<const LogField> fields) {
  const std::string line = FormatLogLine(GetLogFormat(), NowRfc3339(), level, message, fields);
  // One write() per line keeps concurrent lines from interleaving.
  size_t offset = 0;
  while (offset < line.size()) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + offset, line.size() - offset);
    if (n <= 0) return;
    offset += static_cast<size_t>(n);
  }
}

}  // namespace labgate
