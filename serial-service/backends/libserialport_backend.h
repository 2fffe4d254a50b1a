// SerialPort on a real device through libserialport's sp_* calls.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serial-service/backends/serial_port.h"

struct sp_port;

namespace labgate::serial {

class LibSerialPortBackend : public SerialPort {
 public:
  explicit LibSerialPortBackend(std::string path);
  ~LibSerialPortBackend() override;
  LibSerialPortBackend(const LibSerialPortBackend&) = delete;
  LibSerialPortBackend& operator=(const LibSerialPortBackend&) = delete;

  absl::Status Open() override;
  absl::Status Configure(const PortSettings& settings) override;
  absl::StatusOr<size_t> Read(char* buffer, size_t max, int64_t timeout_ms) override;
  absl::StatusOr<size_t> ReadArrived(char* buffer, size_t max) override;
  absl::StatusOr<size_t> Write(const std::string& data, int64_t timeout_ms) override;
  void Close() override;
  std::string backend_name() const override { return "libserialport"; }
  int ReadableFd() const override;
  absl::StatusOr<ModemSignals> GetSignals() override;
  absl::Status SetSignals(std::optional<bool> dtr, std::optional<bool> rts) override;
  absl::Status SendBreak(int64_t ms) override;
  // After a failed Open: libserialport does not handle this path (no sysfs entry, or
  // the modem-line ioctls fail), although it may still be a tty.
  bool refused_path() const { return refused_path_; }

  // sp_list_ports(): the ports this machine has. Enumerates sysfs; call off gRPC threads.
  static absl::StatusOr<std::vector<PortDetails>> ListPorts();
  // NOT_FOUND naming the path when libserialport does not know it.
  static absl::StatusOr<PortDetails> Describe(const std::string& path);

 private:
  std::string path_;
  sp_port* port_ = nullptr;
  bool open_ = false;
  bool refused_path_ = false;

  // The status of a failed control-line call `what`: disconnected, no lines, or internal.
  absl::Status ControlLineError(const std::string& what) const;
};

}  // namespace labgate::serial
