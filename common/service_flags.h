// What every standalone labgate service checks before serving: the listen address, the
// log level, stray arguments and its TLS files. Used at start-up and by --check-config.
#pragma once

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace labgate {

struct ServiceConfig {
  std::string listen;                                    // --listen as given
  absl::Status status;                                   // first problem found, if any
  std::shared_ptr<grpc::ServerCredentials> credentials;  // set when status is OK
  std::vector<std::string> lines;                        // what would be served
};

// Reads --tls-cert/--tls-key/--tls-client-ca, --log-format and --metrics-listen as well, and
// sets the log level and format.
ServiceConfig CheckServiceFlags(const std::string& listen, const std::string& log_level,
                                const std::vector<std::string>& positional);

}  // namespace labgate
