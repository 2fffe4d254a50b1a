#pragma once

#include <string>

namespace labgate::gateway {

inline constexpr char kLatestProtocolVersion[] = "2025-11-25";

// The version to answer initialize with: the client's when labgate speaks it, else
// the latest (the client then decides whether to continue).
std::string NegotiateProtocolVersion(const std::string& requested);
bool IsSupportedProtocolVersion(const std::string& version);

}  // namespace labgate::gateway
