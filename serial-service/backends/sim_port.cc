#include "serial-service/backends/sim_port.h"

#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace labgate::serial {
namespace {

using Clock = SimulatedInstrument::Clock;

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

bool IsSimName(const std::string& port_name) { return absl::StartsWith(port_name, "sim://"); }

SimPort::SimPort(const SimulationSpec& spec)
    : timer_fd_(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)), sim_(spec) {}

SimPort::~SimPort() {
  if (timer_fd_ >= 0) close(timer_fd_);
}

absl::Status SimPort::CheckOpen() const {
  if (!open_) return absl::FailedPreconditionError("the simulated port is not open");
  return absl::OkStatus();
}

absl::Status SimPort::Open() {
  if (timer_fd_ < 0) return absl::InternalError("timerfd_create failed");
  absl::MutexLock lock(&mu_);
  open_ = true;
  sim_.Open(Clock::now());
  Collect();
  return absl::OkStatus();
}

absl::Status SimPort::Configure(const PortSettings&) {
  absl::MutexLock lock(&mu_);
  return CheckOpen();  // any baud rate and framing: it is no wire
}

void SimPort::Collect() {
  uint64_t expirations = 0;
  (void)!read(timer_fd_, &expirations, sizeof(expirations));  // clears readability
  pending_ += sim_.TakeDue(Clock::now());
  // Readable at once while something waits to be read, else when the next thing is due.
  Arm(timer_fd_, pending_.empty() ? sim_.NextDue() : std::optional(Clock::now()));
}

absl::StatusOr<size_t> SimPort::Read(char* buffer, size_t max, int64_t timeout_ms) {
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
    // A simulation has no wire to wait on: look again shortly (or when the next thing is due).
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

absl::StatusOr<size_t> SimPort::Write(const std::string& data, int64_t) {
  absl::MutexLock lock(&mu_);
  if (absl::Status open = CheckOpen(); !open.ok()) return open;
  sim_.Receive(data, Clock::now());
  Collect();
  return data.size();
}

void SimPort::Close() {
  absl::MutexLock lock(&mu_);
  open_ = false;
  pending_.clear();
  Arm(timer_fd_, std::nullopt);
}

absl::StatusOr<ModemSignals> SimPort::GetSignals() {
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

absl::Status SimPort::SetSignals(std::optional<bool> dtr, std::optional<bool> rts) {
  absl::MutexLock lock(&mu_);
  if (absl::Status open = CheckOpen(); !open.ok()) return open;
  if (rts.has_value()) rts_ = *rts;
  if (dtr.has_value()) {
    dtr_ = *dtr;
    sim_.SetDtr(*dtr, Clock::now());
    Collect();
  }
  return absl::OkStatus();
}

absl::Status SimPort::SendBreak(int64_t ms) {
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status open = CheckOpen(); !open.ok()) return open;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return absl::OkStatus();
}

}  // namespace labgate::serial
