// The access file's view of resources. Each labgate resource shows what a tool returns (a
// session's transcript is export_session's, a port's description is describe_port's), so whoever
// may not call that tool, or use that port, may not read the resource, subscribe to it, or see it
// listed. Resources that are no labgate tool's (test fixtures) need no permission.
#pragma once

#include <optional>
#include <string>

#include "absl/status/status.h"

namespace labgate::gateway {

struct McpServer;

struct ResourceNeeds {
  std::string tool;
  std::string port;  // "" when the resource is no one port's
};

// "%2Fdev%2FttyUSB0" -> "/dev/ttyUSB0", as resource URIs carry port names and ids.
std::string PercentDecode(const std::string& text);

// What reading `uri` needs; nullopt for a resource that needs no permission.
std::optional<ResourceNeeds> ResourceNeedsFor(const std::string& uri);

// OK, or PERMISSION_DENIED naming the missing permission. OK without an access file.
absl::Status MayReadResource(const McpServer& server, const std::string& principal,
                             const std::string& uri);

}  // namespace labgate::gateway
