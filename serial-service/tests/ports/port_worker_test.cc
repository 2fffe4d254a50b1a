// PortWorker: tasks in order on the worker, inline attempts that take the idle worker's
// place without ever overlapping a task or the idle hook, and the hook's waits on a
// descriptor or a timeout.
#include "serial-service/ports/port_worker.h"

#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace labgate::serial {
namespace {

using std::chrono::milliseconds;

TEST(PortWorkerTest, AnIdleWorkerLetsTheCallerRunTheAttempt) {
  PortWorker worker("test", nullptr);
  std::thread::id ran_on;
  EXPECT_TRUE(worker.TryRunInline([&] { ran_on = std::this_thread::get_id(); }));
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(PortWorkerTest, ABusyWorkerRefusesTheAttemptWithoutRunningIt) {
  PortWorker worker("test", nullptr);
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
  PortWorker worker("test", nullptr);
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
  PortWorker worker("test", [&] {
    enter();
    hook_runs++;
    std::this_thread::yield();
    inside--;
    return IdleWait{-1, 1};  // run again in 1 ms
  });
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

// The hook sleeps on its descriptor: it runs again when the descriptor becomes readable, and
// not before (no polling while nothing happens).
TEST(PortWorkerTest, TheHookRunsWhenItsDescriptorBecomesReadable) {
  const int fd = eventfd(0, EFD_NONBLOCK);
  ASSERT_GE(fd, 0);
  std::atomic<int> runs{0};
  std::atomic<int> saw_data{0};
  PortWorker worker("test", [&] {
    runs++;
    uint64_t value = 0;
    if (read(fd, &value, sizeof(value)) == sizeof(value)) saw_data++;
    return IdleWait{fd, -1};
  });
  worker.Post([] {});  // the hook runs after a task
  auto wait_until = [](auto condition) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!condition() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(1));
    }
    return condition();
  };
  ASSERT_TRUE(wait_until([&] { return runs.load() >= 1; }));
  std::this_thread::sleep_for(milliseconds(100));
  const int quiet_runs = runs.load();
  EXPECT_LE(quiet_runs, 2);  // asleep on the descriptor, not polling
  const uint64_t one = 1;
  ASSERT_EQ(write(fd, &one, sizeof(one)), static_cast<ssize_t>(sizeof(one)));
  EXPECT_TRUE(wait_until([&] { return saw_data.load() == 1; }));
  close(fd);
}

// A task posted while the worker sleeps on a descriptor that never becomes readable runs at
// once, and so does the hook after Wake().
TEST(PortWorkerTest, TasksAndWakeInterruptTheSleep) {
  const int fd = eventfd(0, EFD_NONBLOCK);
  ASSERT_GE(fd, 0);
  std::atomic<int> runs{0};
  PortWorker worker("test", [&] {
    runs++;
    return IdleWait{fd, -1};
  });
  for (int i = 0; i < 50; ++i) {
    std::promise<void> ran;
    worker.Post([&] { ran.set_value(); });
    ASSERT_EQ(ran.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (runs.load() < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  std::this_thread::sleep_for(milliseconds(20));  // the hook has run after the last task
  const int before = runs.load();
  EXPECT_GE(before, 1);
  worker.Wake();
  while (runs.load() == before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_GT(runs.load(), before);
  close(fd);
}

// A timeout brings the hook back after that long.
TEST(PortWorkerTest, TheHooksTimeoutBringsItBack) {
  std::atomic<int> runs{0};
  PortWorker worker("test", [&] { return runs.fetch_add(1) < 3 ? IdleWait{-1, 5} : IdleWait{}; });
  worker.Wake();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (runs.load() < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_EQ(runs.load(), 4);
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(runs.load(), 4);  // no timeout asked for: it sleeps
}

}  // namespace
}  // namespace labgate::serial
