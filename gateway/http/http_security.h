// Request checks of the HTTP transport: Host/Origin allow-lists (DNS-rebinding
// protection), bearer tokens and Accept negotiation.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gateway/http/http_options.h"

namespace labgate::gateway::http {

// The host part of a Host header or of an origin's authority, lower-cased, with IPv6
// brackets kept: "LocalHost:8080" -> "localhost", "[::1]:9" -> "[::1]".
std::string HostName(std::string_view authority);

// True for a well-formed authority: a DNS name or IPv4 address, or a bracketed IPv6
// address, then an optional ":port" of digits, and nothing else (no userinfo, no path).
bool WellFormedAuthority(std::string_view authority);

// Why a request's Host header makes it a bad request (400), checked before every route:
// more than one Host, an empty one, none on HTTP/1.1 (RFC 9112 §3.2), or none on HTTP/1.0
// unless `allow_no_host`. `version` is 10 or 11; none when the Host is fine.
std::optional<std::string> HostHeaderProblem(size_t host_headers, std::string_view host,
                                             unsigned version, bool allow_no_host);

// An absent Host (an HTTP/1.0 client, with --allow-no-host) is allowed: with no name there
// is nothing a rebinding page could have steered (browsers always send one). A malformed
// Host, e.g. "[::1].evil.com", is refused.
bool HostAllowed(std::string_view host_header, const std::vector<std::string>& allowed);
// An absent Origin (non-browser client) is allowed; "null", foreign and malformed origins
// (userinfo, "http://[::1].evil.com") are not.
bool OriginAllowed(std::string_view origin, const std::vector<std::string>& allowed);

// The name of the token that `authorization` ("Bearer <token>") presents, or none.
// Every token is compared in constant time.
std::optional<std::string> BearerPrincipal(std::string_view authorization,
                                           const std::vector<HttpOptions::NamedToken>& tokens);
// One token per line: "NAME TOKEN", or a bare "TOKEN" (named "token-" and the first eight
// hex digits of its SHA-256). Blank lines and lines starting with '#' are skipped; names
// must be unique.
absl::StatusOr<std::vector<HttpOptions::NamedToken>> LoadTokenFile(const std::string& path);

// True if the Accept header admits `media_type` ("type/subtype"), directly or by wildcard.
bool AcceptIncludes(std::string_view accept, std::string_view media_type);

// Comma-separated list, trimmed, empty items dropped.
std::vector<std::string> SplitList(std::string_view text);

// A new session id: 32 random bytes from the kernel CSPRNG, hex-encoded.
std::string NewSessionId();

}  // namespace labgate::gateway::http
