// The flags by which a labgate service knows its gRPC callers (common/caller_auth.h):
// --trusted-gateway, --gateway-token-file and --client-token-file. Linked by the services that
// serve other processes (labgate-serial, labgate-session), not by the gateway, whose own
// --gateway-token-file is the token it presents.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/caller_auth.h"

namespace labgate {

// Who callers are, from the three flags; a line for --check-config goes to `lines`. With none
// of them every caller is anonymous and no caller may name an owner: a split gateway must be
// given a token or a certificate before it can act for its principals.
absl::StatusOr<CallerAuthOptions> CallerAuthFromFlags(std::vector<std::string>* lines);

}  // namespace labgate
