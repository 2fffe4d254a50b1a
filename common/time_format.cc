#include "common/time_format.h"

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace labgate {

std::string FormatRfc3339(std::chrono::system_clock::time_point time) {
  // %E3S: seconds with exactly three fractional digits, truncated as the milliseconds are.
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E3SZ", absl::FromChrono(time), absl::UTCTimeZone());
}

}  // namespace labgate
