// RunOrQueueStrand: RunOrQueue runs idle work on the submitting thread; asio's post and
// defer always queue; everything runs in order, one piece at a time, never nested.
#include "gateway/core/run_or_queue_strand.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/defer.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace labgate::gateway {
namespace {

using namespace std::chrono_literals;

class RunOrQueueStrandTest : public ::testing::Test {
 protected:
  RunOrQueueStrandTest() : work_(boost::asio::make_work_guard(io_)) {
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  ~RunOrQueueStrandTest() override {
    work_.reset();
    io_.stop();
    for (auto& thread : threads_) thread.join();
  }
  // Waits until everything submitted to `strand` so far has run.
  static void Settle(const RunOrQueueStrand& strand) {
    std::promise<void> done;
    boost::asio::post(strand, [&done] { done.set_value(); });
    ASSERT_EQ(done.get_future().wait_for(5s), std::future_status::ready);
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
};

TEST_F(RunOrQueueStrandTest, RunOrQueueOnAnIdleStrandRunsOnTheSubmittingThreadAtOnce) {
  RunOrQueueStrand strand(io_);
  std::thread::id ran_on;
  bool inside = false;
  strand.RunOrQueue([&] {
    ran_on = std::this_thread::get_id();
    inside = strand.running_in_this_thread();
  });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_TRUE(inside);
  EXPECT_FALSE(strand.running_in_this_thread());
}

TEST_F(RunOrQueueStrandTest, PostedWorkIsQueuedEvenOnAnIdleStrand) {
  RunOrQueueStrand strand(io_);
  std::promise<std::thread::id> ran_on;
  boost::asio::post(strand, [&] { ran_on.set_value(std::this_thread::get_id()); });
  auto thread = ran_on.get_future();
  ASSERT_EQ(thread.wait_for(5s), std::future_status::ready);
  EXPECT_NE(thread.get(), std::this_thread::get_id());
}

TEST_F(RunOrQueueStrandTest, DeferredWorkIsQueuedEvenOnAnIdleStrand) {
  RunOrQueueStrand strand(io_);
  std::promise<std::thread::id> ran_on;
  boost::asio::defer(strand, [&] { ran_on.set_value(std::this_thread::get_id()); });
  auto thread = ran_on.get_future();
  ASSERT_EQ(thread.wait_for(5s), std::future_status::ready);
  EXPECT_NE(thread.get(), std::this_thread::get_id());
  // Work posted behind deferred work waits its turn.
  std::vector<int> order;
  boost::asio::defer(strand, [&] {
    std::this_thread::sleep_for(20ms);
    order.push_back(1);
  });
  strand.RunOrQueue([&] { order.push_back(2); });
  Settle(strand);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST_F(RunOrQueueStrandTest, WorkSubmittedFromInsideRunsAfterwardsNotNested) {
  RunOrQueueStrand strand(io_);
  std::vector<int> order;
  std::promise<std::thread::id> inner_thread;
  strand.RunOrQueue([&] {
    order.push_back(1);
    strand.RunOrQueue([&] {
      order.push_back(3);
      inner_thread.set_value(std::this_thread::get_id());
    });
    order.push_back(2);
  });
  auto inner = inner_thread.get_future();
  ASSERT_EQ(inner.wait_for(5s), std::future_status::ready);
  EXPECT_NE(inner.get(), std::this_thread::get_id());  // queued work goes to the io_context
  Settle(strand);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_F(RunOrQueueStrandTest, ManyThreadsNeverOverlapAndEachKeepsItsOrder) {
  RunOrQueueStrand strand(io_);
  constexpr int kThreads = 4;
  constexpr int kEach = 3000;
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::vector<int> last(kThreads, -1);  // touched only on the strand
  std::atomic<int> out_of_order{0};
  std::atomic<int> ran_inline{0};
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t) {
    senders.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const auto me = std::this_thread::get_id();
        strand.RunOrQueue([&, t, i, me] {
          if (inside.fetch_add(1) != 0) overlaps++;
          if (last[static_cast<size_t>(t)] != i - 1) out_of_order++;
          last[static_cast<size_t>(t)] = i;
          if (std::this_thread::get_id() == me) ran_inline++;
          inside--;
        });
      }
    });
  }
  for (auto& sender : senders) sender.join();
  Settle(strand);
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(out_of_order.load(), 0);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(last[static_cast<size_t>(t)], kEach - 1);
  EXPECT_GT(ran_inline.load(), 0);
}

TEST_F(RunOrQueueStrandTest, TimersOnTheStrandCompleteInsideIt) {
  RunOrQueueStrand strand(io_);
  boost::asio::any_io_executor executor = strand;
  boost::asio::steady_timer timer(executor, 10ms);
  std::promise<bool> fired;
  timer.async_wait([&](boost::system::error_code ec) {
    fired.set_value(!ec && strand.running_in_this_thread());
  });
  auto result = fired.get_future();
  ASSERT_EQ(result.wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(result.get());
}

TEST_F(RunOrQueueStrandTest, WorkThatThrowsDoesNotWedgeTheStrand) {
  RunOrQueueStrand strand(io_);
  strand.RunOrQueue([] { throw std::runtime_error("boom"); });
  bool ran = false;
  strand.RunOrQueue([&] { ran = true; });
  EXPECT_TRUE(ran);
}

TEST_F(RunOrQueueStrandTest, MoveOnlyWorkIsAccepted) {
  RunOrQueueStrand strand(io_);
  auto value = std::make_unique<int>(7);
  int seen = 0;
  strand.RunOrQueue([&seen, value = std::move(value)] { seen = *value; });
  EXPECT_EQ(seen, 7);
}

}  // namespace
}  // namespace labgate::gateway
