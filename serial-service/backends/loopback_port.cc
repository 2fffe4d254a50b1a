#include "serial-service/backends/loopback_port.h"

#include <algorithm>
#include <cstring>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace labgate::serial {

absl::Status LoopbackPort::Open() {
  absl::MutexLock lock(&mu_);
  open_ = true;
  buffer_.clear();
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
  return count;
}

absl::StatusOr<size_t> LoopbackPort::Write(const std::string& data, int64_t) {
  absl::MutexLock lock(&mu_);
  if (!open_) return absl::UnavailableError("device disconnected: loopback closed");
  const size_t room = kCapacity - std::min(kCapacity, buffer_.size());
  const size_t count = std::min(room, data.size());
  buffer_.append(data, 0, count);
  return count;
}

void LoopbackPort::Close() {
  absl::MutexLock lock(&mu_);
  open_ = false;
  buffer_.clear();
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
