#include "gateway/mcp/protocol_version.h"

#include <array>
#include <string_view>

namespace labgate::gateway {
namespace {
constexpr std::array<std::string_view, 4> kSupported = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                        "2024-11-05"};
}

bool IsSupportedProtocolVersion(const std::string& version) {
  for (std::string_view supported : kSupported) {
    if (supported == version) return true;
  }
  return false;
}

std::string NegotiateProtocolVersion(const std::string& requested) {
  return IsSupportedProtocolVersion(requested) ? requested : kLatestProtocolVersion;
}

}  // namespace labgate::gateway
