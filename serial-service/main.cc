// labgate-serial: the serial service on its own gRPC server, with health checking
// and reflection. Drains and exits 0 on SIGTERM/SIGINT.
#include <grpcpp/create_channel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/access/access_control.h"
#include "common/caller_auth_flags.h"
#include "common/cli.h"
#include "common/confirmation_secret.h"
#include "common/grpc_keepalive.h"
#include "common/log.h"
#include "common/metrics/metrics_flags.h"
#include "common/reload_signal.h"
#include "common/service_bootstrap.h"
#include "common/service_host.h"
#include "common/time_format.h"
#include "common/tls_flags.h"
#include "nlohmann/json.hpp"
#include "serial-service/instruments/instrument_catalog.h"
#include "serial-service/policy/policy.h"
#include "serial-service/serial_service.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051", "HOST:PORT to serve gRPC on (port 0 picks one)");
ABSL_FLAG(std::string, session_addr, "",
          "HOST:PORT of labgate-session, where ports opened with a session_id are recorded");
ABSL_FLAG(std::string, policy, "", "Safety policy (JSON) for ports and writes; SIGHUP reloads it");
ABSL_FLAG(std::string, access_file, "",
          "Who may use and change which port (JSON, the gateway's access file); SIGHUP reloads "
          "it. Without it every caller may use every port");
ABSL_FLAG(bool, publish_inventory, false,
          "Join labgate-session's bench reservations: report the named instruments and ports "
          "as reservable, and refuse ports another principal holds a grant on (needs "
          "--session-addr; presents the --gateway-token-file token)");
ABSL_FLAG(std::string, bench, "",
          "The name gateways give this labgate-serial, under which its inventory is reported");
ABSL_FLAG(std::string, profiles, "",
          "Directory of instrument profiles (one JSON file per model: identity probe, settings, "
          "limits, sequences); SIGHUP reloads them");
ABSL_FLAG(std::string, instruments, "",
          "Named instruments (JSON): each a name, its profile and how to find it (usb_serial, "
          "by_path, idn_serial or port_name); needs --profiles; SIGHUP reloads it");
ABSL_FLAG(std::string, confirm_secret_file, "",
          "File whose first line is the secret the gateway presents with a person's approval "
          "(the gateway reads the same file from LABGATE_CONFIRM_SECRET_FILE)");
ABSL_FLAG(int64_t, query_spin_us, labgate::serial::kDefaultQueryReplySpinUs,
          "How long a query polls the device for its reply before it sleeps (0: at once); a "
          "reply within that time costs no wake-up");
ABSL_FLAG(int64_t, capture_buffer_bytes, 1 << 20,
          "Bytes each open port keeps received and unread; beyond it the oldest are dropped, "
          "counted, and (on a bound port) reported in its transcript, which still has them");
ABSL_FLAG(int64_t, record_coalesce_ms, 20,
          "A bound port records received bytes at most this often, each record stamped with "
          "its first byte's arrival");
ABSL_FLAG(int64_t, record_queue_limit, 10000,
          "Records that may wait for the session service before new ones are lost");

namespace {

constexpr char kServiceName[] = "labgate.serial.v1.SerialService";

// /readyz: not ready while reservations are joined but their service is unreachable, since
// grants made meanwhile are not enforced here.
labgate::metrics::Readiness ReadinessOf(const labgate::serial::SerialGrpcService& service) {
  std::optional<labgate::serial::GrantTable::State> reservations = service.ReservationState();
  labgate::metrics::Readiness ready;
  if (!reservations.has_value()) {
    ready.json = R"({"status":"ready"})";
    return ready;
  }
  ready.ready = reservations->reachable;
  const char* status = ready.ready ? "ready" : "reservations unreachable";
  try {
    nlohmann::json body = {{"status", status},
                           {"reservations",
                            {{"reachable", reservations->reachable},
                             {"since", labgate::FormatRfc3339(reservations->since)},
                             {"grants_enforced", reservations->grants},
                             {"waiting", reservations->waiting}}}};
    if (!reservations->reachable) {
      body["reservations"]["why"] =
          reservations->unreachable_why.empty() ? "not reached yet" : reservations->unreachable_why;
      body["reservations"]["meaning"] =
          "the grants last known are enforced until their leases end; none newer is known";
    }
    // A gRPC error's text may hold any bytes: replaced rather than thrown over.
    ready.json = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const std::exception&) {
    ready.json = std::string(R"({"status":")") + status + R"("})";
  }
  return ready;
}

}  // namespace

int main(int argc, char** argv) {
  labgate::ServiceConfig config = labgate::BeginService(
      argc, argv, "labgate-serial", "[--session-addr HOST:PORT [--tls-ca FILE]] [--policy FILE]",
      FLAGS_listen, /*reload_on_hup=*/true);
  if (const std::string policy = absl::GetFlag(FLAGS_policy);
      !policy.empty() && config.status.ok()) {
    auto loaded = labgate::serial::LoadPolicyFile(policy);
    if (loaded.ok()) {
      config.lines.push_back("safety policy: " + policy);
    } else {
      config.status = loaded.status();
    }
  }
  std::shared_ptr<labgate::access::AccessControl> access;
  if (config.status.ok()) {
    auto loaded = labgate::access::AccessControl::FromFile(absl::GetFlag(FLAGS_access_file));
    if (loaded.ok()) {
      access = *std::move(loaded);
      if (access->enabled())
        config.lines.push_back("access file: " + absl::GetFlag(FLAGS_access_file));
    } else {
      config.status = loaded.status();
    }
  }
  if (const std::string profiles = absl::GetFlag(FLAGS_profiles),
      instruments = absl::GetFlag(FLAGS_instruments);
      (!profiles.empty() || !instruments.empty()) && config.status.ok()) {
    absl::StatusOr<std::string> checked =
        labgate::serial::CheckInstrumentFiles(profiles, instruments);
    if (checked.ok()) {
      config.lines.push_back(*std::move(checked));
    } else {
      config.status = checked.status();
    }
  }
  absl::StatusOr<labgate::CallerAuthOptions> caller_auth =
      labgate::CallerAuthFromFlags(&config.lines);
  if (!caller_auth.ok() && config.status.ok()) config.status = caller_auth.status();
  labgate::serial::CaptureOptions capture;
  capture.buffer_bytes =
      static_cast<size_t>(std::max<int64_t>(0, absl::GetFlag(FLAGS_capture_buffer_bytes)));
  capture.record_coalesce_ms = absl::GetFlag(FLAGS_record_coalesce_ms);
  if (absl::Status valid = labgate::serial::ValidateCaptureOptions(capture); !valid.ok()) {
    if (config.status.ok()) config.status = valid;
  } else {
    config.lines.push_back(absl::StrCat("capture: ", capture.buffer_bytes,
                                        " bytes per port; rx recorded every ",
                                        capture.record_coalesce_ms, " ms at most"));
  }
  if (absl::GetFlag(FLAGS_query_spin_us) < 0 && config.status.ok()) {
    config.status = absl::InvalidArgumentError("--query-spin-us must not be negative");
  }
  if (labgate::CheckConfigRequested()) {
    return labgate::FinishCheckConfig("labgate-serial", config.lines, config.status);
  }
  if (!config.status.ok()) {
    LG_LOG(kError) << "labgate-serial: " << std::string(config.status.message());
    return 2;
  }

  labgate::serial::SerialServiceOptions options;
  const std::string session_addr = absl::GetFlag(FLAGS_session_addr);
  if (!session_addr.empty()) {
    // Reconnect soon after the session service comes back, so queued records land.
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
    labgate::SetClientKeepalive(args);
    // --tls-ca [--tls-cert --tls-key] secure the calls to the session service.
    auto credentials = labgate::MakeChannelCredentials(labgate::ClientTlsFromFlags());
    if (!credentials.ok()) {
      LG_LOG(kError) << "labgate-serial: " << std::string(credentials.status().message());
      return 2;
    }
    options.session_channel = grpc::CreateCustomChannel(session_addr, *credentials, args);
  }
  if (absl::GetFlag(FLAGS_record_queue_limit) < 1) {
    std::fprintf(stderr, "labgate-serial: --record-queue-limit must be at least 1\n");
    return 2;
  }
  options.record_queue_limit = static_cast<size_t>(absl::GetFlag(FLAGS_record_queue_limit));
  options.query_reply_spin = std::chrono::microseconds(absl::GetFlag(FLAGS_query_spin_us));
  options.capture = capture;
  options.policy_file = absl::GetFlag(FLAGS_policy);
  options.profiles_dir = absl::GetFlag(FLAGS_profiles);
  options.instruments_file = absl::GetFlag(FLAGS_instruments);
  options.caller_auth = *caller_auth;
  options.access = access;
  options.publish_inventory = absl::GetFlag(FLAGS_publish_inventory);
  options.bench = absl::GetFlag(FLAGS_bench);
  options.session_token = caller_auth->gateway_token;
  if (options.publish_inventory && !options.session_channel) {
    std::fprintf(stderr, "labgate-serial: --publish-inventory needs --session-addr\n");
    return 2;
  }
  if (!options.caller_auth.AuthenticatesAnyone()) {
    LG_LOG(kInfo) << "labgate-serial: every caller is anonymous and may not name an owner; a "
                     "split labgate needs --gateway-token-file or --trusted-gateway here";
  }
  if (!absl::GetFlag(FLAGS_confirm_secret_file).empty()) {
    setenv(labgate::kConfirmSecretFileEnv, absl::GetFlag(FLAGS_confirm_secret_file).c_str(), 1);
  }
  absl::StatusOr<std::unique_ptr<labgate::serial::SerialGrpcService>> service =
      labgate::serial::CreateSerialService(options);
  if (!service.ok()) {
    LG_LOG(kError) << "cannot create the serial service: "
                   << std::string(service.status().message());
    return 1;
  }
  absl::StatusOr<std::unique_ptr<labgate::ServiceHost>> host =
      labgate::ServiceHost::Start(config.listen, {service->get()}, config.credentials);
  if (!host.ok()) {
    LG_LOG(kError) << std::string(host.status().message());
    return 1;
  }
  (*host)->SetServing(kServiceName, true);
  auto reload_on_hup = std::make_unique<labgate::ReloadWatcher>([service = service->get(), access] {
    LG_LOG(kInfo) << "SIGHUP: reloading the policy and the instruments";
    service->ReloadPolicy().IgnoreError();  // logged; the old policy stays
    if (access != nullptr && access->enabled() && access->Reload().ok()) {
      LG_LOG(kInfo) << "access file reloaded";
    }
  });

  auto readiness = [service = service->get()] { return ReadinessOf(*service); };
  auto metrics_server = labgate::metrics::StartMetricsFromFlags("labgate-serial", readiness);
  if (!metrics_server.ok()) {
    LG_LOG(kError) << "labgate-serial: " << std::string(metrics_server.status().message());
    return 1;
  }
  if (absl::Status announced =
          labgate::AnnounceServing("labgate-serial", config.listen, (*host)->port());
      !announced.ok()) {
    LG_LOG(kError) << "labgate-serial: " << std::string(announced.message());
    return 1;
  }

  const int signal_number = labgate::WaitForShutdownSignal();
  LG_LOG(kInfo) << "signal " << signal_number << ": draining";
  (*host)->SetServing(kServiceName, false);
  reload_on_hup.reset();
  (*service)->Shutdown();
  (*host)->Shutdown(std::chrono::seconds(5));
  host->reset();
  service->reset();
  LG_LOG(kInfo) << "labgate-serial stopped";
  return 0;
}
