// The registry and the per-port workers, on loop:// ports with an injected clock.
#include "serial-service/ports/port_registry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "absl/strings/match.h"
#include "serial-service/tests/test_util.h"

namespace labgate::serial {
namespace {

using testing::Await;
using testing::FakeClock;

class RecordingSink : public PortEventSink {
 public:
  void OnPortEvent(const PortEventRecord& event) override {
    absl::MutexLock lock(&mu_);
    events_.push_back(event);
  }
  std::vector<PortEventRecord> events() {
    absl::MutexLock lock(&mu_);
    return events_;
  }

 private:
  absl::Mutex mu_;
  std::vector<PortEventRecord> events_;
};

class PortRegistryTest : public ::testing::Test {
 protected:
  PortRegistryTest() : registry_(DefaultPortFactory, &clock_, &hub_) {}

  absl::Status Open(const std::string& owner, const std::string& name,
                    PortSettings settings = DefaultSettings()) {
    return Await<absl::Status>([&](std::function<void(absl::Status)> done) {
      registry_.Open(owner, name, settings, std::move(done));
    });
  }
  static PortSettings DefaultSettings() {
    PortSettings settings;
    settings.baud_rate = 115200;
    return settings;
  }
  std::shared_ptr<ManagedPort> Port(const std::string& owner, const std::string& name) {
    auto port = registry_.Select(owner, name);
    EXPECT_TRUE(port.ok()) << port.status();
    return port.ok() ? *port : nullptr;
  }
  absl::StatusOr<WriteResult> Write(const std::shared_ptr<ManagedPort>& port,
                                    const std::string& bytes, bool text = true) {
    return Await<absl::StatusOr<WriteResult>>(
        [&](std::function<void(absl::StatusOr<WriteResult>)> done) {
          port->Write(bytes, text, 1000, std::move(done));
        });
  }
  absl::StatusOr<ReadResult> Read(const std::shared_ptr<ManagedPort>& port, int64_t timeout_ms,
                                  bool text = true, int64_t max_bytes = 1024) {
    ReadParams params;
    params.timeout_ms = timeout_ms;
    params.text_mode = text;
    params.max_bytes = max_bytes;
    return Await<absl::StatusOr<ReadResult>>(
        [&](std::function<void(absl::StatusOr<ReadResult>)> done) {
          port->Read(params, std::move(done));
        });
  }
  std::string Close(const std::shared_ptr<ManagedPort>& port) {
    return Await<std::string>(
        [&](std::function<void(std::string)> done) { port->Close("test", std::move(done)); });
  }

  FakeClock clock_;
  EventHub hub_;
  PortRegistry registry_;
};

TEST_F(PortRegistryTest, OpenTwiceIsAlreadyOpenAndAnotherOwnerIsRefused) {
  ASSERT_TRUE(Open("alice", "loop://a").ok());
  absl::Status again = Open("alice", "loop://a");
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(absl::StrContains(again.message(), "Port is already open"));
  absl::Status other = Open("bob", "loop://a");
  EXPECT_EQ(other.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(std::string(other.message()),
            "port loop://a is in use by another client (held by alice)");
  // A named port is found for anyone; whether the caller may use it is PortService's
  // check (port_service_test).
  auto selected = registry_.Select("bob", std::string("loop://a"));
  ASSERT_TRUE(selected.ok());
  EXPECT_EQ((*selected)->owner(), "alice");
}

TEST_F(PortRegistryTest, SelectingWithoutANameNeedsExactlyOneOwnPort) {
  auto none = registry_.Select("alice", std::nullopt);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(Open("alice", "loop://a").ok());
  ASSERT_TRUE(Open("bob", "loop://b").ok());
  auto one = registry_.Select("alice", std::nullopt);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)->name(), "loop://a");
  ASSERT_TRUE(Open("alice", "loop://c").ok());
  auto several = registry_.Select("alice", std::nullopt);
  EXPECT_EQ(several.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(several.status().message(), "loop://a, loop://c"))
      << several.status();
  EXPECT_EQ(registry_.OpenPortNames(),
            (std::vector<std::string>{"loop://a", "loop://b", "loop://c"}));
}

TEST_F(PortRegistryTest, LoopbacksAreIndependent) {
  ASSERT_TRUE(Open("alice", "loop://a").ok());
  ASSERT_TRUE(Open("alice", "loop://b").ok());
  auto a = Port("alice", "loop://a");
  auto b = Port("alice", "loop://b");
  ASSERT_TRUE(Write(a, "to-a", false).ok());
  auto from_b = Read(b, 50, false);
  ASSERT_TRUE(from_b.ok());
  EXPECT_TRUE(from_b->timed_out);
  auto from_a = Read(a, 500, false);
  ASSERT_TRUE(from_a.ok());
  EXPECT_EQ(from_a->data, "to-a");
}

TEST_F(PortRegistryTest, WriteAppendsTerminatorAndReadStripsIt) {
  PortSettings settings = DefaultSettings();
  settings.terminator = "\r\n";
  ASSERT_TRUE(Open("alice", "loop://", settings).ok());
  auto port = Port("alice", "loop://");
  auto wrote = Write(port, "one");
  ASSERT_TRUE(wrote.ok());
  EXPECT_EQ(wrote->bytes_written, 5);
  ASSERT_TRUE(Write(port, "two\r\n").ok());  // already terminated: nothing added
  auto first = Read(port, 500);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->data, "one");
  EXPECT_FALSE(first->timed_out);
  auto second = Read(port, 500);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->data, "two");
  EXPECT_EQ(second->bytes_read_total, 10);
  PortSnapshot snapshot = port->Snapshot();
  EXPECT_EQ(snapshot.bytes_written_total, 10);
  EXPECT_EQ(snapshot.bytes_read_total, 10);
}

TEST_F(PortRegistryTest, ReadTimeoutGivesZeroBytesAndCountsTheStreak) {
  ASSERT_TRUE(Open("alice", "loop://").ok());
  auto port = Port("alice", "loop://");
  for (int i = 1; i <= 3; ++i) {
    auto result = Read(port, 10);
    ASSERT_TRUE(result.ok());
    EXPECT_TRUE(result->timed_out);
    EXPECT_EQ(result->data, "");
    EXPECT_EQ(port->Snapshot().timeout_streak, i);
  }
  ASSERT_TRUE(Write(port, "x").ok());
  ASSERT_TRUE(Read(port, 100).ok());
  EXPECT_EQ(port->Snapshot().timeout_streak, 0);
}

TEST_F(PortRegistryTest, IdleAutoCloseFollowsTheInjectedClock) {
  RecordingSink* sink = new RecordingSink();
  hub_.Subscribe("loop://idle", std::shared_ptr<PortEventSink>(sink));
  PortSettings settings = DefaultSettings();
  settings.idle_disconnect_ms = 1000;
  ASSERT_TRUE(Open("alice", "loop://idle", settings).ok());
  auto port = Port("alice", "loop://idle");

  clock_.Advance(999);
  auto early = Read(port, 0);
  ASSERT_TRUE(early.ok());
  EXPECT_FALSE(early->auto_closed);
  EXPECT_TRUE(early->timed_out);

  // A successful write is activity: the idle period starts again.
  ASSERT_TRUE(Write(port, "x", false).ok());
  clock_.Advance(999);
  auto data = Read(port, 100, false);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->data, "x");
  clock_.Advance(1000);
  auto closed = Read(port, 0);
  ASSERT_TRUE(closed.ok());
  EXPECT_TRUE(closed->auto_closed);
  EXPECT_EQ(closed->idle_ms, 1000);
  EXPECT_EQ(closed->idle_close_count, 1);
  EXPECT_EQ(port->state(), PortState::kClosed);
  EXPECT_EQ(registry_.Find("loop://idle"), nullptr);
  EXPECT_EQ(Close(port), "already closed");

  // Reopen at once; the count carries on.
  ASSERT_TRUE(Open("alice", "loop://idle", settings).ok());
  port = Port("alice", "loop://idle");
  clock_.Advance(5000);
  auto again = Read(port, 0);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->auto_closed);
  EXPECT_EQ(again->idle_close_count, 2);
  EXPECT_EQ(registry_.IdleCloseCount("loop://idle"), 2);

  bool saw_auto_close = false;
  for (const PortEventRecord& event : sink->events()) {
    if (event.type == PortEventRecord::Type::kAutoClose) {
      saw_auto_close = true;
      EXPECT_EQ(event.reason, "idle_timeout");
    }
  }
  EXPECT_TRUE(saw_auto_close);
}

TEST_F(PortRegistryTest, NoIdleCloseWithoutIdleDisconnect) {
  ASSERT_TRUE(Open("alice", "loop://").ok());
  auto port = Port("alice", "loop://");
  clock_.Advance(10'000'000);
  auto result = Read(port, 0);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->auto_closed);
}

TEST_F(PortRegistryTest, CloseIsIdempotent) {
  ASSERT_TRUE(Open("alice", "loop://").ok());
  auto port = Port("alice", "loop://");
  EXPECT_EQ(Close(port), "closed");
  EXPECT_EQ(Close(port), "already closed");
  EXPECT_EQ(registry_.Find("loop://"), nullptr);
  auto write = Write(port, "x");
  EXPECT_EQ(write.status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(Open("alice", "loop://").ok());
}

TEST_F(PortRegistryTest, ReleasingTheLastLeaseClosesTheOwnersPorts) {
  registry_.AcquireLease("alice");
  registry_.AcquireLease("alice");
  ASSERT_TRUE(Open("alice", "loop://a").ok());
  ASSERT_TRUE(Open("alice", "loop://b").ok());
  ASSERT_TRUE(Open("bob", "loop://c").ok());
  registry_.ReleaseLease("alice");
  EXPECT_EQ(registry_.OpenPortNames().size(), 3u);
  registry_.ReleaseLease("alice");
  for (int i = 0; i < 200 && registry_.OpenPortNames().size() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(registry_.OpenPortNames(), std::vector<std::string>{"loop://c"});
}

TEST_F(PortRegistryTest, CloseAllOfReportsTheClosedPorts) {
  ASSERT_TRUE(Open("alice", "loop://a").ok());
  ASSERT_TRUE(Open("alice", "loop://b").ok());
  auto names =
      Await<std::vector<std::string>>([&](std::function<void(std::vector<std::string>)> done) {
        registry_.CloseAllOf("alice", "test", std::move(done));
      });
  EXPECT_EQ(names, (std::vector<std::string>{"loop://a", "loop://b"}));
  EXPECT_TRUE(registry_.OpenPortNames().empty());
}

TEST_F(PortRegistryTest, ReconfigureKeepsThePortOpenAndResetsMetrics) {
  ASSERT_TRUE(Open("alice", "loop://").ok());
  auto port = Port("alice", "loop://");
  ASSERT_TRUE(Write(port, "abc", false).ok());
  ASSERT_TRUE(Read(port, 100, false).ok());
  EXPECT_EQ(port->Snapshot().bytes_written_total, 3);
  PortSettings settings = DefaultSettings();
  settings.baud_rate = 9600;
  auto applied = Await<absl::StatusOr<PortSettings>>(
      [&](std::function<void(absl::StatusOr<PortSettings>)> done) {
        port->Reconfigure(settings, std::move(done));
      });
  ASSERT_TRUE(applied.ok());
  PortSnapshot snapshot = port->Snapshot();
  EXPECT_EQ(snapshot.state, PortState::kOpen);
  EXPECT_EQ(snapshot.settings.baud_rate, 9600);
  EXPECT_EQ(snapshot.bytes_written_total, 0);
  EXPECT_EQ(snapshot.bytes_read_total, 0);
}

TEST_F(PortRegistryTest, CloseInterruptsABlockedRead) {
  ASSERT_TRUE(Open("alice", "loop://").ok());
  auto port = Port("alice", "loop://");
  const auto start = std::chrono::steady_clock::now();
  auto blocked = std::async(std::launch::async, [&] { return Read(port, 60000); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(Close(port), "closed");
  auto result = blocked.get();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted) << result.status();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_F(PortRegistryTest, MetricsDurationsFollowTheInjectedClock) {
  ASSERT_TRUE(Open("alice", "loop://").ok());
  auto port = Port("alice", "loop://");
  clock_.Advance(500);
  ASSERT_TRUE(Write(port, "x", false).ok());
  clock_.Advance(200);
  PortSnapshot snapshot = port->Snapshot();
  EXPECT_EQ(snapshot.open_duration_ms, 700);
  EXPECT_EQ(snapshot.last_activity_ms, 200);
  EXPECT_EQ(snapshot.bytes_written_total, 1);
}

// A read blocked on one port does not hold up another port's calls.
TEST_F(PortRegistryTest, AStalledPortDoesNotDelayAnother) {
  ASSERT_TRUE(Open("alice", "loop://stalled").ok());
  ASSERT_TRUE(Open("alice", "loop://busy").ok());
  auto stalled = Port("alice", "loop://stalled");
  auto busy = Port("alice", "loop://busy");
  const auto start = std::chrono::steady_clock::now();
  auto stalled_read = std::async(std::launch::async, [&] { return Read(stalled, 2000); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(Write(busy, "ping", false).ok());
    auto echo = Read(busy, 1000, false);
    ASSERT_TRUE(echo.ok());
    EXPECT_EQ(echo->data, "ping");
  }
  const auto busy_done = std::chrono::steady_clock::now() - start;
  EXPECT_LT(busy_done, std::chrono::milliseconds(1000));
  EXPECT_EQ(stalled_read.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  auto result = stalled_read.get();
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->timed_out);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1900));
}

// The write gate sees the device's unfinished line before each write; the line outlives the
// port, since the device keeps it when the port closes.
TEST_F(PortRegistryTest, TheWriteGateJudgesWritesJoiningAnUnfinishedLineKeptAcrossCloses) {
  std::vector<std::pair<std::string, std::string>> asked;  // (the line so far, the write)
  std::vector<std::string> sent;                           // what once_sent saw go out
  registry_.SetWriteGate([&asked, &sent](ManagedPort&, const WrittenLine& line,
                                         absl::string_view bytes,
                                         std::function<void()>* once_sent) {
    if (absl::StrContains(bytes, "35")) return absl::PermissionDeniedError("refused by the gate");
    *once_sent = [&sent, bytes = std::string(bytes)] { sent.push_back(bytes); };
    if (!line.empty()) asked.emplace_back(line.text(), std::string(bytes));
    return absl::OkStatus();
  });
  PortSettings lines = DefaultSettings();
  lines.terminator = "\n";
  ASSERT_TRUE(Open("alice", "loop://psu", lines).ok());
  std::shared_ptr<ManagedPort> port = Port("alice", "loop://psu");
  ASSERT_NE(port, nullptr);
  ASSERT_TRUE(Write(port, "VOLT 1").ok()) << "text: the terminator ends the line";
  EXPECT_TRUE(asked.empty()) << "nothing was unfinished";
  EXPECT_FALSE(port->HasUnfinishedLine());
  ASSERT_TRUE(Write(port, "VO", /*text=*/false).ok());
  EXPECT_TRUE(port->HasUnfinishedLine());
  absl::StatusOr<WriteResult> refused = Write(port, "LT 35\n", /*text=*/false);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(asked.empty()) << "refused before it was noted";
  absl::StatusOr<ReadResult> looped = Read(port, 100, /*text=*/false);
  ASSERT_TRUE(looped.ok()) << looped.status();
  EXPECT_EQ(looped->data, "VOLT 1\nVO") << "nothing refused was sent";
  EXPECT_EQ(sent, (std::vector<std::string>{"VOLT 1\n", "VO"})) << "once_sent: what went out";

  EXPECT_EQ(Close(port), "closed");
  ASSERT_TRUE(Open("alice", "loop://psu", lines).ok());
  port = Port("alice", "loop://psu");
  ASSERT_NE(port, nullptr);
  EXPECT_TRUE(port->HasUnfinishedLine()) << "the device still holds VO";
  ASSERT_TRUE(Write(port, "LT 3\n", /*text=*/false).ok());
  EXPECT_EQ(registry_.WrittenLinesKept(), 1u);
  EXPECT_EQ(Close(port), "closed");
  EXPECT_EQ(registry_.WrittenLinesKept(), 0u) << "a finished line is not kept after its port";
  EXPECT_EQ(asked, (std::vector<std::pair<std::string, std::string>>{{"VO", "LT 3\n"}}));
  EXPECT_FALSE(port->HasUnfinishedLine());
}

}  // namespace
}  // namespace labgate::serial
