// PortWorker: tasks in order on the worker, and inline attempts that take the idle
// worker's place without ever overlapping a task or the idle hook.
#include "serial-service/ports/port_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace labgate::serial {
namespace {

using std::chrono::milliseconds;

TEST(PortWorkerTest, AnIdleWorkerLetsTheCallerRunTheAttempt) {
  PortWorker worker("test", nullptr, 0);
  std::thread::id ran_on;
  EXPECT_TRUE(worker.TryRunInline([&] { ran_on = std::this_thread::get_id(); }));
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(PortWorkerTest, ABusyWorkerRefusesTheAttemptWithoutRunningIt) {
  PortWorker worker("test", nullptr, 0);
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  worker.Post([&started, released] {
    started.set_value();
    released.wait();
  });
  started.get_future().wait();
  bool ran = false;
  EXPECT_FALSE(worker.TryRunInline([&] { ran = true; }));
  EXPECT_FALSE(ran);
  // A task queued behind the running one also keeps attempts out, so order holds.
  std::promise<void> second_done;
  worker.Post([&second_done] { second_done.set_value(); });
  EXPECT_FALSE(worker.TryRunInline([&] { ran = true; }));
  release.set_value();
  second_done.get_future().wait();
  EXPECT_FALSE(ran);
}

TEST(PortWorkerTest, ATaskPostedDuringAnAttemptWaitsForItToEnd) {
  PortWorker worker("test", nullptr, 0);
  std::atomic<bool> attempt_running{false};
  std::atomic<bool> task_overlapped{false};
  std::promise<void> task_done;
  ASSERT_TRUE(worker.TryRunInline([&] {
    attempt_running = true;
    worker.Post([&] {
      task_overlapped = attempt_running.load();
      task_done.set_value();
    });
    std::this_thread::sleep_for(milliseconds(50));  // the worker is awake by now
    attempt_running = false;
  }));
  ASSERT_EQ(task_done.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_FALSE(task_overlapped.load());
}

TEST(PortWorkerTest, TheIdleHookNeverOverlapsAnAttempt) {
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::atomic<int> hook_runs{0};
  auto enter = [&] {
    if (inside.fetch_add(1) != 0) overlaps++;
  };
  PortWorker worker(
      "test",
      [&] {
        enter();
        hook_runs++;
        std::this_thread::yield();
        inside--;
        return true;  // keep polling
      },
      1);
  int attempts = 0;
  // At least 300 ms of contention, and on a loaded machine as long as it takes (up to 20 s)
  // for both sides to have had their turn.
  const auto start = std::chrono::steady_clock::now();
  auto contended_enough = [&] {
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed > std::chrono::seconds(20)) return true;
    return elapsed > milliseconds(300) && attempts > 0 && hook_runs.load() > 0;
  };
  while (!contended_enough()) {
    if (worker.TryRunInline([&] {
          enter();
          std::this_thread::yield();
          inside--;
        })) {
      attempts++;
    }
  }
  EXPECT_GT(attempts, 0);
  EXPECT_GT(hook_runs.load(), 0);
  EXPECT_EQ(overlaps.load(), 0);
}

}  // namespace
}  // namespace labgate::serial
