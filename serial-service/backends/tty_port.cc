#include "serial-service/backends/tty_port.h"

#include "common/log.h"
#include "serial-service/backends/libserialport_backend.h"
#include "serial-service/backends/termios_port.h"

namespace labgate::serial {

TtyPort::TtyPort(std::string path)
    : path_(std::move(path)), active_(std::make_unique<LibSerialPortBackend>(path_)) {}

absl::Status TtyPort::Open() {
  active_->Close();
  auto libserialport = std::make_unique<LibSerialPortBackend>(path_);
  absl::Status opened = libserialport->Open();
  const bool refused = !opened.ok() && libserialport->refused_path();
  active_ = std::move(libserialport);
  if (!refused || !TermiosPort::IsTty(path_)) return opened;
  LG_LOG(kInfo) << path_ << " has no serial-port entry for libserialport (" << opened.message()
                << "); opening it as a plain tty through termios";
  active_ = std::make_unique<TermiosPort>(path_);
  return active_->Open();
}

}  // namespace labgate::serial
