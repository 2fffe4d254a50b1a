#include "gateway/transport/spin_guard.h"

#include <sys/resource.h>

#include <utility>

namespace labgate::gateway {

SpinGuard::SpinGuard(SwitchCounter involuntary_switches)
    : involuntary_switches_(std::move(involuntary_switches)) {}

void SpinGuard::Spinning() {
  if (spinning_) return;
  spinning_ = true;
  switches_at_start_ = involuntary_switches_();
}

void SpinGuard::SpinEnded() {
  if (!spinning_) return;
  spinning_ = false;
  const long switches = involuntary_switches_();  // NOLINT(runtime/int)
  const bool preempted = switches_at_start_ >= 0 && switches > switches_at_start_;
  constexpr double kWeight = 1.0 / 8;
  preempted_share_ = preempted_share_ * (1 - kWeight) + (preempted ? kWeight : 0);
  if (preempted_share_ > kPreemptedShareThatPauses) {
    paused_until_ = std::chrono::steady_clock::now() + kPause;
    // Back from the pause, two more preempted spins in a row pause again; one does not.
    preempted_share_ = kPreemptedShareThatPauses / 2;
  }
}

long SpinGuard::ThisThreadsInvoluntarySwitches() {  // NOLINT(runtime/int)
  rusage usage{};
  return getrusage(RUSAGE_THREAD, &usage) == 0 ? usage.ru_nivcsw : -1;
}

}  // namespace labgate::gateway
