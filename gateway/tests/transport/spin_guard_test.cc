#include "gateway/transport/spin_guard.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/device_preemptions.h"

namespace labgate::gateway {
namespace {

using namespace std::chrono_literals;

TEST(SpinGuardTest, PreemptionsBetweenMostRecentReadsPauseSpinningForAWhile) {
  long preemptions = 0;  // NOLINT(runtime/int)
  SpinGuard guard([&] { return preemptions; });
  EXPECT_TRUE(guard.MaySpin());
  EXPECT_TRUE(guard.MaySpin());
  ++preemptions;
  EXPECT_TRUE(guard.MaySpin());
  ++preemptions;
  EXPECT_TRUE(guard.MaySpin()) << "two preempted reads are not yet a pattern";
  ++preemptions;
  EXPECT_FALSE(guard.MaySpin());
  EXPECT_FALSE(guard.MaySpin()) << "paused, whatever the count does meanwhile";
  std::this_thread::sleep_for(SpinGuard::kPause + 50ms);
  EXPECT_TRUE(guard.MaySpin());
  // Still contended after the pause: two more preempted reads pause again.
  ++preemptions;
  EXPECT_TRUE(guard.MaySpin());
  ++preemptions;
  EXPECT_FALSE(guard.MaySpin());
}

TEST(SpinGuardTest, AnOccasionalPreemptionDoesNotPause) {
  long preemptions = 0;  // NOLINT(runtime/int)
  SpinGuard guard([&] { return preemptions; });
  // A timer's wake-up on the same CPU now and then: one read in eight preempted.
  for (int read = 0; read < 200; ++read) {
    if (read % 8 == 0) ++preemptions;
    ASSERT_TRUE(guard.MaySpin()) << "read " << read;
  }
}

TEST(SpinGuardTest, PreemptionsAtAHighRatePauseAGuardWithARateLimit) {
  long preemptions = 0;  // NOLINT(runtime/int)
  SpinGuard guard([&] { return preemptions; }, 3000);
  EXPECT_TRUE(guard.MaySpin());  // opens the window
  // Far more than 3,000 a second, however late this thread runs (up to 100 s).
  preemptions += 300'000'000;
  std::this_thread::sleep_for(SpinGuard::kRateWindow + 5ms);
  EXPECT_FALSE(guard.MaySpin()) << "one preempted event in two is no share, but the rate is";
  EXPECT_FALSE(guard.MaySpin()) << "paused";
  std::this_thread::sleep_for(SpinGuard::kPause + 50ms);
  EXPECT_TRUE(guard.MaySpin()) << "spinning is tried again after the pause";
}

TEST(SpinGuardTest, PreemptionsBelowTheRateLimitDoNotPause) {
  long preemptions = 0;  // NOLINT(runtime/int)
  SpinGuard guard([&] { return preemptions; }, 3000);
  EXPECT_TRUE(guard.MaySpin());
  // One preemption per window of at least 10 ms: at most 100 a second.
  for (int window = 0; window < 5; ++window) {
    std::this_thread::sleep_for(SpinGuard::kRateWindow);
    for (int event = 0; event < 7; ++event) ASSERT_TRUE(guard.MaySpin());
    ++preemptions;
  }
}

TEST(SpinGuardTest, WithoutARateLimitAnyRateIsAllowedWhileTheShareIsLow) {
  long preemptions = 0;  // NOLINT(runtime/int)
  SpinGuard guard([&] { return preemptions; });
  EXPECT_TRUE(guard.MaySpin());
  preemptions += 300'000'000;
  std::this_thread::sleep_for(SpinGuard::kRateWindow + 5ms);
  EXPECT_TRUE(guard.MaySpin()) << "one preempted event is not yet a share";
}

TEST(SpinGuardTest, AnUnknownCountNeverPauses) {
  SpinGuard guard([] { return -1L; });
  EXPECT_TRUE(guard.MaySpin());
  EXPECT_TRUE(guard.MaySpin());
}

// Runs `work` on this thread while a busy thread shares its CPU, so that it is preempted.
template <typename Work>
void WithABusyNeighbour(Work work) {
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
  work();
  stop = true;
  neighbour.join();
  pthread_setaffinity_np(pthread_self(), sizeof(before), &before);
}

void BusyFor(std::chrono::milliseconds duration) {
  const auto until = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// The real count: a thread sharing its CPU with a busy one is preempted between every read,
// and the guard sees it.
TEST(SpinGuardTest, AThreadSharingItsCpuWithABusyOneIsPaused) {
  SpinGuard guard;
  ASSERT_TRUE(guard.MaySpin());
  bool paused = false;
  WithABusyNeighbour([&] {
    for (int read = 0; read < 5 && !paused; ++read) {
      BusyFor(100ms);
      paused = !guard.MaySpin();
    }
  });
  EXPECT_TRUE(paused);
}

// Preempted just as much, but inside device I/O (a query's pty write wakes the kernel's flush
// worker on this CPU): the CPU's other users are not to blame, and spinning goes on.
TEST(SpinGuardTest, PreemptionsInsideDeviceIoDoNotPause) {
  SpinGuard guard;
  ASSERT_TRUE(guard.MaySpin());
  const long all_before = DevicePreemptions::InvoluntarySwitches();  // NOLINT(runtime/int)
  WithABusyNeighbour([&] {
    for (int read = 0; read < 5; ++read) {
      DevicePreemptions::Around([] { BusyFor(100ms); });
      EXPECT_TRUE(guard.MaySpin()) << "read " << read;
    }
  });
  ASSERT_GT(DevicePreemptions::InvoluntarySwitches(), all_before + 4)
      << "the thread was preempted in each";
}

}  // namespace
}  // namespace labgate::gateway
