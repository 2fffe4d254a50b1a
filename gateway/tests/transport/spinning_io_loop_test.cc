#include "gateway/transport/spinning_io_loop.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <fstream>
#include <future>
#include <stdexcept>
#include <string>
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

// The thread's scheduler state letter from /proc: 'R' running or runnable, 'S' asleep.
char StateOf(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t name_end = line.rfind(')');  // the state follows "(comm) "
  return name_end != std::string::npos && name_end + 2 < line.size() ? line[name_end + 2] : '?';
}

// Of 20 looks at the loop's thread over 50 ms with nothing to do after a handler, how many
// found it running or runnable (polling) rather than asleep. A look is a state, not a time,
// so a loaded machine that preempts the thread still shows it runnable.
int RunnableLooksWhileIdle(std::chrono::microseconds spin) {
  boost::asio::io_context context;
  auto work = boost::asio::make_work_guard(context);
  std::thread loop([&] { RunSpinning(context, spin); });
  const pid_t tid = RunOn(context, [] { return static_cast<pid_t>(::syscall(SYS_gettid)); });
  int runnable = 0;
  for (int look = 0; look < 20; ++look) {
    std::this_thread::sleep_for(2500us);
    if (StateOf(tid) == 'R') ++runnable;
  }
  context.stop();
  loop.join();
  return runnable;
}

TEST(SpinningIoLoopTest, AfterAHandlerTheThreadStaysAwakeForTheNextOne) {
  EXPECT_GE(RunnableLooksWhileIdle(std::chrono::microseconds(10s)), 15);
}

TEST(SpinningIoLoopTest, WithoutSpinTheThreadSleepsBetweenHandlers) {
  EXPECT_LE(RunnableLooksWhileIdle(0us), 5);
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
