// When the stdio reader may poll for the next request instead of sleeping.
#ifndef LABGATE_GATEWAY_TRANSPORT_SPIN_GUARD_H_
#define LABGATE_GATEWAY_TRANSPORT_SPIN_GUARD_H_

#include <chrono>
#include <functional>

namespace labgate::gateway {

// Polling for the next request pays only while a core is free. When other processes want the
// CPU (the client, an instrument simulator, socat on a two-core machine), the spinning thread
// takes it from them, and the client's next request comes later, not sooner. The kernel says
// so by preempting the thread while it spins: when that happens in a good part of the recent
// spins, spinning stops for a while and is tried again after that.
// - Preemptions while a request is served do not count: a write to a pty wakes the kernel's
//   flush worker on the writer's CPU, which preempts the writer on every `query` and says
//   nothing of the CPU's other users.
// - One preempted spin now and then does not count either: a timer waking some thread on the
//   same CPU preempts a spin briefly, while a neighbour that wants the CPU does so in most.
class SpinGuard {
 public:
  using SwitchCounter = std::function<long()>;  // NOLINT(runtime/int): rusage's own type

  static constexpr std::chrono::milliseconds kPause{100};
  // The share of recent spins preempted (a moving average over about eight) that pauses.
  static constexpr double kPreemptedShareThatPauses = 0.25;

  // `involuntary_switches` counts the calling thread's preemptions (-1: unknown).
  explicit SpinGuard(SwitchCounter involuntary_switches = ThisThreadsInvoluntarySwitches);

  bool MaySpin() const { return std::chrono::steady_clock::now() >= paused_until_; }
  // Called on each empty poll while spinning; the first one starts the count.
  void Spinning();
  // Called when the spin ends, with a request or without.
  void SpinEnded();

  static long ThisThreadsInvoluntarySwitches();  // NOLINT(runtime/int)

 private:
  SwitchCounter involuntary_switches_;
  double preempted_share_ = 0;
  bool spinning_ = false;
  long switches_at_start_ = -1;  // NOLINT(runtime/int)
  std::chrono::steady_clock::time_point paused_until_;
};

}  // namespace labgate::gateway

#endif  // LABGATE_GATEWAY_TRANSPORT_SPIN_GUARD_H_
