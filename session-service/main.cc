// labgate-session: the session service on its own gRPC port.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "common/check_config.h"
#include "common/cli.h"
#include "common/log.h"
#include "common/metrics/metrics_flags.h"
#include "common/service_flags.h"
#include "common/service_host.h"
#include "session-service/session_service.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50052", "HOST:PORT to serve gRPC on (port 0 picks one)");
ABSL_FLAG(std::string, data_dir, "",
          "Directory holding sessions.db (default: $LABGATE_DATA_DIR, else ./data)");
ABSL_FLAG(std::string, port_file, "", "Write the bound port number to this file once serving");
ABSL_FLAG(std::string, log_level, "info", "debug, info, warning, error or off");

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

bool WritePortFile(const std::string& path, int port) {
  // Write then rename, so a reader polling for the file never sees it half written.
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << port << "\n";
    if (!out.good()) return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  labgate::BlockShutdownSignals();
  labgate::SkipMutexDeadlockDetection();
  std::vector<std::string> positional = labgate::ParseFlags(
      argc, argv,
      "labgate-session [--listen HOST:PORT] [--data-dir DIR] [--tls-cert FILE --tls-key FILE "
      "[--tls-client-ca FILE]] [--metrics-listen HOST:PORT] [--log-format json] "
      "[--check-config]");
  const std::string listen = absl::GetFlag(FLAGS_listen);
  labgate::ServiceConfig config =
      labgate::CheckServiceFlags(listen, absl::GetFlag(FLAGS_log_level), positional);
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

  auto host = labgate::ServiceHost::Start(listen, {service->get()}, config.credentials);
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

  const std::string bound =
      listen.substr(0, listen.rfind(':') + 1) + std::to_string((*host)->port());
  LG_LOG(kInfo) << "labgate-session listening on " << bound;
  LG_LOG(kInfo) << "labgate-session data dir " << options.data_dir;
  const std::string port_file = absl::GetFlag(FLAGS_port_file);
  if (!port_file.empty() && !WritePortFile(port_file, (*host)->port())) {
    LG_LOG(kError) << "labgate-session: cannot write port file " << port_file;
  }

  int signal_number = labgate::WaitForShutdownSignal();
  LG_LOG(kInfo) << "labgate-session: signal " << signal_number << ", draining";
  (*service)->FinishWatchStreams();
  (*host)->Shutdown(kDrainGrace);
  (*service)->Shutdown();
  LG_LOG(kInfo) << "labgate-session: stopped";
  return 0;
}
