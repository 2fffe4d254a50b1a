#include "gateway/transport/spin_guard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace labgate::gateway {
namespace {

using namespace std::chrono_literals;

// A switch counter the test moves by hand.
struct FakeSwitches {
  long count = 0;  // NOLINT(runtime/int)
  int reads = 0;
  SpinGuard::SwitchCounter Counter() {
    return [this] {
      ++reads;
      return count;
    };
  }
};

// One spin, preempted or not, as the reader makes it.
void Spin(SpinGuard& guard, FakeSwitches& switches, bool preempted) {
  guard.Spinning();
  guard.Spinning();
  if (preempted) ++switches.count;
  guard.SpinEnded();
}

TEST(SpinGuardTest, SpinsPreemptedInARowPauseSpinningForAWhile) {
  FakeSwitches switches;
  SpinGuard guard(switches.Counter());
  ASSERT_TRUE(guard.MaySpin());
  Spin(guard, switches, true);
  Spin(guard, switches, true);
  EXPECT_TRUE(guard.MaySpin()) << "two preempted spins are not yet a pattern";
  Spin(guard, switches, true);
  EXPECT_FALSE(guard.MaySpin());
  std::this_thread::sleep_for(SpinGuard::kPause + 50ms);
  EXPECT_TRUE(guard.MaySpin());
  // Still contended after the pause: two more preempted spins pause again.
  Spin(guard, switches, true);
  Spin(guard, switches, true);
  EXPECT_FALSE(guard.MaySpin());
}

TEST(SpinGuardTest, AnOccasionalPreemptedSpinDoesNotPause) {
  FakeSwitches switches;
  SpinGuard guard(switches.Counter());
  // A timer's wake-up on the same CPU now and then: one spin in eight preempted.
  for (int spin = 0; spin < 200; ++spin) {
    Spin(guard, switches, spin % 8 == 0);
    ASSERT_TRUE(guard.MaySpin()) << "spin " << spin;
  }
}

TEST(SpinGuardTest, PreemptionsWhileARequestIsServedDoNotPause) {
  FakeSwitches switches;
  SpinGuard guard(switches.Counter());
  for (int request = 0; request < 5; ++request) {
    switches.count += 3;  // serving: a pty write's flush worker preempts the reader
    guard.Spinning();
    guard.SpinEnded();
    EXPECT_TRUE(guard.MaySpin()) << "request " << request;
  }
}

TEST(SpinGuardTest, OnlyASpinThatStartedReadsTheCounter) {
  FakeSwitches switches;
  SpinGuard guard(switches.Counter());
  guard.SpinEnded();  // the request was there at once: no spin, no system call
  EXPECT_EQ(switches.reads, 0);
  guard.Spinning();
  guard.Spinning();
  guard.SpinEnded();
  EXPECT_EQ(switches.reads, 2);
}

TEST(SpinGuardTest, AnUnknownCountNeverPauses) {
  SpinGuard guard([] { return -1L; });
  guard.Spinning();
  guard.SpinEnded();
  EXPECT_TRUE(guard.MaySpin());
}

// The real counter: a thread spinning on a CPU that another busy thread shares is preempted
// in every spin, and the guard sees it.
TEST(SpinGuardTest, ASpinSharingItsCpuWithABusyThreadIsPaused) {
  const int cpu = sched_getcpu();
  ASSERT_GE(cpu, 0);
  cpu_set_t one_cpu;
  CPU_ZERO(&one_cpu);
  CPU_SET(cpu, &one_cpu);
  cpu_set_t before;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(before), &before), 0);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(one_cpu), &one_cpu), 0);

  std::atomic<bool> stop{false};
  std::thread neighbour([&] {
    pthread_setaffinity_np(pthread_self(), sizeof(one_cpu), &one_cpu);
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  SpinGuard guard;
  for (int spin = 0; spin < 4 && guard.MaySpin(); ++spin) {
    guard.Spinning();
    const auto until = std::chrono::steady_clock::now() + 200ms;
    while (std::chrono::steady_clock::now() < until) {
    }
    guard.SpinEnded();
  }
  stop = true;
  neighbour.join();
  pthread_setaffinity_np(pthread_self(), sizeof(before), &before);
  EXPECT_FALSE(guard.MaySpin());
}

}  // namespace
}  // namespace labgate::gateway
