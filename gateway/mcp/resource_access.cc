#include "gateway/mcp/resource_access.h"

#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/mcp/tool_access.h"

namespace labgate::gateway {

std::string PercentDecode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() &&
        std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::optional<ResourceNeeds> ResourceNeedsFor(const std::string& uri) {
  constexpr absl::string_view kScheme = "labgate://";
  if (!absl::StartsWith(uri, kScheme)) return std::nullopt;
  const absl::string_view rest = absl::string_view(uri).substr(kScheme.size());
  if (rest == "sessions") return ResourceNeeds{"list_sessions", ""};
  if (absl::StartsWith(rest, "sessions/")) return ResourceNeeds{"export_session", ""};
  if (rest == "ports") return ResourceNeeds{"list_ports_extended", ""};
  if (absl::StartsWith(rest, "ports/")) {
    return ResourceNeeds{"describe_port", PercentDecode(std::string(rest.substr(6)))};
  }
  if (absl::StartsWith(rest, "actions/")) {
    return ResourceNeeds{PercentDecode(std::string(rest.substr(8))), ""};
  }
  if (absl::StartsWith(rest, "reservations")) return ResourceNeeds{"list_reservations", ""};
  // Any other labgate:// resource is refused rather than shown to everyone by default.
  return ResourceNeeds{std::string(uri), ""};
}

absl::Status MayReadResource(const McpServer& server, const std::string& principal,
                             const std::string& uri) {
  if (server.access == nullptr || !server.access->enabled()) return absl::OkStatus();
  const std::optional<ResourceNeeds> needs = ResourceNeedsFor(uri);
  if (!needs.has_value()) return absl::OkStatus();
  if (absl::Status may = server.access->MayCall(server, principal, needs->tool); !may.ok()) {
    return absl::PermissionDeniedError(absl::StrCat(uri, ": ", may.message()));
  }
  if (needs->port.empty()) return absl::OkStatus();
  if (absl::Status may = server.access->control().MayUsePort(principal, needs->port); !may.ok()) {
    return absl::PermissionDeniedError(absl::StrCat(uri, ": ", may.message()));
  }
  return absl::OkStatus();
}

}  // namespace labgate::gateway
