// The gateway process: its backends, tool providers, dialects and transports, and one
// shutdown latch. Whatever ends the process (stdin's end when stdio is served, a signal, a
// shutdown request) trips the latch; an HTTP-only gateway never depends on stdio to stop.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "gateway/app/backends.h"

namespace labgate::gateway {

struct ApplicationOptions {
  BackendOptions backend;  // embedded or remote services, benches, TLS
  bool conformance_fixtures = false;
  bool serve_stdio = true;
  bool serve_http = false;
  std::string state_key_file;  // requestState HMAC key; empty: random per process
  size_t max_message_bytes = 4 * 1024 * 1024;
  // How long the stdio reader polls for the next request before it sleeps (StdioTransport).
  std::chrono::microseconds stdio_spin{300};
  int64_t call_timeout_ms = 30000;
  int io_threads = 2;  // io_contexts, one thread each, HTTP connections spread over them
  // With HTTP served, how long each io thread polls for its next event before it sleeps
  // (RunSpinning).
  std::chrono::microseconds io_spin{300};
  size_t page_size = 100;
  std::chrono::milliseconds task_ttl{std::chrono::hours(24)};  // MCP tasks' ttlMs
  std::chrono::milliseconds task_threshold{5000};  // calls expected to take longer are tasks
  // How long a held write waits for an approval where a console is served.
  std::chrono::milliseconds approval_timeout{590000};
  // Write {"jsonrpc":"2.0","method":"_heartbeat","params":{}} on stdout at start (off by
  // default: strict MCP clients reject an unknown message before initialize).
  bool heartbeat = false;
  // Who may do what (--access-file, JSON; SIGHUP reloads it); empty: everyone, everything.
  std::string access_file;
};

class Application {
 public:
  static absl::StatusOr<std::unique_ptr<Application>> Start(const ApplicationOptions& options);
  ~Application();

  // Blocks until the latch trips, then drains and stops everything. Returns the exit code.
  int Run();
  // Trips the latch (any thread, any number of times).
  void RequestShutdown(const std::string& why);

  struct Parts;

 private:
  explicit Application(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
  absl::Notification shutdown_;
  std::atomic<bool> shutdown_requested_{false};
};

}  // namespace labgate::gateway
