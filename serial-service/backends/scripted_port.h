// A port whose device is a ScriptedDevice: sim://MODEL (a profile's simulation) and
// replay://SESSION_ID (a recorded session). Writes go to the device; what it says comes back
// through Read when it is due, and its descriptor lets the port's worker capture it as a real
// device's bytes: an epoll set of an eventfd (readable while output waits to be read) and a
// timerfd (armed for the next output due). DTR drives the device's reset line;
// the other lines read as a plain cable's.
#pragma once

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "serial-service/backends/serial_port.h"
#include "serial-service/sim/scripted_device.h"

namespace labgate::serial {

class ScriptedPort : public SerialPort {
 public:
  // `backend_name` is what describe_port reports ("sim", "replay").
  ScriptedPort(std::shared_ptr<ScriptedDevice> device, std::string backend_name);
  ~ScriptedPort() override;
  ScriptedPort(const ScriptedPort&) = delete;
  ScriptedPort& operator=(const ScriptedPort&) = delete;

  absl::Status Open() override;
  absl::Status Configure(const PortSettings& settings) override;
  absl::StatusOr<size_t> Read(char* buffer, size_t max, int64_t timeout_ms) override;
  absl::StatusOr<size_t> Write(const std::string& data, int64_t timeout_ms) override;
  void Close() override;
  std::string backend_name() const override { return backend_name_; }
  int ReadableFd() const override { return poll_fd_; }
  absl::StatusOr<ModemSignals> GetSignals() override;
  absl::Status SetSignals(std::optional<bool> dtr, std::optional<bool> rts) override;
  absl::Status SendBreak(int64_t ms) override;

 private:
  absl::Status CheckOpen() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves what is due into pending_ and arms the timer for what comes next.
  void Collect() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int timer_fd_;
  const int ready_fd_;
  const int poll_fd_;
  const std::string backend_name_;
  mutable absl::Mutex mu_;
  const std::shared_ptr<ScriptedDevice> device_;  // used only under mu_
  std::string pending_ ABSL_GUARDED_BY(mu_);  // said and due, not yet read
  std::optional<ScriptedDevice::Clock::time_point> armed_for_ ABSL_GUARDED_BY(mu_);
  bool ready_signalled_ ABSL_GUARDED_BY(mu_) = false;  // ready_fd_ is readable
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  bool dtr_ ABSL_GUARDED_BY(mu_) = true;
  bool rts_ ABSL_GUARDED_BY(mu_) = true;
};

}  // namespace labgate::serial
