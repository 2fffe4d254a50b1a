#include "serial-service/backends/scripted_port.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
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
      ready_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      poll_fd_(epoll_create1(EPOLL_CLOEXEC)),
      backend_name_(std::move(backend_name)),
      device_(std::move(device)) {
  for (int fd : {timer_fd_, ready_fd_}) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    if (poll_fd_ >= 0 && fd >= 0) epoll_ctl(poll_fd_, EPOLL_CTL_ADD, fd, &event);
  }
}

ScriptedPort::~ScriptedPort() {
  for (int fd : {poll_fd_, ready_fd_, timer_fd_}) {
    if (fd >= 0) close(fd);
  }
}

absl::Status ScriptedPort::CheckOpen() const {
  if (!open_) return absl::FailedPreconditionError("the " + backend_name_ + " port is not open");
  return absl::OkStatus();
}

absl::Status ScriptedPort::Open() {
  if (timer_fd_ < 0 || ready_fd_ < 0 || poll_fd_ < 0) {
    return absl::InternalError("timerfd, eventfd or epoll_create1 failed");
  }
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
  const Clock::time_point now = Clock::now();
  if (armed_for_.has_value() && *armed_for_ <= now) {
    uint64_t expirations = 0;
    (void)!read(timer_fd_, &expirations, sizeof(expirations));  // clears its readability
    armed_for_.reset();
  }
  pending_ += device_->TakeDue(now);
  // The timer is set only when the device's next output moves: on this VM each
  // timerfd_settime costs tens of microseconds, more than the rest of a query.
  if (const std::optional<Clock::time_point> next = device_->NextDue(); next != armed_for_) {
    Arm(timer_fd_, next);
    armed_for_ = next;
  }
  const bool ready = !pending_.empty();
  if (ready != ready_signalled_) {
    uint64_t count = 1;
    (void)!(ready ? write(ready_fd_, &count, sizeof(count))
                  : read(ready_fd_, &count, sizeof(count)));
    ready_signalled_ = ready;
  }
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
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return 0;
    // Until something is due (or written meanwhile), at most what is left.
    pollfd readable{poll_fd_, POLLIN, 0};
    poll(&readable, 1, static_cast<int>(std::min<int64_t>(left, 100)));
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
  armed_for_.reset();
  uint64_t count = 0;
  (void)!read(ready_fd_, &count, sizeof(count));
  (void)!read(timer_fd_, &count, sizeof(count));
  ready_signalled_ = false;
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
