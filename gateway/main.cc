// labgate: the MCP gateway. With no service addresses it hosts every service
// in-process, which is what an MCP client's config launches.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "common/access/access_policy.h"
#include "common/cli.h"
#include "common/flag_names.h"
#include "common/log.h"
#include "common/log_flags.h"
#include "common/reload_signal.h"
#include "common/service_host.h"
#include "gateway/app/application.h"
#include "gateway/app/check_config.h"
#include "gateway/http/http_flags.h"
#include "serial-service/instruments/instrument_catalog.h"
#include "serial-service/policy/policy.h"
#include "serial-service/serial_service.h"

ABSL_FLAG(bool, stdio, true, "Serve MCP over stdin/stdout (the default)");
ABSL_FLAG(bool, conformance_fixtures, false,
          "Add the MCP conformance suite's test_* tools, resources and prompts");
ABSL_FLAG(std::string, data_dir, "",
          "Directory of the embedded session store (default $LABGATE_DATA_DIR, else "
          "$HOME/.local/share/labgate)");
ABSL_FLAG(std::string, session_addr, "",
          "HOST:PORT of a labgate-session to use instead of the embedded one");
ABSL_FLAG(std::string, actions_addr, "",
          "HOST:PORT of a labgate-actions to use instead of the embedded one");
ABSL_FLAG(std::string, serial_addr, "",
          "HOST:PORT of a labgate-serial to use instead of the embedded one; repeat as "
          "NAME=HOST:PORT for several benches, whose ports are then NAME:PORT");
ABSL_FLAG(std::string, log_level, "info", "debug, info, warning, error or off (logs go to stderr)");
ABSL_FLAG(int64_t, max_message_bytes, 4 * 1024 * 1024, "Largest accepted stdio message");
ABSL_FLAG(int64_t, stdio_spin_us, 300,
          "After answering, how long the stdio reader polls for the next request before it "
          "sleeps (0: at once); a client's quick next request then costs no wake-up");
ABSL_FLAG(int64_t, query_spin_us, labgate::serial::kDefaultQueryReplySpinUs,
          "How long the embedded serial service's query polls the device for its reply before "
          "it sleeps (0: at once); a reply within that time costs no wake-up");
ABSL_FLAG(int64_t, capture_buffer_bytes, 1 << 20,
          "Bytes each port of the embedded serial service keeps received and unread; beyond "
          "it the oldest are dropped and counted");
ABSL_FLAG(int64_t, record_coalesce_ms, 20,
          "The embedded serial service records a bound port's received bytes at most this "
          "often");
ABSL_FLAG(int64_t, call_timeout_ms, 30000, "Deadline of each backend call");
ABSL_FLAG(int64_t, io_threads, 2,
          "Threads serving HTTP, the console and the gateway's own timers (1-64), each with an "
          "io_context of its own; HTTP connections are spread over them, and a connection's "
          "requests stay on its thread");
ABSL_FLAG(int64_t, io_spin_us, 300,
          "With --http, how long each io thread polls for its next event after handling one "
          "before it sleeps (0: at once); a client's quick next request then costs no wake-up");
ABSL_FLAG(int64_t, task_threshold_ms, 5000,
          "A call expected to take this long or longer (a wait_for's timeout_ms, a reserve's "
          "wait_s, ...) runs as an MCP task when its client declares the tasks extension");
ABSL_FLAG(int64_t, task_ttl_ms, 24 * 3600 * 1000,
          "How long an MCP task is kept from its creation (its work, then its result)");
ABSL_FLAG(int64_t, approval_timeout_ms, 590000,
          "How long a write a confirm rule holds waits for a person's approval, through the MCP "
          "client or in the console, before it is refused (at most 600000: labgate-serial "
          "forgets the request after 10 minutes)");
ABSL_FLAG(int64_t, tools_page_size, 100, "Items per tools/resources/prompts list page");
ABSL_FLAG(std::string, policy, "",
          "Safety policy (JSON) of the embedded serial service; SIGHUP reloads it (a remote "
          "labgate-serial takes its own --policy)");
ABSL_FLAG(std::string, access_file, "",
          "Who may do what (JSON: roles and permissions per principal); SIGHUP reloads it. "
          "Without it every principal may call every tool");
ABSL_FLAG(std::string, profiles, "",
          "Instrument profiles (a directory of JSON files) of the embedded serial service; SIGHUP "
          "reloads them");
ABSL_FLAG(std::string, instruments, "",
          "Named instruments (JSON) of the embedded serial service; needs --profiles; SIGHUP "
          "reloads it");
ABSL_FLAG(std::string, state_key_file, "",
          "File with the secret (32 bytes or more) that signs 2026-era requestState; gateway "
          "replicas behind one load balancer must share it (default: random per process)");

ABSL_FLAG(bool, heartbeat, false,
          "Write {\"jsonrpc\":\"2.0\",\"method\":\"_heartbeat\",\"params\":{}} on stdout at start "
          "(also MCP_ENABLE_HEARTBEAT=1; MCP_DISABLE_HEARTBEAT, set to anything, turns it off)");

namespace {

// --heartbeat or MCP_ENABLE_HEARTBEAT=1 turn it on; MCP_DISABLE_HEARTBEAT always wins.
bool HeartbeatWanted() {
  if (std::getenv("MCP_DISABLE_HEARTBEAT") != nullptr) return false;
  const char* enable = std::getenv("MCP_ENABLE_HEARTBEAT");
  return absl::GetFlag(FLAGS_heartbeat) || (enable != nullptr && std::string(enable) == "1");
}

std::string DefaultDataDir() {
  if (const char* env = std::getenv("LABGATE_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.local/share/labgate";
  }
  return "./labgate-data";
}

}  // namespace

int main(int argc, char** argv) {
  labgate::BlockShutdownSignals();
  labgate::BlockReloadSignal();
  labgate::SkipMutexDeadlockDetection();
  const std::vector<std::string> positional = labgate::ParseFlags(
      argc, argv,
      "labgate [--http HOST:PORT] [--session-addr|--serial-addr|--actions-addr HOST:PORT] "
      "[--tls-ca FILE [--tls-cert FILE --tls-key FILE]] [--metrics-listen HOST:PORT] "
      "[--log-format json] [--check-config]\n"
      "MCP gateway for lab serial instruments, sessions and actions");

  labgate::LogLevel level;
  if (!labgate::ParseLogLevel(absl::GetFlag(FLAGS_log_level), &level)) {
    std::cerr << "labgate: --log-level must be debug, info, warning, error or off\n";
    return 2;
  }
  labgate::SetLogLevel(level);
  if (absl::Status format = labgate::ApplyLogFormatFlag(); !format.ok()) {
    std::cerr << "labgate: " << format.message() << "\n";
    return 2;
  }

  labgate::gateway::ApplicationOptions options;
  labgate::gateway::BackendOptions& backend_options = options.backend;
  backend_options.data_dir = absl::GetFlag(FLAGS_data_dir);
  if (backend_options.data_dir.empty()) backend_options.data_dir = DefaultDataDir();
  backend_options.session_addr = absl::GetFlag(FLAGS_session_addr);
  backend_options.actions_addr = absl::GetFlag(FLAGS_actions_addr);
  backend_options.serial_addr = absl::GetFlag(FLAGS_serial_addr);
  backend_options.serial_addrs = labgate::FlagValues(argc, argv, "serial-addr");
  backend_options.policy_file = absl::GetFlag(FLAGS_policy);
  backend_options.profiles_dir = absl::GetFlag(FLAGS_profiles);
  backend_options.instruments_file = absl::GetFlag(FLAGS_instruments);
  backend_options.query_reply_spin = std::chrono::microseconds(absl::GetFlag(FLAGS_query_spin_us));
  backend_options.capture.buffer_bytes =
      static_cast<size_t>(std::max<int64_t>(0, absl::GetFlag(FLAGS_capture_buffer_bytes)));
  backend_options.capture.record_coalesce_ms = absl::GetFlag(FLAGS_record_coalesce_ms);
  // --http turns stdio off unless --stdio is named too.
  options.serve_http = labgate::gateway::http::HttpRequested();
  options.serve_stdio = !options.serve_http || labgate::FlagNamed(argc, argv, "stdio");
  auto config =
      labgate::gateway::CheckGatewayConfig(&backend_options, options.serve_stdio, positional);
  if (!backend_options.policy_file.empty() && config.status.ok()) {
    if (!backend_options.serial_addr.empty()) {
      config.status = absl::InvalidArgumentError(
          "--policy applies to the embedded serial service; give it to the remote labgate-serial");
    } else if (auto loaded = labgate::serial::LoadPolicyFile(backend_options.policy_file);
               !loaded.ok()) {
      config.status = loaded.status();
    } else {
      config.lines.push_back("safety policy: " + backend_options.policy_file);
    }
  }
  options.access_file = absl::GetFlag(FLAGS_access_file);
  if (!options.access_file.empty() && config.status.ok()) {
    if (auto loaded = labgate::access::AccessPolicy::Load(options.access_file); !loaded.ok()) {
      config.status = loaded.status();
    } else {
      config.lines.push_back("access file: " + options.access_file);
    }
  }
  if ((!backend_options.profiles_dir.empty() || !backend_options.instruments_file.empty()) &&
      config.status.ok()) {
    if (!backend_options.serial_addr.empty()) {
      config.status = absl::InvalidArgumentError(
          "--profiles and --instruments apply to the embedded serial service; give them to the "
          "remote labgate-serial");
    } else if (auto checked = labgate::serial::CheckInstrumentFiles(
                   backend_options.profiles_dir, backend_options.instruments_file);
               !checked.ok()) {
      config.status = checked.status();
    } else {
      config.lines.push_back(*std::move(checked));
    }
  }
  if (absl::Status capture = labgate::serial::ValidateCaptureOptions(backend_options.capture);
      !capture.ok() && config.status.ok()) {
    config.status = capture;
  }
  if (absl::GetFlag(FLAGS_task_ttl_ms) <= 0 && config.status.ok()) {
    config.status = absl::InvalidArgumentError("--task-ttl-ms must be positive");
  }
  if ((absl::GetFlag(FLAGS_approval_timeout_ms) <= 0 ||
       absl::GetFlag(FLAGS_approval_timeout_ms) > 600000) &&
      config.status.ok()) {
    config.status =
        absl::InvalidArgumentError("--approval-timeout-ms must be between 1 and 600000");
  }
  if (backend_options.query_reply_spin.count() < 0 && config.status.ok()) {
    config.status = absl::InvalidArgumentError("--query-spin-us must not be negative");
  }
  if (absl::GetFlag(FLAGS_io_spin_us) < 0 && config.status.ok()) {
    config.status = absl::InvalidArgumentError("--io-spin-us must not be negative");
  }
  if ((absl::GetFlag(FLAGS_io_threads) < 1 || absl::GetFlag(FLAGS_io_threads) > 64) &&
      config.status.ok()) {
    config.status = absl::InvalidArgumentError("--io-threads must be between 1 and 64");
  }
  if (labgate::CheckConfigRequested() || !config.status.ok()) {
    return labgate::FinishCheckConfig("labgate", config.lines, config.status);
  }
  for (const std::string& line : config.lines) {
    if (absl::StartsWith(line, "warning: ")) LG_LOG(kWarning) << "labgate: " << line.substr(9);
  }
  options.conformance_fixtures = absl::GetFlag(FLAGS_conformance_fixtures);
  options.state_key_file = absl::GetFlag(FLAGS_state_key_file);
  options.max_message_bytes = static_cast<size_t>(absl::GetFlag(FLAGS_max_message_bytes));
  options.stdio_spin = std::chrono::microseconds(absl::GetFlag(FLAGS_stdio_spin_us));
  options.call_timeout_ms = absl::GetFlag(FLAGS_call_timeout_ms);
  options.io_threads = static_cast<int>(absl::GetFlag(FLAGS_io_threads));
  options.io_spin = std::chrono::microseconds(absl::GetFlag(FLAGS_io_spin_us));
  options.page_size = static_cast<size_t>(absl::GetFlag(FLAGS_tools_page_size));
  options.task_ttl = std::chrono::milliseconds(absl::GetFlag(FLAGS_task_ttl_ms));
  options.task_threshold = std::chrono::milliseconds(absl::GetFlag(FLAGS_task_threshold_ms));
  options.approval_timeout = std::chrono::milliseconds(absl::GetFlag(FLAGS_approval_timeout_ms));
  options.heartbeat = HeartbeatWanted();

  auto app = labgate::gateway::Application::Start(options);
  if (!app.ok()) {
    LG_LOG(kError) << "cannot start: " << std::string(app.status().message());
    return 1;
  }
  // A signal trips the shutdown latch, as the end of input does; requests in flight finish.
  std::atomic<bool> stopping{false};
  std::thread signal_thread([&app, &stopping] {
    int signal_number = labgate::WaitForShutdownSignal();
    if (!stopping.load()) (*app)->RequestShutdown("signal " + std::to_string(signal_number));
  });
  const int exit_code = (*app)->Run();
  // Wake the signal thread if something else ended the process.
  stopping.store(true);
  // The thread waits for SIGTERM in sigwait (the signal is blocked): this wakes it, not ends it.
  // NOLINTNEXTLINE(bugprone-bad-signal-to-kill-thread)
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  return exit_code;
}
