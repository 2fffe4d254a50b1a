#include "gateway/transport/spinning_io_loop.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

namespace labgate::gateway {
namespace {

using namespace std::chrono_literals;

// The calling thread's voluntary context switches: each time it went to sleep.
long Sleeps() {  // NOLINT(runtime/int): rusage's own type
  rusage usage{};
  EXPECT_EQ(getrusage(RUSAGE_THREAD, &usage), 0);
  return usage.ru_nvcsw;
}

// Posts `work` to `context` and waits for its result.
template <typename Work>
auto RunOn(boost::asio::io_context& context, Work work) {
  std::promise<decltype(work())> done;
  auto result = done.get_future();
  boost::asio::post(context, [&] { done.set_value(work()); });
  return result.get();
}

// Whether the loop's thread slept between two handlers 50 ms apart.
bool SleptBetweenHandlers(std::chrono::microseconds spin) {
  boost::asio::io_context context;
  auto work = boost::asio::make_work_guard(context);
  std::thread loop([&] { RunSpinning(context, spin); });
  const long before = RunOn(context, Sleeps);  // NOLINT(runtime/int)
  std::this_thread::sleep_for(50ms);
  const long after = RunOn(context, Sleeps);  // NOLINT(runtime/int)
  context.stop();
  loop.join();
  return after > before;
}

TEST(SpinningIoLoopTest, AfterAHandlerTheThreadStaysAwakeForTheNextOne) {
  // Preemption by a busy neighbour is an involuntary switch, so this holds on a loaded machine.
  EXPECT_FALSE(SleptBetweenHandlers(std::chrono::microseconds(10s)));
}

TEST(SpinningIoLoopTest, WithoutSpinTheThreadSleepsBetweenHandlers) {
  EXPECT_TRUE(SleptBetweenHandlers(0us));
}

TEST(SpinningIoLoopTest, OnceTheWindowPassesTheThreadSleepsAndStillServes) {
  boost::asio::io_context context;
  auto work = boost::asio::make_work_guard(context);
  std::thread loop([&] { RunSpinning(context, 20ms); });
  const long first = RunOn(context, Sleeps);  // NOLINT(runtime/int)
  std::this_thread::sleep_for(300ms);         // well past the window: asleep in run_one()
  const long later = RunOn(context, Sleeps);  // NOLINT(runtime/int)
  EXPECT_GT(later, first) << "an idle loop must not keep polling";
  // A timer fires while it sleeps, and work posted right after is still run.
  boost::asio::steady_timer timer(context, 10ms);
  std::promise<void> fired;
  timer.async_wait([&](boost::system::error_code) { fired.set_value(); });
  fired.get_future().get();
  EXPECT_EQ(RunOn(context, [] { return 7; }), 7);
  context.stop();
  loop.join();
}

TEST(SpinningIoLoopTest, StopEndsItWhileItPolls) {
  boost::asio::io_context context;
  auto work = boost::asio::make_work_guard(context);
  std::thread loop([&] { RunSpinning(context, std::chrono::microseconds(60s)); });
  RunOn(context, [] { return 0; });  // now polling, for a minute unless stopped
  context.stop();
  loop.join();
  EXPECT_TRUE(context.stopped());
}

TEST(SpinningIoLoopTest, ReturnsWhenTheWorkRunsOutAndRunsItAllInOrder) {
  for (const auto spin : {0us, std::chrono::microseconds(60s)}) {
    boost::asio::io_context context;
    std::vector<int> order;
    for (int i = 0; i < 3; ++i) {
      boost::asio::post(context, [&order, &context, i] {
        order.push_back(i);
        // Work posted by a handler is run before the loop returns.
        if (i == 2) boost::asio::post(context, [&order] { order.push_back(3); });
      });
    }
    RunSpinning(context, spin);  // no work guard: returns after the last handler
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3})) << "spin " << spin.count() << " µs";
  }
}

TEST(SpinningIoLoopTest, AHandlersExceptionReachesTheCaller) {
  boost::asio::io_context context;
  auto work = boost::asio::make_work_guard(context);
  boost::asio::post(context, [] {});
  boost::asio::post(context, [] { throw std::runtime_error("handler failed"); });
  EXPECT_THROW(RunSpinning(context, 1ms), std::runtime_error);
}

}  // namespace
}  // namespace labgate::gateway
