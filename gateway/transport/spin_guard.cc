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
  if (!preempted) return true;
  paused_until_ = now + kPause;
  return false;
}

long SpinGuard::CountedPreemptions() {  // NOLINT(runtime/int)
  return DevicePreemptions::OutsideDeviceIo();
}

}  // namespace labgate::gateway
