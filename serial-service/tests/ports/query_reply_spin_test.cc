// A query's inline wait for the reply: with a reply spin it polls the device without
// sleeping, so a quick reply is answered on the caller's thread; without one it sleeps in
// the device's wait, and a reply that comes later is the worker's.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "serial-service/ports/port_registry.h"
#include "serial-service/tests/test_util.h"

namespace labgate::serial {
namespace {

using testing::FakeClock;

// A device whose reply is ready from its `ready_after`-th read on. A read that finds no
// reply sleeps its timeout, as a real device's wait does. It records each read's timeout.
class LateReplyPort : public SerialPort {
 public:
  LateReplyPort(std::string reply, int ready_after)
      : reply_(std::move(reply)), ready_after_(ready_after) {}
  absl::Status Open() override { return absl::OkStatus(); }
  absl::Status Configure(const PortSettings&) override { return absl::OkStatus(); }
  absl::StatusOr<size_t> Read(char* buffer, size_t max, int64_t timeout_ms) override {
    {
      absl::MutexLock lock(&mu_);
      if (asked_) {
        read_timeouts_.push_back(timeout_ms);
        if (static_cast<int>(read_timeouts_.size()) >= ready_after_ && !reply_.empty()) {
          const size_t count = std::min(max, reply_.size());
          reply_.copy(buffer, count);
          reply_.erase(0, count);
          return count;
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return 0;
  }
  absl::StatusOr<size_t> Write(const std::string& data, int64_t) override {
    absl::MutexLock lock(&mu_);
    if (!data.empty()) asked_ = true;  // empty writes are WaitUntilIdle's probes
    return data.size();
  }
  void Close() override {}
  std::vector<int64_t> read_timeouts() {
    absl::MutexLock lock(&mu_);
    return read_timeouts_;
  }

 private:
  absl::Mutex mu_;
  std::string reply_;
  const int ready_after_;
  bool asked_ = false;
  std::vector<int64_t> read_timeouts_;
};

struct QueryAnswer {
  absl::StatusOr<QueryResult> result;
  std::thread::id thread;
};

class QueryReplySpinTest : public ::testing::Test {
 protected:
  // Opens a port on a LateReplyPort under a registry whose queries spin for `spin`.
  std::shared_ptr<ManagedPort> Open(std::chrono::microseconds spin, int ready_after) {
    registry_ = std::make_unique<PortRegistry>(
        [this, ready_after](const std::string&) -> std::unique_ptr<SerialPort> {
          auto port = std::make_unique<LateReplyPort>("ID\n", ready_after);
          device_ = port.get();
          return port;
        },
        &clock_, &hub_, /*poll_period_ms=*/10, /*recorder=*/nullptr, spin);
    PortSettings settings;
    settings.baud_rate = 115200;
    settings.terminator = "\n";
    std::promise<absl::Status> opened;
    registry_->Open("alice", "late", settings, [&](const absl::Status& s) { opened.set_value(s); });
    EXPECT_TRUE(opened.get_future().get().ok());
    auto port = registry_->Select("alice", "late");
    if (!port.ok()) return nullptr;
    WaitUntilIdle(**port);
    return *port;
  }

  // An empty write finishes on this thread once the worker is done with the open.
  static void WaitUntilIdle(ManagedPort& port) {
    for (int i = 0; i < 1000; ++i) {
      std::promise<std::thread::id> wrote;
      port.Write("", false, 1000, [&](const absl::StatusOr<WriteResult>&) {
        wrote.set_value(std::this_thread::get_id());
      });
      if (wrote.get_future().get() == std::this_thread::get_id()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ADD_FAILURE() << "the port's worker never went idle";
  }

  static QueryAnswer Query(ManagedPort& port, int64_t timeout_ms) {
    ReadParams params;
    params.timeout_ms = timeout_ms;
    std::promise<QueryAnswer> answered;
    port.Query("*IDN?", true, params, [&](absl::StatusOr<QueryResult> result) {
      answered.set_value({std::move(result), std::this_thread::get_id()});
    });
    return answered.get_future().get();
  }

  FakeClock clock_;
  EventHub hub_;
  LateReplyPort* device_ = nullptr;
  std::unique_ptr<PortRegistry> registry_;
};

TEST_F(QueryReplySpinTest, WithASpinTheReplyIsPolledForAndAnsweredOnTheCallersThread) {
  auto port = Open(std::chrono::microseconds(1000), /*ready_after=*/3);
  ASSERT_NE(port, nullptr);
  QueryAnswer answer = Query(*port, 1000);
  ASSERT_TRUE(answer.result.ok()) << answer.result.status();
  EXPECT_EQ(answer.result->reply.data, "ID");
  EXPECT_FALSE(answer.result->reply.timed_out);
  EXPECT_EQ(answer.thread, std::this_thread::get_id());
  const std::vector<int64_t> timeouts = device_->read_timeouts();
  ASSERT_FALSE(timeouts.empty());
  EXPECT_EQ(timeouts.front(), 0) << "the first wait for the reply slept";
}

TEST_F(QueryReplySpinTest, WithoutASpinTheInlineWaitSleepsAndALaterReplyIsTheWorkers) {
  auto port = Open(std::chrono::microseconds(0), /*ready_after=*/3);
  ASSERT_NE(port, nullptr);
  QueryAnswer answer = Query(*port, 1000);
  ASSERT_TRUE(answer.result.ok()) << answer.result.status();
  EXPECT_EQ(answer.result->reply.data, "ID");
  EXPECT_NE(answer.thread, std::this_thread::get_id());
  const std::vector<int64_t> timeouts = device_->read_timeouts();
  ASSERT_FALSE(timeouts.empty());
  EXPECT_EQ(timeouts.front(), ManagedPort::kQueryInlineWaitMs);
}

TEST_F(QueryReplySpinTest, ASilentDeviceStillTimesOutOnTheWorkerWhichWaitsInsteadOfPolling) {
  // The spin belongs to the caller's brief wait only: the worker then waits out the
  // query's timeout in the device's wait, as without a spin.
  auto port = Open(std::chrono::seconds(10), /*ready_after=*/1000000);
  ASSERT_NE(port, nullptr);
  QueryAnswer answer = Query(*port, 200);
  ASSERT_TRUE(answer.result.ok()) << answer.result.status();
  EXPECT_TRUE(answer.result->reply.timed_out);
  EXPECT_EQ(answer.result->reply.data, "");
  EXPECT_NE(answer.thread, std::this_thread::get_id());
  const std::vector<int64_t> timeouts = device_->read_timeouts();
  ASSERT_FALSE(timeouts.empty());
  EXPECT_EQ(timeouts.front(), 0);
  // (After the query the worker drains the device with reads that do not wait.)
  EXPECT_GT(*std::max_element(timeouts.begin(), timeouts.end()), 0)
      << "the worker polled instead of waiting";
}

}  // namespace
}  // namespace labgate::serial
