#include "gateway/resources/update_coalescer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <thread>

namespace labgate::gateway {
namespace {

using std::chrono::milliseconds;

// Counts calls and lets a test wait for a given count.
struct Counter {
  std::mutex mutex;
  std::condition_variable changed;
  int calls = 0;
  void Add() {
    std::lock_guard<std::mutex> lock(mutex);
    ++calls;
    changed.notify_all();
  }
  bool WaitFor(int count) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(10), [&] { return calls >= count; });
  }
  int Now() {
    std::lock_guard<std::mutex> lock(mutex);
    return calls;
  }
};

TEST(UpdateCoalescerTest, TheFirstTriggerFiresAtOnce) {
  Counter counter;
  auto coalescer = UpdateCoalescer::Create(milliseconds(10000), [&] { counter.Add(); });
  coalescer->Trigger();
  EXPECT_EQ(counter.Now(), 1);
  coalescer->Stop();
}

TEST(UpdateCoalescerTest, ABurstBecomesOneMoreCall) {
  Counter counter;
  auto coalescer = UpdateCoalescer::Create(milliseconds(100), [&] { counter.Add(); });
  for (int i = 0; i < 50; ++i) coalescer->Trigger();
  EXPECT_EQ(counter.Now(), 1);
  ASSERT_TRUE(counter.WaitFor(2));
  // The burst was merged: nothing else is pending once the trailing call came.
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(counter.Now(), 2);
  coalescer->Stop();
}

TEST(UpdateCoalescerTest, CallsAreAtLeastAnIntervalApart) {
  std::mutex mutex;
  std::vector<std::chrono::steady_clock::time_point> fired;
  Counter counter;
  auto coalescer = UpdateCoalescer::Create(milliseconds(50), [&] {
    {
      std::lock_guard<std::mutex> lock(mutex);
      fired.push_back(std::chrono::steady_clock::now());
    }
    counter.Add();
  });
  const auto until = std::chrono::steady_clock::now() + milliseconds(400);
  while (std::chrono::steady_clock::now() < until) {
    coalescer->Trigger();
    std::this_thread::sleep_for(milliseconds(1));
  }
  coalescer->Stop();
  std::lock_guard<std::mutex> lock(mutex);
  ASSERT_GE(fired.size(), 2u);
  for (size_t i = 1; i < fired.size(); ++i) {
    EXPECT_GE(fired[i] - fired[i - 1], milliseconds(49)) << "call " << i;
  }
}

TEST(UpdateCoalescerTest, NothingFiresAfterStop) {
  Counter counter;
  auto coalescer = UpdateCoalescer::Create(milliseconds(50), [&] { counter.Add(); });
  coalescer->Trigger();
  coalescer->Trigger();  // pending
  coalescer->Stop();
  coalescer->Trigger();
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(counter.Now(), 1);
}

}  // namespace
}  // namespace labgate::gateway
