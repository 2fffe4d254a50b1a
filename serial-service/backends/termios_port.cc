#include "serial-service/backends/termios_port.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace labgate::serial {
namespace {

absl::Status Disconnected(const std::string& path) {
  return absl::UnavailableError(absl::StrCat("device disconnected: ", path));
}

bool IsDisconnectErrno(int error) {
  return error == EIO || error == ENXIO || error == ENODEV || error == EPIPE || error == EBADF;
}

struct BaudEntry {
  int64_t baud;
  speed_t code;
};

// The rates termios names; others are refused rather than rounded.
constexpr BaudEntry kBauds[] = {
    {50, B50},           {75, B75},           {110, B110},         {134, B134},
    {150, B150},         {200, B200},         {300, B300},         {600, B600},
    {1200, B1200},       {1800, B1800},       {2400, B2400},       {4800, B4800},
    {9600, B9600},       {19200, B19200},     {38400, B38400},     {57600, B57600},
    {115200, B115200},   {230400, B230400},   {460800, B460800},   {500000, B500000},
    {576000, B576000},   {921600, B921600},   {1000000, B1000000}, {1152000, B1152000},
    {1500000, B1500000}, {2000000, B2000000}, {2500000, B2500000}, {3000000, B3000000},
    {3500000, B3500000}, {4000000, B4000000},
};

// Rounded up: a wait shorter than a millisecond must still sleep, not spin on poll(0).
int64_t MsLeft(std::chrono::steady_clock::time_point deadline) {
  const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                         deadline - std::chrono::steady_clock::now())
                         .count();
  return us > 0 ? (us + 999) / 1000 : 0;
}

}  // namespace

TermiosPort::TermiosPort(std::string path) : path_(std::move(path)) {}

TermiosPort::~TermiosPort() { Close(); }

bool TermiosPort::IsTty(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  const bool tty = isatty(fd) == 1;
  ::close(fd);
  return tty;
}

absl::Status TermiosPort::Open() {
  if (fd_ >= 0) return absl::OkStatus();
  fd_ = ::open(path_.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
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
    return absl::UnavailableError(absl::StrCat("cannot open ", path_, ": ", strerror(error)));
  }
  if (isatty(fd_) != 1) {
    Close();
    return absl::NotFoundError(absl::StrCat("not a serial port: ", path_, " is not a tty"));
  }
  // Like libserialport: no other program may open it while labgate has it.
  if (ioctl(fd_, TIOCEXCL) != 0 && errno != ENOTTY && errno != EINVAL) {
    const int error = errno;
    Close();
    return absl::UnavailableError(absl::StrCat("cannot open ", path_, ": ", strerror(error)));
  }
  return absl::OkStatus();
}

absl::Status TermiosPort::Configure(const PortSettings& settings) {
  if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat("port not open: ", path_));
  termios tio;
  if (tcgetattr(fd_, &tio) != 0) {
    if (IsDisconnectErrno(errno)) return Disconnected(path_);
    return absl::InternalError(absl::StrCat("tcgetattr on ", path_, ": ", strerror(errno)));
  }
  const BaudEntry* baud = nullptr;
  for (const BaudEntry& entry : kBauds) {
    if (entry.baud == settings.baud_rate) baud = &entry;
  }
  if (baud == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        path_, " cannot use baud_rate ", settings.baud_rate, ": not a standard termios rate"));
  }
  cfmakeraw(&tio);
  cfsetispeed(&tio, baud->code);
  cfsetospeed(&tio, baud->code);
  tio.c_cflag |= CLOCAL | CREAD;
  tio.c_cflag &= ~static_cast<tcflag_t>(CSIZE);
  switch (settings.data_bits) {
    case 5:
      tio.c_cflag |= CS5;
      break;
    case 6:
      tio.c_cflag |= CS6;
      break;
    case 7:
      tio.c_cflag |= CS7;
      break;
    default:
      tio.c_cflag |= CS8;
      break;
  }
  tio.c_cflag &= ~static_cast<tcflag_t>(PARENB | PARODD | CSTOPB | CRTSCTS);
  if (settings.parity != Parity::kNone) tio.c_cflag |= PARENB;
  if (settings.parity == Parity::kOdd) tio.c_cflag |= PARODD;
  if (settings.stop_bits == 2) tio.c_cflag |= CSTOPB;
  if (settings.flow_control == FlowControl::kHardware) tio.c_cflag |= CRTSCTS;
  tio.c_iflag &= ~static_cast<tcflag_t>(IXON | IXOFF | IXANY);
  if (settings.flow_control == FlowControl::kSoftware) tio.c_iflag |= IXON | IXOFF;
  tio.c_cc[VMIN] = 0;
  tio.c_cc[VTIME] = 0;
  if (tcsetattr(fd_, TCSANOW, &tio) != 0) {
    if (IsDisconnectErrno(errno)) return Disconnected(path_);
    return absl::InvalidArgumentError(
        absl::StrCat(path_, " refused its settings: ", strerror(errno)));
  }
  // tcsetattr succeeds when any part applies; check what the device kept.
  termios applied;
  if (tcgetattr(fd_, &applied) != 0) return Disconnected(path_);
  if ((applied.c_cflag & CSIZE) != (tio.c_cflag & CSIZE)) {
    return absl::InvalidArgumentError(absl::StrCat(path_, " cannot use data_bits ",
                                                   settings.data_bits,
                                                   ": the device did not take the setting"));
  }
  if (cfgetospeed(&applied) != baud->code) {
    return absl::InvalidArgumentError(absl::StrCat(path_, " cannot use baud_rate ",
                                                   settings.baud_rate,
                                                   ": the device did not take the setting"));
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> TermiosPort::Read(char* buffer, size_t max, int64_t timeout_ms) {
  if (fd_ < 0) return Disconnected(path_);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const int64_t left = MsLeft(deadline);
    pollfd entry = {fd_, POLLIN, 0};
    const int ready = poll(&entry, 1, left > 0 ? static_cast<int>(left) : 0);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Disconnected(path_);
    }
    if (ready == 0) return 0;
    if (entry.revents & POLLIN) {
      const ssize_t got = ::read(fd_, buffer, max);
      if (got > 0) return static_cast<size_t>(got);
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got < 0 && !IsDisconnectErrno(errno)) {
        return absl::InternalError(absl::StrCat("read from ", path_, " failed: ", strerror(errno)));
      }
      return Disconnected(path_);
    }
    // A pty whose other end is closed reports POLLHUP.
    if (entry.revents & (POLLHUP | POLLERR | POLLNVAL)) return Disconnected(path_);
  }
}

absl::StatusOr<size_t> TermiosPort::ReadArrived(char* buffer, size_t max) {
  if (fd_ < 0) return Disconnected(path_);
  // As LibSerialPortBackend::ReadArrived: the count does not wait for receive work in flight.
  int waiting = 0;
  if (ioctl(fd_, FIONREAD, &waiting) == 0 && waiting == 0) return 0;
  return Read(buffer, max, 0);
}

absl::StatusOr<size_t> TermiosPort::Write(const std::string& data, int64_t timeout_ms) {
  if (fd_ < 0) return Disconnected(path_);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t wrote = ::write(fd_, data.data() + written, data.size() - written);
    if (wrote > 0) {
      written += static_cast<size_t>(wrote);
      continue;
    }
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0 && errno != EAGAIN) {
      if (IsDisconnectErrno(errno)) return Disconnected(path_);
      return absl::InternalError(absl::StrCat("write to ", path_, " failed: ", strerror(errno)));
    }
    const int64_t left = MsLeft(deadline);
    if (left <= 0) break;
    pollfd entry = {fd_, POLLOUT, 0};
    if (poll(&entry, 1, static_cast<int>(left)) < 0 && errno != EINTR) return Disconnected(path_);
    if (entry.revents & (POLLHUP | POLLERR | POLLNVAL)) return Disconnected(path_);
  }
  return written;
}

void TermiosPort::Close() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
}

namespace {

// The status of a failed control-line ioctl: a tty without modem lines (a pseudo-terminal)
// answers ENOTTY or EINVAL.
absl::Status ControlLineError(const SerialPort& port, const std::string& path,
                              const std::string& what, int error) {
  if (error == ENOTTY || error == EINVAL) {
    return absl::FailedPreconditionError(absl::StrCat("the ", port.backend_name(),
                                                      " backend cannot ", what, " on ", path, ": ",
                                                      std::strerror(error)));
  }
  if (IsDisconnectErrno(error)) return Disconnected(path);
  return absl::InternalError(absl::StrCat(what, " on ", path, " failed: ", std::strerror(error)));
}

}  // namespace

absl::StatusOr<ModemSignals> TermiosPort::GetSignals() {
  if (fd_ < 0) return Disconnected(path_);
  int bits = 0;
  if (ioctl(fd_, TIOCMGET, &bits) != 0) {
    return ControlLineError(*this, path_, "read the modem lines", errno);
  }
  ModemSignals signals;
  signals.dtr = (bits & TIOCM_DTR) != 0;
  signals.rts = (bits & TIOCM_RTS) != 0;
  signals.cts = (bits & TIOCM_CTS) != 0;
  signals.dsr = (bits & TIOCM_DSR) != 0;
  signals.dcd = (bits & TIOCM_CAR) != 0;
  signals.ri = (bits & TIOCM_RNG) != 0;
  return signals;
}

absl::Status TermiosPort::SetSignals(std::optional<bool> dtr, std::optional<bool> rts) {
  if (fd_ < 0) return Disconnected(path_);
  for (const auto& [level, bit, name] :
       {std::tuple{dtr, TIOCM_DTR, "drive DTR"}, std::tuple{rts, TIOCM_RTS, "drive RTS"}}) {
    if (!level.has_value()) continue;
    int bits = bit;
    if (ioctl(fd_, *level ? TIOCMBIS : TIOCMBIC, &bits) != 0) {
      return ControlLineError(*this, path_, name, errno);
    }
  }
  return absl::OkStatus();
}

absl::Status TermiosPort::SendBreak(int64_t ms) {
  if (fd_ < 0) return Disconnected(path_);
  // A pseudo-terminal takes TIOCSBRK and does nothing; it has no modem lines either, which
  // is how it is told apart, so a break is refused rather than silently lost.
  if (int bits = 0; ioctl(fd_, TIOCMGET, &bits) != 0) {
    return ControlLineError(*this, path_, "send a break", errno);
  }
  if (ioctl(fd_, TIOCSBRK) != 0) return ControlLineError(*this, path_, "send a break", errno);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  if (ioctl(fd_, TIOCCBRK) != 0) return ControlLineError(*this, path_, "end a break", errno);
  return absl::OkStatus();
}

}  // namespace labgate::serial
