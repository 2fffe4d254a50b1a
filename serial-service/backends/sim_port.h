// sim://NAME: a port whose device is a SimulatedInstrument (issue 33). Writes go to the
// simulation; what it says comes back through Read when it is due, and its descriptor (a
// timerfd armed for the next thing due) lets the port's worker capture it as a real device's
// bytes. DTR drives the simulation's reset line; the other lines read as a plain cable's.
#pragma once

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "serial-service/backends/serial_port.h"
#include "serial-service/sim/simulated_instrument.h"

namespace labgate::serial {

class SimPort : public SerialPort {
 public:
  explicit SimPort(const SimulationSpec& spec);
  ~SimPort() override;
  SimPort(const SimPort&) = delete;
  SimPort& operator=(const SimPort&) = delete;

  absl::Status Open() override;
  absl::Status Configure(const PortSettings& settings) override;
  absl::StatusOr<size_t> Read(char* buffer, size_t max, int64_t timeout_ms) override;
  absl::StatusOr<size_t> Write(const std::string& data, int64_t timeout_ms) override;
  void Close() override;
  std::string backend_name() const override { return "sim"; }
  int ReadableFd() const override { return timer_fd_; }
  absl::StatusOr<ModemSignals> GetSignals() override;
  absl::Status SetSignals(std::optional<bool> dtr, std::optional<bool> rts) override;
  absl::Status SendBreak(int64_t ms) override;

 private:
  absl::Status CheckOpen() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves what is due into pending_ and arms the timer for what comes next.
  void Collect() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int timer_fd_;
  mutable absl::Mutex mu_;
  SimulatedInstrument sim_ ABSL_GUARDED_BY(mu_);
  std::string pending_ ABSL_GUARDED_BY(mu_);  // said and due, not yet read
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  bool dtr_ ABSL_GUARDED_BY(mu_) = true;
  bool rts_ ABSL_GUARDED_BY(mu_) = true;
};

bool IsSimName(const std::string& port_name);

}  // namespace labgate::serial
