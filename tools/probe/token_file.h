// labgate-probe token: makes the shared gateway token of a deployment once, so a fresh
// `docker compose up` has one without a step by hand.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace labgate::probe {

// Writes 32 random bytes, hex-encoded, to `path` (mode 0600) unless it already holds a
// token. True when it wrote one, false when it kept the one there.
absl::StatusOr<bool> EnsureTokenFile(const std::string& path);

}  // namespace labgate::probe
