// Writes the device takes at once and reads whose data has already arrived finish on
// the calling thread; everything else goes to the port's worker, with the same results.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "serial-service/ports/port_registry.h"
#include "serial-service/tests/test_util.h"

namespace labgate::serial {
namespace {

using testing::FakeClock;

// A device that takes at most `burst` bytes per write that must not wait, and all of a
// write that may wait: it records each write, to show how the work was split.
class TricklePort : public SerialPort {
 public:
  struct WriteCall {
    std::string offered;
    int64_t timeout_ms;
    std::thread::id thread;
  };
  explicit TricklePort(size_t burst) : burst_(burst) {}
  absl::Status Open() override { return absl::OkStatus(); }
  absl::Status Configure(const PortSettings&) override { return absl::OkStatus(); }
  absl::StatusOr<size_t> Read(char*, size_t, int64_t) override { return 0; }
  absl::StatusOr<size_t> Write(const std::string& data, int64_t timeout_ms) override {
    absl::MutexLock lock(&mu_);
    if (data.empty()) return 0;  // WaitUntilIdle's probes
    calls_.push_back({data, timeout_ms, std::this_thread::get_id()});
    const size_t taken = timeout_ms == 0 ? std::min(burst_, data.size()) : data.size();
    received_ += data.substr(0, taken);
    return taken;
  }
  void Close() override {}
  std::vector<WriteCall> calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  std::string received() {
    absl::MutexLock lock(&mu_);
    return received_;
  }

 private:
  const size_t burst_;
  absl::Mutex mu_;
  std::vector<WriteCall> calls_;
  std::string received_;
};

template <typename T>
struct Finished {
  T value;
  std::thread::id thread;
};

class InlineIoTest : public ::testing::Test {
 protected:
  InlineIoTest()
      : registry_(
            [this](const std::string& name) -> std::unique_ptr<SerialPort> {
              if (name != "trickle") return DefaultPortFactory(name);
              auto port = std::make_unique<TricklePort>(3);
              trickle_ = port.get();
              return port;
            },
            &clock_, &hub_) {}

  std::shared_ptr<ManagedPort> Open(const std::string& name, const std::string& terminator = "",
                                    int64_t idle_disconnect_ms = 0) {
    PortSettings settings;
    settings.baud_rate = 115200;
    settings.terminator = terminator;
    settings.idle_disconnect_ms = idle_disconnect_ms;
    std::promise<absl::Status> opened;
    registry_.Open("alice", name, settings, [&](absl::Status s) { opened.set_value(s); });
    EXPECT_TRUE(opened.get_future().get().ok());
    auto port = registry_.Select("alice", name);
    if (!port.ok()) return nullptr;
    WaitUntilIdle(**port);
    return *port;
  }

  // The worker finishes a task (the open, say) just after its callback has run; an
  // empty write shows when it has, by finishing on this thread.
  void WaitUntilIdle(ManagedPort& port) {
    for (int i = 0; i < 1000; ++i) {
      if (Write(port, "", false).thread == std::this_thread::get_id()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ADD_FAILURE() << "the port's worker never went idle";
  }

  Finished<absl::StatusOr<WriteResult>> Write(ManagedPort& port, std::string bytes, bool text) {
    std::promise<Finished<absl::StatusOr<WriteResult>>> finished;
    port.Write(std::move(bytes), text, 1000, [&](absl::StatusOr<WriteResult> result) {
      finished.set_value({std::move(result), std::this_thread::get_id()});
    });
    return finished.get_future().get();
  }

  Finished<absl::StatusOr<ReadResult>> Read(ManagedPort& port, int64_t timeout_ms) {
    ReadParams params;
    params.timeout_ms = timeout_ms;
    std::promise<Finished<absl::StatusOr<ReadResult>>> finished;
    port.Read(params, [&](absl::StatusOr<ReadResult> result) {
      finished.set_value({std::move(result), std::this_thread::get_id()});
    });
    return finished.get_future().get();
  }

  FakeClock clock_;
  EventHub hub_;
  TricklePort* trickle_ = nullptr;
  PortRegistry registry_;
};

TEST_F(InlineIoTest, AWriteTheDeviceTakesAndAnArrivedReplyFinishHere) {
  auto port = Open("loop://", "\n");
  ASSERT_NE(port, nullptr);
  auto wrote = Write(*port, "*IDN?", true);
  ASSERT_TRUE(wrote.value.ok()) << wrote.value.status();
  EXPECT_EQ(wrote.value->bytes_written, 6);
  EXPECT_EQ(wrote.thread, std::this_thread::get_id());
  auto read = Read(*port, 1000);
  ASSERT_TRUE(read.value.ok()) << read.value.status();
  EXPECT_EQ(read.value->data, "*IDN?");
  EXPECT_FALSE(read.value->timed_out);
  EXPECT_EQ(read.thread, std::this_thread::get_id());
  EXPECT_EQ(port->Snapshot().bytes_read_total, 6);
}

TEST_F(InlineIoTest, AReadThatMustWaitRunsOnTheWorkerAndTimesOutAsBefore) {
  auto port = Open("loop://", "\n");
  ASSERT_NE(port, nullptr);
  auto first = Read(*port, 30);
  ASSERT_TRUE(first.value.ok());
  EXPECT_TRUE(first.value->timed_out);
  EXPECT_NE(first.thread, std::this_thread::get_id());
  // An unterminated line is not a reply yet: the worker waits for the rest.
  WaitUntilIdle(*port);
  ASSERT_TRUE(Write(*port, "partial", false).value.ok());
  auto second = Read(*port, 30);
  ASSERT_TRUE(second.value.ok());
  EXPECT_TRUE(second.value->timed_out);
  EXPECT_EQ(second.value->data, "partial");
  EXPECT_NE(second.thread, std::this_thread::get_id());
  EXPECT_EQ(port->Snapshot().timeout_streak, 2);
}

TEST_F(InlineIoTest, AnIdleAutoCloseRunsOnTheWorker) {
  // Closing a device may wait for its output to drain, so it never happens in a handler.
  auto port = Open("loop://", "\n", /*idle_disconnect_ms=*/1000);
  ASSERT_NE(port, nullptr);
  clock_.Advance(1500);
  auto read = Read(*port, 100);
  ASSERT_TRUE(read.value.ok()) << read.value.status();
  EXPECT_TRUE(read.value->auto_closed);
  EXPECT_NE(read.thread, std::this_thread::get_id());
  EXPECT_EQ(port->state(), PortState::kClosed);
}

TEST_F(InlineIoTest, WhatTheDeviceDoesNotTakeAtOnceIsWrittenByTheWorker) {
  auto port = Open("trickle");
  ASSERT_NE(port, nullptr);
  auto wrote = Write(*port, "abcdefgh", false);
  ASSERT_TRUE(wrote.value.ok()) << wrote.value.status();
  EXPECT_EQ(wrote.value->bytes_written, 8);
  EXPECT_EQ(wrote.value->bytes_written_total, 8);
  EXPECT_NE(wrote.thread, std::this_thread::get_id());
  EXPECT_EQ(trickle_->received(), "abcdefgh");
  auto calls = trickle_->calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].offered, "abcdefgh");
  EXPECT_EQ(calls[0].timeout_ms, 0);
  EXPECT_EQ(calls[0].thread, std::this_thread::get_id());
  EXPECT_EQ(calls[1].offered, "defgh");
  EXPECT_EQ(calls[1].timeout_ms, 1000);
  EXPECT_NE(calls[1].thread, std::this_thread::get_id());
}

TEST_F(InlineIoTest, ASplitTextWriteGetsItsTerminatorOnce) {
  auto port = Open("trickle", "\r\n");
  ASSERT_NE(port, nullptr);
  auto wrote = Write(*port, "VOLT 5", true);
  ASSERT_TRUE(wrote.value.ok()) << wrote.value.status();
  EXPECT_EQ(wrote.value->bytes_written, 8);
  EXPECT_EQ(trickle_->received(), "VOLT 5\r\n");
}

TEST_F(InlineIoTest, WorkQueuedOnTheWorkerKeepsItsOrder) {
  auto port = Open("loop://", "\n");
  ASSERT_NE(port, nullptr);
  // The first read waits on the worker; the write behind it must not overtake it, so
  // the read times out empty and the write lands after.
  std::promise<absl::StatusOr<ReadResult>> read;
  ReadParams params;
  params.timeout_ms = 100;
  port->Read(params, [&](absl::StatusOr<ReadResult> r) { read.set_value(std::move(r)); });
  auto wrote = Write(*port, "later", true);
  ASSERT_TRUE(wrote.value.ok());
  EXPECT_NE(wrote.thread, std::this_thread::get_id());
  auto first = read.get_future().get();
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->timed_out);
  EXPECT_EQ(first->data, "");
  auto second = Read(*port, 1000);
  ASSERT_TRUE(second.value.ok());
  EXPECT_EQ(second.value->data, "later");
}

}  // namespace
}  // namespace labgate::serial
