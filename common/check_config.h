// Validation shared by each binary's --check-config (common/cli.h).
#pragma once

#include <string>

#include "absl/status/status.h"

namespace labgate {

// "HOST:PORT" or "[V6]:PORT" with a port in 0..65535 (0 only when `allow_zero`).
absl::Status CheckHostPort(const std::string& flag, const std::string& value, bool allow_zero);

// A directory that exists must be a writable directory; one that does not yet exist is
// created at start-up (as in a container whose volume is mounted then), so it passes.
absl::Status CheckWritableDirIfPresent(const std::string& flag, const std::string& path);

// A directory that must exist and be readable (e.g. --contracts-dir).
absl::Status CheckReadableDir(const std::string& flag, const std::string& path);

}  // namespace labgate
