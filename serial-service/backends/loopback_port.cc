#include "serial-service/backends/loopback_port.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace labgate::serial {

LoopbackPort::LoopbackPort() : readable_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

LoopbackPort::~LoopbackPort() {
  if (readable_fd_ >= 0) close(readable_fd_);
}

void LoopbackPort::UpdateReadable() {
  const bool want = !buffer_.empty();
  if (want == signalled_ || readable_fd_ < 0) return;
  uint64_t count = 1;
  if (want) {
    while (write(readable_fd_, &count, sizeof(count)) < 0 && errno == EINTR) {
    }
  } else {
    while (read(readable_fd_, &count, sizeof(count)) < 0 && errno == EINTR) {
    }
  }
  signalled_ = want;
}

absl::Status LoopbackPort::Open() {
  absl::MutexLock lock(&mu_);
  open_ = true;
  buffer_.clear();
  UpdateReadable();
  dtr_ = false;
  rts_ = false;
  return absl::OkStatus();
}

absl::Status LoopbackPort::Configure(const PortSettings&) { return absl::OkStatus(); }

absl::StatusOr<size_t> LoopbackPort::Read(char* buffer, size_t max, int64_t timeout_ms) {
  absl::MutexLock lock(&mu_);
  auto readable = [this]()
                      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !buffer_.empty() || !open_; };
  mu_.AwaitWithTimeout(absl::Condition(&readable), absl::Milliseconds(timeout_ms));
  if (!open_) return absl::UnavailableError("device disconnected: loopback closed");
  const size_t count = std::min(max, buffer_.size());
  std::memcpy(buffer, buffer_.data(), count);
  buffer_.erase(0, count);
  UpdateReadable();
  return count;
}

absl::StatusOr<size_t> LoopbackPort::Write(const std::string& data, int64_t) {
  absl::MutexLock lock(&mu_);
  if (!open_) return absl::UnavailableError("device disconnected: loopback closed");
  const size_t room = kCapacity - std::min(kCapacity, buffer_.size());
  const size_t count = std::min(room, data.size());
  buffer_.append(data, 0, count);
  UpdateReadable();
  return count;
}

void LoopbackPort::Close() {
  absl::MutexLock lock(&mu_);
  open_ = false;
  buffer_.clear();
  UpdateReadable();
}

absl::Status LoopbackPort::CheckOpen() {
  if (!open_) return absl::UnavailableError("device disconnected: loopback closed");
  return absl::OkStatus();
}

absl::StatusOr<ModemSignals> LoopbackPort::GetSignals() {
  absl::MutexLock lock(&mu_);
  if (absl::Status open = CheckOpen(); !open.ok()) return open;
  ModemSignals signals;
  signals.dtr = dtr_;
  signals.rts = rts_;
  signals.cts = rts_;
  signals.dsr = dtr_;
  signals.dcd = dtr_;
  return signals;
}

absl::Status LoopbackPort::SetSignals(std::optional<bool> dtr, std::optional<bool> rts) {
  absl::MutexLock lock(&mu_);
  if (absl::Status open = CheckOpen(); !open.ok()) return open;
  if (dtr.has_value()) dtr_ = *dtr;
  if (rts.has_value()) rts_ = *rts;
  return absl::OkStatus();
}

absl::Status LoopbackPort::SendBreak(int64_t ms) {
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status open = CheckOpen(); !open.ok()) return open;
  }
  absl::SleepFor(absl::Milliseconds(ms));
  return absl::OkStatus();
}

}  // namespace labgate::serial
