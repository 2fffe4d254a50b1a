// The console's view of the serial ports: every bench's ListPorts, and for each port its
// GetStatus (state, owner, bound session, settings, policy), GetMetrics (counters) and, for a
// replay:// port, its ReplayStatus (progress and divergences); a port's Subscribe stream
// (received data, what is written, events) relayed as SSE; and opening a replay.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/access/access_control.h"
#include "gateway/backends/serial_benches.h"
#include "gateway/console/sse_relay.h"
#include "gateway/http/http_connection.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway::console {

// A bench lists at most this many ports; the answer then says "truncated".
inline constexpr size_t kMaxPortsPerBench = 256;

// Whether `principal` may change `port_name` (as clients name it, BENCH:PORT with benches): its
// bench, and the bench's own name for the port among its ports, not read-only. OK without an
// access file or benches; PERMISSION_DENIED (or the bench's NOT_FOUND) otherwise.
absl::Status MayChangePort(const access::AccessControl* access, const SerialBenches* benches,
                           const std::string& principal, const std::string& port_name);

class PortViews {
 public:
  // `benches`: every serial service, the unnamed one included (its ports keep their names).
  PortViews(std::shared_ptr<const SerialBenches> benches, std::chrono::milliseconds deadline);

  using JsonDone = std::function<void(absl::StatusOr<nlohmann::json>)>;
  // {"ports": [...], "benches": [{"name", "address", "reachable", "error"}], "truncated"}.
  void List(JsonDone done) const;
  // One port's entry; NOT_FOUND when its bench does not list it.
  void Describe(const std::string& port_name, JsonDone done) const;
  // Opens `port_name` (a replay://, optionally bench-qualified) for `owner`: {"port_name",
  // "owner"}.
  void OpenReplay(const std::string& owner, const std::string& port_name, JsonDone done) const;
  // Closes `port_name` whoever owns it, as the console's operator `by` for `reason` (the serial
  // service's ForceClose): {"port_name", "status"}.
  void ForceClose(const std::string& port_name, const std::string& by, const std::string& reason,
                  JsonDone done) const;
  // Relays the port's events to `connection` as SSE (404 JSON for a port its bench does
  // not list).
  void Relay(std::shared_ptr<http::HttpConnection> connection, const std::string& port_name,
             std::shared_ptr<RelayRegistry> relays) const;

 private:
  // Shared with the calls in flight, which may complete after the console is gone.
  class Impl;
  std::shared_ptr<const Impl> impl_;
};

// A Subscribe event as the console streams it: {"type": "data"|"written"|"opened"|...,
// "port", "data", "encoding", "dropped_bytes", "reason", "timestamp_ms"}; `port` is the
// name the clients know (with its bench).
nlohmann::json PortEventJson(const labgate::serial::v1::PortEvent& event,
                             const std::string& qualified_name);

}  // namespace labgate::gateway::console
