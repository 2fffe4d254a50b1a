// Wiring: for each labgate service, either host it in-process (embedded mode) or
// connect to the remote address given on the command line.
#pragma once

#include <google/protobuf/descriptor.h>
#include <grpcpp/security/credentials.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/access/access_control.h"
#include "common/service_host.h"
#include "gateway/backends/backend_channels.h"
#include "serial-service/serial_service.h"

namespace labgate::gateway {

struct BackendOptions {
  std::string data_dir;      // embedded session store
  std::string session_addr;  // empty = embedded
  std::string actions_addr;  // empty = embedded
  std::string serial_addr;   // empty = embedded
  // Every --serial-addr; several, or named ones (NAME=HOST:PORT), make benches.
  std::vector<std::string> serial_addrs;
  std::vector<Bench> serial_benches;  // parsed from serial_addrs when benched
  // For the remote services (common/tls.h); null = plaintext.
  std::shared_ptr<grpc::ChannelCredentials> channel_credentials;
  // Presented to every remote service (authorization: Bearer TOKEN); empty: none.
  std::string gateway_token;
  // The embedded serial service's safety policy (JSON); empty: none.
  std::string policy_file;
  // The embedded serial service's instrument profiles and named instruments; empty: none.
  std::string profiles_dir;
  std::string instruments_file;
  // How long the embedded serial service's query polls for the reply before it sleeps.
  std::chrono::microseconds query_reply_spin{serial::kDefaultQueryReplySpinUs};
  // The embedded serial service's capture buffer and record coalescing.
  serial::CaptureOptions capture;
  // The access file the embedded serial service enforces on ports (the gateway's own);
  // null: none.
  std::shared_ptr<const access::AccessControl> access;
};

// A channel to a remote labgate service, with reconnect backoff capped at about 1 s; every
// call on it presents `gateway_token` when it is not empty.
std::shared_ptr<grpc::Channel> RemoteChannel(const std::string& address,
                                             std::shared_ptr<grpc::ChannelCredentials> credentials,
                                             const std::string& gateway_token = "");

class Backends {
 public:
  static absl::StatusOr<std::unique_ptr<Backends>> Start(const BackendOptions& options);
  ~Backends();

  const BackendChannels& channels() const { return channels_; }
  std::shared_ptr<grpc::Channel> actions_channel() const;
  std::shared_ptr<grpc::Channel> serial_channel() const;
  std::shared_ptr<grpc::Channel> session_channel() const;
  // Reloads the embedded serial service's policy file (SIGHUP); a no-op when the serial
  // service is remote, which reloads on its own SIGHUP.
  absl::Status ReloadPolicy();
  // The services whose annotated methods become tools.
  std::vector<const google::protobuf::ServiceDescriptor*> ToolServices() const;
  // Ends streams, drains in-process calls and stops the embedded services.
  void Shutdown(std::chrono::milliseconds grace);

 private:
  struct Embedded;
  Backends();
  BackendChannels channels_;
  std::unique_ptr<Embedded> embedded_;
};

}  // namespace labgate::gateway
