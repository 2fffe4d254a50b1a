// labgate-session: the session service, and the bench reservations kept in the same database,
// on its own gRPC port.
#include <cstdlib>
#include <set>
#include <string>

#include "absl/flags/flag.h"
#include "common/caller_auth_flags.h"
#include "common/check_config.h"
#include "common/cli.h"
#include "common/log.h"
#include "common/metrics/metrics_flags.h"
#include "common/service_bootstrap.h"
#include "common/service_host.h"
#include "session-service/session_service.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50052", "HOST:PORT to serve gRPC on (port 0 picks one)");
ABSL_FLAG(std::string, admin_token_file, "",
          "File of operator tokens, lines \"NAME TOKEN\": a caller presenting one is the "
          "principal NAME and may end anyone's bench reservation (recorded with the reason)");
ABSL_FLAG(int64_t, reservation_max_hold_s, 8 * 3600,
          "The longest a bench reservation may be held, however often it is renewed (a reserve "
          "asking for more is refused)");
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
  // Who reservation callers are (the session API keeps nothing per principal).
  absl::StatusOr<labgate::CallerAuthOptions> caller_auth =
      labgate::CallerAuthFromFlags(&config.lines);
  if (config.status.ok() && !caller_auth.ok()) config.status = caller_auth.status();
  if (config.status.ok() && absl::GetFlag(FLAGS_reservation_max_hold_s) < 1) {
    config.status = absl::InvalidArgumentError("--reservation-max-hold-s must be at least 1");
  }
  // Operators: named tokens like the clients', whose names may also end others' reservations.
  std::set<std::string> operators;
  if (const std::string admins = absl::GetFlag(FLAGS_admin_token_file);
      config.status.ok() && !admins.empty()) {
    auto tokens = labgate::ReadClientTokenFile(admins, "--admin-token-file");
    if (!tokens.ok()) {
      config.status = tokens.status();
    } else {
      for (const auto& [name, token] : *tokens) {
        for (const auto& [client, client_token] : caller_auth->client_tokens) {
          if (client == name || client_token == token) {
            config.status = absl::InvalidArgumentError("--admin-token-file: " + name +
                                                       " is also a client of --client-token-file");
          }
        }
        operators.insert(name);
        caller_auth->client_tokens.emplace_back(name, token);
      }
      config.lines.push_back(std::to_string(operators.size()) +
                             " operator(s) may end reservations (--admin-token-file)");
    }
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

  labgate::session::ReservationLimits limits;
  limits.max_hold = std::chrono::seconds(absl::GetFlag(FLAGS_reservation_max_hold_s));
  auto reservations = labgate::session::CreateReservationService(**service, *caller_auth,
                                                                 std::move(operators), limits);
  if (!reservations.ok()) {
    LG_LOG(kError) << "labgate-session: cannot restore the reservations: "
                   << std::string(reservations.status().message());
    (*service)->Shutdown();
    return 1;
  }
  auto tasks = labgate::session::CreateTaskService(**service, *caller_auth);
  if (!tasks.ok()) {
    LG_LOG(kError) << "labgate-session: cannot restore the tasks: "
                   << std::string(tasks.status().message());
    reservations->reset();
    (*service)->Shutdown();
    return 1;
  }
  auto host = labgate::ServiceHost::Start(
      config.listen, {service->get(), reservations->get(), tasks->get()}, config.credentials);
  if (!host.ok()) {
    LG_LOG(kError) << "labgate-session: " << std::string(host.status().message());
    tasks->reset();
    reservations->reset();
    (*service)->Shutdown();
    return 1;
  }
  (*host)->SetServing(labgate::session::kSessionServiceName, true);
  (*host)->SetServing(labgate::session::kReservationServiceName, true);
  (*host)->SetServing(labgate::session::kTaskServiceName, true);
  auto metrics_server = labgate::metrics::StartMetricsFromFlags("labgate-session");
  if (!metrics_server.ok()) {
    LG_LOG(kError) << "labgate-session: " << std::string(metrics_server.status().message());
    (*host)->Shutdown(std::chrono::milliseconds(0));
    tasks->reset();
    reservations->reset();
    (*service)->Shutdown();
    return 1;
  }

  LG_LOG(kInfo) << "labgate-session data dir " << options.data_dir;
  if (absl::Status announced =
          labgate::AnnounceServing("labgate-session", config.listen, (*host)->port());
      !announced.ok()) {
    LG_LOG(kError) << "labgate-session: " << std::string(announced.message());
    (*host)->Shutdown(std::chrono::milliseconds(0));
    tasks->reset();
    reservations->reset();
    (*service)->Shutdown();
    return 1;
  }

  int signal_number = labgate::WaitForShutdownSignal();
  LG_LOG(kInfo) << "labgate-session: signal " << signal_number << ", draining";
  (*service)->FinishWatchStreams();
  (*reservations)->FinishWatchStreams();
  (*tasks)->FinishWatchStreams();
  (*host)->Shutdown(kDrainGrace);
  tasks->reset();
  reservations->reset();  // its last changes reach the store before the store stops
  (*service)->Shutdown();
  LG_LOG(kInfo) << "labgate-session: stopped";
  return 0;
}
