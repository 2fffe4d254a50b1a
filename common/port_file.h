// The port files (--port-file, --http-port-file, --metrics-port-file) that tell a
// supervisor or a test which port a process bound when it was given port 0.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace labgate {

// Writes "PORT\n" to `path` through a temporary file and a rename, so a reader polling for
// the file never sees it half written. An empty `path` writes nothing.
absl::Status WritePortFile(const std::string& path, int port);

}  // namespace labgate
