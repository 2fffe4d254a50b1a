#include "serial-service/backends/scripted_port.h"

#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

namespace labgate::serial {
namespace {

using Clock = ScriptedDevice::Clock;

// Arms `fd` to fire at `at` (at once when it is past); disarms it for nullopt.
void Arm(int fd, std::optional<Clock::time_point> at) {
  itimerspec spec{};
  if (at.has_value()) {
    const auto left =
        std::max(std::chrono::nanoseconds(1),
                 std::chrono::duration_cast<std::chrono::nanoseconds>(*at - Clock::now()));
    spec.it_value.tv_sec = static_cast<time_t>(left.count() / 1000000000);
    spec.it_value.tv_nsec = static_cast<long>(left.count() % 1000000000);
  }
  timerfd_settime(fd, 0, &spec, nullptr);
}

}  // namespace

ScriptedPort::ScriptedPort(std::shared_ptr<ScriptedDevice> device, std::string backend_name)
    : timer_fd_(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)),
      backend_name_(std::move(backend_name)),
      device_(std::move(device)) {}

ScriptedPort::~ScriptedPort() {
  if (timer_fd_ >= 0) close(timer_fd_);
}

absl::Status ScriptedPort::CheckOpen() const {
  if (!open_) return absl::FailedPreconditionError("the " + backend_name_ + " port is not open");
  return absl::OkStatus();
}

absl::Status ScriptedPort::Open() {
  if (timer_fd_ < 0) return absl::InternalError("timerfd_create failed");
  absl::MutexLock lock(&mu_);
  if (absl::Status opened = device_->Open(Clock::now()); !opened.ok()) return opened;
  open_ = true;
  Collect();
  return absl::OkStatus();
}

absl::Status ScriptedPort::Configure(const PortSettings&) {
  absl::MutexLock lock(&mu_);
  return CheckOpen();  // any baud rate and framing: it is no wire
}

void ScriptedPort::Collect() {
  uint64_t expirations = 0;
  (void)!read(timer_fd_, &expirations, sizeof(expirations));  // clears readability
  pending_ += device_->TakeDue(Clock::now());
  // Readable at once while something waits to be read, else when the next thing is due.
  Arm(timer_fd_, pending_.empty() ? device_->NextDue() : std::optional(Clock::now()));
}

absl::StatusOr<size_t> ScriptedPort::Read(char* buffer, size_t max, int64_t timeout_ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (absl::Status open = CheckOpen(); !open.ok()) return open;
      Collect();
      if (!pending_.empty()) {
        const size_t count = std::min(max, pending_.size());
        std::memcpy(buffer, pending_.data(), count);
        pending_.erase(0, count);
        Collect();
        return count;
      }
    }
    if (Clock::now() >= deadline) return 0;
    // A scripted device has no wire to wait on: look again shortly (or when the next thing is due).
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

absl::StatusOr<size_t> ScriptedPort::Write(const std::string& data, int64_t) {
  absl::MutexLock lock(&mu_);
  if (absl::Status open = CheckOpen(); !open.ok()) return open;
  device_->Receive(data, Clock::now());
  Collect();
  return data.size();
}

void ScriptedPort::Close() {
  absl::MutexLock lock(&mu_);
  open_ = false;
  pending_.clear();
  Arm(timer_fd_, std::nullopt);
}

absl::StatusOr<ModemSignals> ScriptedPort::GetSignals() {
  absl::MutexLock lock(&mu_);
  if (absl::Status open = CheckOpen(); !open.ok()) return open;
  ModemSignals signals;
  signals.dtr = dtr_;
  signals.rts = rts_;
  signals.cts = rts_;  // as a plain cable with its handshake looped
  signals.dsr = true;
  signals.dcd = true;
  return signals;
}

absl::Status ScriptedPort::SetSignals(std::optional<bool> dtr, std::optional<bool> rts) {
  absl::MutexLock lock(&mu_);
  if (absl::Status open = CheckOpen(); !open.ok()) return open;
  if (rts.has_value()) rts_ = *rts;
  if (dtr.has_value()) {
    dtr_ = *dtr;
    device_->SetDtr(*dtr, Clock::now());
    Collect();
  }
  return absl::OkStatus();
}

absl::Status ScriptedPort::SendBreak(int64_t ms) {
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status open = CheckOpen(); !open.ok()) return open;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return absl::OkStatus();
}

}  // namespace labgate::serial
