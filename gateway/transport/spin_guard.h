// When the stdio reader may poll for the next request instead of sleeping.
#ifndef LABGATE_GATEWAY_TRANSPORT_SPIN_GUARD_H_
#define LABGATE_GATEWAY_TRANSPORT_SPIN_GUARD_H_

#include <chrono>
#include <functional>

namespace labgate::gateway {

// Polling for the next request pays only while a core is free. When other processes want the
// CPU (the client, an instrument simulator, socat on a two-core machine), the spinning thread
// takes it from them, and the client's next request comes later, not sooner. The kernel says
// so by preempting this thread: when it did so between a good part of the recent reads,
// spinning stops for a while and is tried again after that.
// - Preemptions inside the thread's own device I/O do not count (common/device_preemptions.h):
//   a `query` on a pty is preempted by the kernel's flush worker every time, which says nothing
//   of the CPU's other users.
// - One now and then does not count either: a timer waking some thread on the same CPU
//   preempts briefly, while a neighbour that wants the CPU does so between most reads.
class SpinGuard {
 public:
  using SwitchCounter = std::function<long()>;  // NOLINT(runtime/int): rusage's own type

  static constexpr std::chrono::milliseconds kPause{100};
  // The share of recent reads preempted (a moving average over about eight) that pauses.
  static constexpr double kPreemptedShareThatPauses = 0.25;

  // Over a window at least this long, more preemptions per second than a guard's
  // `max_preemptions_per_second` pause it too (see the constructor).
  static constexpr std::chrono::milliseconds kRateWindow{10};

  // `preemptions` counts the calling thread's preemptions that count (-1: unknown).
  // `max_preemptions_per_second` (0: no such limit) is for a thread that handles many events
  // per request, such as an io thread: its share of preempted events stays low on a busy
  // machine, but the rate of preemptions does not.
  explicit SpinGuard(SwitchCounter preemptions = CountedPreemptions,
                     double max_preemptions_per_second = 0);

  // Called once per read, before spinning after it.
  bool MaySpin();

  static long CountedPreemptions();  // NOLINT(runtime/int)

 private:
  bool PreemptedTooOften(std::chrono::steady_clock::time_point now, long count);  // NOLINT

  SwitchCounter preemptions_;
  double max_preemptions_per_second_;
  std::chrono::steady_clock::time_point rate_window_start_;
  long rate_window_count_ = -1;  // NOLINT(runtime/int): -1: no window yet
  double preempted_share_ = 0;
  long last_count_ = -1;  // NOLINT(runtime/int): -1: not read yet
  std::chrono::steady_clock::time_point paused_until_;
};

}  // namespace labgate::gateway

#endif  // LABGATE_GATEWAY_TRANSPORT_SPIN_GUARD_H_
