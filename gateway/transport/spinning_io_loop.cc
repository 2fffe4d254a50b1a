#include "gateway/transport/spinning_io_loop.h"

#include "gateway/transport/spin_guard.h"

namespace labgate::gateway {

namespace {

// An io thread handles several events per request, so few of them are preempted even when
// neighbours want the CPU; their rate says more. On a 2-vCPU VM, a polling io thread serving
// one client was preempted 400–1,000 times a second with the machine otherwise idle and
// 7,000–10,000 times with a pty simulator beside it (bench/README.md, "Polling before
// sleeping, on HTTP").
constexpr double kMaxPreemptionsPerSecond = 3000;

}  // namespace

void RunSpinning(boost::asio::io_context& context, std::chrono::microseconds spin) {
  if (spin.count() <= 0) {
    context.run();
    return;
  }
  SpinGuard guard(SpinGuard::CountedPreemptions, kMaxPreemptionsPerSecond);
  bool spinning = false;
  std::chrono::steady_clock::time_point spin_until;
  for (;;) {
    const std::size_t ran = spinning ? context.poll() : context.run_one();
    if (context.stopped()) return;
    if (ran > 0) {
      spinning = guard.MaySpin();
      spin_until = std::chrono::steady_clock::now() + spin;
    } else if (spinning && std::chrono::steady_clock::now() >= spin_until) {
      spinning = false;
    }
  }
}

}  // namespace labgate::gateway
