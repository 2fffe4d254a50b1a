// labgate.serial.v1.SerialService for embedding: the gateway's in-process mode and
// the standalone labgate-serial binary both create it here. Its unary methods are served
// over gRPC (registered on a grpc::Server, common/service_host.h) and in process
// (AddLocalMethods, common/local_methods.h); its streams over gRPC only.
//
// Callers are principals (common/caller_auth.h decides who a gRPC caller is). A principal
// keeps its ports while it holds a Lease stream open (the gateway holds one per MCP
// connection); when its last Lease ends, or it calls ReleaseOwner, its ports close.
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/access/access_control.h"
#include "common/caller_auth.h"
#include "common/local_methods.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "serial-service/backends/serial_port.h"
#include "serial-service/ports/capture_options.h"
#include "serial-service/ports/clock.h"
#include "serial-service/reservations/grant_table.h"

namespace labgate::serial {

// A pty's reply comes within about 50-100 us; a real instrument's takes milliseconds, which
// this costs in CPU per query at most.
inline constexpr int64_t kDefaultQueryReplySpinUs = 200;

struct SerialServiceOptions {
  // Time for idle auto-close and the metrics' durations; null means SystemClock().
  Clock* clock = nullptr;
  // Backend per port name; empty means DefaultPortFactory (loop:// or libserialport).
  PortFactory port_factory;
  // How often a port whose backend has no descriptor polls it while it has subscribers.
  int poll_period_ms = 10;
  // The capture buffer and how received bytes are recorded (see CaptureOptions).
  CaptureOptions capture;
  // How long a query polls the device for its reply before it sleeps: a reply within this
  // time costs no wake-up, at the price of up to this much CPU per query. 0: sleep at once.
  std::chrono::microseconds query_reply_spin{kDefaultQueryReplySpinUs};
  // Events a Subscribe stream may queue before data chunks are dropped.
  int subscriber_queue_limit = 256;
  // Where ports bound to a session (open_port's session_id) are recorded; may also be
  // given later with SetSessionChannel. Null: binding a port is refused.
  std::shared_ptr<grpc::Channel> session_channel;
  // Records waiting for the session service; beyond this they are lost (and counted).
  size_t record_queue_limit = 10000;
  // The safety policy (JSON); empty: no policy, everything is allowed.
  std::string policy_file;
  // Instrument profiles (a directory of JSON files) and named instruments (a JSON file); empty:
  // none. ReloadPolicy reloads them too.
  std::string profiles_dir;
  std::string instruments_file;
  // What the host lists; empty: libserialport's enumeration (see PortServiceOptions).
  std::function<absl::StatusOr<std::vector<PortDetails>>()> port_lister;
  // Who gRPC callers are, and whom they may speak for. By default every caller may name an
  // owner, as the embedded gateway's in-process server needs; labgate-serial sets it from its
  // flags.
  CallerAuthOptions caller_auth = CallerAuthOptions::TrustEveryCaller();
  // Join the bench reservations of the reservation service behind session_channel, as bench
  // `bench`, presenting `session_token` (issue 32): report what can be reserved (named
  // instruments, and the ports that are no instrument's; reservations/inventory_publisher.h),
  // and refuse ports others hold grants on (reservations/grant_watcher.h).
  bool publish_inventory = false;
  std::string bench;
  std::string session_token;
  // Who may use and change which port (--access-file; the gateway's own in embedded mode).
  // Null or disabled: every principal may use every port.
  std::shared_ptr<const access::AccessControl> access;
};

class SerialGrpcService : public v1::SerialService::CallbackService {
 public:
  ~SerialGrpcService() override = default;
  // Closes every port, ends every Subscribe and Lease stream, and refuses new calls
  // with UNAVAILABLE. Call before shutting the grpc::Server down. Idempotent.
  virtual void Shutdown() = 0;
  // The session service's channel, for recording (embedded mode knows it only once
  // the in-process server runs). Call before ports are bound.
  virtual void SetSessionChannel(std::shared_ptr<grpc::Channel> channel) = 0;
  // Reads policy_file, and the profiles and instruments, again. Files that do not load leave
  // what was in force, and the error is returned.
  virtual absl::Status ReloadPolicy() = 0;
  // Registers every unary method for in-process calls.
  virtual void AddLocalMethods(LocalMethods* methods) = 0;
  // Joins the bench reservations of the reservation service behind `channel` (when not joined
  // at creation; see publish_inventory), as bench `bench`, presenting `token` (empty: none).
  virtual void JoinReservations(const std::shared_ptr<grpc::Channel>& channel,
                                const std::string& bench, const std::string& token) = 0;
  // Whether the reservation service is reachable, and the grants enforced; nullopt when this
  // serial service does not join reservations.
  virtual std::optional<GrantTable::State> ReservationState() const = 0;
};

absl::StatusOr<std::unique_ptr<SerialGrpcService>> CreateSerialService(
    const SerialServiceOptions& options);

}  // namespace labgate::serial
