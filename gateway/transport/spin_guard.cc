#include "gateway/transport/spin_guard.h"

#include <utility>

#include "common/device_preemptions.h"

namespace labgate::gateway {

SpinGuard::SpinGuard(SwitchCounter preemptions, double max_preemptions_per_second)
    : preemptions_(std::move(preemptions)),
      max_preemptions_per_second_(max_preemptions_per_second) {}

bool SpinGuard::PreemptedTooOften(std::chrono::steady_clock::time_point now,
                                  long count) {  // NOLINT(runtime/int)
  if (max_preemptions_per_second_ <= 0) return false;
  if (rate_window_count_ < 0 || count < rate_window_count_) {
    rate_window_start_ = now;
    rate_window_count_ = count;
    return false;
  }
  const auto elapsed = now - rate_window_start_;
  if (elapsed < kRateWindow) return false;
  const double seconds = std::chrono::duration<double>(elapsed).count();
  const bool too_often =
      static_cast<double>(count - rate_window_count_) > max_preemptions_per_second_ * seconds;
  rate_window_start_ = now;
  rate_window_count_ = count;
  return too_often;
}

bool SpinGuard::MaySpin() {
  const auto now = std::chrono::steady_clock::now();
  if (now < paused_until_) return false;
  const long count = preemptions_();  // NOLINT(runtime/int)
  if (count < 0) return true;
  const bool preempted = last_count_ >= 0 && count > last_count_;
  last_count_ = count;
  if (PreemptedTooOften(now, count)) {
    paused_until_ = now + kPause;
    rate_window_count_ = -1;  // a new window after the pause
    return false;
  }
  constexpr double kWeight = 1.0 / 8;
  preempted_share_ = preempted_share_ * (1 - kWeight) + (preempted ? kWeight : 0);
  if (preempted_share_ <= kPreemptedShareThatPauses) return true;
  paused_until_ = now + kPause;
  // Back from the pause, two more preempted reads in a row pause again; one does not.
  preempted_share_ = kPreemptedShareThatPauses / 2;
  return false;
}

long SpinGuard::CountedPreemptions() {  // NOLINT(runtime/int)
  return DevicePreemptions::OutsideDeviceIo();
}

}  // namespace labgate::gateway
