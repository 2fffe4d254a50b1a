// Hosts gRPC services on one server with health checking and reflection (v1 and v1alpha). Used by
// each standalone service binary and by the gateway's embedded mode.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/grpc_keepalive.h"

namespace labgate {

class ServiceHost {
 public:
  // Starts a server for `services` (not owned; they must outlive the host). An empty
  // `listen_address` serves in-process only. "127.0.0.1:0" picks a free port.
  // `credentials` secure the listening port (common/tls.h); null means plaintext. Callers are
  // pinged per `keepalive` (common/grpc_keepalive.h).
  static absl::StatusOr<std::unique_ptr<ServiceHost>> Start(
      const std::string& listen_address, const std::vector<grpc::Service*>& services,
      std::shared_ptr<grpc::ServerCredentials> credentials = nullptr,
      const GrpcKeepalive& keepalive = {});

  ~ServiceHost();

  // The bound port, or 0 when in-process only.
  int port() const { return port_; }
  grpc::Server* server() { return server_.get(); }
  std::shared_ptr<grpc::Channel> InProcessChannel();

  // Reports `service_name` (and the overall "") in grpc.health.v1.
  void SetServing(const std::string& service_name, bool serving);

  // Stops accepting calls and waits up to `grace` for calls in flight.
  void Shutdown(std::chrono::milliseconds grace);

 private:
  ServiceHost() = default;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  bool shut_down_ = false;
};

// Call first in main(), before any thread starts, so that SIGINT/SIGTERM are only
// seen by WaitForShutdownSignal().
void BlockShutdownSignals();
// Blocks until SIGINT or SIGTERM arrives; returns the signal number.
int WaitForShutdownSignal();

// Turns off absl::Mutex deadlock detection, which Debian's Abseil leaves on and which
// costs a graph lookup on every lock. Binaries call it in main(); tests keep it.
void SkipMutexDeadlockDetection();

}  // namespace labgate
