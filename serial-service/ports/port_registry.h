// The open ports, who owns each, and the owners' leases. Never blocks on a device:
// it only hands work to the ports' workers.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "serial-service/backends/serial_port.h"
#include "serial-service/ports/clock.h"
#include "serial-service/ports/event_hub.h"
#include "serial-service/ports/managed_port.h"

namespace labgate::serial {

// FAILED_PRECONDITION naming the owner (the principal) that holds the port.
absl::Status PortInUseError(const std::string& name, const std::string& holder);

class PortRegistry {
 public:
  PortRegistry(PortFactory factory, Clock* clock, EventHub* hub, int poll_period_ms = 10,
               SessionRecorder* recorder = nullptr,
               std::chrono::microseconds query_reply_spin = std::chrono::microseconds(0),
               CaptureOptions capture = {});
  // Closes every port and waits (bounded) for the closes.
  ~PortRegistry();
  PortRegistry(const PortRegistry&) = delete;
  PortRegistry& operator=(const PortRegistry&) = delete;

  // Opens `name` for `owner`; `done` runs on the port's worker (or at once on a
  // conflict). ALREADY_EXISTS "Port is already open" for the owner's own open port,
  // FAILED_PRECONDITION "port X is in use by another client (held by OWNER)" for another's. A port
  // in the error state is replaced.
  // An instrument's port (`identity`) is called `name` (the instrument's) and opens the device
  // at identity.device_path. A device that another port already has open is refused.
  void Open(const std::string& owner, const std::string& name, const PortSettings& settings,
            std::function<void(absl::Status)> done, const PortIdentity& identity = {});
  // A backend for the device at `path`, as opens make them.
  std::unique_ptr<SerialPort> MakeBackend(const std::string& path) const { return factory_(path); }
  // The open (or lost) port whose device is at `path`, whatever it is called; null: none.
  std::shared_ptr<ManagedPort> FindByDevice(const std::string& path) const;

  // The port a call addresses. With no name: the owner's only open port, else
  // FAILED_PRECONDITION (none open) or INVALID_ARGUMENT listing the open ports.
  // With a name: FAILED_PRECONDITION when not open. Whose port it is, is PortService's
  // check.
  absl::StatusOr<std::shared_ptr<ManagedPort>> Select(const std::string& owner,
                                                      const std::optional<std::string>& name) const;
  std::shared_ptr<ManagedPort> Find(const std::string& name) const;

  // Names of all open ports (any owner), sorted.
  std::vector<std::string> OpenPortNames() const;
  std::vector<std::string> OpenPortNamesOf(const std::string& owner) const;

  // Closes the owner's ports; `done` (optional) gets their names once all closed.
  void CloseAllOf(const std::string& owner, const std::string& reason,
                  std::function<void(std::vector<std::string>)> done);
  // Closes every port and waits up to `wait` for the closes to finish.
  void CloseAll(const std::string& reason, absl::Duration wait);

  // An owner is connected while it holds at least one lease; releasing the last one
  // closes its ports.
  void AcquireLease(const std::string& owner);
  void ReleaseLease(const std::string& owner);
  int LeaseCount(const std::string& owner) const;
  // The owner's presence as a call begins: null when it holds no lease; otherwise a flag that
  // turns true once those leases have all ended.
  using LeaseMark = std::shared_ptr<const std::atomic<bool>>;
  LeaseMark MarkLease(const std::string& owner) const;
  // Whether the owner held a lease at `mark` and holds none now: it has gone since.
  bool GoneSince(const std::string& owner, const LeaseMark& mark) const;

  int64_t IdleCloseCount(const std::string& name) const;

  // Asked before each write that joins a device's unfinished line (PortEnvironment::write_gate).
  // Set once, before any port opens.
  void SetWriteGate(decltype(PortEnvironment::write_gate) gate) { write_gate_ = std::move(gate); }
  // How many devices' unfinished lines are kept (those of open ports, and of closed ones whose
  // device holds half a line).
  size_t WrittenLinesKept() const ABSL_LOCKS_EXCLUDED(mu_);
  // The line a closed port's device at `device_path` was left holding; null when none.
  std::shared_ptr<SharedWrittenLine> UnfinishedLineAt(const std::string& device_path) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // `port`'s device came back at `device_path`: the line it holds is kept under that path, so
  // the next open there finds it (and another device at the old path does not).
  void MoveWrittenLine(const ManagedPort& port, const std::string& device_path)
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // By name, or an instrument's port by its device path or its instrument's name.
  std::shared_ptr<ManagedPort> FindLocked(const std::string& name) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnPortClosed(const std::string& name, const void* port);
  int64_t CountIdleClose(const std::string& name);

  const PortFactory factory_;
  Clock* const clock_;
  EventHub* const hub_;
  const int poll_period_ms_;
  SessionRecorder* const recorder_;
  const std::chrono::microseconds query_reply_spin_;
  const CaptureOptions capture_;

  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<ManagedPort>> ports_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> idle_close_counts_ ABSL_GUARDED_BY(mu_);
  struct Leases {
    int count = 0;
    std::shared_ptr<std::atomic<bool>> ended = std::make_shared<std::atomic<bool>>(false);
  };
  std::map<std::string, Leases> leases_ ABSL_GUARDED_BY(mu_);
  // By device path, kept after its port closes: the device still holds its half line.
  std::map<std::string, std::shared_ptr<SharedWrittenLine>> written_lines_ ABSL_GUARDED_BY(mu_);
  decltype(PortEnvironment::write_gate) write_gate_;
};

}  // namespace labgate::serial
