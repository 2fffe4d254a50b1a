// A device path: libserialport where it can, termios for any other tty (ptys, socat
// links, tty0tty), chosen when the port opens.
#pragma once

#include <memory>
#include <string>

#include "serial-service/backends/serial_port.h"

namespace labgate::serial {

class TtyPort : public SerialPort {
 public:
  explicit TtyPort(std::string path);

  absl::Status Open() override;
  absl::Status Configure(const PortSettings& settings) override {
    return active_->Configure(settings);
  }
  absl::StatusOr<size_t> Read(char* buffer, size_t max, int64_t timeout_ms) override {
    return active_->Read(buffer, max, timeout_ms);
  }
  absl::StatusOr<size_t> ReadArrived(char* buffer, size_t max) override {
    return active_->ReadArrived(buffer, max);
  }
  absl::StatusOr<size_t> Write(const std::string& data, int64_t timeout_ms) override {
    return active_->Write(data, timeout_ms);
  }
  void Close() override { active_->Close(); }
  std::string backend_name() const override { return active_->backend_name(); }
  int ReadableFd() const override { return active_->ReadableFd(); }
  absl::StatusOr<ModemSignals> GetSignals() override { return active_->GetSignals(); }
  absl::Status SetSignals(std::optional<bool> dtr, std::optional<bool> rts) override {
    return active_->SetSignals(dtr, rts);
  }
  absl::Status SendBreak(int64_t ms) override { return active_->SendBreak(ms); }

 private:
  std::string path_;
  std::unique_ptr<SerialPort> active_;
};

}  // namespace labgate::serial
