#include "serial-service/backends/libserialport_backend.h"

#include <errno.h>
#include <libserialport.h>
#include <poll.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"

namespace labgate::serial {
namespace {

// libserialport keeps the errno of its last failure; its message says which call.
std::string LastError() {
  char* message = sp_last_error_message();
  std::string text = message != nullptr ? message : "unknown error";
  sp_free_error_message(message);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

bool IsDisconnectErrno(int error) {
  return error == EIO || error == ENXIO || error == ENODEV || error == EPIPE || error == EBADF ||
         error == ENOENT;
}

absl::Status Disconnected(const std::string& path) {
  return absl::UnavailableError(absl::StrCat("device disconnected: ", path));
}

std::optional<std::string> OptionalText(const char* text) {
  if (text == nullptr || text[0] == '\0') return std::nullopt;
  return std::string(text);
}

PortDetails DetailsOf(sp_port* port) {
  PortDetails details;
  details.port_name = sp_get_port_name(port);
  switch (sp_get_port_transport(port)) {
    case SP_TRANSPORT_USB: {
      details.transport = Transport::kUsb;
      int vid = 0, pid = 0;
      if (sp_get_port_usb_vid_pid(port, &vid, &pid) == SP_OK) {
        details.usb_vid = vid;
        details.usb_pid = pid;
      }
      details.serial_number = OptionalText(sp_get_port_usb_serial(port));
      details.manufacturer = OptionalText(sp_get_port_usb_manufacturer(port));
      details.product = OptionalText(sp_get_port_usb_product(port));
      break;
    }
    case SP_TRANSPORT_BLUETOOTH:
      details.transport = Transport::kBluetooth;
      break;
    case SP_TRANSPORT_NATIVE:
      // libserialport does not tell PCI from other on-board UARTs.
      details.transport = Transport::kUnknown;
      break;
  }
  details.description = OptionalText(sp_get_port_description(port));
  return details;
}

sp_parity ToSpParity(Parity parity) {
  switch (parity) {
    case Parity::kOdd:
      return SP_PARITY_ODD;
    case Parity::kEven:
      return SP_PARITY_EVEN;
    case Parity::kNone:
      break;
  }
  return SP_PARITY_NONE;
}

sp_flowcontrol ToSpFlowControl(FlowControl flow) {
  switch (flow) {
    case FlowControl::kHardware:
      return SP_FLOWCONTROL_RTSCTS;
    case FlowControl::kSoftware:
      return SP_FLOWCONTROL_XONXOFF;
    case FlowControl::kNone:
      break;
  }
  return SP_FLOWCONTROL_NONE;
}

// libserialport's default debug handler looks up LIBSERIALPORT_DEBUG on every call, which a
// `query` polling for its reply makes thousands of times a second. Unless that variable asks
// for the library's debug output, the handler goes.
void SilenceLibSerialPortUnlessAsked() {
  static const bool silenced = [] {
    if (std::getenv("LIBSERIALPORT_DEBUG") != nullptr) return false;
    sp_set_debug_handler(nullptr);
    return true;
  }();
  (void)silenced;
}

}  // namespace

LibSerialPortBackend::LibSerialPortBackend(std::string path) : path_(std::move(path)) {
  SilenceLibSerialPortUnlessAsked();
}

LibSerialPortBackend::~LibSerialPortBackend() { Close(); }

absl::Status LibSerialPortBackend::Open() {
  if (open_) return absl::OkStatus();
  struct stat info;
  if (stat(path_.c_str(), &info) != 0) {
    if (errno == EACCES) {
      return absl::PermissionDeniedError(absl::StrCat("permission denied: ", path_));
    }
    return absl::NotFoundError(absl::StrCat("no such device: ", path_));
  }
  refused_path_ = false;
  if (port_ == nullptr && sp_get_port_by_name(path_.c_str(), &port_) != SP_OK) {
    port_ = nullptr;
    refused_path_ = true;
    return absl::NotFoundError(absl::StrCat(
        "not a serial port: ", path_, " (libserialport finds no /sys/class/tty entry for it)"));
  }
  if (sp_open(port_, SP_MODE_READ_WRITE) != SP_OK) {
    const int error = sp_last_error_code();
    const std::string message = LastError();
    if (error == EACCES || error == EPERM) {
      return absl::PermissionDeniedError(absl::StrCat("permission denied: ", path_));
    }
    if (error == EBUSY) {
      return absl::FailedPreconditionError(
          absl::StrCat("device busy: ", path_, " is open in another program"));
    }
    if (error == ENOENT || error == ENODEV || error == ENXIO) {
      return absl::NotFoundError(absl::StrCat("no such device: ", path_));
    }
    // A pty has no modem lines, and sp_open reads them.
    if (error == ENOTTY) refused_path_ = true;
    return absl::UnavailableError(absl::StrCat("cannot open ", path_, ": ", message));
  }
  open_ = true;
  return absl::OkStatus();
}

absl::Status LibSerialPortBackend::Configure(const PortSettings& settings) {
  if (!open_) return absl::FailedPreconditionError(absl::StrCat("port not open: ", path_));
  struct Step {
    const char* what;
    int64_t value;
    sp_return result;
  };
  const Step steps[] = {
      {"baud_rate", settings.baud_rate,
       sp_set_baudrate(port_, static_cast<int>(settings.baud_rate))},
      {"data_bits", settings.data_bits, sp_set_bits(port_, settings.data_bits)},
      {"parity", static_cast<int64_t>(settings.parity),
       sp_set_parity(port_, ToSpParity(settings.parity))},
      {"stop_bits", settings.stop_bits, sp_set_stopbits(port_, settings.stop_bits)},
      {"flow_control", static_cast<int64_t>(settings.flow_control),
       sp_set_flowcontrol(port_, ToSpFlowControl(settings.flow_control))},
  };
  for (const Step& step : steps) {
    if (step.result == SP_OK) continue;
    if (step.result == SP_ERR_FAIL && IsDisconnectErrno(sp_last_error_code())) {
      return Disconnected(path_);
    }
    const std::string why = step.result == SP_ERR_FAIL && sp_last_error_code() != 0 ? LastError()
                            : step.result == SP_ERR_FAIL ? "the device did not take the setting"
                            : step.result == SP_ERR_SUPP ? "not supported by this device"
                                                         : "rejected by libserialport";
    return absl::InvalidArgumentError(
        absl::StrCat(path_, " cannot use ", step.what, " ", step.value, ": ", why));
  }
  return absl::OkStatus();
}

int LibSerialPortBackend::ReadableFd() const {
  int fd = -1;
  if (!open_ || sp_get_port_handle(port_, &fd) != SP_OK) return -1;
  return fd;
}

absl::StatusOr<size_t> LibSerialPortBackend::Read(char* buffer, size_t max, int64_t timeout_ms) {
  if (!open_) return Disconnected(path_);
  int fd = -1;
  if (sp_get_port_handle(port_, &fd) != SP_OK) return Disconnected(path_);
  // Our own poll() rather than sp_blocking_read_next(): it also reports a hang-up,
  // which libserialport would turn into a silent timeout.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    // Rounded up: a wait shorter than a millisecond must still sleep, not spin on poll(0).
    const int64_t left_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                deadline - std::chrono::steady_clock::now())
                                .count();
    struct pollfd entry = {fd, POLLIN, 0};
    const int ready = poll(&entry, 1, left_us > 0 ? static_cast<int>((left_us + 999) / 1000) : 0);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Disconnected(path_);
    }
    if (ready == 0) return 0;
    if (entry.revents & POLLIN) {
      const int got = sp_nonblocking_read(port_, buffer, max);
      if (got > 0) return static_cast<size_t>(got);
      if (got < 0 && !IsDisconnectErrno(sp_last_error_code())) {
        return absl::InternalError(absl::StrCat("read from ", path_, " failed: ", LastError()));
      }
      // Readable yet nothing to read: the other end is gone.
      return Disconnected(path_);
    }
    if (entry.revents & (POLLHUP | POLLERR | POLLNVAL)) return Disconnected(path_);
  }
}

absl::StatusOr<size_t> LibSerialPortBackend::ReadArrived(char* buffer, size_t max) {
  if (!open_) return Disconnected(path_);
  // The input count (FIONREAD) does not wait for the tty's receive work in flight, as poll()
  // and read() on an empty buffer do: polling this way is not put to sleep while the reply
  // is handed over, and so is not woken from another CPU when it has been.
  if (sp_input_waiting(port_) == 0) return 0;
  return Read(buffer, max, 0);  // bytes, or an error that Read names
}

absl::StatusOr<size_t> LibSerialPortBackend::Write(const std::string& data, int64_t timeout_ms) {
  if (!open_) return Disconnected(path_);
  // libserialport reads a timeout of 0 as "wait forever".
  const int wrote = timeout_ms <= 0 ? sp_nonblocking_write(port_, data.data(), data.size())
                                    : sp_blocking_write(port_, data.data(), data.size(),
                                                        static_cast<unsigned>(timeout_ms));
  if (wrote < 0) {
    if (IsDisconnectErrno(sp_last_error_code())) return Disconnected(path_);
    return absl::InternalError(absl::StrCat("write to ", path_, " failed: ", LastError()));
  }
  return static_cast<size_t>(wrote);
}

absl::Status LibSerialPortBackend::ControlLineError(const std::string& what) const {
  const int error = sp_last_error_code();
  if (error == ENOTTY || error == EINVAL) return NoControlLines(what, LastError());
  if (IsDisconnectErrno(error)) return Disconnected(path_);
  return absl::InternalError(absl::StrCat(what, " on ", path_, " failed: ", LastError()));
}

absl::StatusOr<ModemSignals> LibSerialPortBackend::GetSignals() {
  if (!open_) return Disconnected(path_);
  enum sp_signal mask {};
  if (sp_get_signals(port_, &mask) != SP_OK) return ControlLineError("read the modem lines");
  // libserialport reports the device's lines; the host's own, DTR and RTS, are in the config.
  sp_port_config* config = nullptr;
  if (sp_new_config(&config) != SP_OK) return ControlLineError("read the modem lines");
  enum sp_dtr dtr = SP_DTR_INVALID;
  enum sp_rts rts = SP_RTS_INVALID;
  const bool read = sp_get_config(port_, config) == SP_OK &&
                    sp_get_config_dtr(config, &dtr) == SP_OK &&
                    sp_get_config_rts(config, &rts) == SP_OK;
  sp_free_config(config);
  if (!read) return ControlLineError("read the modem lines");
  ModemSignals signals;
  signals.dtr = dtr == SP_DTR_ON;
  signals.rts = rts == SP_RTS_ON;
  signals.cts = (mask & SP_SIG_CTS) != 0;
  signals.dsr = (mask & SP_SIG_DSR) != 0;
  signals.dcd = (mask & SP_SIG_DCD) != 0;
  signals.ri = (mask & SP_SIG_RI) != 0;
  return signals;
}

absl::Status LibSerialPortBackend::SetSignals(std::optional<bool> dtr, std::optional<bool> rts) {
  if (!open_) return Disconnected(path_);
  if (dtr.has_value() && sp_set_dtr(port_, *dtr ? SP_DTR_ON : SP_DTR_OFF) != SP_OK) {
    return ControlLineError("drive DTR");
  }
  if (rts.has_value() && sp_set_rts(port_, *rts ? SP_RTS_ON : SP_RTS_OFF) != SP_OK) {
    return ControlLineError("drive RTS");
  }
  return absl::OkStatus();
}

absl::Status LibSerialPortBackend::SendBreak(int64_t ms) {
  if (!open_) return Disconnected(path_);
  if (sp_start_break(port_) != SP_OK) return ControlLineError("send a break");
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  if (sp_end_break(port_) != SP_OK) return ControlLineError("end a break");
  return absl::OkStatus();
}

void LibSerialPortBackend::Close() {
  if (port_ == nullptr) return;
  if (open_) sp_close(port_);
  open_ = false;
  sp_free_port(port_);
  port_ = nullptr;
}

absl::StatusOr<std::vector<PortDetails>> LibSerialPortBackend::ListPorts() {
  sp_port** list = nullptr;
  if (sp_list_ports(&list) != SP_OK) {
    return absl::InternalError(absl::StrCat("cannot list serial ports: ", LastError()));
  }
  std::vector<PortDetails> ports;
  for (int i = 0; list[i] != nullptr; ++i) ports.push_back(DetailsOf(list[i]));
  sp_free_port_list(list);
  return ports;
}

absl::StatusOr<PortDetails> LibSerialPortBackend::Describe(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    return absl::NotFoundError(absl::StrCat("no such device: ", path));
  }
  sp_port* port = nullptr;
  if (sp_get_port_by_name(path.c_str(), &port) != SP_OK) {
    return absl::NotFoundError(absl::StrCat(
        "not a serial port: ", path, " (libserialport finds no /sys/class/tty entry for it)"));
  }
  PortDetails details = DetailsOf(port);
  details.port_name = path;
  sp_free_port(port);
  return details;
}

}  // namespace labgate::serial
