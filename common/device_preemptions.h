// The preemptions a thread took inside its own device I/O. A write to a pty (or a USB serial
// port) wakes the kernel's flush worker on the writer's CPU, which preempts the writer; a
// simulated instrument answering on the same CPU does too. The stdio reader, which makes such
// calls in place, does not take those for the CPU's other users (gateway/transport/spin_guard.h).
#pragma once

#include <sys/resource.h>

#include <utility>

namespace labgate {

class DevicePreemptions {
 public:
  // Runs `io`, counting the calling thread's preemptions meanwhile.
  template <typename Io>
  static void Around(Io&& io) {
    const long before = InvoluntarySwitches();  // NOLINT(runtime/int): rusage's own type
    std::forward<Io>(io)();
    const long after = InvoluntarySwitches();  // NOLINT(runtime/int)
    if (before >= 0 && after > before) t_count += after - before;
  }

  // This thread's preemptions so far, less those inside Around (-1: unknown).
  static long OutsideDeviceIo() {            // NOLINT(runtime/int)
    const long all = InvoluntarySwitches();  // NOLINT(runtime/int)
    return all < 0 ? -1 : all - t_count;
  }

  static long InvoluntarySwitches() {  // NOLINT(runtime/int)
    rusage usage{};
    return getrusage(RUSAGE_THREAD, &usage) == 0 ? usage.ru_nivcsw : -1;
  }

 private:
  static inline thread_local long t_count = 0;  // NOLINT(runtime/int)
};

}  // namespace labgate
