// SerialPort on any tty through POSIX termios: ptys, socat links, tty0tty, ser2net's
// ptys. Used for the paths libserialport will not open because they have no
// /sys/class/tty entry (or do not answer the modem-line ioctls).
#pragma once

#include <string>

#include "serial-service/backends/serial_port.h"

namespace labgate::serial {

class TermiosPort : public SerialPort {
 public:
  explicit TermiosPort(std::string path);
  ~TermiosPort() override;
  TermiosPort(const TermiosPort&) = delete;
  TermiosPort& operator=(const TermiosPort&) = delete;

  absl::Status Open() override;
  absl::Status Configure(const PortSettings& settings) override;
  absl::StatusOr<size_t> Read(char* buffer, size_t max, int64_t timeout_ms) override;
  absl::StatusOr<size_t> ReadArrived(char* buffer, size_t max) override;
  absl::StatusOr<size_t> Write(const std::string& data, int64_t timeout_ms) override;
  void Close() override;
  std::string backend_name() const override { return "termios"; }
  int ReadableFd() const override { return fd_; }
  absl::StatusOr<ModemSignals> GetSignals() override;
  absl::Status SetSignals(std::optional<bool> dtr, std::optional<bool> rts) override;
  absl::Status SendBreak(int64_t ms) override;

  // True when `path` opens as a terminal device.
  static bool IsTty(const std::string& path);

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace labgate::serial
