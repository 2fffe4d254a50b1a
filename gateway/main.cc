// labgate: the MCP gateway. With no service addresses it hosts every service
// in-process, which is what an MCP client's config launches.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <cstdlib>
#include <iostream>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "common/cli.h"
#include "common/log.h"
#include "common/service_host.h"
#include "gateway/app/backends.h"
#include "gateway/app/check_config.h"
#include "gateway/catalog/tool_catalog.h"
#include "gateway/conformance/conformance_fixtures.h"
#include "gateway/http/grpc_health_probe.h"
#include "gateway/http/http_flags.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/prompts/labgate_prompts.h"
#include "gateway/resources/labgate_resources.h"
#include "gateway/server/stdio_connection.h"
#include "gateway/tools/catalog_tools.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

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
ABSL_FLAG(int64_t, call_timeout_ms, 30000, "Deadline of each backend call");
ABSL_FLAG(int64_t, tools_page_size, 100, "Items per tools/resources/prompts list page");

namespace {

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
  labgate::SkipMutexDeadlockDetection();
  const std::vector<std::string> positional = labgate::ParseFlags(
      argc, argv,
      "labgate [--http HOST:PORT] [--session-addr|--serial-addr|--actions-addr HOST:PORT] "
      "[--tls-ca FILE [--tls-cert FILE --tls-key FILE]] [--check-config]\n"
      "MCP gateway for lab serial instruments, sessions and actions");

  labgate::LogLevel level;
  if (!labgate::ParseLogLevel(absl::GetFlag(FLAGS_log_level), &level)) {
    std::cerr << "labgate: --log-level must be debug, info, warning, error or off\n";
    return 2;
  }
  labgate::SetLogLevel(level);

  labgate::gateway::BackendOptions backend_options;
  backend_options.data_dir = absl::GetFlag(FLAGS_data_dir);
  if (backend_options.data_dir.empty()) backend_options.data_dir = DefaultDataDir();
  backend_options.session_addr = absl::GetFlag(FLAGS_session_addr);
  backend_options.actions_addr = absl::GetFlag(FLAGS_actions_addr);
  backend_options.serial_addr = absl::GetFlag(FLAGS_serial_addr);
  backend_options.serial_addrs = labgate::gateway::RepeatedFlag(argc, argv, "serial-addr");
  const auto config = labgate::gateway::CheckGatewayConfig(
      &backend_options,
      !labgate::gateway::http::HttpRequested() || labgate::gateway::http::StdioNamed(argc, argv),
      positional);
  if (labgate::CheckConfigRequested() || !config.status.ok()) {
    return labgate::FinishCheckConfig("labgate", config.lines, config.status);
  }
  auto backends = labgate::gateway::Backends::Start(backend_options);
  if (!backends.ok()) {
    LG_LOG(kError) << "cannot start: " << std::string((backends.status().message()));
    return 1;
  }
  auto catalog = labgate::gateway::ToolCatalog::FromServices((*backends)->ToolServices());
  if (!catalog.ok()) {
    LG_LOG(kError) << "bad tool catalog: " << std::string(catalog.status().message());
    return 1;
  }

  labgate::gateway::ToolInvoker invoker(&(*backends)->channels());
  const auto call_deadline = std::chrono::milliseconds(absl::GetFlag(FLAGS_call_timeout_ms));
  labgate::gateway::ActionTools action_tools((*backends)->actions_channel(), call_deadline);
  action_tools.SetServiceAddress(backend_options.actions_addr);
  action_tools.Start(/*watch_connectivity=*/!backend_options.actions_addr.empty());
  labgate::gateway::OwnerLeases leases(
      (*backends)->channels().ChannelsOf(labgate::serial::v1::SerialService::service_full_name()),
      labgate::serial::v1::SerialService::service_full_name());
  labgate::gateway::CatalogTools catalog_tools(catalog->get(), &invoker, &leases, call_deadline);

  labgate::gateway::McpServer server;
  server.config.instructions = labgate::gateway::DefaultInstructions();
  server.config.call_deadline = call_deadline;
  server.config.page_size = static_cast<size_t>(absl::GetFlag(FLAGS_tools_page_size));
  server.tools = {&catalog_tools, &action_tools};
  labgate::gateway::LabgateResources resources(
      {(*backends)->session_channel(), (*backends)->serial_channel(),
       (*backends)->actions_channel(), (*backends)->channels().serial_benches()},
      call_deadline);
  labgate::gateway::LabgatePrompts prompts(&resources);
  server.resources = {&resources};
  server.prompts = {&prompts};
  action_tools.OnChanged(
      [&server] { server.NotifyListChanged(labgate::gateway::ListKind::kTools); });

  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::vector<std::thread> io_threads;
  for (int i = 0; i < 2; ++i) io_threads.emplace_back([&io] { io.run(); });
  // Registered before any connection is served; off unless asked for.
  std::unique_ptr<labgate::gateway::ConformanceFixtures> conformance_fixtures;
  if (absl::GetFlag(FLAGS_conformance_fixtures)) {
    conformance_fixtures = labgate::gateway::CreateConformanceFixtures(&server, io);
  }

  // --http turns stdio off unless --stdio is named too.
  const bool serve_stdio =
      !labgate::gateway::http::HttpRequested() || labgate::gateway::http::StdioNamed(argc, argv);
  std::unique_ptr<labgate::gateway::http::HttpServer> http_server;
  if (labgate::gateway::http::HttpRequested()) {
    // Ready when every backend answers grpc.health.v1 Check (callback API, 2 s deadline).
    auto readiness = labgate::gateway::http::GrpcHealthProbe((*backends)->channels().Labelled(),
                                                             std::chrono::seconds(2));
    auto started = labgate::gateway::http::StartHttpFromFlags(io, &server, readiness);
    if (!started.ok()) {
      LG_LOG(kError) << "cannot serve HTTP: " << std::string(started.status().message());
      work.reset();
      io.stop();
      for (auto& thread : io_threads) thread.join();
      return 1;
    }
    http_server = std::move(*started);
  }

  labgate::gateway::StdioTransport::Options stdio_options;
  stdio_options.max_message_bytes = static_cast<size_t>(absl::GetFlag(FLAGS_max_message_bytes));
  labgate::gateway::StdioConnection connection(&server, &action_tools, io, stdio_options);

  // A signal ends input just as EOF does; the requests in flight still finish.
  std::atomic<bool> stopping{false};
  std::thread signal_thread([&connection, &stopping] {
    int signal_number = labgate::WaitForShutdownSignal();
    if (!stopping.load()) LG_LOG(kInfo) << "signal " << signal_number << ": shutting down";
    connection.Interrupt();
  });

  if (serve_stdio) connection.Start();
  if (serve_stdio)
    LG_LOG(kInfo) << "labgate " << server.config.version << " serving MCP on stdio with "
                  << catalog_tools.ListTools().size() + action_tools.ListTools().size() << " tools";
  connection.WaitForEndOfInput();
  if (http_server) http_server->Stop();
  if (serve_stdio) connection.Drain(std::chrono::seconds(10));

  // Wake the signal thread if input ended by EOF.
  stopping.store(true);
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();

  action_tools.Stop();
  (*backends)->Shutdown(std::chrono::seconds(5));
  work.reset();
  io.stop();
  for (auto& thread : io_threads) thread.join();
  LG_LOG(kInfo) << "labgate stopped";
  return 0;
}
