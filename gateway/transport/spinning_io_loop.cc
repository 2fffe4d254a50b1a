#include "gateway/transport/spinning_io_loop.h"

#include "gateway/transport/spin_guard.h"

namespace labgate::gateway {

void RunSpinning(boost::asio::io_context& context, std::chrono::microseconds spin) {
  if (spin.count() <= 0) {
    context.run();
    return;
  }
  SpinGuard guard;
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
