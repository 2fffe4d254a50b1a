#pragma once

#include <chrono>
#include <string>

namespace labgate {

// RFC 3339 UTC with milliseconds, e.g. "2026-11-22T01:50:18.123Z".
std::string FormatRfc3339(std::chrono::system_clock::time_point time);
inline std::string NowRfc3339() { return FormatRfc3339(std::chrono::system_clock::now()); }

}  // namespace labgate
