// labgate-actions: the actions service on its own gRPC port, with health and reflection.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "actions-service/actions_service.h"
#include "common/cli.h"
#include "common/log.h"
#include "common/metrics/metrics_flags.h"
#include "common/service_flags.h"
#include "common/service_host.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50053", "gRPC listen address HOST:PORT (port 0 = any)");
ABSL_FLAG(std::string, contracts_dir, "",
          "Directory of contract *.json files to use instead of the built-in contracts");
ABSL_FLAG(std::string, port_file, "",
          "After the server is up, write the bound port (decimal, newline) to this file");
ABSL_FLAG(std::string, log_level, "info", "debug, info, warning, error or off");

namespace {

// Writes via a temporary file and rename, so a reader never sees a partial port.
bool WritePortFile(const std::string& path, int port) {
  std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    if (!file) return false;
    file << port << "\n";
    if (!file.flush()) return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

std::string HostOf(const std::string& address) {
  size_t colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

}  // namespace

int main(int argc, char** argv) {
  labgate::BlockShutdownSignals();
  labgate::SkipMutexDeadlockDetection();
  std::vector<std::string> positional = labgate::ParseFlags(
      argc, argv,
      "labgate-actions [--listen HOST:PORT] [--contracts-dir DIR] [--tls-cert FILE --tls-key "
      "FILE [--tls-client-ca FILE]] [--metrics-listen HOST:PORT] [--log-format json] "
      "[--check-config]");
  const std::string listen = absl::GetFlag(FLAGS_listen);
  labgate::ServiceConfig config =
      labgate::CheckServiceFlags(listen, absl::GetFlag(FLAGS_log_level), positional);
  if (!config.status.ok()) {
    if (labgate::CheckConfigRequested()) {
      return labgate::FinishCheckConfig("labgate-actions", config.lines, config.status);
    }
    LG_LOG(kError) << "labgate-actions: " << std::string(config.status.message());
    return 2;
  }

  labgate::actions::ActionsServiceOptions options;
  options.contracts_dir = absl::GetFlag(FLAGS_contracts_dir);
  // Loading validates every contract file, so --check-config does it too.
  auto service = labgate::actions::CreateActionsService(options);
  if (labgate::CheckConfigRequested()) {
    if (service.ok()) {
      config.lines.push_back(
          std::to_string((*service)->registry().List().size()) + " action contracts from " +
          (options.contracts_dir.empty() ? "the built-in set" : options.contracts_dir));
    }
    return labgate::FinishCheckConfig("labgate-actions", config.lines,
                                      service.ok() ? absl::OkStatus() : service.status());
  }
  if (!service.ok()) {
    LG_LOG(kError) << "labgate-actions cannot start: " << service.status().message();
    return 1;
  }
  LG_LOG(kInfo) << "loaded " << (*service)->registry().List().size() << " action contracts from "
                << (options.contracts_dir.empty() ? "the built-in set" : options.contracts_dir);

  auto host = labgate::ServiceHost::Start(listen, {service->get()}, config.credentials);
  if (!host.ok()) {
    LG_LOG(kError) << "labgate-actions cannot start: " << host.status().message();
    return 1;
  }
  (*host)->SetServing(labgate::actions::v1::ActionsService::service_full_name(), true);
  auto metrics_server = labgate::metrics::StartMetricsFromFlags("labgate-actions");
  if (!metrics_server.ok()) {
    LG_LOG(kError) << "labgate-actions: " << std::string(metrics_server.status().message());
    (*host)->Shutdown(std::chrono::milliseconds(0));
    return 1;
  }

  const std::string port_file = absl::GetFlag(FLAGS_port_file);
  if (!port_file.empty() && !WritePortFile(port_file, (*host)->port())) {
    LG_LOG(kError) << "cannot write --port-file " << port_file;
    (*host)->Shutdown(std::chrono::milliseconds(0));
    return 1;
  }
  LG_LOG(kInfo) << "labgate-actions listening on " << HostOf(listen) << ":" << (*host)->port();

  int signal_number = labgate::WaitForShutdownSignal();
  LG_LOG(kInfo) << "signal " << signal_number << " received; draining";
  (*service)->Shutdown();
  (*host)->Shutdown(std::chrono::seconds(5));
  LG_LOG(kInfo) << "labgate-actions stopped";
  return 0;
}
