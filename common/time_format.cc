#include "common/time_format.h"

#include <cstdio>
#include <ctime>

namespace labgate {

std::string FormatRfc3339(std::chrono::system_clock::time_point time) {
  auto millis_total =
      std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
  std::time_t seconds = static_cast<std::time_t>(millis_total / 1000);
  int millis = static_cast<int>(millis_total % 1000);
  if (millis < 0) {
    millis += 1000;
    seconds -= 1;
  }
  std::tm utc;
  gmtime_r(&seconds, &utc);
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
  return buffer;
}

}  // namespace labgate
