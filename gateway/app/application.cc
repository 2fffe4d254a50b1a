#include "gateway/app/application.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>
#include <vector>

#include "common/access/access_control.h"
#include "common/log.h"
#include "common/reload_signal.h"
#include "gateway/actions/action_tools.h"
#include "gateway/app/backend_watch.h"
#include "gateway/app/backends.h"
#include "gateway/approvals/approval_board.h"
#include "gateway/catalog/tool_catalog.h"
#include "gateway/conformance/conformance_fixtures.h"
#include "gateway/console/console.h"
#include "gateway/core/gateway_metrics.h"
#include "gateway/core/process_io_context.h"
#include "gateway/dialects/loaf/loaf_dialect.h"
#include "gateway/dialects/mcp_stateless/stateless_dialect.h"
#include "gateway/http/grpc_health_probe.h"
#include "gateway/http/http_flags.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/prompts/labgate_prompts.h"
#include "gateway/resources/labgate_resources.h"
#include "gateway/resources/port_changes.h"
#include "gateway/resources/port_list_watch.h"
#include "gateway/resources/reservation_resources.h"
#include "gateway/resources/session_list_watch.h"
#include "gateway/server/stdio_connection.h"
#include "gateway/tasks/task_client.h"
#include "gateway/tasks/task_runner.h"
#include "gateway/tools/catalog_tools.h"
#include "gateway/tools/reservation_waits.h"
#include "gateway/transport/spinning_io_loop.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "labgate/tasks/v1/tasks.grpc.pb.h"

namespace labgate::gateway {

// Everything the process runs, in the order it is built (and the reverse it is torn down).
struct Application::Parts {
  ApplicationOptions options;
  std::unique_ptr<Backends> backends;
  std::unique_ptr<ToolCatalog> catalog;
  std::unique_ptr<ToolInvoker> invoker;
  std::unique_ptr<ActionTools> action_tools;
  std::unique_ptr<OwnerLeases> leases;
  std::unique_ptr<PortEventLog> port_event_log;
  std::unique_ptr<CatalogTools> catalog_tools;
  // Declared before the server: subscriptions the server's sessions hold end before it goes.
  std::unique_ptr<ReservationWatch> reservation_watch;
  std::unique_ptr<ReservationWaits> reservation_waits;
  std::unique_ptr<TaskClient> task_client;
  std::unique_ptr<TaskRunner> task_runner;        // stopped before the backends go
  std::shared_ptr<access::AccessControl> access;  // --access-file
  McpServer server;
  std::unique_ptr<LabgateResources> resources;
  std::unique_ptr<ReservationResources> reservation_resources;
  PortChanges port_changes;
  std::unique_ptr<SessionListWatch> session_list_watch;  // stopped before `server` goes
  std::unique_ptr<PortListWatch> port_list_watch;        // likewise
  std::unique_ptr<LabgatePrompts> prompts;
  std::unique_ptr<stateless::StatelessDialect> stateless;
  std::unique_ptr<loaf::LoafDialect> loaf;
  boost::asio::io_context& io = ProcessLifetimeIoContext();  // see there why
  // With --io-threads N > 1, N - 1 more, each run by one thread of its own: HTTP connections
  // are spread over them and `io`, so a connection's steps never change threads.
  std::vector<boost::asio::io_context*> more_io;
  std::vector<
      std::unique_ptr<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>>
      work;
  std::vector<std::thread> io_threads;
  std::unique_ptr<ConformanceFixtures> fixtures;
  // Writes held for an approval where a console is served; goes before the tools it calls.
  std::unique_ptr<ApprovalBoard> approvals;
  std::unique_ptr<console::Console> console;  // outlives the server that routes to it
  std::unique_ptr<http::HttpServer> http_server;
  std::unique_ptr<http::HttpServer> operator_server;  // --metrics-listen
  std::unique_ptr<BackendWatch> backend_watch;
  std::unique_ptr<StdioConnection> stdio;
  std::thread stdio_watch;
  std::unique_ptr<ReloadWatcher> reload_on_hup;  // the access file, the embedded policy

  void StopIo() {
    work.clear();
    io.stop();
    for (boost::asio::io_context* context : more_io) context->stop();
    for (auto& thread : io_threads) {
      if (thread.joinable()) thread.join();
    }
  }
};

namespace {

// The console reads every serial bench (one unnamed bench without --serial-addr NAME=),
// the session service, and the same health checks as /readyz.
console::ConsoleOptions ConsoleOptionsFor(const Backends& backends,
                                          std::chrono::milliseconds deadline) {
  const BackendChannels& channels = backends.channels();
  console::ConsoleOptions options;
  if (const SerialBenches* benches = channels.serial_benches()) {
    options.serial_benches = std::make_shared<const SerialBenches>(benches->all());
  } else {
    options.serial_benches = std::make_shared<const SerialBenches>(std::vector<Bench>{
        Bench{"", channels.AddressOf(channels.serial_service()), backends.serial_channel()}});
  }
  options.session_channel = backends.session_channel();
  options.reservation_channel =
      backends.channels().For(labgate::reservations::v1::ReservationService::service_full_name());
  options.task_channel =
      backends.channels().For(labgate::tasks::v1::TaskService::service_full_name());
  options.health_channels = channels.Labelled();
  options.call_deadline = std::min<std::chrono::milliseconds>(deadline, std::chrono::seconds(10));
  return options;
}

}  // namespace

Application::Application(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {
  if (parts_->loaf) {
    // system.shutdown trips the same latch as the end of input: in-flight work drains first.
    parts_->loaf->OnShutdown([this](const std::string& reason) {
      RequestShutdown(reason.empty() ? "system.shutdown" : "system.shutdown: " + reason);
    });
  }
}

Application::~Application() {
  if (parts_->stdio_watch.joinable()) {
    if (parts_->stdio) parts_->stdio->Interrupt();
    parts_->stdio_watch.join();
  }
  parts_->StopIo();
}

absl::StatusOr<std::unique_ptr<Application>> Application::Start(const ApplicationOptions& options) {
  auto parts = std::make_unique<Parts>();
  Parts& p = *parts;
  p.options = options;
  GatewayMetrics::Get();  // every family is listed from the first scrape on
  auto access_file = access::AccessControl::FromFile(options.access_file);
  if (!access_file.ok()) return access_file.status();
  p.access = *std::move(access_file);
  BackendOptions backend_options = options.backend;
  backend_options.access = p.access;
  auto backends = Backends::Start(backend_options);
  if (!backends.ok()) return backends.status();
  p.backends = std::move(*backends);
  auto catalog = ToolCatalog::FromServices(p.backends->ToolServices());
  if (!catalog.ok()) {
    return absl::InternalError("bad tool catalog: " + std::string(catalog.status().message()));
  }
  p.catalog = std::move(*catalog);

  const auto call_deadline = std::chrono::milliseconds(options.call_timeout_ms);
  p.invoker = std::make_unique<ToolInvoker>(&p.backends->channels());
  p.invoker->SetAccess(p.access);
  p.action_tools = std::make_unique<ActionTools>(p.backends->actions_channel(), call_deadline);
  p.action_tools->SetServiceAddress(options.backend.actions_addr);
  p.action_tools->SetLocal(
      p.backends->channels().LocalFor(labgate::actions::v1::ActionsService::service_full_name()));
  p.action_tools->Start(/*watch_connectivity=*/!options.backend.actions_addr.empty());
  p.leases = std::make_unique<OwnerLeases>(
      p.backends->channels().ChannelsOf(labgate::serial::v1::SerialService::service_full_name()),
      labgate::serial::v1::SerialService::service_full_name());
  p.catalog_tools = std::make_unique<CatalogTools>(p.catalog.get(), p.invoker.get(), p.leases.get(),
                                                   call_deadline);
  p.catalog_tools->SetTaskThreshold(options.task_threshold);
  p.server.access = std::make_shared<ToolAccess>(p.access);
  p.server.config.instructions = DefaultInstructions();
  p.server.config.call_deadline = call_deadline;
  p.server.config.page_size = options.page_size;
  const std::shared_ptr<grpc::Channel> reservation_channel = p.backends->channels().For(
      labgate::reservations::v1::ReservationService::service_full_name());
  p.reservation_watch = ReservationWatch::Start(reservation_channel);
  p.reservation_waits =
      std::make_unique<ReservationWaits>(p.catalog_tools.get(), p.catalog.get(), p.invoker.get(),
                                         p.reservation_watch.get(), call_deadline);
  p.task_client = std::make_unique<TaskClient>(&p.backends->channels());
  TaskRunnerOptions task_options;
  task_options.ttl = options.task_ttl;
  p.task_runner = std::make_unique<TaskRunner>(p.task_client.get(), task_options);
  p.server.tasks = p.task_runner.get();
  p.catalog_tools->SetTaskHost(p.task_runner.get());
  // reserve is answered by the waits, before the catalog that lists it.
  p.server.tools = {p.reservation_waits.get(), p.catalog_tools.get(), p.action_tools.get()};
  p.resources = std::make_unique<LabgateResources>(
      ResourceChannels{p.backends->session_channel(), p.backends->serial_channel(),
                       p.backends->actions_channel(), p.backends->channels().serial_benches()},
      call_deadline);
  p.prompts = std::make_unique<LabgatePrompts>(p.resources.get());
  p.reservation_resources = std::make_unique<ReservationResources>(
      p.reservation_watch.get(), reservation_channel, call_deadline);
  p.server.resources = {p.resources.get(), p.reservation_resources.get()};
  p.server.prompts = {p.prompts.get()};
  McpServer* server = &p.server;
  p.action_tools->OnChanged([server] { server->NotifyListChanged(ListKind::kTools); });
  // Resource list changes: ports opened or closed by tool calls here (before their result),
  // and by anyone (each serial service's watch of every port); sessions created or closed by
  // anyone (the session service's watch of every session).
  p.catalog_tools->OnPortsChanged([server] { server->NotifyListChanged(ListKind::kResources); });
  p.catalog_tools->OnPortTouched(
      [changes = &p.port_changes](const std::string& port) { changes->Touch(port); });
  p.resources->SetPortChanges(&p.port_changes);
  p.port_event_log = std::make_unique<PortEventLog>(p.backends->serial_channel(),
                                                    p.backends->channels().serial_benches());
  p.catalog_tools->SetPortEventLog(p.port_event_log.get());
  p.backend_watch = BackendWatch::Start(p.backends->channels());
  p.session_list_watch = SessionListWatch::Start(
      p.backends->session_channel(), [server] { server->NotifyListChanged(ListKind::kResources); });
  p.port_list_watch = PortListWatch::Start(
      p.backends->channels().ChannelsOf(labgate::serial::v1::SerialService::service_full_name()),
      [server] { server->NotifyListChanged(ListKind::kResources); });

  stateless::RequestStateCodec codec;
  if (!options.state_key_file.empty()) {
    auto loaded = stateless::RequestStateCodec::FromKeyFile(options.state_key_file);
    if (!loaded.ok()) return loaded.status();
    codec = std::move(*loaded);
  }
  p.stateless = std::make_unique<stateless::StatelessDialect>(&p.server, std::move(codec));

  for (int i = 1; i < options.io_threads; ++i) p.more_io.push_back(&ProcessLifetimeIoContext());
  std::vector<boost::asio::io_context*> contexts{&p.io};
  contexts.insert(contexts.end(), p.more_io.begin(), p.more_io.end());
  // On stdio alone the reader thread polls for itself (--stdio-spin-us); the io threads then
  // have only timers and the console, for which a wake-up is no cost.
  const std::chrono::microseconds io_spin =
      options.serve_http ? options.io_spin : std::chrono::microseconds(0);
  for (boost::asio::io_context* context : contexts) {
    p.work.push_back(
        std::make_unique<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>(
            boost::asio::make_work_guard(*context)));
    p.io_threads.emplace_back([context, io_spin] { RunSpinning(*context, io_spin); });
  }
  if (contexts.size() == 1) contexts.clear();  // one thread: the server's own io_context
  // Registered before any connection is served; off unless asked for.
  if (options.conformance_fixtures) p.fixtures = CreateConformanceFixtures(&p.server, p.io);

  // Ready when every backend answers grpc.health.v1 Check (callback API, 2 s deadline).
  auto readiness =
      http::GrpcHealthProbe(p.backends->channels().Labelled(), std::chrono::seconds(2));
  if (options.serve_http) {
    auto started =
        http::StartHttpFromFlags(p.io, &p.server, readiness, p.stateless.get(), contexts);
    if (!started.ok()) {
      p.StopIo();
      return absl::Status(started.status().code(),
                          "cannot serve HTTP: " + std::string(started.status().message()));
    }
    p.http_server = std::move(*started);
  }
  auto operator_started = http::StartOperatorHttpFromFlags(p.io, &p.server, readiness);
  if (!operator_started.ok()) {
    p.StopIo();
    return absl::Status(
        operator_started.status().code(),
        "cannot serve metrics: " + std::string(operator_started.status().message()));
  }
  p.operator_server = std::move(*operator_started);
  // The console is served beside /metrics too, so a stdio-only gateway can be browsed.
  if (p.http_server || p.operator_server) {
    p.approvals =
        std::make_unique<ApprovalBoard>(absl::Milliseconds(options.approval_timeout.count()));
    console::ConsoleOptions console_options = ConsoleOptionsFor(*p.backends, call_deadline);
    p.catalog_tools->SetApprovalDesk({p.approvals.get(), p.access, console_options.serial_benches});
    console_options.access = p.access;
    console_options.approvals = p.approvals.get();
    p.console = std::make_unique<console::Console>(std::move(console_options));
    if (p.http_server) {
      p.http_server->SetConsole(p.console.get());
      http::HttpServer* server = p.http_server.get();  // outlives the console's use of it
      p.console->SetSessionRevoker(
          [server](const std::string& principal) { return server->RevokeSessionsOf(principal); });
    }
    if (p.operator_server) p.operator_server->SetConsole(p.console.get());
  }
  if (options.serve_stdio) {
    StdioTransport::Options stdio_options;
    stdio_options.max_message_bytes = options.max_message_bytes;
    stdio_options.input_spin = options.stdio_spin;
    p.loaf = std::make_unique<loaf::LoafDialect>(p.backends->session_channel(), call_deadline);
    p.stdio = std::make_unique<StdioConnection>(
        StdioDialects{&p.server, p.action_tools.get(), p.stateless.get(), p.loaf.get()}, p.io,
        stdio_options);
  }
  const bool serial_reloadable =
      (!options.backend.policy_file.empty() || !options.backend.profiles_dir.empty() ||
       !options.backend.instruments_file.empty()) &&
      options.backend.serial_addr.empty() && options.backend.serial_addrs.empty();
  if (serial_reloadable || p.access->enabled()) {
    Backends* backends_ptr = p.backends.get();
    access::AccessControl* access_ptr = p.access.get();
    p.reload_on_hup =
        std::make_unique<ReloadWatcher>([backends_ptr, access_ptr, server, serial_reloadable] {
          if (access_ptr->enabled()) {
            LG_LOG(kInfo) << "SIGHUP: reloading the access file";
            if (access_ptr->Reload().ok()) {
              LG_LOG(kInfo) << "access file reloaded";
              // Each principal's tools/list may have changed: tell the clients to fetch it.
              server->NotifyListChanged(ListKind::kTools);
            }
          }
          if (serial_reloadable) {
            LG_LOG(kInfo) << "SIGHUP: reloading the policy and the instruments";
            backends_ptr->ReloadPolicy().IgnoreError();  // logged; the old policy stays
          }
        });
  }
  return std::unique_ptr<Application>(new Application(std::move(parts)));
}

void Application::RequestShutdown(const std::string& why) {
  if (shutdown_requested_.exchange(true)) return;
  LG_LOG(kInfo) << why << ": shutting down";
  shutdown_.Notify();
}

int Application::Run() {
  Parts& p = *parts_;
  if (p.stdio) {
    if (p.options.heartbeat) p.stdio->SendHeartbeat();
    p.stdio->Start();
    LG_LOG(kInfo) << "labgate " << p.server.config.version << " serving MCP on stdio with "
                  << p.catalog_tools->ListTools().size() + p.action_tools->ListTools().size()
                  << " tools";
    p.stdio_watch = std::thread([this] {
      parts_->stdio->WaitForEndOfInput();
      RequestShutdown("end of input");
    });
  }
  shutdown_.WaitForNotification();
  if (p.stdio) p.stdio->Interrupt();
  if (p.http_server) p.http_server->Stop();
  if (p.operator_server) p.operator_server->Stop();
  if (p.console) p.console->Stop();  // its streams end before the backends go
  p.backend_watch.reset();
  if (p.stdio) p.stdio->Drain(std::chrono::seconds(10));
  if (p.stdio_watch.joinable()) p.stdio_watch.join();
  p.reload_on_hup.reset();
  p.action_tools->Stop();
  p.reservation_watch->Stop();  // no new stream on a backend that is going
  p.task_runner->Stop(std::chrono::seconds(2));
  p.backends->Shutdown(std::chrono::seconds(5));
  p.StopIo();
  LG_LOG(kInfo) << "labgate stopped";
  return 0;
}

}  // namespace labgate::gateway
