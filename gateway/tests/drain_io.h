// For gateway tests that run an io_context on threads of their own: at teardown, lets its work
// finish (the test's clients are gone, so connections end) before stopping it. A handler that an
// io_context's stop leaves unrun is destroyed without running, which can leave a connection and
// what it serves holding each other, a leak LeakSanitizer reports at exit.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <thread>

namespace labgate::gateway::testing {

// Call after the work guard is released; returns once the io_context ran out of work, or
// `within` passed, and stops it.
inline void DrainThenStop(boost::asio::io_context& io,
                          std::chrono::milliseconds within = std::chrono::seconds(2)) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!io.stopped() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  io.stop();
}

}  // namespace labgate::gateway::testing
