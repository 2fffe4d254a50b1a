// labgate-session: the session service on its own gRPC port.
#include <cstdlib>
#include <string>

#include "absl/flags/flag.h"
#include "common/check_config.h"
#include "common/cli.h"
#include "common/log.h"
#include "common/metrics/metrics_flags.h"
#include "common/service_bootstrap.h"
#include "common/service_host.h"
#include "session-service/session_service.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50052", "HOST:PORT to serve gRPC on (port 0 picks one)");
ABSL_FLAG(std::string, data_dir, "",
          "Directory holding sessions.db (default: $LABGATE_DATA_DIR, else ./data)");

namespace {

constexpr auto kDrainGrace = std::chrono::seconds(5);

std::string DataDir() {
  std::string dir = absl::GetFlag(FLAGS_data_dir);
  if (!dir.empty()) return dir;
  if (const char* env = std::getenv("LABGATE_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return "./data";
}

}  // namespace

int main(int argc, char** argv) {
  labgate::ServiceConfig config =
      labgate::BeginService(argc, argv, "labgate-session", "[--data-dir DIR]", FLAGS_listen);
  labgate::session::SessionServiceOptions options;
  options.data_dir = DataDir();
  if (config.status.ok()) {
    config.status = labgate::CheckWritableDirIfPresent("--data-dir", options.data_dir);
    config.lines.push_back("sessions.db in " + options.data_dir);
  }
  if (labgate::CheckConfigRequested()) {
    return labgate::FinishCheckConfig("labgate-session", config.lines, config.status);
  }
  if (!config.status.ok()) {
    LG_LOG(kError) << "labgate-session: " << std::string(config.status.message());
    return 2;
  }
  auto service = labgate::session::CreateSessionService(options);
  if (!service.ok()) {
    LG_LOG(kError) << "labgate-session: cannot open the session database in '" << options.data_dir
                   << "': " << std::string(service.status().message());
    return 1;
  }

  auto host = labgate::ServiceHost::Start(config.listen, {service->get()}, config.credentials);
  if (!host.ok()) {
    LG_LOG(kError) << "labgate-session: " << std::string(host.status().message());
    (*service)->Shutdown();
    return 1;
  }
  (*host)->SetServing(labgate::session::kSessionServiceName, true);
  auto metrics_server = labgate::metrics::StartMetricsFromFlags("labgate-session");
  if (!metrics_server.ok()) {
    LG_LOG(kError) << "labgate-session: " << std::string(metrics_server.status().message());
    (*host)->Shutdown(std::chrono::milliseconds(0));
    (*service)->Shutdown();
    return 1;
  }

  LG_LOG(kInfo) << "labgate-session data dir " << options.data_dir;
  if (absl::Status announced =
          labgate::AnnounceServing("labgate-session", config.listen, (*host)->port());
      !announced.ok()) {
    LG_LOG(kError) << "labgate-session: " << std::string(announced.message());
    (*host)->Shutdown(std::chrono::milliseconds(0));
    (*service)->Shutdown();
    return 1;
  }

  int signal_number = labgate::WaitForShutdownSignal();
  LG_LOG(kInfo) << "labgate-session: signal " << signal_number << ", draining";
  (*service)->FinishWatchStreams();
  (*host)->Shutdown(kDrainGrace);
  (*service)->Shutdown();
  LG_LOG(kInfo) << "labgate-session: stopped";
  return 0;
}
