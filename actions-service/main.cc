// labgate-actions: the actions service on its own gRPC port, with health and reflection.
#include <string>

#include "absl/flags/flag.h"
#include "actions-service/actions_service.h"
#include "common/cli.h"
#include "common/log.h"
#include "common/metrics/metrics_flags.h"
#include "common/service_bootstrap.h"
#include "common/service_host.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50053", "gRPC listen address HOST:PORT (port 0 = any)");
ABSL_FLAG(std::string, contracts_dir, "",
          "Directory of contract *.json files to use instead of the built-in contracts");

int main(int argc, char** argv) {
  labgate::ServiceConfig config =
      labgate::BeginService(argc, argv, "labgate-actions", "[--contracts-dir DIR]", FLAGS_listen);
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

  auto host = labgate::ServiceHost::Start(config.listen, {service->get()}, config.credentials);
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

  if (absl::Status announced =
          labgate::AnnounceServing("labgate-actions", config.listen, (*host)->port());
      !announced.ok()) {
    LG_LOG(kError) << "labgate-actions: " << std::string(announced.message());
    (*host)->Shutdown(std::chrono::milliseconds(0));
    return 1;
  }

  int signal_number = labgate::WaitForShutdownSignal();
  LG_LOG(kInfo) << "signal " << signal_number << " received; draining";
  (*service)->Shutdown();
  (*host)->Shutdown(std::chrono::seconds(5));
  LG_LOG(kInfo) << "labgate-actions stopped";
  return 0;
}
