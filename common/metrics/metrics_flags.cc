#include "common/metrics/metrics_flags.h"

#include "absl/flags/flag.h"
#include "common/check_config.h"
#include "common/log.h"
#include "common/port_file.h"

ABSL_FLAG(std::string, metrics_listen, "",
          "Serve Prometheus /metrics (and /healthz) over HTTP on HOST:PORT (port 0 picks a "
          "free one)");
ABSL_FLAG(std::string, metrics_port_file, "", "Write the bound --metrics-listen port to this file");

namespace labgate::metrics {

std::string MetricsListenFlag() { return absl::GetFlag(FLAGS_metrics_listen); }

absl::Status CheckMetricsListenFlag() {
  const std::string listen = MetricsListenFlag();
  if (listen.empty()) return absl::OkStatus();
  return CheckHostPort("--metrics-listen", listen, /*allow_zero=*/true);
}

absl::Status WriteMetricsPortFile(int port) {
  return WritePortFile(absl::GetFlag(FLAGS_metrics_port_file), port);
}

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> StartMetricsFromFlags(const std::string& program,
                                                                         ReadinessCheck readiness) {
  const std::string listen = MetricsListenFlag();
  if (listen.empty()) return std::unique_ptr<MetricsHttpServer>();
  auto server = MetricsHttpServer::Start(listen, std::move(readiness));
  if (!server.ok()) return server.status();
  const std::string host = listen.substr(0, listen.rfind(':'));
  LG_LOG(kInfo) << program << " metrics on http://" << host << ":" << (*server)->port()
                << "/metrics";
  if (absl::Status written = WriteMetricsPortFile((*server)->port()); !written.ok()) {
    return written;
  }
  return server;
}

}  // namespace labgate::metrics
