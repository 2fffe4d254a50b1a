#include "gateway/transport/spin_guard.h"

#include <utility>

#include "common/device_preemptions.h"

namespace labgate::gateway {

SpinGuard::SpinGuard(SwitchCounter preemptions) : preemptions_(std::move(preemptions)) {}

bool SpinGuard::MaySpin() {
  const auto now = std::chrono::steady_clock::now();
  if (now < paused_until_) return false;
  const long count = preemptions_();  // NOLINT(runtime/int)
  if (count < 0) return true;
  const bool preempted = last_count_ >= 0 && count > last_count_;
  last_count_ = count;
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
