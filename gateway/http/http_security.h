// Request checks of the HTTP transport: Host/Origin allow-lists (DNS-rebinding
// protection), bearer tokens and Accept negotiation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace labgate::gateway::http {

// The host part of a Host header or of an origin's authority, lower-cased, with IPv6
// brackets kept: "LocalHost:8080" -> "localhost", "[::1]:9" -> "[::1]".
std::string HostName(std::string_view authority);

// An empty Host is allowed (non-browser HTTP/1.0 clients); browsers always send one.
bool HostAllowed(std::string_view host_header, const std::vector<std::string>& allowed);
// An absent Origin (non-browser client) is allowed; "null" and foreign origins are not.
bool OriginAllowed(std::string_view origin, const std::vector<std::string>& allowed);

// True if `authorization` is "Bearer <token>" with one of `tokens` (constant-time compare).
bool BearerAccepted(std::string_view authorization, const std::vector<std::string>& tokens);
// One token per line; blank lines and lines starting with '#' are skipped.
absl::StatusOr<std::vector<std::string>> LoadTokenFile(const std::string& path);

// True if the Accept header admits `media_type` ("type/subtype"), directly or by wildcard.
bool AcceptIncludes(std::string_view accept, std::string_view media_type);

// Comma-separated list, trimmed, empty items dropped.
std::vector<std::string> SplitList(std::string_view text);

// A new session id: 32 random bytes from the kernel CSPRNG, hex-encoded.
std::string NewSessionId();

}  // namespace labgate::gateway::http
