// The gateway's start-up configuration: backend addresses, TLS to them, data dir and
// HTTP flags. main.cc asks for it once; --check-config prints it and exits.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gateway/app/backends.h"

namespace labgate::gateway {

struct GatewayConfig {
  absl::Status status;
  std::vector<std::string> lines;  // what would be served
};

// Validates `options` (filled from the flags) and the HTTP flags, and sets
// options->channel_credentials from --tls-ca/--tls-cert/--tls-key.
GatewayConfig CheckGatewayConfig(BackendOptions* options, bool serve_stdio,
                                 const std::vector<std::string>& positional);

}  // namespace labgate::gateway
