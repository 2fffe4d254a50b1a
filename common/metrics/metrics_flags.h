// --metrics-listen and --metrics-port-file, shared by every labgate binary. A standalone
// service serves its own /metrics there (MetricsHttpServer); the gateway serves its operator
// routes there (gateway/http), so an MCP client's stdio launch can still be scraped.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/metrics/metrics_http_server.h"

namespace labgate::metrics {

// The --metrics-listen value ("" when not given).
std::string MetricsListenFlag();
// Validates --metrics-listen (HOST:PORT, port 0 allowed); OK when it is not given.
absl::Status CheckMetricsListenFlag();

// Writes `port` to --metrics-port-file, if given (write then rename, so a reader never sees
// half a file).
absl::Status WriteMetricsPortFile(int port);

// For a standalone service: with --metrics-listen, serves /metrics there, logs where, and
// writes --metrics-port-file; null without the flag. `readiness` answers /readyz.
absl::StatusOr<std::unique_ptr<MetricsHttpServer>> StartMetricsFromFlags(
    const std::string& program, ReadinessCheck readiness = {});

}  // namespace labgate::metrics
